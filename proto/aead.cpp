#include "proto/aead.h"

#include <array>
#include <cstring>

#include <sodium.h>

namespace foothold::proto {

static_assert(crypto_aead_chacha20poly1305_IETF_KEYBYTES == kAeadKeyBytes);
static_assert(crypto_aead_chacha20poly1305_IETF_NPUBBYTES == kAeadNonceBytes);
static_assert(crypto_aead_chacha20poly1305_IETF_ABYTES == kAeadTagBytes);

namespace {

// Keystream made in one call: block 0 (its first 32 bytes are the Poly1305 key), then the message's.
// libsodium's ChaCha20 runs 8 or 4 blocks at a time only in whole groups of 512 or 256 bytes; a
// ragged tail goes a block at a time, slower per byte, so the length is rounded up to 256.
constexpr std::size_t kStreamGroup = 256;
constexpr std::size_t kMaxStream = 512;  // longer messages use libsodium's AEAD
constexpr std::size_t kBlock = 64;

std::size_t stream_length(std::size_t m_len) { return (kBlock + m_len + kStreamGroup - 1) / kStreamGroup * kStreamGroup; }

void xor_into(uint8_t* out, const uint8_t* in, const uint8_t* ks, std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t a, b;
    std::memcpy(&a, in + i, 8);
    std::memcpy(&b, ks + i, 8);
    a ^= b;
    std::memcpy(out + i, &a, 8);
  }
  for (; i < n; ++i) out[i] = uint8_t(in[i] ^ ks[i]);
}

// RFC 8439 (section 2.8): Poly1305 over ad, zero padding to 16, the ciphertext, zero padding to 16, then both
// lengths as 64-bit little-endian numbers.
void tag_of(uint8_t* tag, const uint8_t* poly_key, const uint8_t* ad, std::size_t ad_len, const uint8_t* c,
            std::size_t c_len) {
  static constexpr uint8_t kZeros[16] = {};
  uint8_t lengths[16];
  for (int i = 0; i < 8; ++i) {
    lengths[i] = uint8_t(uint64_t(ad_len) >> (8 * i));
    lengths[8 + i] = uint8_t(uint64_t(c_len) >> (8 * i));
  }
  crypto_onetimeauth_poly1305_state st;
  crypto_onetimeauth_poly1305_init(&st, poly_key);
  crypto_onetimeauth_poly1305_update(&st, ad, ad_len);
  crypto_onetimeauth_poly1305_update(&st, kZeros, (16 - ad_len % 16) % 16);
  crypto_onetimeauth_poly1305_update(&st, c, c_len);
  crypto_onetimeauth_poly1305_update(&st, kZeros, (16 - c_len % 16) % 16);
  crypto_onetimeauth_poly1305_update(&st, lengths, sizeof lengths);
  crypto_onetimeauth_poly1305_final(&st, tag);
  sodium_memzero(&st, sizeof st);
}

}  // namespace

void aead_seal(uint8_t* c, const uint8_t* m, std::size_t m_len, const uint8_t* ad, std::size_t ad_len,
               const uint8_t* nonce, const uint8_t* key) {
  if (kBlock + m_len > kMaxStream) {
    crypto_aead_chacha20poly1305_ietf_encrypt_detached(c, c + m_len, nullptr, m, m_len, ad, ad_len, nullptr, nonce, key);
    return;
  }
  alignas(64) std::array<uint8_t, kMaxStream> ks;
  const std::size_t len = stream_length(m_len);
  crypto_stream_chacha20_ietf(ks.data(), len, nonce, key);
  xor_into(c, m, ks.data() + kBlock, m_len);
  tag_of(c + m_len, ks.data(), ad, ad_len, c, m_len);
  sodium_memzero(ks.data(), len);
}

bool aead_open(uint8_t* m, const uint8_t* c, std::size_t c_len, const uint8_t* ad, std::size_t ad_len,
               const uint8_t* nonce, const uint8_t* key) {
  if (c_len < kAeadTagBytes) return false;
  const std::size_t m_len = c_len - kAeadTagBytes;
  if (kBlock + m_len > kMaxStream)
    return crypto_aead_chacha20poly1305_ietf_decrypt_detached(m, nullptr, c, m_len, c + m_len, ad, ad_len, nonce, key) == 0;
  alignas(64) std::array<uint8_t, kMaxStream> ks;
  const std::size_t len = stream_length(m_len);
  crypto_stream_chacha20_ietf(ks.data(), len, nonce, key);
  uint8_t tag[kAeadTagBytes];
  tag_of(tag, ks.data(), ad, ad_len, c, m_len);
  const bool ok = crypto_verify_16(tag, c + m_len) == 0;  // in constant time
  if (ok) {
    xor_into(m, c, ks.data() + kBlock, m_len);
  } else {
    std::memset(m, 0, m_len);
  }
  sodium_memzero(ks.data(), len);
  return ok;
}

}  // namespace foothold::proto
