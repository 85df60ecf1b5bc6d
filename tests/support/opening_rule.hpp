// Shared test helper: a reader of outside files follows the opening rule (strata/core/files.hpp).
// `check_opening_rule` hands the reader, in turn, a character device (/dev/zero), a directory, a
// FIFO nobody writes (made in a scratch directory) and a file one byte over its size cap (the cap
// lowered for the call), and checks that each is a config_error naming the role, the file and the
// reason, with the expected field; then that the same file within the cap passes the rule.
//
// A reader that blocked on the FIFO would hang the test: a watchdog thread opens the FIFO for
// writing after a few seconds (which releases a blocked open) and the check fails instead.
#pragma once

#include <fcntl.h>     // open, O_WRONLY, O_NONBLOCK
#include <sys/stat.h>  // mkfifo
#include <unistd.h>    // close

#include <doctest/doctest.h>

#include <atomic>              // std::atomic
#include <chrono>              // std::chrono::seconds
#include <condition_variable>  // std::condition_variable
#include <cstdint>             // std::int64_t
#include <functional>          // std::function
#include <mutex>               // std::mutex
#include <string>              // std::string
#include <thread>              // std::thread

#include "strata/core/error.hpp"
#include "strata/core/files.hpp"
#include "strata/core/limits.hpp"
#include "support/scratch_dir.hpp"

namespace strata_test {

/// The message and field of the config_error `f()` throws ("<no config_error>" for both if none).
struct opening_error {
  std::string what, field;
};
inline opening_error opening_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const strata::config_error& e) {
    return {e.what(), e.field()};
  }
  return {"<no config_error>", "<no config_error>"};
}

/// Sets one `strata::limits()` cap for a scope.
class scoped_cap {
 public:
  scoped_cap(std::int64_t strata::input_limits::*cap, std::int64_t value)
      : cap_(cap), old_(strata::limits().*cap) {
    strata::limits().*cap_ = value;
  }
  ~scoped_cap() { strata::limits().*cap_ = old_; }
  scoped_cap(const scoped_cap&) = delete;
  scoped_cap& operator=(const scoped_cap&) = delete;

 private:
  std::int64_t strata::input_limits::*cap_;
  std::int64_t old_;
};

/// Checks the opening rule on `read` (file comment). `role` is the role the rule's message names,
/// `field` the field the caller's config_error names (the role, or a scenario key that wraps it),
/// `cap` and `cap_name` the size cap of the kind of file, and `valid` a text `read` accepts.
inline void check_opening_rule(const std::function<void(const std::string&)>& read, const std::string& role,
                               const std::string& field, std::int64_t strata::input_limits::*cap,
                               const std::string& cap_name, const std::string& valid) {
  const scratch_dir d("opening");
  const auto named = [&](const std::string& path) { return role + " " + strata::detail::quoted_path(path) + " "; };
  const auto contains = [](const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; };
  {
    INFO("a character device: /dev/zero");
    const auto e = opening_error_of([&] { read("/dev/zero"); });
    CHECK(contains(e.what, named("/dev/zero") + "is not a regular file (a character device)"));
    CHECK(e.field == field);
  }
  {
    const std::string dir = d.path().string();
    INFO("a directory: " << dir);
    const auto e = opening_error_of([&] { read(dir); });
    CHECK(contains(e.what, named(dir) + "is not a regular file (a directory)"));
    CHECK(e.field == field);
  }
  {
    const std::string fifo = d.file("pipe");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    INFO("a FIFO nobody writes: " << fifo);
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    std::atomic<bool> released{false};
    std::thread watchdog([&] {
      std::unique_lock<std::mutex> lock(m);
      if (cv.wait_for(lock, std::chrono::seconds(5), [&] { return done; })) return;
      const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);  // releases an open that blocks
      if (fd >= 0) ::close(fd);
      released = true;
    });
    const auto e = opening_error_of([&] { read(fifo); });
    {
      const std::lock_guard<std::mutex> lock(m);
      done = true;
    }
    cv.notify_one();
    watchdog.join();
    CHECK_FALSE(released.load());
    CHECK(contains(e.what, named(fifo) + "is not a regular file (a FIFO)"));
    CHECK(e.field == field);
  }
  {
    const std::string path = d.write("over_cap", valid);
    const auto size = static_cast<std::int64_t>(valid.size());
    INFO("a file of " << size << " bytes over a cap of " << size - 1);
    {
      const scoped_cap low(cap, size - 1);
      const auto e = opening_error_of([&] { read(path); });
      CHECK(contains(e.what, named(path) + "is larger than the limit of " + std::to_string(size - 1) +
                                 " bytes (strata::limits()." + cap_name + "), got " + std::to_string(size) + " bytes"));
      CHECK(e.field == field);
    }
    // Within the cap the file passes the rule (an error after it is the reader's, not the rule's).
    const scoped_cap exact(cap, size);
    CHECK(opening_error_of([&] { read(path); }).what.find("[strata.file]") == std::string::npos);
  }
}

}  // namespace strata_test
