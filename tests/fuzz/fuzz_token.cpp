// libFuzzer: connect tokens from untrusted bytes. The input is read as a client token file, and as a
// sealed part the server opens. Then, when it is long enough, its first 16 bytes choose a real token
// (client id, addresses, lifetime) that must mint, open and round-trip; the rest are XOR edits of
// that token's sealed part, and an altered sealed part must never open.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "proto/token.h"

namespace {

using namespace foothold::proto;

constexpr uint64_t kNow = 1'800'000'000;
constexpr std::size_t kRecipeBytes = 16;  // what chooses the minted token
constexpr std::size_t kEditBytes = 3;     // offset u16 LE (modulo the sealed size), XOR mask

uint64_t get64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(p[i]) << (8 * i);
  return v;
}

// Untrusted bytes, read both ways: nothing may crash, and what parses must serialise back as it was.
void read_as_given(std::span<const uint8_t> in) {
  ConnectToken parsed;
  std::string error;
  if (parse_token(in, parsed, error)) {
    const auto again = serialize_token(parsed);
    if (!std::equal(again.begin(), again.end(), in.begin(), in.end())) __builtin_trap();
  } else if (error.empty()) {
    __builtin_trap();  // a refusal always says why
  }
  TokenContents contents;
  const TokenError e = open_token(development_key(), in, kNow, contents);
  if (e >= TokenError::kCount) __builtin_trap();
  // The server's rules, with limits at both ends (the times come from the input: no overflow).
  for (const TokenTimeRules& rules : {TokenTimeRules{kNow, kMaxTokenLifetime, 30}, TokenTimeRules{~uint64_t(0), ~uint64_t(0), ~uint64_t(0)},
                                      TokenTimeRules{0, 0, 0}}) {
    const TokenError r = open_token(development_key(), in, rules, contents);
    if (r >= TokenError::kCount) __builtin_trap();
    if (r == TokenError::kNone && (contents.not_before_unix != sealed_token_not_before(in) ||
                                   contents.expires_unix != sealed_token_expiry(in)))
      __builtin_trap();
  }
  (void)sealed_token_expiry(in);
}

// Bytes 0..7 client id; 8 address count; 9 families (a bit each); 10..11 port; 12..13 address
// bytes; 14..15 lifetime.
std::vector<TokenAddress> servers_of(const uint8_t* r) {
  std::vector<TokenAddress> servers(1 + r[8] % kMaxTokenAddresses);
  for (std::size_t i = 0; i < servers.size(); ++i) {
    TokenAddress& a = servers[i];
    a.v6 = (r[9] >> i) & 1;
    a.ip[0] = a.v6 ? 0x20 : r[12];
    a.ip[1] = r[13];
    a.ip[3] = uint8_t(i);
    if (a.v6) a.ip[15] = r[12];
    a.port = uint16_t(r[10] | (r[11] << 8));
    if (a.port == 0) a.port = 1;
  }
  return servers;
}

void mint_and_alter(std::span<const uint8_t> in) {
  const uint8_t* r = in.data();
  const uint64_t client_id = get64(r);
  const std::vector<TokenAddress> servers = servers_of(r);
  const uint64_t lifetime = 1 + uint64_t(r[14] | (r[15] << 8)) % kMaxTokenLifetime;
  ConnectToken token;
  std::string error;
  if (!mint_token(development_key(), client_id, servers, kNow, lifetime, token, error)) __builtin_trap();

  // What was minted opens with every field, and its file parses back to it.
  TokenContents c;
  if (open_token(development_key(), token.sealed, kNow, c) != TokenError::kNone) __builtin_trap();
  if (c.client_id != client_id || c.expires_unix != kNow + lifetime || c.servers.count != servers.size() ||
      !std::equal(servers.begin(), servers.end(), c.servers.view().begin()) ||
      c.client_to_server != token.client_to_server || c.server_to_client != token.server_to_client)
    __builtin_trap();
  ConnectToken back;
  if (!parse_token(serialize_token(token), back, error) || back.sealed != token.sealed || back.client_id != client_id)
    __builtin_trap();

  auto sealed = token.sealed;
  for (std::size_t i = kRecipeBytes; i + kEditBytes <= in.size(); i += kEditBytes) {
    const std::size_t at = std::size_t(in[i] | (in[i + 1] << 8)) % sealed.size();
    sealed[at] ^= in[i + 2];
  }
  const bool changed = sealed != token.sealed;
  TokenContents altered;
  altered.client_id = ~client_id;
  const TokenError e = open_token(development_key(), sealed, kNow, altered);
  if (changed && (e == TokenError::kNone || altered.client_id != ~client_id)) __builtin_trap();
  if (!changed && (e != TokenError::kNone || altered.client_id != client_id)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> in(data, size);
  read_as_given(in);
  if (size >= kRecipeBytes) mint_and_alter(in);
  return 0;
}
