#include "support/agones_sidecar.h"

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <httplib.h>

namespace foothold::test {

std::string AgonesSidecar::binary() {
  const std::string path = FOOTHOLD_AGONES_SIDECAR;
  return ::access(path.c_str(), X_OK) == 0 ? path : std::string();
}

std::string AgonesSidecar::missing_reason() {
  return std::string("the Agones SDK sidecar is not at ") + FOOTHOLD_AGONES_SIDECAR +
         " (../shared/agones/ beside the repository): the fleet tests need it";
}

std::string AgonesSidecar::game_server_yaml(const std::string& status_address, int status_port, const std::string& labels_yaml,
                                            const std::string& annotations_yaml, int capacity) {
  std::ostringstream y;
  y << "apiVersion: agones.dev/v1\nkind: GameServer\nmetadata:\n  name: test\n"
    << "  labels: {" << labels_yaml << "}\n  annotations: {" << annotations_yaml << "}\n"
    << "spec:\n  ports: [{name: game, containerPort: 7777, protocol: UDP}]\n";
  if (capacity >= 0) y << "  counters:\n    players: {count: 0, capacity: " << capacity << "}\n";
  y << "status:\n  state: Scheduled\n  address: " << status_address << "\n  ports: [{name: game, port: " << status_port << "}]\n";
  if (capacity >= 0) y << "  counters:\n    players: {count: 0, capacity: " << capacity << "}\n";
  return y.str();
}

AgonesSidecar::AgonesSidecar(const TempDir& dir, const std::string& yaml, const std::vector<std::string>& extra, int http_port) {
  http_port_ = http_port != 0 ? http_port : free_tcp_port();
  std::vector<std::string> argv = {binary(), "--local", "--address=127.0.0.1", "--http-port", std::to_string(http_port_),
                                   "--grpc-port", std::to_string(free_tcp_port()), "--health-port", std::to_string(free_tcp_port())};
  if (!yaml.empty()) {
    // A name of its own per sidecar: several may share a directory.
    const std::string file = dir.write("gameserver-" + std::to_string(http_port_) + ".yaml", yaml);
    argv.insert(argv.end(), {"-f", file});
  }
  argv.insert(argv.end(), extra.begin(), extra.end());
  process_ = std::make_unique<Spawned>(argv, dir.file("sidecar-" + std::to_string(http_port_) + ".log"));
  for (int i = 0; i < 200; ++i) {
    if (!get("/gameserver").empty()) return;
    if (!process_->running()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  throw std::runtime_error("the Agones sidecar did not answer on port " + std::to_string(http_port_) + ": " + log());
}

int AgonesSidecar::count(const std::string& message) const {
  std::istringstream in(log());
  int n = 0;
  for (std::string line; std::getline(in, line);) n += line.find(message) != std::string::npos;
  return n;
}

std::string AgonesSidecar::get(const std::string& path) const {
  httplib::Client c("127.0.0.1", http_port_);
  c.set_connection_timeout(std::chrono::milliseconds(500));
  c.set_read_timeout(std::chrono::seconds(2));
  const auto r = c.Get(path);
  return r && r->status == 200 ? r->body : std::string();
}

}  // namespace foothold::test
