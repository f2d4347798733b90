#pragma once
// The session datagrams' cipher: ChaCha20-Poly1305 as RFC 8439 (section 2.8) defines it (libsodium's
// crypto_aead_chacha20poly1305_ietf), byte for byte, made from libsodium's ChaCha20 stream and
// Poly1305 so that a short datagram costs half as much. libsodium's AEAD asks for the Poly1305 key
// (one block) and the message's keystream in two calls, each too short for its vector code: a
// 150-byte snapshot took 680 ns. Here both come from one call of a length its vector code covers
// (350 ns). Longer messages, where that no longer pays, go to libsodium's AEAD itself.

#include <cstddef>
#include <cstdint>

namespace foothold::proto {

inline constexpr std::size_t kAeadKeyBytes = 32;
inline constexpr std::size_t kAeadNonceBytes = 12;
inline constexpr std::size_t kAeadTagBytes = 16;

/// Encrypts `m` (m_len bytes) into `c` (the same length, then the 16-byte tag: c_len = m_len + 16)
/// with `ad` authenticated alongside. `c` may be `m` (in place), or else must not overlap it.
/// Requires sodium_init().
void aead_seal(uint8_t* c, const uint8_t* m, std::size_t m_len, const uint8_t* ad, std::size_t ad_len,
               const uint8_t* nonce, const uint8_t* key);

/// Checks the tag of `c` (c_len bytes, the last 16 of them the tag) and, only if it holds, decrypts
/// into `m` (c_len - 16 bytes). False for a c_len below 16, and for a wrong tag, with `m`'s
/// c_len - 16 bytes zeroed (as libsodium's AEAD leaves them): nothing of a forgery is ever read.
/// `m` may be `c` (in place), or else must not overlap it. Requires sodium_init().
bool aead_open(uint8_t* m, const uint8_t* c, std::size_t c_len, const uint8_t* ad, std::size_t ad_len,
               const uint8_t* nonce, const uint8_t* key);

}  // namespace foothold::proto
