// The session cipher (proto/aead.h) is ChaCha20-Poly1305 as RFC 8439 and libsodium define it, byte
// for byte, at every datagram length: a peer using libsodium's AEAD (or any other RFC 8439 one) reads
// what we seal and seals what we read.

#include "proto/aead.h"

#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>
#include <sodium.h>

namespace foothold::proto {
namespace {

std::vector<uint8_t> random_bytes(std::size_t n, std::mt19937& rng) {
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = uint8_t(rng());
  return v;
}

class Aead : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_GE(sodium_init(), 0); }
};

TEST_F(Aead, SealsAsLibsodiumsAeadAtEveryLengthAndOpensWhatItSeals) {
  std::mt19937 rng(8439);
  for (std::size_t len = 0; len <= 1200; ++len) {
    const auto key = random_bytes(kAeadKeyBytes, rng), nonce = random_bytes(kAeadNonceBytes, rng);
    const auto ad = random_bytes(len % 41, rng), m = random_bytes(len, rng);
    std::vector<uint8_t> ours(len + kAeadTagBytes), theirs(len + kAeadTagBytes);
    aead_seal(ours.data(), m.data(), len, ad.data(), ad.size(), nonce.data(), key.data());
    unsigned long long clen = 0;
    crypto_aead_chacha20poly1305_ietf_encrypt(theirs.data(), &clen, m.data(), len, ad.data(), ad.size(), nullptr,
                                              nonce.data(), key.data());
    ASSERT_EQ(clen, theirs.size());
    ASSERT_EQ(ours, theirs) << "length " << len;
    std::vector<uint8_t> back(len, 0xee);
    ASSERT_TRUE(aead_open(back.data(), theirs.data(), theirs.size(), ad.data(), ad.size(), nonce.data(), key.data()))
        << "length " << len;
    ASSERT_EQ(back, m) << "length " << len;
    // In place, both ways.
    std::vector<uint8_t> inplace = m;
    inplace.resize(len + kAeadTagBytes);
    aead_seal(inplace.data(), inplace.data(), len, ad.data(), ad.size(), nonce.data(), key.data());
    ASSERT_EQ(inplace, theirs) << "length " << len << ", in place";
    ASSERT_TRUE(aead_open(inplace.data(), inplace.data(), inplace.size(), ad.data(), ad.size(), nonce.data(), key.data()));
    ASSERT_TRUE(std::equal(m.begin(), m.end(), inplace.begin())) << "length " << len << ", opened in place";
  }
}

TEST_F(Aead, MatchesRfc8439sTestVector) {
  // RFC 8439, section 2.8.2.
  const std::string text =
      "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.";
  std::array<uint8_t, 32> key{};
  for (int i = 0; i < 32; ++i) key[size_t(i)] = uint8_t(0x80 + i);
  const std::array<uint8_t, 12> nonce{0x07, 0, 0, 0, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47};
  const std::array<uint8_t, 12> ad{0x50, 0x51, 0x52, 0x53, 0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7};
  const std::array<uint8_t, 16> tag{0x1a, 0xe1, 0x0b, 0x59, 0x4f, 0x09, 0xe2, 0x6a,
                                    0x7e, 0x90, 0x2e, 0xcb, 0xd0, 0x60, 0x06, 0x91};
  const std::array<uint8_t, 8> first{0xd3, 0x1a, 0x8d, 0x34, 0x64, 0x8e, 0x60, 0xdb};
  std::vector<uint8_t> c(text.size() + kAeadTagBytes);
  aead_seal(c.data(), reinterpret_cast<const uint8_t*>(text.data()), text.size(), ad.data(), ad.size(), nonce.data(),
            key.data());
  EXPECT_TRUE(std::equal(first.begin(), first.end(), c.begin()));
  EXPECT_TRUE(std::equal(tag.begin(), tag.end(), c.end() - 16));
}

TEST_F(Aead, RefusesAnyChangedBitAndZeroesTheOutput) {
  std::mt19937 rng(99);
  for (std::size_t len : {0u, 1u, 150u, 447u, 448u, 449u, 1100u}) {
    const auto key = random_bytes(kAeadKeyBytes, rng), nonce = random_bytes(kAeadNonceBytes, rng);
    const auto ad = random_bytes(7, rng), m = random_bytes(len, rng);
    std::vector<uint8_t> c(len + kAeadTagBytes);
    aead_seal(c.data(), m.data(), len, ad.data(), ad.size(), nonce.data(), key.data());
    auto refused = [&](const std::vector<uint8_t>& cc, const std::vector<uint8_t>& aa, const std::vector<uint8_t>& nn,
                       const std::vector<uint8_t>& kk) {
      std::vector<uint8_t> out(len + 1, 0x5a);
      const bool opened = aead_open(out.data(), cc.data(), cc.size(), aa.data(), aa.size(), nn.data(), kk.data());
      // Zeroed as far as the (claimed) message reaches; not a byte beyond it written.
      const std::size_t reach = cc.size() >= kAeadTagBytes ? cc.size() - kAeadTagBytes : 0;
      bool zeroed = true;
      for (std::size_t i = 0; i < out.size(); ++i) zeroed = zeroed && out[i] == (i < reach ? 0 : 0x5a);
      return !opened && zeroed;
    };
    for (std::size_t bit = 0; bit < c.size() * 8; bit += (len > 200 ? 37 : 1)) {
      auto cc = c;
      cc[bit / 8] ^= uint8_t(1u << (bit % 8));
      ASSERT_TRUE(refused(cc, ad, nonce, key)) << "length " << len << ", ciphertext bit " << bit;
    }
    for (std::size_t bit = 0; bit < ad.size() * 8; ++bit) {
      auto aa = ad;
      aa[bit / 8] ^= uint8_t(1u << (bit % 8));
      ASSERT_TRUE(refused(c, aa, nonce, key)) << "length " << len << ", ad bit " << bit;
    }
    auto nn = nonce;
    nn[11] ^= 1;
    EXPECT_TRUE(refused(c, ad, nn, key)) << "length " << len << ", another nonce";
    auto kk = key;
    kk[0] ^= 1;
    EXPECT_TRUE(refused(c, ad, nonce, kk)) << "length " << len << ", another key";
    auto shorter = c;
    shorter.pop_back();
    EXPECT_TRUE(refused(shorter, ad, nonce, key)) << "length " << len << ", truncated";
  }
  std::vector<uint8_t> out(1);
  const std::array<uint8_t, 15> too_short{};
  const std::array<uint8_t, 32> key{};
  const std::array<uint8_t, 12> nonce{};
  EXPECT_FALSE(aead_open(out.data(), too_short.data(), too_short.size(), nullptr, 0, nonce.data(), key.data()));
}

}  // namespace
}  // namespace foothold::proto
