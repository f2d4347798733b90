// foothold-token: the game backend's tool. Makes a server's private key and mints connect tokens
// with it (proto/token.h; the byte format is proto/TOKEN_FORMAT.md).
//
//   foothold-token keygen --out KEY
//   foothold-token issue --key-file KEY --server HOST:PORT [--server HOST:PORT ...] --client-id ID
//                        [--expires SECONDS] [--not-before SECONDS] [--user-data TEXT | --user-data-file FILE]
//                        [--out FILE]
//   foothold-token inspect --token FILE [--key-file KEY]
//
// Exit codes: 0 done; 1 a file could not be written or read, or (inspect) the token does not open;
// 2 bad usage.

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <asio/ip/address.hpp>

#include "proto/token.h"
#include "version/version.h"

namespace {

using namespace foothold;

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;
constexpr uint64_t kDefaultLifetime = 60;  // seconds: long enough to reach the server, short if stolen

int fail(int code, const std::string& message) {
  std::fprintf(stderr, "foothold-token: %s\n", message.c_str());
  return code;
}

uint64_t unix_now() {
  return uint64_t(std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

// Decimal digits only, whole text. Our own parse because CLI11's wraps "-5" round to 2^64 - 5 and
// clamps what is too large, and a token for the wrong player is worse than a refusal.
bool parse_u64(const std::string& text, uint64_t& out) {
  if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

// "IPV4:PORT" or "[IPV6]:PORT". Tokens hold addresses: a host name is refused (resolve it first, so
// that the token names exactly the address the server is reached at).
bool parse_address(const std::string& text, proto::TokenAddress& out, std::string& error) {
  std::string host, port;
  const bool bracketed = !text.empty() && text[0] == '[';
  if (bracketed) {
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
      error = "'" + text + "' is not IPV4:PORT or [IPV6]:PORT (the port is required)";
      return false;
    }
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  uint64_t value = 0;
  if (!parse_u64(port, value) || value == 0 || value > 65535) {
    error = "'" + text + "': the port '" + port + "' is not a number in 1..65535";
    return false;
  }
  asio::error_code ec;
  const auto a = asio::ip::make_address(host, ec);
  if (ec) {
    error = "'" + host + "' is not an IP address (tokens name IP addresses, not host names: resolve it first)";
    return false;
  }
  if (a.is_v4() == bracketed) {
    error = "'" + text + "': brackets are for IPv6 addresses only";
    return false;
  }
  // The server compares the addresses a token names with the one it is reached at: these can never
  // be that address, and a token carries no IPv6 scope.
  if (a.is_unspecified() || a.is_multicast()) {
    error = "'" + host + "' is not an address a server is reached at (give the address clients send to)";
    return false;
  }
  if (a.is_v6() && a.to_v6().scope_id() != 0) {
    error = "'" + host + "': a token cannot carry an IPv6 scope (%zone)";
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

struct IssueArgs {
  std::string key_file;
  std::vector<std::string> servers;
  std::string client_id;
  std::string expires = std::to_string(kDefaultLifetime);
  std::string not_before = "0";
  std::string user_data;       // --user-data: the bytes of this text
  std::string user_data_file;  // --user-data-file: the bytes of this file
  std::string out;
};

// The user data the arguments give (none, the text's bytes or the file's), or what is wrong.
bool user_data_of(const IssueArgs& args, std::vector<uint8_t>& out, std::string& error) {
  if (!args.user_data.empty() && !args.user_data_file.empty()) {
    error = "give --user-data or --user-data-file, not both";
    return false;
  }
  if (!args.user_data_file.empty()) {
    std::ifstream in(args.user_data_file, std::ios::binary);
    if (!in) {
      error = "--user-data-file " + args.user_data_file + ": cannot open it";
      return false;
    }
    // One byte past the limit is enough to know it is too long.
    out.resize(proto::kMaxUserData + 1);
    in.read(reinterpret_cast<char*>(out.data()), std::streamsize(out.size()));
    out.resize(std::size_t(in.gcount()));
  } else {
    out.assign(args.user_data.begin(), args.user_data.end());
  }
  if (out.size() > proto::kMaxUserData) {
    // A file was read only one byte past the limit: its size beyond that is not known.
    error = args.user_data_file.empty() ? "--user-data is " + std::to_string(out.size()) + " bytes"
                                        : "--user-data-file " + args.user_data_file + " is over " +
                                              std::to_string(proto::kMaxUserData) + " bytes";
    error += ": a token carries at most " + std::to_string(proto::kMaxUserData);
    return false;
  }
  return true;
}

int issue(const IssueArgs& args) {
  if (args.servers.size() > proto::kMaxTokenAddresses)
    return fail(kExitUsage, "--server given " + std::to_string(args.servers.size()) + " times; a token names at most " +
                                std::to_string(proto::kMaxTokenAddresses));
  uint64_t client_id = 0;
  if (!parse_u64(args.client_id, client_id))
    return fail(kExitUsage, "--client-id '" + args.client_id + "' is not an unsigned 64-bit decimal number");
  uint64_t lifetime = 0;
  if (!parse_u64(args.expires, lifetime) || lifetime < 1 || lifetime > proto::kMaxTokenLifetime)
    return fail(kExitUsage, "--expires " + args.expires + " is not a number of seconds in 1.." +
                                std::to_string(proto::kMaxTokenLifetime));
  uint64_t delay = 0;
  if (!parse_u64(args.not_before, delay) || delay > proto::kMaxTokenLifetime)
    return fail(kExitUsage, "--not-before " + args.not_before + " is not a number of seconds in 0.." +
                                std::to_string(proto::kMaxTokenLifetime));
  std::vector<proto::TokenAddress> addresses;
  std::string error;
  std::vector<uint8_t> user_data;
  if (!user_data_of(args, user_data, error)) return fail(kExitUsage, error);
  for (const auto& s : args.servers) {
    proto::TokenAddress a;
    if (!parse_address(s, a, error)) return fail(kExitUsage, "--server " + error);
    addresses.push_back(a);
  }
  if (args.out.empty() && ::isatty(STDOUT_FILENO))
    return fail(kExitUsage, "the token is binary: give --out FILE, or redirect standard output");
  proto::Key key;
  if (!proto::read_key_file(args.key_file, key, error)) return fail(kExitUsage, "--key-file: " + error);
  proto::ConnectToken token;
  const bool minted = proto::mint_token(key, client_id, addresses, unix_now(), lifetime, token, error, delay, user_data);
  std::fill(key.begin(), key.end(), uint8_t{0});
  if (!minted) return fail(kExitUsage, error);
  if (args.out.empty()) {
    const auto bytes = proto::serialize_token(token);
    if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size() || std::fflush(stdout) != 0)
      return fail(kExitFailure, "cannot write the token to standard output");
    return 0;
  }
  if (!proto::write_token_file(args.out, token, error)) return fail(kExitFailure, error);
  std::printf("token for client %llu, valid for %llu s from %llu until %llu (UNIX time), written to %s\n",
              static_cast<unsigned long long>(client_id), static_cast<unsigned long long>(lifetime),
              static_cast<unsigned long long>(token.not_before_unix), static_cast<unsigned long long>(token.expires_unix),
              args.out.c_str());
  return 0;
}

int inspect(const std::string& token_file, const std::string& key_file) {
  proto::ConnectToken token;
  std::string error;
  if (!proto::read_token_file(token_file, token, error)) return fail(kExitFailure, error);
  std::printf("client_id=%llu created=%llu not_before=%llu expires=%llu servers=",
              static_cast<unsigned long long>(token.client_id), static_cast<unsigned long long>(token.created_unix),
              static_cast<unsigned long long>(token.not_before_unix), static_cast<unsigned long long>(token.expires_unix));
  for (std::size_t i = 0; i < token.servers.count; ++i)
    std::printf("%s%s", i ? "," : "", address_text(token.servers.items[i]).c_str());
  const uint64_t now = unix_now();
  const std::string state = token.expires_unix <= now       ? "expired"
                            : token.not_before_unix > now ? "valid_in_s=" + std::to_string(token.not_before_unix - now)
                                                          : "valid_for_s=" + std::to_string(token.expires_unix - now);
  std::printf(" %s\n", state.c_str());
  if (key_file.empty()) return 0;
  proto::Key key;
  if (!proto::read_key_file(key_file, key, error)) return fail(kExitUsage, "--key-file: " + error);
  // Judge the seal as of the token's creation, so that an expired token can still be checked (the
  // line above already says whether it has expired).
  proto::TokenContents contents;
  const auto r = proto::open_token(key, token.sealed, token.created_unix, contents);
  std::fill(key.begin(), key.end(), uint8_t{0});
  if (r != proto::TokenError::kNone) {
    std::printf("sealed part: does not open with this key (%s)\n", std::string(proto::to_string(r)).c_str());
    return kExitFailure;
  }
  const auto clear = token.servers.view();
  const auto sealed = contents.servers.view();
  const bool same = contents.client_id == token.client_id && std::equal(clear.begin(), clear.end(), sealed.begin(), sealed.end()) &&
                    contents.client_to_server == token.client_to_server && contents.server_to_client == token.server_to_client;
  std::printf("sealed part: opens with the key; client_id=%llu %s\n", static_cast<unsigned long long>(contents.client_id),
              same ? "matches" : "DIFFERS from the clear part (client id, servers or keys)");
  // The user data in hexadecimal: it is the backend's bytes, not necessarily text.
  std::printf("user_data_bytes=%u user_data_hex=", unsigned(contents.user_data_size));
  for (uint8_t b : contents.user_data_view()) std::printf("%02x", unsigned(b));
  std::printf("\n");
  return same ? 0 : kExitFailure;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"foothold-token: private keys and connect tokens for Foothold servers (the game backend's tool)"};
  app.require_subcommand(1);

  std::string keygen_out;
  auto* keygen = app.add_subcommand("keygen", "write a new private key (mode 0600; an existing file is never replaced)");
  keygen->add_option("--out", keygen_out, "the key file to create")->required();

  IssueArgs args;
  auto* issue_cmd = app.add_subcommand("issue", "mint a connect token (binary; to --out FILE with mode 0600, or to standard output)");
  issue_cmd->add_option("--key-file", args.key_file, "the server's private key")->required();
  issue_cmd->add_option("--server", args.servers, "HOST:PORT the token is valid for (an IP address, IPv6 as [ADDR]:PORT; up to 8)")
      ->required();
  issue_cmd->add_option("--client-id", args.client_id, "the player's id (unsigned 64-bit, decimal)")->required();
  issue_cmd->add_option("--expires", args.expires, "seconds the token stays valid for joining (default 60, at most 86400)");
  issue_cmd->add_option("--not-before", args.not_before,
                        "seconds from now until the token admits joins (default 0, at most 86400); it then stays "
                        "valid for --expires seconds");
  issue_cmd->add_option("--user-data", args.user_data,
                        "up to 256 bytes the server reads from the token (a name, a team), as this text's bytes");
  issue_cmd->add_option("--user-data-file", args.user_data_file, "the same, as a file's bytes (up to 256)");
  issue_cmd->add_option("--out", args.out, "write the token here, mode 0600 (default: standard output)");

  std::string token_file, inspect_key;
  auto* inspect_cmd = app.add_subcommand("inspect", "print a token's clear part (never its keys); with --key-file, check its sealed part opens");
  inspect_cmd->add_option("--token", token_file, "a token file")->required();
  inspect_cmd->add_option("--key-file", inspect_key, "the server's private key");

  app.set_version_flag("--version", version_line("foothold-token"), "print the version and exit");

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(kExitUsage, std::string(e.what()) + " (run with --help for usage)");
  }

  try {
    if (keygen->parsed()) {
      std::string error;
      if (!proto::write_key_file(keygen_out, proto::generate_key(), error)) return fail(kExitFailure, error);
      std::printf("private key written to %s (mode 0600); keep it secret: whoever holds it can mint tokens\n",
                  keygen_out.c_str());
      return 0;
    }
    if (issue_cmd->parsed()) return issue(args);
    return inspect(token_file, inspect_key);
  } catch (const std::exception& e) {
    // libsodium failing to start, or memory running out: say so rather than abort.
    return fail(kExitFailure, e.what());
  }
}
