// foothold-token: the game backend's tool. Makes a server's private key and mints connect tokens
// with it (proto/token.h; the byte format is proto/TOKEN_FORMAT.md).
//
//   foothold-token keygen --out KEY
//   foothold-token issue --key-file KEY --server HOST:PORT [--server HOST:PORT ...] --client-id ID
//                        [--expires SECONDS] [--out FILE]
//   foothold-token inspect --token FILE [--key-file KEY]
//
// Exit codes: 0 done; 1 a file could not be written or read, or (inspect) the token does not open;
// 2 bad usage.

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <asio/ip/address.hpp>

#include "proto/token.h"

namespace {

using namespace foothold;

constexpr int kExitUsage = 2;

int fail(int code, const std::string& message) {
  std::fprintf(stderr, "foothold-token: %s\n", message.c_str());
  return code;
}

uint64_t unix_now() {
  return uint64_t(std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

// "IPV4:PORT" or "[IPV6]:PORT". Tokens hold addresses: a host name is refused (resolve it first, so
// that the token names exactly the address the server is reached at).
bool parse_address(const std::string& text, proto::TokenAddress& out, std::string& error) {
  std::string host, port;
  if (!text.empty() && text[0] == '[') {
    const auto close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      error = "'" + text + "' is not [IPV6]:PORT";
      return false;
    }
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string::npos || text.find(':') != colon) {
      error = "'" + text + "' is not IPV4:PORT or [IPV6]:PORT";
      return false;
    }
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  unsigned long value = 0;
  try {
    std::size_t used = 0;
    value = std::stoul(port, &used);
    if (used != port.size()) throw std::invalid_argument(port);
  } catch (const std::exception&) {
    value = 0;
  }
  if (value == 0 || value > 65535) {
    error = "'" + text + "': the port must be a number in 1..65535";
    return false;
  }
  asio::error_code ec;
  const auto a = asio::ip::make_address(host, ec);
  if (ec) {
    error = "'" + host + "' is not an IP address (tokens name IP addresses, not host names)";
    return false;
  }
  out = {};
  out.port = uint16_t(value);
  if (a.is_v4()) {
    const auto b = a.to_v4().to_bytes();
    std::copy(b.begin(), b.end(), out.ip.begin());
  } else {
    out.v6 = true;
    const auto b = a.to_v6().to_bytes();
    std::copy(b.begin(), b.end(), out.ip.begin());
  }
  return true;
}

std::string address_text(const proto::TokenAddress& a) {
  if (!a.v6) return asio::ip::address_v4({a.ip[0], a.ip[1], a.ip[2], a.ip[3]}).to_string() + ":" + std::to_string(a.port);
  asio::ip::address_v6::bytes_type b{};
  std::copy(a.ip.begin(), a.ip.end(), b.begin());
  return "[" + asio::ip::address_v6(b).to_string() + "]:" + std::to_string(a.port);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"foothold-token: private keys and connect tokens for Foothold servers (the game backend's tool)"};
  app.require_subcommand(1);

  std::string keygen_out;
  auto* keygen = app.add_subcommand("keygen", "write a new private key (mode 0600; an existing file is never replaced)");
  keygen->add_option("--out", keygen_out, "the key file to create")->required();

  std::string key_file, out_file;
  std::vector<std::string> servers;
  uint64_t client_id = 0;
  int64_t expires = 60;
  auto* issue = app.add_subcommand("issue", "mint a connect token (binary; to --out FILE with mode 0600, or to standard output)");
  issue->add_option("--key-file", key_file, "the server's private key")->required();
  issue->add_option("--server", servers, "HOST:PORT the token is valid for (an IP address; up to 8)")->required();
  issue->add_option("--client-id", client_id, "the player's id (unsigned 64-bit)")->required();
  issue->add_option("--expires", expires, "seconds the token stays valid for joining (default 60, at most 86400)");
  issue->add_option("--out", out_file, "write the token here (default: standard output)");

  std::string token_file, inspect_key;
  auto* inspect = app.add_subcommand("inspect", "print a token's clear part; with --key-file, check its sealed part opens");
  inspect->add_option("--token", token_file, "a token file")->required();
  inspect->add_option("--key-file", inspect_key, "the server's private key");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }

  std::string error;
  if (keygen->parsed()) {
    if (!proto::write_key_file(keygen_out, proto::generate_key(), error)) return fail(1, error);
    std::printf("private key written to %s (mode 0600); keep it secret: whoever holds it can mint tokens\n",
                keygen_out.c_str());
    return 0;
  }

  if (issue->parsed()) {
    if (servers.size() > proto::kMaxTokenAddresses)
      return fail(kExitUsage, "--server given " + std::to_string(servers.size()) + " times; a token names at most " +
                                  std::to_string(proto::kMaxTokenAddresses));
    if (expires < 1 || uint64_t(expires) > proto::kMaxTokenLifetime)
      return fail(kExitUsage, "--expires " + std::to_string(expires) + " is not in 1..86400 seconds");
    std::vector<proto::TokenAddress> addresses;
    for (const auto& s : servers) {
      proto::TokenAddress a;
      if (!parse_address(s, a, error)) return fail(kExitUsage, "--server: " + error);
      addresses.push_back(a);
    }
    if (out_file.empty() && ::isatty(STDOUT_FILENO))
      return fail(kExitUsage, "the token is binary: give --out FILE, or redirect standard output");
    proto::Key key;
    if (!proto::read_key_file(key_file, key, error)) return fail(kExitUsage, "--key-file: " + error);
    proto::ConnectToken token;
    if (!proto::mint_token(key, client_id, addresses, unix_now(), uint64_t(expires), token, error))
      return fail(kExitUsage, error);
    if (out_file.empty()) {
      const auto bytes = proto::serialize_token(token);
      if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size() || std::fflush(stdout) != 0)
        return fail(1, "cannot write the token to standard output");
      return 0;
    }
    if (!proto::write_token_file(out_file, token, error)) return fail(1, error);
    std::printf("token for client %llu, valid for %lld s until %llu (UNIX time), written to %s\n",
                static_cast<unsigned long long>(client_id), static_cast<long long>(expires),
                static_cast<unsigned long long>(token.expires_unix), out_file.c_str());
    return 0;
  }

  // inspect
  proto::ConnectToken token;
  if (!proto::read_token_file(token_file, token, error)) return fail(1, error);
  std::printf("client_id=%llu created=%llu expires=%llu servers=", static_cast<unsigned long long>(token.client_id),
              static_cast<unsigned long long>(token.created_unix), static_cast<unsigned long long>(token.expires_unix));
  for (std::size_t i = 0; i < token.servers.count; ++i)
    std::printf("%s%s", i ? "," : "", address_text(token.servers.items[i]).c_str());
  const uint64_t now = unix_now();
  std::printf(" %s\n", token.expires_unix > now ? ("valid_for_s=" + std::to_string(token.expires_unix - now)).c_str() : "expired");
  if (inspect_key.empty()) return 0;
  proto::Key key;
  if (!proto::read_key_file(inspect_key, key, error)) return fail(kExitUsage, "--key-file: " + error);
  // Judge the seal as of the token's creation, so that an expired token can still be checked.
  proto::TokenContents contents;
  const auto r = proto::open_token(key, token.sealed, token.created_unix, contents);
  if (r != proto::TokenError::kNone) {
    std::printf("sealed part: does not open with this key (%s)\n", std::string(proto::to_string(r)).c_str());
    return 1;
  }
  const bool same = contents.client_id == token.client_id && contents.servers.count == token.servers.count &&
                    std::equal(token.servers.view().begin(), token.servers.view().end(), contents.servers.view().begin()) &&
                    contents.client_to_server == token.client_to_server && contents.server_to_client == token.server_to_client;
  std::printf("sealed part: opens with the key; client_id=%llu %s\n", static_cast<unsigned long long>(contents.client_id),
              same ? "matches" : "DIFFERS from the clear part");
  return same ? 0 : 1;
}
