#pragma once
// The real Agones SDK sidecar (../shared/agones/sdk-server, v1.49.0) in its local mode, for tests of
// the fleet code: started on free loopback ports, with a GameServer record of the test's own.

#include <memory>
#include <string>
#include <vector>

#include "support/process.h"

namespace foothold::test {

class AgonesSidecar {
 public:
  /// The binary tests use; empty when it is not there (no ../shared beside the repository).
  static std::string binary();
  /// Why tests that need it skip, when binary() is empty.
  static std::string missing_reason();
  /// A GameServer record for -f: `status_address`:`status_port` as the status's (port named
  /// "game"), the labels and annotations given, and a players Counter of `capacity` (none when
  /// capacity < 0). State Scheduled, as a fresh pod's.
  static std::string game_server_yaml(const std::string& status_address, int status_port, const std::string& labels_yaml,
                                      const std::string& annotations_yaml, int capacity);

  /// Starts it in `dir` with the record `yaml` (empty: the sidecar's default record) and `extra`
  /// arguments (e.g. "--test=ready,health"), and waits until it answers (throws when it does not).
  /// `http_port` 0 takes a free one.
  AgonesSidecar(const TempDir& dir, const std::string& yaml, const std::vector<std::string>& extra = {}, int http_port = 0);
  int http_port() const { return http_port_; }
  /// Its log so far.
  std::string log() const { return process_->output(); }
  /// Lines of its log holding `message` (e.g. "Health Ping Received!").
  int count(const std::string& message) const;
  /// GET path on its REST port: the body, or "" on failure.
  std::string get(const std::string& path) const;
  /// The process (to signal, wait for).
  Spawned& process() { return *process_; }

 private:
  int http_port_ = 0;
  std::unique_ptr<Spawned> process_;
};

}  // namespace foothold::test
