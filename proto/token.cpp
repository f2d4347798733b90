#include "proto/token.h"

#include "proto/secure.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(_WIN32)
#include <io.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <sodium.h>

namespace foothold::proto {

namespace {

// Layouts (TOKEN_FORMAT.md). All integers little-endian.
constexpr std::size_t kAddressBytes = 19;          // family, 16 address bytes, port
constexpr std::size_t kAddressesBytes = kMaxTokenAddresses * kAddressBytes;  // 152
constexpr std::size_t kAdBytes = 4 + 8 + 8;       // magic, expiry and not-before: the seal's additional data
constexpr std::size_t kSealedHeader = kAdBytes + 24;  // and the nonce
static_assert(kTokenNonceOffset == kAdBytes);
constexpr std::size_t kUserDataAt = 8 + 1 + kAddressesBytes + 2 * kKeyBytes;  // 225: the size, then the bytes
constexpr std::size_t kPlainBytes = kUserDataAt + 2 + kMaxUserData;             // 483
static_assert(kSealedHeader + kPlainBytes + crypto_aead_xchacha20poly1305_ietf_ABYTES == kTokenSealedBytes);
// The file: magic, client id, created, not before, expires, count, addresses, keys, the sealed part.
constexpr std::size_t kFileAddresses = 4 + 8 + 8 + 8 + 8 + 1;  // 37
static_assert(kFileAddresses + kAddressesBytes + 2 * kKeyBytes + kTokenSealedBytes == kTokenFileBytes);
static_assert(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES == 24);
static_assert(crypto_aead_xchacha20poly1305_ietf_KEYBYTES == kKeyBytes);

constexpr char kSealedMagic[4] = {'F', 'H', 'T', '3'};
constexpr char kFileMagic[4] = {'F', 'H', 'C', '3'};
// The earlier versions, named in the refusal so that their holder knows why: 1 had no not-before
// time, 2 no user data.
constexpr char kFirstSealedMagic[4] = {'F', 'H', 'T', '1'};
constexpr char kFirstFileMagic[4] = {'F', 'H', 'C', '1'};
constexpr char kSecondSealedMagic[4] = {'F', 'H', 'T', '2'};
constexpr char kSecondFileMagic[4] = {'F', 'H', 'C', '2'};

void ensure_sodium() {
  if (sodium_init() < 0) throw std::runtime_error("libsodium failed to initialise");
}

// Little-endian integers, as every raw layout of the protocol writes them.
constexpr auto put64 = put_u64;
constexpr auto get64 = get_u64;

// A count above kMaxTokenAddresses is a caller's bug; writing only the entries there are keeps it
// from running past the buffer (the count byte itself is written as is, so the result never parses).
std::size_t used_count(const TokenAddresses& a) { return std::min<std::size_t>(a.count, kMaxTokenAddresses); }

void write_addresses(uint8_t* p, const TokenAddresses& a) {
  std::memset(p, 0, kAddressesBytes);
  for (std::size_t i = 0; i < used_count(a); ++i) {
    uint8_t* e = p + i * kAddressBytes;
    e[0] = a.items[i].v6 ? 6 : 4;
    std::memcpy(e + 1, a.items[i].ip.data(), 16);
    e[17] = uint8_t(a.items[i].port);
    e[18] = uint8_t(a.items[i].port >> 8);
  }
}

// Reads `count` addresses; every used entry must be valid and every unused one all zero. Returns ""
// or what is wrong.
std::string read_addresses(const uint8_t* p, uint8_t count, TokenAddresses& out) {
  if (count < 1 || count > kMaxTokenAddresses)
    return "address count " + std::to_string(count) + " is not in 1.." + std::to_string(kMaxTokenAddresses);
  TokenAddresses a;
  a.count = count;
  for (std::size_t i = 0; i < kMaxTokenAddresses; ++i) {
    const uint8_t* e = p + i * kAddressBytes;
    if (i >= count) {
      for (std::size_t k = 0; k < kAddressBytes; ++k)
        if (e[k] != 0) return "unused address entry " + std::to_string(i + 1) + " is not zero";
      continue;
    }
    const std::string which = "address " + std::to_string(i + 1);
    if (e[0] != 4 && e[0] != 6) return which + " has family " + std::to_string(e[0]) + ", not 4 or 6";
    TokenAddress& t = a.items[i];
    t.v6 = e[0] == 6;
    std::memcpy(t.ip.data(), e + 1, 16);
    t.port = uint16_t(e[17] | (e[18] << 8));
    if (t.port == 0) return which + " has port 0";
    if (!t.v6)
      for (std::size_t k = 4; k < 16; ++k)
        if (t.ip[k] != 0) return which + " is IPv4 but has bytes after the fourth";
  }
  out = a;
  return "";
}

std::string validate_address(const TokenAddress& a, std::size_t i) {
  TokenAddresses one;
  one.items[0] = a;
  one.count = 1;
  uint8_t buf[kAddressesBytes];
  write_addresses(buf, one);
  std::string e = read_addresses(buf, 1, one);
  if (!e.empty()) e.replace(0, std::strlen("address 1"), "server " + std::to_string(i + 1));
  return e;
}

#if defined(_WIN32)
// Windows' C runtime: binary mode (text mode would write every 0x0A byte as 0x0D 0x0A); nothing is
// exec'd to inherit a descriptor. A file's mode bits mean nothing there: who reads a key is its
// folder's access list (the server and foothold-token, which write keys, run on Linux).
constexpr int kFileFlags = O_BINARY;
#else
constexpr int kFileFlags = O_CLOEXEC;
#endif

// Writes a secret (a key, or a token's session keys) readable by its owner only. `flags` holds
// O_EXCL (never replace: keys) or O_TRUNC (replace: tokens).
bool write_file(const std::string& path, const uint8_t* data, std::size_t size, int flags, std::string& error) {
  const int fd = ::open(path.c_str(), flags | O_WRONLY | kFileFlags, 0600);
  if (fd < 0) {
    error = errno == EEXIST ? path + " already exists; remove it first or choose another path"
                            : path + ": cannot create: " + std::strerror(errno);
    return false;
  }
  const auto failed = [&](const char* what) {
    error = path + ": cannot " + what + ": " + std::strerror(errno);
    ::close(fd);
    // A half-written key file would be refused later with a puzzling message; remove it now.
    if (flags & O_EXCL) ::unlink(path.c_str());
    return false;
  };
  // open's mode applies only to a file it creates: a token written over an older, world-readable
  // file must not keep that file's mode. Only regular files: --out /dev/stdout must not change the
  // mode of the terminal or pipe behind it.
#if !defined(_WIN32)
  struct stat st {};
  if (::fstat(fd, &st) != 0) return failed("stat");
  if (S_ISREG(st.st_mode) && (st.st_mode & 0777) != 0600 && ::fchmod(fd, 0600) != 0) return failed("set its mode to 0600");
#endif
  std::size_t done = 0;
  while (done < size) {
    const auto n = ::write(fd, data + done, static_cast<unsigned>(std::min<std::size_t>(size - done, 1u << 30)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return failed("write");
    if (n == 0) {
      errno = EIO;
      return failed("write");
    }
    done += std::size_t(n);
  }
  if (::close(fd) != 0) {
    error = path + ": cannot write: " + std::strerror(errno);
    if (flags & O_EXCL) ::unlink(path.c_str());
    return false;
  }
  return true;
}

// Reads at most `limit` bytes (one more than any valid file, so that a longer one is noticed).
bool read_file(const std::string& path, std::vector<uint8_t>& out, std::size_t limit, std::string& error) {
  const int fd = ::open(path.c_str(), O_RDONLY | kFileFlags);
  if (fd < 0) {
    error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  out.assign(limit, 0);
  std::size_t got = 0;
  while (got < limit) {
    const auto n = ::read(fd, out.data() + got, static_cast<unsigned>(std::min<std::size_t>(limit - got, 1u << 30)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = path + ": cannot read: " + std::strerror(errno);
      ::close(fd);
      return false;
    }
    if (n == 0) break;
    got += std::size_t(n);
  }
  ::close(fd);
  out.resize(got);
  return true;
}

}  // namespace

bool TokenAddresses::contains(const TokenAddress& a) const {
  for (std::size_t i = 0; i < used_count(*this); ++i)
    if (items[i] == a) return true;
  return false;
}

std::string_view to_string(TokenError e) {
  switch (e) {
    case TokenError::kNone: return "none";
    case TokenError::kMalformed: return "malformed";
    case TokenError::kExpired: return "expired";
    case TokenError::kBadSeal: return "bad_seal";
    case TokenError::kNotYetValid: return "not_yet_valid";
    case TokenError::kTooFarAhead: return "too_far_ahead";
    case TokenError::kCount: break;
  }
  return "invalid";
}

Key generate_key() {
  ensure_sodium();
  Key k{};
  crypto_aead_xchacha20poly1305_ietf_keygen(k.data());
  return k;
}

const Key& development_key() {
  static const Key k = [] {
    ensure_sodium();
    static constexpr char kText[] = "foothold public development key: loopback only";
    Key key{};
    crypto_generichash(key.data(), key.size(), reinterpret_cast<const unsigned char*>(kText), sizeof kText - 1, nullptr, 0);
    return key;
  }();
  return k;
}

bool mint_token(const Key& private_key, uint64_t client_id, std::span<const TokenAddress> servers, uint64_t now_unix,
                uint64_t lifetime_seconds, ConnectToken& out, std::string& error, uint64_t not_before_delay,
                std::span<const uint8_t> user_data) {
  ensure_sodium();
  if (user_data.size() > kMaxUserData) {
    error = "user data is " + std::to_string(user_data.size()) + " bytes: at most " + std::to_string(kMaxUserData);
    return false;
  }
  if (servers.empty() || servers.size() > kMaxTokenAddresses) {
    error = "a token names 1 to " + std::to_string(kMaxTokenAddresses) + " servers, not " + std::to_string(servers.size());
    return false;
  }
  for (std::size_t i = 0; i < servers.size(); ++i) {
    if (auto e = validate_address(servers[i], i); !e.empty()) {
      error = e;
      return false;
    }
  }
  if (lifetime_seconds < 1 || lifetime_seconds > kMaxTokenLifetime) {
    error = "token lifetime " + std::to_string(lifetime_seconds) + " s is not in 1.." + std::to_string(kMaxTokenLifetime);
    return false;
  }
  if (not_before_delay > kMaxTokenLifetime) {
    error = "not-before delay " + std::to_string(not_before_delay) + " s is not in 0.." + std::to_string(kMaxTokenLifetime);
    return false;
  }
  if (now_unix > ~uint64_t(0) - lifetime_seconds - not_before_delay) {
    error = "the time " + std::to_string(now_unix) + " plus the delay and the lifetime overflows";
    return false;
  }
  ConnectToken t;
  t.client_id = client_id;
  t.created_unix = now_unix;
  t.not_before_unix = now_unix + not_before_delay;
  t.expires_unix = t.not_before_unix + lifetime_seconds;
  t.servers.count = uint8_t(servers.size());
  std::copy(servers.begin(), servers.end(), t.servers.items.begin());
  randombytes_buf(t.client_to_server.data(), kKeyBytes);
  randombytes_buf(t.server_to_client.data(), kKeyBytes);

  uint8_t plain[kPlainBytes];
  put64(plain, client_id);
  plain[8] = t.servers.count;
  write_addresses(plain + 9, t.servers);
  std::memcpy(plain + 9 + kAddressesBytes, t.client_to_server.data(), kKeyBytes);
  std::memcpy(plain + 9 + kAddressesBytes + kKeyBytes, t.server_to_client.data(), kKeyBytes);
  // The user data's size, then its bytes, then zeros to the fixed size: every token is as long.
  plain[kUserDataAt] = uint8_t(user_data.size());
  plain[kUserDataAt + 1] = uint8_t(user_data.size() >> 8);
  std::memset(plain + kUserDataAt + 2, 0, kMaxUserData);
  if (!user_data.empty()) std::memcpy(plain + kUserDataAt + 2, user_data.data(), user_data.size());

  uint8_t* s = t.sealed.data();
  std::memcpy(s, kSealedMagic, 4);
  put64(s + 4, t.expires_unix);
  put64(s + 12, t.not_before_unix);
  randombytes_buf(s + kTokenNonceOffset, 24);
  unsigned long long clen = 0;
  crypto_aead_xchacha20poly1305_ietf_encrypt(s + kSealedHeader, &clen, plain, sizeof plain, s, kAdBytes, nullptr,
                                             s + kTokenNonceOffset, private_key.data());
  sodium_memzero(plain, sizeof plain);
  out = t;
  return true;
}

uint64_t sealed_token_expiry(std::span<const uint8_t> sealed) {
  return sealed.size() >= 12 ? get64(sealed.data() + 4) : 0;
}

uint64_t sealed_token_not_before(std::span<const uint8_t> sealed) {
  return sealed.size() >= 20 ? get64(sealed.data() + 12) : 0;
}

namespace {

// The seal and the contents, once the times have been judged.
TokenError open_sealed(const Key& private_key, std::span<const uint8_t> sealed, TokenContents& out) {
  uint8_t plain[kPlainBytes];
  unsigned long long mlen = 0;
  if (crypto_aead_xchacha20poly1305_ietf_decrypt(plain, &mlen, nullptr, sealed.data() + kSealedHeader,
                                                 sealed.size() - kSealedHeader, sealed.data(), kAdBytes,
                                                 sealed.data() + kTokenNonceOffset, private_key.data()) != 0 ||
      mlen != kPlainBytes) {
    sodium_memzero(plain, sizeof plain);
    return TokenError::kBadSeal;
  }
  TokenContents c;
  // The user data: a size in range and zeros after it (a minter that wrote anything else is broken).
  const std::size_t user_size = std::size_t(plain[kUserDataAt] | (plain[kUserDataAt + 1] << 8));
  bool padded = user_size <= kMaxUserData;
  for (std::size_t i = user_size; padded && i < kMaxUserData; ++i) padded = plain[kUserDataAt + 2 + i] == 0;
  const bool ok = padded && read_addresses(plain + 9, plain[8], c.servers).empty();
  if (ok) {
    c.user_data_size = uint16_t(user_size);
    std::memcpy(c.user_data.data(), plain + kUserDataAt + 2, kMaxUserData);
    c.client_id = get64(plain);
    c.expires_unix = sealed_token_expiry(sealed);
    c.not_before_unix = sealed_token_not_before(sealed);
    std::memcpy(c.client_to_server.data(), plain + 9 + kAddressesBytes, kKeyBytes);
    std::memcpy(c.server_to_client.data(), plain + 9 + kAddressesBytes + kKeyBytes, kKeyBytes);
  }
  sodium_memzero(plain, sizeof plain);
  if (!ok) return TokenError::kMalformed;
  out = c;
  sodium_memzero(&c, sizeof c);
  return TokenError::kNone;
}

bool well_framed(std::span<const uint8_t> sealed) {
  return sealed.size() == kTokenSealedBytes && std::memcmp(sealed.data(), kSealedMagic, 4) == 0;
}

}  // namespace

TokenError open_token(const Key& private_key, std::span<const uint8_t> sealed, uint64_t now_unix, TokenContents& out) {
  ensure_sodium();
  if (!well_framed(sealed)) return TokenError::kMalformed;
  // Expiry before decryption: a flood of expired tokens costs no cryptography.
  if (sealed_token_expiry(sealed) <= now_unix) return TokenError::kExpired;
  return open_sealed(private_key, sealed, out);
}

TokenError open_token(const Key& private_key, std::span<const uint8_t> sealed, const TokenTimeRules& rules,
                      TokenContents& out) {
  ensure_sodium();
  if (!well_framed(sealed)) return TokenError::kMalformed;
  // The times before decryption: a flood of tokens out of their time costs no cryptography. They come
  // from the wire, so they are compared by subtraction from `now`, which cannot overflow.
  const uint64_t expires = sealed_token_expiry(sealed), not_before = sealed_token_not_before(sealed);
  const uint64_t now = rules.now_unix;
  if (expires <= now) return TokenError::kExpired;
  if (not_before > now && not_before - now > rules.clock_skew) return TokenError::kNotYetValid;
  const uint64_t ahead_limit = rules.max_ahead > ~uint64_t(0) - rules.clock_skew ? ~uint64_t(0) : rules.max_ahead + rules.clock_skew;
  if (expires - now > ahead_limit) return TokenError::kTooFarAhead;
  return open_sealed(private_key, sealed, out);
}

std::array<uint8_t, kTokenFileBytes> serialize_token(const ConnectToken& t) {
  std::array<uint8_t, kTokenFileBytes> b{};
  uint8_t* p = b.data();
  std::memcpy(p, kFileMagic, 4);
  put64(p + 4, t.client_id);
  put64(p + 12, t.created_unix);
  put64(p + 20, t.not_before_unix);
  put64(p + 28, t.expires_unix);
  p[36] = t.servers.count;
  write_addresses(p + kFileAddresses, t.servers);
  std::memcpy(p + kFileAddresses + kAddressesBytes, t.client_to_server.data(), kKeyBytes);
  std::memcpy(p + kFileAddresses + kAddressesBytes + kKeyBytes, t.server_to_client.data(), kKeyBytes);
  std::memcpy(p + kFileAddresses + kAddressesBytes + 2 * kKeyBytes, t.sealed.data(), kTokenSealedBytes);
  return b;
}

namespace {

// The file's times: created <= not before < expires, each step at most a day. "" or what is wrong.
std::string check_times(const ConnectToken& t) {
  const auto n = [](uint64_t v) { return std::to_string(v); };
  if (t.not_before_unix < t.created_unix)
    return "valid from " + n(t.not_before_unix) + ", before it was created (" + n(t.created_unix) + ")";
  if (t.expires_unix <= t.not_before_unix)
    return "expires (" + n(t.expires_unix) + ") before it is valid (" + n(t.not_before_unix) + ")";
  if (t.expires_unix - t.not_before_unix > kMaxTokenLifetime)
    return "lifetime " + n(t.expires_unix - t.not_before_unix) + " s is longer than " + n(kMaxTokenLifetime) + " s";
  if (t.not_before_unix - t.created_unix > kMaxTokenLifetime)
    return "valid only " + n(t.not_before_unix - t.created_unix) + " s after it was created, more than " +
           n(kMaxTokenLifetime) + " s";
  return "";
}

}  // namespace

bool parse_token(std::span<const uint8_t> bytes, ConnectToken& out, std::string& error) {
  const uint8_t* p = bytes.data();
  if (bytes.size() >= 4 && std::memcmp(p, kFirstFileMagic, 4) == 0) {
    error = "token: an FHC1 token file, of the first token format (no not-before time), which this version no longer "
            "reads: mint a new one";
    return false;
  }
  if (bytes.size() >= 4 && std::memcmp(p, kSecondFileMagic, 4) == 0) {
    error = "token: an FHC2 token file, of the second token format (no user data), which this version no longer "
            "reads: mint a new one";
    return false;
  }
  if (bytes.size() != kTokenFileBytes) {
    error = "token: " + std::to_string(bytes.size()) + " bytes, not " + std::to_string(kTokenFileBytes);
    return false;
  }
  if (std::memcmp(p, kFileMagic, 4) != 0) {
    error = "token: not a Foothold token file (no FHC3 magic)";
    return false;
  }
  ConnectToken t;
  t.client_id = get64(p + 4);
  t.created_unix = get64(p + 12);
  t.not_before_unix = get64(p + 20);
  t.expires_unix = get64(p + 28);
  if (auto e = read_addresses(p + kFileAddresses, p[36], t.servers); !e.empty()) {
    error = "token: " + e;
    return false;
  }
  if (auto e = check_times(t); !e.empty()) {
    error = "token: " + e;
    return false;
  }
  std::memcpy(t.client_to_server.data(), p + kFileAddresses + kAddressesBytes, kKeyBytes);
  std::memcpy(t.server_to_client.data(), p + kFileAddresses + kAddressesBytes + kKeyBytes, kKeyBytes);
  std::memcpy(t.sealed.data(), p + kFileAddresses + kAddressesBytes + 2 * kKeyBytes, kTokenSealedBytes);
  if (std::memcmp(t.sealed.data(), kSealedMagic, 4) != 0) {
    error = std::memcmp(t.sealed.data(), kFirstSealedMagic, 4) == 0
                ? "token: its sealed part is of the first token format (FHT1), which servers of this version refuse"
            : std::memcmp(t.sealed.data(), kSecondSealedMagic, 4) == 0
                ? "token: its sealed part is of the second token format (FHT2), which servers of this version refuse"
                : "token: its sealed part has no FHT3 magic";
    return false;
  }
  if (sealed_token_expiry(t.sealed) != t.expires_unix) {
    error = "token: its sealed part expires at " + std::to_string(sealed_token_expiry(t.sealed)) + ", the file says " +
            std::to_string(t.expires_unix);
    return false;
  }
  if (sealed_token_not_before(t.sealed) != t.not_before_unix) {
    error = "token: its sealed part is valid from " + std::to_string(sealed_token_not_before(t.sealed)) +
            ", the file says " + std::to_string(t.not_before_unix);
    return false;
  }
  out = t;
  return true;
}

bool write_key_file(const std::string& path, const Key& key, std::string& error) {
  ensure_sodium();
  char hex[2 * kKeyBytes + 1];
  sodium_bin2hex(hex, sizeof hex, key.data(), key.size());
  std::string text(hex, 2 * kKeyBytes);
  text += '\n';
  const bool ok = write_file(path, reinterpret_cast<const uint8_t*>(text.data()), text.size(), O_CREAT | O_EXCL, error);
  sodium_memzero(hex, sizeof hex);
  sodium_memzero(text.data(), text.size());
  return ok;
}

bool read_key_file(const std::string& path, Key& key, std::string& error) {
  ensure_sodium();
  // Enough to see that a file is longer than any key file, without reading a huge one.
  constexpr std::size_t kReadLimit = 200;
  std::vector<uint8_t> bytes;
  if (!read_file(path, bytes, kReadLimit, error)) return false;
  std::size_t n = bytes.size();
  if (n > 0 && bytes[n - 1] == '\n') --n;
  bool hex = n == 2 * kKeyBytes;
  // Spelled out rather than std::isxdigit, whose answer depends on the process's locale.
  const auto is_hex = [](uint8_t c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); };
  for (std::size_t i = 0; hex && i < n; ++i) hex = is_hex(bytes[i]);
  if (!hex) {
    const bool too_long = bytes.size() >= kReadLimit;
    sodium_memzero(bytes.data(), bytes.size());
    error = path + (too_long ? ": too long for a key file" : ": not a key file") +
            " (it must hold exactly 64 hexadecimal digits and at most a newline; make one with foothold-token keygen)";
    return false;
  }
  Key k{};
  sodium_hex2bin(k.data(), k.size(), reinterpret_cast<const char*>(bytes.data()), n, nullptr, nullptr, nullptr);
  sodium_memzero(bytes.data(), bytes.size());
  if (sodium_is_zero(k.data(), k.size())) {
    error = path + ": the key is all zeros";
    return false;
  }
  key = k;
  sodium_memzero(k.data(), k.size());
  return true;
}

bool write_token_file(const std::string& path, const ConnectToken& token, std::string& error) {
  auto bytes = serialize_token(token);
  const bool ok = write_file(path, bytes.data(), bytes.size(), O_CREAT | O_TRUNC, error);
  sodium_memzero(bytes.data(), bytes.size());
  return ok;
}

bool read_token_file(const std::string& path, ConnectToken& token, std::string& error) {
  std::vector<uint8_t> bytes;
  if (!read_file(path, bytes, kTokenFileBytes + 1, error)) return false;
  const bool ok = parse_token(bytes, token, error);
  sodium_memzero(bytes.data(), bytes.size());
  if (!ok) error = path + ": " + error;
  return ok;
}

}  // namespace foothold::proto
