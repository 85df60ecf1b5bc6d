// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Files in and out: the one rule by which strata opens outside input, the one by which its
/// programs write output, and how a path is shown in a message (README, Files and limits).
///
/// **Input.** `read_input_file(path, role, max_bytes, limit_name)` opens `path` read-only and
/// non-blocking (a FIFO nobody writes cannot block the open), checks with `fstat` that it is a
/// regular file (not a directory, a device, a FIFO or a socket) no larger than `max_bytes`, and
/// reads at most `max_bytes` bytes of it (a file that grows while it is read is refused, not read
/// forever). Every failure is a `config_error` whose field is `role` ("trace", "scenario",
/// "config.json", ...) and whose message names the role, the file and the limit, e.g.
/// `[strata.file] trace '/dev/zero' is not a regular file (a character device)`.
/// The size caps are `input_limits` fields (`core/limits.hpp`), one per kind of file.
///
/// **Output.** `output_file` writes to a temporary file beside the target (same directory, so the
/// final `rename` is atomic) and renames it over the target only on `commit()`; destroyed without a
/// commit (an exception, a failed point), it removes the temporary file, so an existing output is
/// never truncated by a failed run. Before it creates anything it refuses a target that is an
/// input of the same run (`refuse_input`: same file by device and inode, or the same path), a
/// directory, or a path whose directory does not exist. A target that exists and is not a regular
/// file (`/dev/null`, `/dev/stdout`, a FIFO) is written in place: there is nothing on it to lose,
/// and renaming over it would replace the device. A symbolic link is followed: the file it names
/// is replaced, the link stays.
///
/// **Messages.** `detail::message_path(s)` shortens a long value in the middle and keeps its tail,
/// so the file name of a long path always appears; cuts fall on UTF-8 character boundaries.

#include <atomic>       // output_file's temporary-name serial
#include <cerrno>       // errno, EINTR, EEXIST
#include <cstdint>      // std::int64_t
#include <cstdio>       // std::rename, std::remove
#include <cstring>      // std::strerror
#include <filesystem>   // std::filesystem::path, status
#include <fstream>      // std::ofstream, the output stream
#include <initializer_list>  // refuse_input's list of inputs
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::move

#if !defined(_WIN32)
#include <fcntl.h>     // open, O_RDONLY, O_NONBLOCK, O_CLOEXEC
#include <sys/stat.h>  // fstat, stat, S_ISREG
#include <unistd.h>    // read, close, getpid
#endif

#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"

namespace strata {
inline namespace v0 {
namespace detail {

/// Index of the start of the UTF-8 character that holds byte `i` of `s` (continuation bytes are
/// 10xxxxxx).
template <class = void>
inline std::size_t utf8_char_start(std::string_view s, std::size_t i) {
  while (i > 0 && i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0U) == 0x80U) --i;
  return i;
}

/// `s` for a message: as it is up to `max` bytes; longer, its head and its tail (two thirds of the
/// room) joined by "...", cut on character boundaries, so a long path keeps its file name.
template <class = void>
inline std::string message_path(std::string_view s, std::size_t max = 160) {
  if (max < 16) max = 16;
  if (s.size() <= max) return std::string(s);
  const std::size_t tail_room = (max - 3) * 2 / 3;
  const std::size_t head_room = max - 3 - tail_room;
  const std::size_t head_end = utf8_char_start(s, head_room);
  std::size_t tail_begin = s.size() - tail_room;
  // Move forward to the next character start, so the tail never begins inside a character.
  while (tail_begin < s.size() && (static_cast<unsigned char>(s[tail_begin]) & 0xC0U) == 0x80U) ++tail_begin;
  std::string out;
  out.reserve(head_end + 3 + (s.size() - tail_begin));
  out.append(s.substr(0, head_end));
  out.append("...");
  out.append(s.substr(tail_begin));
  return out;
}

/// `'s'` for a message (`message_path` inside single quotes).
template <class = void>
inline std::string quoted_path(std::string_view s) {
  std::string q = "'";  // appended piecewise: GCC 12 warns falsely (-Wrestrict) on "'" + std::string&&
  q += message_path(s);
  q += '\'';
  return q;
}

[[noreturn]] inline void file_fail(std::string_view role, std::string_view path, const std::string& what) {
  std::string msg = "[strata.file] ";
  msg.append(role);
  msg += ' ';
  msg += quoted_path(path);
  msg += ' ';
  msg += what;
  throw config_error(std::string(role), msg);
}

#if !defined(_WIN32)
/// What a file that is not a regular file is, for a message.
template <class = void>
inline const char* file_kind(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}
#endif

}  // namespace detail

/// Reads the whole of an input file under the opening rule (see the file comment): a regular
/// file of at most `max_bytes` bytes. `role` names the file's use in errors ("trace",
/// "scenario"); `limit_name` the `strata::limits()` field that sets `max_bytes`.
template <class = void>
inline std::string read_input_file(const std::string& path, std::string_view role, std::int64_t max_bytes,
                                   const char* limit_name) {
  const auto too_large = [&](const std::string& got) {
    detail::file_fail(role, path,
                      "is larger than the limit of " + std::to_string(max_bytes) + " bytes (strata::limits()." +
                          limit_name + ")" + got);
  };
  if (path.empty()) detail::file_fail(role, path, "is an empty path");
#if defined(_WIN32)
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) detail::file_fail(role, path, "is not a regular file or cannot be opened");
  std::ifstream f(path, std::ios::binary);
  if (!f) detail::file_fail(role, path, "cannot be opened");
  std::string text;
  char buf[1 << 16];
  while (f.read(buf, sizeof buf) || f.gcount() > 0) {
    text.append(buf, static_cast<std::size_t>(f.gcount()));
    if (static_cast<std::int64_t>(text.size()) > max_bytes) too_large("");
  }
  if (f.bad()) detail::file_fail(role, path, "cannot be read");
  return text;
#else
  int fd = -1;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    const int err = errno;
    detail::file_fail(role, path, std::string("cannot be opened: ") + std::strerror(err));
  }
  struct closer {
    int fd;
    ~closer() { ::close(fd); }
  } guard{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    detail::file_fail(role, path, std::string("cannot be examined: ") + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) detail::file_fail(role, path, std::string("is not a regular file (") + detail::file_kind(st.st_mode) + ")");
  if (static_cast<std::int64_t>(st.st_size) > max_bytes) too_large(", got " + std::to_string(st.st_size) + " bytes");
  std::string text;
  text.reserve(static_cast<std::size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      detail::file_fail(role, path, std::string("cannot be read: ") + std::strerror(err));
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (static_cast<std::int64_t>(text.size()) > max_bytes) too_large(" (it grew while it was read)");
  }
  return text;
#endif
}

/// True if `a` and `b` name the same existing file (device and inode; on systems without them,
/// `std::filesystem::equivalent`).
template <class = void>
inline bool same_file(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return false;
#if defined(_WIN32)
  std::error_code ec;
  return std::filesystem::equivalent(a, b, ec);
#else
  struct stat sa {}, sb {};
  if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
#endif
}

/// Throws `config_error` (field `role`) if the output `out` names one of `inputs`: the same file,
/// or the same path once made absolute and normal (an input that does not exist yet).
template <class = void>
inline void refuse_input(const std::string& out, std::string_view role,
                         std::initializer_list<std::string_view> inputs) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path o = fs::weakly_canonical(fs::absolute(fs::path(out), ec), ec);
  for (const std::string_view in : inputs) {
    if (in.empty()) continue;
    const std::string i(in);
    std::error_code ec2;
    const fs::path p = fs::weakly_canonical(fs::absolute(fs::path(i), ec2), ec2);
    if (same_file(out, i) || (!o.empty() && o == p)) {
      detail::file_fail(role, out, "is an input of this run (" + detail::quoted_path(i) + "): refused, it would be overwritten");
    }
  }
}

/// An output written to a temporary file beside its target and renamed over it on `commit()`
/// (see the file comment). Not copyable; movable.
class output_file {
 public:
  /// Creates the temporary file for `path`; `role` names the output in errors ("out", "plot").
  template <class = void>
  output_file(std::string path, std::string role) : path_(std::move(path)), role_(std::move(role)) {
    namespace fs = std::filesystem;
    if (path_.empty()) detail::file_fail(role_, path_, "is an empty path");
    std::error_code ec;
    fs::path target(path_);
    const fs::file_status ls = fs::symlink_status(target, ec);
    if (fs::is_symlink(ls)) {
      std::error_code ec2;
      const fs::path resolved = fs::weakly_canonical(target, ec2);
      if (!ec2) target = resolved;
    }
    const fs::file_status st = fs::status(target, ec);
    if (fs::is_directory(st)) detail::file_fail(role_, path_, "is a directory; expected a file name");
    final_ = target.string();
    if (fs::exists(st) && !fs::is_regular_file(st)) {
      // A device or FIFO: written in place (nothing on it to lose; a rename would replace it).
      stream_.open(final_, std::ios::binary | std::ios::out);
      if (!stream_) detail::file_fail(role_, path_, "cannot be opened for writing");
      in_place_ = true;
      return;
    }
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    if (!fs::is_directory(dir, ec)) detail::file_fail(role_, path_, "cannot be written: its directory does not exist");
    const std::string stem = "." + target.filename().string() + ".tmp";
#if defined(_WIN32)
    const long pid = 0;
#else
    const long pid = static_cast<long>(::getpid());
#endif
    for (int attempt = 0; attempt < 100 && temp_.empty(); ++attempt) {
      const std::string candidate =
          (dir / (stem + std::to_string(pid) + "." + std::to_string(next_serial()))).string();
#if defined(_WIN32)
      if (fs::exists(candidate, ec)) continue;
#else
      // O_EXCL: never an existing file; mode 0666 less the umask, as an ordinary new file.
      const int fd = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd < 0) {
        if (errno == EEXIST) continue;
        const int err = errno;
        detail::file_fail(role_, path_, std::string("cannot be written: ") + std::strerror(err));
      }
      ::close(fd);
#endif
      temp_ = candidate;
    }
    if (temp_.empty()) detail::file_fail(role_, path_, "cannot be written: no free temporary name beside it");
    stream_.open(temp_, std::ios::binary | std::ios::out | std::ios::trunc);
    if (!stream_) {
      std::remove(temp_.c_str());
      temp_.clear();
      detail::file_fail(role_, path_, "cannot be opened for writing");
    }
  }
  output_file(const output_file&) = delete;
  output_file& operator=(const output_file&) = delete;
  output_file(output_file&& o) noexcept
      : path_(std::move(o.path_)), role_(std::move(o.role_)), final_(std::move(o.final_)),
        temp_(std::move(o.temp_)), stream_(std::move(o.stream_)), in_place_(o.in_place_), done_(o.done_) {
    o.temp_.clear();
    o.done_ = true;
  }
  output_file& operator=(output_file&&) = delete;
  /// Removes the temporary file unless committed: the target is left as it was.
  ~output_file() {
    if (!done_ && !temp_.empty()) {
      stream_.close();
      std::remove(temp_.c_str());
    }
  }

  /// The stream to write the output to.
  template <class = void>
  [[nodiscard]] std::ostream& stream() { return stream_; }
  /// The target path as given.
  template <class = void>
  [[nodiscard]] const std::string& path() const { return path_; }

  /// Closes the stream and renames the temporary file over the target; throws `config_error`
  /// (and leaves the target untouched) if a write failed or the rename is refused.
  template <class = void>
  void commit() {
    if (done_) return;
    stream_.flush();
    stream_.close();
    if (!stream_) {
      if (!temp_.empty()) std::remove(temp_.c_str());
      done_ = true;
      detail::file_fail(role_, path_, "could not be written completely (disk full or an I/O error?)");
    }
    done_ = true;
    if (in_place_) return;
    if (std::rename(temp_.c_str(), final_.c_str()) != 0) {
      const int err = errno;
      std::remove(temp_.c_str());
      detail::file_fail(role_, path_, std::string("could not replace the file: ") + std::strerror(err));
    }
  }

  /// Writes `text` to `path` through an `output_file` (the whole output at once).
  template <class = void>
  static void write(const std::string& path, std::string_view role, std::string_view text) {
    output_file f(path, std::string(role));
    f.stream().write(text.data(), static_cast<std::streamsize>(text.size()));
    f.commit();
  }

 private:
  template <class = void>
  static unsigned long next_serial() {
    static std::atomic<unsigned long> n{0};
    return n.fetch_add(1, std::memory_order_relaxed);
  }

  std::string path_, role_, final_, temp_;
  std::ofstream stream_;
  bool in_place_ = false, done_ = false;
};

}  // namespace v0
}  // namespace strata
