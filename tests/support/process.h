#pragma once
// Running the project's own command-line tools from tests.

#include <string>
#include <vector>

namespace foothold::test {

struct ProcessResult {
  int exit_code = -1;   ///< the exit status, or -1 when the process did not exit normally
  std::string output;   ///< standard output and standard error, interleaved
};

/// Runs a shell command line (arguments must already be quoted) and collects its output.
ProcessResult run_command(const std::string& command_line);

/// A child process running in the background, its output going to a file.
class Spawned {
 public:
  /// Starts `argv[0]` with the arguments; output (stdout and stderr) goes to `log_path`.
  Spawned(const std::vector<std::string>& argv, const std::string& log_path);
  /// Kills the process if it still runs.
  ~Spawned();
  Spawned(const Spawned&) = delete;
  Spawned& operator=(const Spawned&) = delete;
  void signal(int signo) const;
  /// Waits up to `seconds` for the process to exit; returns its exit code, or -1 if it did not exit
  /// (or died of a signal).
  int wait(double seconds);
  bool running();
  /// The output so far.
  std::string output() const;

 private:
  int pid_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  std::string log_;
};

/// A UDP port on 127.0.0.1 that was free a moment ago.
int free_udp_port();
/// A TCP port on 127.0.0.1 that was free a moment ago.
int free_tcp_port();
/// A port of socket type `type` (SOCK_DGRAM, SOCK_STREAM) on 127.0.0.1 that was free a moment ago.
int free_port(int type);

/// A fresh empty directory under the system's temporary directory, removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  /// Writes `text` to file(name) and returns its path.
  std::string write(const std::string& name, const std::string& text) const;

 private:
  std::string path_;
};

}  // namespace foothold::test
