// strata-eval: gnuplot without a shell, for `run --plot` and `validate --plot`.
//
// gnuplot is started with fork and execvp and an argument vector (`gnuplot -`), in the plot's
// directory, the script on its standard input and its standard output sent to standard error (a
// table on standard output stays clean). No text reaches a shell; the script's own strings are
// escaped by strata::gnuplot_string and strata::gnuplot_file (report/gnuplot_text.hpp).
//
// The images are drawn to temporary names beside their targets (`.<name>.<pid>.render`) and
// renamed over them only when gnuplot exits 0, so a failed render leaves an existing plot as it
// was and removes what it drew.
#pragma once

#include <fcntl.h>     // fcntl, FD_CLOEXEC
#include <sys/wait.h>  // waitpid, WIFEXITED, WEXITSTATUS
#include <unistd.h>    // fork, pipe, dup2, chdir, execvp, access, write, getpid

#include <cerrno>       // errno, EINTR
#include <csignal>      // sigaction (POSIX), SIGPIPE: a script gnuplot stops reading is not fatal
#include <cstdio>       // std::rename, std::remove
#include <cstdlib>      // std::getenv
#include <functional>   // std::function
#include <iostream>     // std::cout, std::cerr (flushed before the fork)
#include <sstream>      // std::stringstream, PATH's directories
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

namespace strata_eval {

// gnuplot on PATH (an executable file named gnuplot in one of its directories).
inline bool gnuplot_on_path() {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) dir = ".";
    if (access((dir + "/gnuplot").c_str(), X_OK) == 0) return true;
  }
  return false;
}

// Runs `gnuplot -` in `dir` with `script` on its standard input (no shell); its exit status, or
// -1 if it could not start or did not exit normally.
inline int run_gnuplot(const std::string& dir, std::string_view script) {
  std::cout.flush();
  std::cerr.flush();
  int fds[2];
  if (pipe(fds) != 0) return -1;
  for (int fd : fds) fcntl(fd, F_SETFD, FD_CLOEXEC);
  // Everything the child needs is made before the fork: after it, only async-signal-safe calls.
  char prog[] = "gnuplot", from_stdin[] = "-";
  char* argv[] = {prog, from_stdin, nullptr};
  const char* where = dir.c_str();
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    if (dup2(fds[0], STDIN_FILENO) < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0 || chdir(where) != 0) _exit(127);
    execvp(prog, argv);
    _exit(127);
  }
  close(fds[0]);
  // gnuplot stops reading at an error in the script: the write then fails (EPIPE) instead of
  // ending this process with SIGPIPE.
  struct sigaction ignore {}, previous {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGPIPE, &ignore, &previous);
  std::size_t done = 0;
  while (done < script.size()) {
    const ssize_t n = write(fds[1], script.data() + done, script.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  close(fds[1]);
  sigaction(SIGPIPE, &previous, nullptr);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Renders the files `targets` (names in `dir`) with the script `script(names)` draws to `names`,
// their temporary names in `dir`: when gnuplot exits 0 each temporary file is renamed over its
// target, otherwise (or when one is missing) every temporary file is removed and the targets are
// left as they were (file comment). Returns gnuplot's exit status, -1 if it could not start, 1
// if it exited 0 but a file could not be renamed.
inline int render_gnuplot(const std::string& dir, const std::vector<std::string>& targets,
                          const std::function<std::string(const std::vector<std::string>&)>& script) {
  std::vector<std::string> temps;
  temps.reserve(targets.size());
  for (const auto& t : targets) temps.push_back("." + t + "." + std::to_string(static_cast<long>(getpid())) + ".render");
  const auto in_dir = [&](const std::string& name) { return dir + "/" + name; };
  int rc = run_gnuplot(dir, script(temps));
  if (rc == 0) {
    for (const auto& t : temps) {
      if (access(in_dir(t).c_str(), F_OK) != 0) rc = 1;
    }
  }
  for (std::size_t i = 0; i < temps.size(); ++i) {
    if (rc == 0 && std::rename(in_dir(temps[i]).c_str(), in_dir(targets[i]).c_str()) == 0) continue;
    if (rc == 0) rc = 1;
    std::remove(in_dir(temps[i]).c_str());
  }
  return rc;
}

}  // namespace strata_eval
