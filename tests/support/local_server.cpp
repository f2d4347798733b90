#include "support/local_server.h"

#include <chrono>
#include <ctime>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "client/udp_client.h"

namespace foothold::test {

std::unique_ptr<Spawned> start_server(const std::string& server_bin, const TempDir& dir, const std::string& name,
                                      std::vector<std::string> args, std::string& address, const std::string& bind) {
  const std::string ready = dir.file(name + ".ready");
  std::vector<std::string> argv = {server_bin, "--bind", bind, "--port", "0", "--ready-file", ready};
  argv.insert(argv.end(), args.begin(), args.end());
  auto server = std::make_unique<Spawned>(argv, dir.file(name + ".log"));
  address.clear();
  for (int i = 0; i < 200 && address.empty(); ++i) {
    std::ifstream in(ready);
    if (in && std::getline(in, address) && !address.empty()) break;
    address.clear();
    if (!server->running()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  return server;
}

bool wait_ready(const std::string& bot_bin, const std::string& address, const std::string& key_file) {
  for (int i = 0; i < 50; ++i) {
    if (run_command(bot_bin + " --probe " + address + (key_file.empty() ? "" : " --key-file " + key_file)).exit_code == 0)
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

proto::ConnectToken mint_for(const std::string& address, uint64_t client_id, uint64_t lifetime, const proto::Key& key) {
  proto::TokenAddress server;
  std::string error;
  if (!client::parse_address(address, server, error)) throw std::runtime_error("mint_for: " + error);
  proto::ConnectToken token;
  if (!proto::mint_token(key, client_id, std::span(&server, 1), uint64_t(std::time(nullptr)), lifetime, token, error))
    throw std::runtime_error("mint_for: " + error);
  return token;
}

}  // namespace foothold::test
