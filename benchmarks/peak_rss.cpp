// peak_rss: runs a command and writes its peak resident set size (max RSS, in KiB, as GNU time's
// %M) to a file, for benchmarks/peak_memory.sh where /usr/bin/time is missing (Debian's `time`
// package is not installed by default).
//
//   peak_rss <output file> <program> [arguments...]
//
// The command's standard streams are its own; the exit status is the command's (128 + the signal
// if a signal ended it; 127 if it could not be started). POSIX only (fork, execvp, wait4).
#include <sys/resource.h>  // rusage
#include <sys/wait.h>      // wait4, WIFEXITED, WEXITSTATUS, WIFSIGNALED, WTERMSIG
#include <unistd.h>        // fork, execvp, _exit

#include <cstdio>  // std::fopen, std::fprintf, std::perror

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: peak_rss <output file> <program> [arguments...]\n");
    return 2;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("peak_rss: fork");
    return 127;
  }
  if (pid == 0) {
    execvp(argv[2], argv + 2);
    std::perror("peak_rss: exec");
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) < 0) {
    std::perror("peak_rss: wait4");
    return 127;
  }
  std::FILE* out = std::fopen(argv[1], "w");
  if (out == nullptr) {
    std::perror("peak_rss: output file");
    return 127;
  }
  std::fprintf(out, "%ld\n", static_cast<long>(usage.ru_maxrss));  // KiB on Linux
  std::fclose(out);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 127;
}
