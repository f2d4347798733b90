#pragma once
// A real foothold-server process on loopback, for end-to-end tests.

#include <memory>
#include <string>
#include <vector>

#include "proto/token.h"
#include "support/process.h"

namespace foothold::test {

/// Starts `server_bin` on `bind` with --port 0 and waits for the address it writes to its ready file
/// (no port is picked beforehand, so parallel tests never race for one). `address` stays empty when
/// the server did not come up. Output goes to DIR/NAME.log.
std::unique_ptr<Spawned> start_server(const std::string& server_bin, const TempDir& dir, const std::string& name,
                                      std::vector<std::string> args, std::string& address,
                                      const std::string& bind = "127.0.0.1");

/// Waits (up to 5 s) until the server at `address` answers `bot_bin --probe` (with tokens sealed by
/// `key_file`, or the development key).
bool wait_ready(const std::string& bot_bin, const std::string& address, const std::string& key_file = "");

/// A connect token for the server at `address` ("HOST:PORT"), sealed with `key` (default: the public
/// development key, which loopback servers without a key file accept), valid for `lifetime` seconds.
proto::ConnectToken mint_for(const std::string& address, uint64_t client_id, uint64_t lifetime = 60,
                             const proto::Key& key = proto::development_key());

}  // namespace foothold::test
