// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Out of memory is an error, never a crash: a program that cannot allocate says
/// "<program>: out of memory (...)" on stderr and exits 1, under any address-space limit.
///
/// Two paths lead there, and a program needs both:
/// - `std::bad_alloc` (or `std::length_error`, a size beyond any allocation) reaching main is caught
///   there and reported with `out_of_memory_message()`;
/// - one that cannot reach main ends in `std::terminate`: an exception leaving a `noexcept` function
///   or a destructor. The case that made this necessary is nlohmann::json's destructor (noexcept):
///   it moves a tree's children to a heap-allocated stack to destroy them without recursion, so
///   when an allocation fails while a large document is built, copied or written, the unwinding
///   destroys the partial trees, that stack's allocation fails in turn, and the program aborted
///   (SIGABRT, "terminate called after throwing an instance of 'std::bad_alloc'").
///
/// `guard_out_of_memory(program)`, called first thing in main, installs
/// - a reserve of address space (`out_of_memory_reserve_bytes`, never touched, so it costs no
///   resident memory) that the new-handler releases at the first failed allocation before it
///   throws `std::bad_alloc`: the unwinding and its destructors can allocate again, and the
///   exception reaches main's handler;
/// - a terminate handler that reports an out-of-memory exception that still ends in
///   `std::terminate` (writing only to the unbuffered stderr, allocating nothing) and exits 1;
///   any other exception keeps the previous handler (the runtime's message and abort).

#include <cstddef>    // std::size_t
#include <cstdio>     // std::fputs, stderr
#include <cstdlib>    // std::malloc, std::free, std::_Exit, std::abort
#include <exception>  // std::set_terminate, std::current_exception, std::rethrow_exception
#include <new>        // std::set_new_handler, std::bad_alloc
#include <stdexcept>  // std::length_error

namespace strata {
inline namespace v0 {

/// Address space held back for the unwinding after the first failed allocation: 16 MiB, about
/// ten times what destroying the largest JSON document a program writes takes.
inline constexpr std::size_t out_of_memory_reserve_bytes = std::size_t{16} << 20;

/// The text after "<program>: " when memory runs out.
constexpr const char* out_of_memory_message() {
  return "out of memory (an input asks for more than this machine or its address-space limit allows; see the "
         "limits in strata/core/limits.hpp)";
}

namespace detail {
struct out_of_memory_state {
  const char* program = "strata";
  void* reserve = nullptr;
  std::terminate_handler previous = nullptr;
};
inline out_of_memory_state& out_of_memory_guard_state() {
  static out_of_memory_state s;
  return s;
}

/// Writes "<program>: out of memory (...)" to stderr without allocating.
inline void write_out_of_memory(const char* program) noexcept {
  std::fputs(program, stderr);
  std::fputs(": ", stderr);
  std::fputs(out_of_memory_message(), stderr);
  std::fputs("\n", stderr);
}

inline void out_of_memory_new_handler() {
  auto& s = out_of_memory_guard_state();
  if (s.reserve != nullptr) {
    std::free(s.reserve);
    s.reserve = nullptr;
  }
  throw std::bad_alloc();
}

[[noreturn]] inline void out_of_memory_terminate() noexcept {
  const auto& s = out_of_memory_guard_state();
  if (const std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::bad_alloc&) {
      write_out_of_memory(s.program);
      std::_Exit(1);
    } catch (const std::length_error&) {
      write_out_of_memory(s.program);
      std::_Exit(1);
    } catch (...) {  // not memory: the previous handler's report
    }
  }
  if (s.previous != nullptr) s.previous();
  std::abort();
}
}  // namespace detail

/// Installs the reserve, the new-handler and the terminate handler (file comment) for a program
/// named `program` (a string that lives as long as the program, e.g. a literal). Call it once,
/// first thing in main.
inline void guard_out_of_memory(const char* program) {
  auto& s = detail::out_of_memory_guard_state();
  s.program = program;
  if (s.reserve == nullptr) s.reserve = std::malloc(out_of_memory_reserve_bytes);
  std::set_new_handler(&detail::out_of_memory_new_handler);
  const std::terminate_handler old = std::set_terminate(&detail::out_of_memory_terminate);
  if (old != &detail::out_of_memory_terminate) s.previous = old;
}

/// Reports running out of memory the way the terminate handler does ("<program>: out of memory
/// (...)" on stderr): for main's `catch (const std::bad_alloc&)`.
inline void report_out_of_memory(const char* program) noexcept { detail::write_out_of_memory(program); }

}  // namespace v0
}  // namespace strata
