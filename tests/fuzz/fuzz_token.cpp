// libFuzzer: connect tokens from untrusted bytes. The input is read as a client token file, and as a
// sealed part the server opens; then a real token is minted and the input, as XOR edits, alters its
// sealed part: an altered token must never open.

#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "proto/token.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace foothold::proto;
  constexpr uint64_t kNow = 1'800'000'000;
  const std::span<const uint8_t> in(data, size);

  ConnectToken parsed;
  std::string error;
  if (parse_token(in, parsed, error)) {
    // What parses serialises back to the same bytes.
    const auto again = serialize_token(parsed);
    if (std::memcmp(again.data(), data, again.size()) != 0) __builtin_trap();
  } else if (error.empty()) {
    __builtin_trap();  // a refusal always says why
  }
  TokenContents contents;
  (void)open_token(development_key(), in, kNow, contents);
  (void)sealed_token_expiry(in);

  if (size < 2) return 0;
  TokenAddress server;
  server.ip = {10, 0, 0, 1};
  server.port = uint16_t(1 + data[0]);
  ConnectToken token;
  if (!mint_token(development_key(), data[1], std::span(&server, 1), kNow, 60, token, error)) __builtin_trap();
  auto sealed = token.sealed;
  bool changed = false;
  for (size_t i = 2; i < size; ++i) {
    const uint8_t x = data[i];
    sealed[(i * 131) % sealed.size()] ^= x;
  }
  changed = sealed != token.sealed;
  const TokenError e = open_token(development_key(), sealed, kNow, contents);
  if (changed && e == TokenError::kNone) __builtin_trap();
  if (!changed && (e != TokenError::kNone || contents.client_id != data[1])) __builtin_trap();
  return 0;
}
