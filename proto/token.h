#pragma once
// Connect tokens: how a game's backend (its matchmaker) tells a Foothold server who may play.
//
// The backend holds the server's private key. For each player it mints a token: a sealed part that
// only the server can open (client id, the server addresses it is valid for, its not-before and
// expiry times, and two fresh session keys), and a clear part for the client (the same keys and
// addresses). The client sends the sealed part in its handshake; the server admits it only if it
// opens with the key, is within its times (TokenTimeRules) and names the address the server is
// reached at. Byte layouts: TOKEN_FORMAT.md (a
// backend in any language can mint tokens with libsodium alone).

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace foothold::proto {

inline constexpr std::size_t kKeyBytes = 32;  ///< bytes of every key (XChaCha20-Poly1305's)
/// A 256-bit key: the server's private key, or one of a token's session keys.
using Key = std::array<uint8_t, kKeyBytes>;

/// Most server addresses one token names.
inline constexpr std::size_t kMaxTokenAddresses = 8;
/// Bytes of user data a token carries at most: the backend's word on the player (a name, a team),
/// sealed, so only the server reads it.
inline constexpr std::size_t kMaxUserData = 256;
/// Size of the sealed part (fixed, whatever the number of addresses and the user data's size): see
/// TOKEN_FORMAT.md.
inline constexpr std::size_t kTokenSealedBytes = 543;
/// Where the sealed part's 24-byte nonce starts (random per token: the server's per-token budget
/// is keyed by it).
inline constexpr std::size_t kTokenNonceOffset = 20;
/// Size of a client token file (`foothold-token issue --out`).
inline constexpr std::size_t kTokenFileBytes = 796;
/// Longest lifetime a token may be minted with, seconds (one day).
inline constexpr uint64_t kMaxTokenLifetime = 86400;

/// A UDP server address as tokens carry it: IPv4 or IPv6, and a port.
struct TokenAddress {
  /// IPv6 (16 address bytes) rather than IPv4 (4).
  bool v6 = false;
  std::array<uint8_t, 16> ip{};  ///< IPv4 in the first 4 bytes (network order), the rest zero
  /// UDP port, in host order (little-endian in a token; never 0 in a valid one).
  uint16_t port = 0;
  /// Same family, all 16 address bytes and port.
  bool operator==(const TokenAddress&) const = default;
};

/// The server addresses a token is valid for (1 to kMaxTokenAddresses).
struct TokenAddresses {
  /// The first `count` are used; the rest are zero.
  std::array<TokenAddress, kMaxTokenAddresses> items{};
  /// Addresses in use.
  uint8_t count = 0;
  /// The used entries (a count beyond kMaxTokenAddresses, which no parser produces, is cut).
  std::span<const TokenAddress> view() const { return {items.data(), count < kMaxTokenAddresses ? count : kMaxTokenAddresses}; }
  /// True when one of the used entries equals `a`.
  bool contains(const TokenAddress& a) const;
};

/// What the server reads from a token's sealed part once it opens.
struct TokenContents {
  /// The backend's id for the player (not the server's character id).
  uint64_t client_id = 0;
  uint64_t expires_unix = 0;  ///< seconds since the UNIX epoch
  uint64_t not_before_unix = 0;  ///< seconds since the UNIX epoch: the token admits no join before it
  /// The server addresses the token is valid for.
  TokenAddresses servers;
  Key client_to_server{};     ///< the client's sending key (the server's receiving key)
  /// The server's sending key (the client's receiving key). Both keys are secret: session keys are
  /// derived from them (secure.h).
  Key server_to_client{};
  /// The backend's user data: the first `user_data_size` bytes (at most kMaxUserData), the rest zero.
  std::array<uint8_t, kMaxUserData> user_data{};
  uint16_t user_data_size = 0;
  /// The user data's bytes.
  std::span<const uint8_t> user_data_view() const { return {user_data.data(), user_data_size}; }
};

/// A connect token as its client holds it (the file `foothold-token issue` writes).
struct ConnectToken {
  /// The backend's id for the player.
  uint64_t client_id = 0;
  /// When it was minted, seconds since the UNIX epoch.
  uint64_t created_unix = 0;
  /// From when it admits joins, seconds since the UNIX epoch (created_unix, or later for a match
  /// that starts later).
  uint64_t not_before_unix = 0;
  /// When it stops admitting joins, seconds since the UNIX epoch (a session already joined
  /// outlives it).
  uint64_t expires_unix = 0;
  /// The server addresses it is valid for.
  TokenAddresses servers;
  /// The client's sending key, as in the sealed part (TokenContents). Secret.
  Key client_to_server{};
  /// The server's sending key, as in the sealed part. Secret.
  Key server_to_client{};
  std::array<uint8_t, kTokenSealedBytes> sealed{};  ///< opaque to the client: sent as is to the server
};

/// Why a token was refused.
enum class TokenError : uint8_t {
  /// Valid.
  kNone = 0,
  kMalformed,    ///< wrong size or magic, or fields out of range (counted before any decryption)
  kExpired,      ///< its expiry is not after `now`
  kBadSeal,      ///< does not open with this key: another key, or altered bytes
  kNotYetValid,  ///< its not-before time is further ahead of `now` than the allowed clock skew
  kTooFarAhead,  ///< its expiry is further ahead of `now` than the allowed maximum and the skew
  /// The number of values (not an error).
  kCount
};
/// "none", "malformed", "expired", "bad_seal", "not_yet_valid" or "too_far_ahead".
std::string_view to_string(TokenError e);

/// A new random private key (libsodium's generator). Throws std::runtime_error when libsodium cannot
/// initialise, as every function here that uses it does.
Key generate_key();

/// Mints a token for `client_id`, valid for `servers` (1 to kMaxTokenAddresses) from `now_unix` +
/// `not_before_delay` (0 to kMaxTokenLifetime) for `lifetime_seconds` (1 to kMaxTokenLifetime), with
/// fresh random session keys, carrying `user_data` (0 to kMaxUserData bytes; sealed: the server
/// reads it, the client cannot). Returns false and says why in `error` when an argument is out of
/// range. `now_unix` is seconds since the UNIX epoch.
bool mint_token(const Key& private_key, uint64_t client_id, std::span<const TokenAddress> servers, uint64_t now_unix,
                uint64_t lifetime_seconds, ConnectToken& out, std::string& error, uint64_t not_before_delay = 0,
                std::span<const uint8_t> user_data = {});

/// How a server judges a token's times.
struct TokenTimeRules {
  uint64_t now_unix = 0;                 ///< the server's UNIX time, seconds
  uint64_t max_ahead = kMaxTokenLifetime;  ///< the furthest an expiry may lie ahead of now (plus the skew)
  uint64_t clock_skew = 30;              ///< how far the minter's clock may run ahead of the server's
};

/// Opens a sealed part (server side). Checks, in this order, before any decryption: size and magic;
/// expiry (`now` must be before it); not-before (no further ahead of now than the skew); expiry no
/// further ahead than max_ahead and the skew; then the seal, and that the contents are well-formed
/// (address count in range). Allocates nothing. `out` is written only on success.
TokenError open_token(const Key& private_key, std::span<const uint8_t> sealed, const TokenTimeRules& rules,
                      TokenContents& out);
/// The seal and contents only, and the expiry against `now_unix` (no not-before or upper bound):
/// for tools that check a token as of a given time (`foothold-token inspect`, as of its creation).
TokenError open_token(const Key& private_key, std::span<const uint8_t> sealed, uint64_t now_unix, TokenContents& out);

/// The expiry written in clear in a sealed part (0, which no minted token has, when it is too short
/// to hold one). Bound to the seal: altering it makes open_token fail.
uint64_t sealed_token_expiry(std::span<const uint8_t> sealed);
/// The not-before time written in clear in a sealed part (0 when it is too short to hold one). Bound
/// to the seal like the expiry.
uint64_t sealed_token_not_before(std::span<const uint8_t> sealed);

/// The client token file's bytes, and back. parse_token checks every field and says what is wrong;
/// it never trusts the file (size, magic, addresses, the times, and the sealed part's magic and both
/// times). A file of the first format (FHC1) is refused by that name.
std::array<uint8_t, kTokenFileBytes> serialize_token(const ConnectToken& token);
/// Parses a token file's bytes; `out` is written only on success.
bool parse_token(std::span<const uint8_t> bytes, ConnectToken& out, std::string& error);

/// Key files: 64 hexadecimal digits and a newline. write_key_file creates the file with mode 0600
/// (refusing to overwrite an existing one); read_key_file refuses anything else, and an all-zero key,
/// and names the problem.
bool write_key_file(const std::string& path, const Key& key, std::string& error);
/// Reads a key file; `key` is written only on success.
bool read_key_file(const std::string& path, Key& key, std::string& error);

/// Token files (serialize_token's bytes), written with mode 0600: they hold session keys. An existing
/// file is replaced (and its mode set to 0600 when it is a regular file). Errors name the path.
bool write_token_file(const std::string& path, const ConnectToken& token, std::string& error);
/// Reads and parses a token file; `token` is written only on success.
bool read_token_file(const std::string& path, ConnectToken& token, std::string& error);

/// The key a server uses when it is given no key file: public, so such a server (and bots minting
/// tokens without a key file) serve loopback only. See server_config.h. The same on every machine
/// (a hash of a fixed text); the reference stays valid for the whole program.
const Key& development_key();

}  // namespace foothold::proto
