#pragma once
// Running the project's own command-line tools from tests.

#include <string>

namespace foothold::test {

struct ProcessResult {
  int exit_code = -1;   ///< the exit status, or -1 when the process did not exit normally
  std::string output;   ///< standard output and standard error, interleaved
};

/// Runs a shell command line (arguments must already be quoted) and collects its output.
ProcessResult run_command(const std::string& command_line);

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
