#include "proto/secure.h"

#include <cstring>
#include <stdexcept>

#include <sodium.h>

#include "proto/aead.h"
#include "proto/codec.h"

namespace foothold::proto {

namespace {

void ensure_sodium() {
  // Once per process: sodium_init takes a lock on every call, which the threads sealing snapshots
  // would contend for.
  static const bool ready = sodium_init() >= 0;
  if (!ready) throw std::runtime_error("libsodium failed to initialise");
}

constexpr std::size_t kSessionNonceBytes = crypto_aead_chacha20poly1305_IETF_NPUBBYTES;  // 12
static_assert(kSessionNonceBytes == 12);
static_assert(crypto_aead_chacha20poly1305_IETF_ABYTES == kTagBytes);
static_assert(crypto_aead_xchacha20poly1305_IETF_NPUBBYTES == kReplyNonceBytes);
static_assert(crypto_aead_xchacha20poly1305_IETF_ABYTES == kTagBytes);

// Additional data of every sealed datagram: its prefix byte and the protocol's id and version, so a
// datagram of another protocol or version never opens, and a prefix cannot be altered.
std::array<uint8_t, 7> additional_data(uint8_t prefix) {
  // (A routed session datagram's route is authenticated too: session_additional_data.)
  return {prefix,
          uint8_t(kProtocolId),
          uint8_t(kProtocolId >> 8),
          uint8_t(kProtocolId >> 16),
          uint8_t(kProtocolId >> 24),
          uint8_t(kProtocolVersion),
          uint8_t(kProtocolVersion >> 8)};
}

// The session nonce: four zero bytes, then the sequence. Each direction has its own key, and a key
// lives for one session, so a sequence is never used twice with one key.
std::array<uint8_t, kSessionNonceBytes> session_nonce(uint64_t sequence) {
  std::array<uint8_t, kSessionNonceBytes> n{};
  put_u64(n.data() + 4, sequence);
  return n;
}

int sequence_bytes(uint64_t sequence) {
  int n = 1;
  while (n < 8 && (sequence >> (8 * n)) != 0) ++n;
  return n;
}

Key derive(const Key& token_key, uint8_t direction, const KeyInputs& in) {
  // BLAKE2b keyed with the token's key, over a label, the direction, both salts and both sides'
  // randomness.
  static constexpr char kLabel[] = "foothold session";
  constexpr std::size_t kLabelBytes = sizeof kLabel - 1;
  uint8_t msg[kLabelBytes + 1 + 8 + 8 + sizeof in.connect + kServerRandomBytes];
  uint8_t* p = msg;
  std::memcpy(p, kLabel, kLabelBytes);
  p += kLabelBytes;
  *p++ = direction;
  put_u64(p, in.client_salt);
  put_u64(p + 8, in.server_salt);
  p += 16;
  std::memcpy(p, in.connect.data(), in.connect.size());
  std::memcpy(p + in.connect.size(), in.server_random.data(), in.server_random.size());
  Key k{};
  crypto_generichash(k.data(), k.size(), msg, sizeof msg, token_key.data(), token_key.size());
  return k;
}

// A sealed reply's additional data: the layer's, the client's salt and the request it answers.
std::array<uint8_t, 7 + 8 + 16> reply_additional_data(const uint8_t* salt, const RequestTag& answers) {
  std::array<uint8_t, 7 + 8 + 16> ad{};
  const auto base = additional_data(kSealedPrefix);
  std::memcpy(ad.data(), base.data(), base.size());
  std::memcpy(ad.data() + base.size(), salt, 8);
  std::memcpy(ad.data() + base.size() + 8, answers.data(), answers.size());
  return ad;
}

}  // namespace

void put_u64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = uint8_t(v >> (8 * i));
}

uint64_t get_u64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(p[i]) << (8 * i);
  return v;
}

uint64_t random_u64() {
  ensure_sodium();
  uint64_t v;
  randombytes_buf(&v, sizeof v);
  return v;
}

Layer layer_of(std::span<const uint8_t> datagram) {
  if (datagram.empty()) return Layer::kInvalid;
  const uint8_t p = datagram[0];
  if (p == kClearPrefix) return Layer::kClear;
  if (p == kSealedPrefix) return Layer::kSealed;
  // A Packet (0x10-0x17) or a compact message (0x18-0x1f), and each routed (0x30-0x3f).
  if ((p & 0xd0) == kSessionPrefix) return Layer::kSession;
  return Layer::kInvalid;
}

RequestTag request_tag(std::span<const uint8_t> proof) {
  ensure_sodium();
  RequestTag t{};
  crypto_generichash(t.data(), t.size(), proof.data(), proof.size(), nullptr, 0);
  return t;
}

ServerRandom random_server_contribution() {
  ensure_sodium();
  ServerRandom r{};
  randombytes_buf(r.data(), r.size());
  return r;
}

SessionKeys client_session_keys(const Key& c2s, const Key& s2c, const KeyInputs& inputs) {
  ensure_sodium();
  return {derive(c2s, 'c', inputs), derive(s2c, 's', inputs)};
}

SessionKeys server_session_keys(const Key& c2s, const Key& s2c, const KeyInputs& inputs) {
  ensure_sodium();
  return {derive(s2c, 's', inputs), derive(c2s, 'c', inputs)};
}

bool ReplayWindow::fresh(uint64_t sequence) const {
  if (sequence == kNever) return false;
  if (newest_ >= kSize && sequence <= newest_ - kSize) return false;  // older than the window
  return sequence > newest_ || !marked(sequence);
}

void ReplayWindow::mark(uint64_t sequence) {
  if (sequence == kNever || (newest_ >= kSize && sequence <= newest_ - kSize)) return;
  if (sequence > newest_) {
    // The sequences passed over (newest_, sequence) were not received; their bits last stood for
    // sequences now older than the window.
    if (sequence - newest_ >= kSize) {
      seen_.fill(0);
    } else {
      for (uint64_t s = newest_ + 1; s < sequence; ++s) seen_[(s % kSize) / 64] &= ~(uint64_t(1) << (s % 64));
    }
    newest_ = sequence;
  }
  seen_[(sequence % kSize) / 64] |= uint64_t(1) << (sequence % 64);
}

Payload session_payload(std::span<const uint8_t> datagram) {
  return !datagram.empty() && (datagram[0] & 0xd8) == kCompactPrefix ? Payload::kCompact : Payload::kPacket;
}

std::size_t session_overhead(uint64_t sequence, bool routed) {
  return 1 + (routed ? kRouteBytes : 0) + std::size_t(sequence_bytes(sequence)) + kTagBytes;
}

namespace {
// Bytes of the route after a session prefix: kRouteBytes when it has kRoutedFlag.
std::size_t route_bytes(uint8_t prefix) { return (prefix & kRoutedFlag) ? kRouteBytes : 0; }
// A session datagram's additional data: the prefix's, then its route bytes if it has them.
std::array<uint8_t, 7 + kRouteBytes> session_additional_data(const uint8_t* datagram, std::size_t& size) {
  std::array<uint8_t, 7 + kRouteBytes> ad{};
  const auto base = additional_data(datagram[0]);
  std::memcpy(ad.data(), base.data(), base.size());
  const std::size_t r = route_bytes(datagram[0]);
  if (r) std::memcpy(ad.data() + base.size(), datagram + 1, r);
  size = base.size() + r;
  return ad;
}
}  // namespace

uint32_t session_route(std::span<const uint8_t> datagram) {
  if (layer_of(datagram) != Layer::kSession || !(datagram[0] & kRoutedFlag) || datagram.size() < 1 + kRouteBytes) return 0;
  return uint32_t(datagram[1]) | uint32_t(datagram[2]) << 8 | uint32_t(datagram[3]) << 16 | uint32_t(datagram[4]) << 24;
}

std::span<const uint8_t> seal_session(const Key& key, uint64_t sequence, std::span<const uint8_t> packet,
                                      DatagramBuffer& out, Payload payload, uint32_t route) {
  ensure_sodium();
  const int n = sequence_bytes(sequence);
  const uint8_t prefix = uint8_t((payload == Payload::kCompact ? kCompactPrefix : kSessionPrefix) | (route ? kRoutedFlag : 0) | (n - 1));
  if (packet.size() + kSessionOverhead > out.bytes.size()) return {};
  out.bytes[0] = prefix;
  const std::size_t r = route_bytes(prefix);
  for (std::size_t i = 0; i < r; ++i) out.bytes[1 + i] = uint8_t(route >> (8 * i));
  for (int i = 0; i < n; ++i) out.bytes[1 + r + size_t(i)] = uint8_t(sequence >> (8 * i));
  std::size_t ad_size = 0;
  const auto ad = session_additional_data(out.bytes.data(), ad_size);
  const auto nonce = session_nonce(sequence);
  aead_seal(out.bytes.data() + 1 + r + n, packet.data(), packet.size(), ad.data(), ad_size, nonce.data(), key.data());
  return {out.bytes.data(), 1 + r + size_t(n) + packet.size() + kTagBytes};
}

OpenError open_session(const Key& key, const ReplayWindow& window, std::span<const uint8_t> datagram,
                       DatagramBuffer& out, uint64_t& sequence, std::span<const uint8_t>& packet) {
  ensure_sodium();
  if (layer_of(datagram) != Layer::kSession) return OpenError::kMalformed;
  const std::size_t n = std::size_t(datagram[0] & 7) + 1;
  const std::size_t head = 1 + route_bytes(datagram[0]) + n;  // prefix, route, sequence
  if (datagram.size() < head + kTagBytes || datagram.size() - head - kTagBytes > out.bytes.size())
    return OpenError::kMalformed;
  uint64_t seq = 0;
  for (std::size_t i = 0; i < n; ++i) seq |= uint64_t(datagram[head - n + i]) << (8 * i);
  // The cheap check first: a replay costs no decryption. (The sequence is authenticated below, so
  // a forged one can make us drop, never accept.)
  if (!window.fresh(seq)) return OpenError::kReplayed;
  std::size_t ad_size = 0;
  const auto ad = session_additional_data(datagram.data(), ad_size);
  const auto nonce = session_nonce(seq);
  const std::size_t sealed = datagram.size() - head;
  if (!aead_open(out.bytes.data(), datagram.data() + head, sealed, ad.data(), ad_size, nonce.data(), key.data()))
    return OpenError::kBadSeal;
  sequence = seq;
  packet = {out.bytes.data(), sealed - kTagBytes};
  return OpenError::kNone;
}

std::span<const uint8_t> seal_reply(const Key& s2c, uint64_t client_salt, const RequestTag& answers,
                                    std::span<const uint8_t> packet, DatagramBuffer& out) {
  ensure_sodium();
  if (packet.size() + kSealedOverhead > out.bytes.size()) return {};
  uint8_t* p = out.bytes.data();
  p[0] = kSealedPrefix;
  put_u64(p + 1, client_salt);
  // A random nonce: the server keeps no state before a session, so it cannot count.
  randombytes_buf(p + 9, kReplyNonceBytes);
  // The additional data also binds the salt and the request, so a reply cannot be redirected to
  // another attempt, nor one answering an attacker's request be taken for the answer to the client's.
  const auto ad = reply_additional_data(p + 1, answers);
  unsigned long long clen = 0;
  crypto_aead_xchacha20poly1305_ietf_encrypt(p + 9 + kReplyNonceBytes, &clen, packet.data(), packet.size(), ad.data(),
                                             ad.size(), nullptr, p + 9, s2c.data());
  return {p, 9 + kReplyNonceBytes + size_t(clen)};
}

uint64_t sealed_reply_salt(std::span<const uint8_t> datagram) {
  if (layer_of(datagram) != Layer::kSealed || datagram.size() < 9) return 0;
  return get_u64(datagram.data() + 1);
}

OpenError open_reply(const Key& s2c, const RequestTag& answers, std::span<const uint8_t> datagram, DatagramBuffer& out,
                     std::span<const uint8_t>& packet) {
  ensure_sodium();
  if (layer_of(datagram) != Layer::kSealed || datagram.size() < kSealedOverhead ||
      datagram.size() - kSealedOverhead > out.bytes.size())
    return OpenError::kMalformed;
  const auto ad = reply_additional_data(datagram.data() + 1, answers);
  unsigned long long mlen = 0;
  const uint8_t* nonce = datagram.data() + 9;
  if (crypto_aead_xchacha20poly1305_ietf_decrypt(out.bytes.data(), &mlen, nullptr, nonce + kReplyNonceBytes,
                                                 datagram.size() - 9 - kReplyNonceBytes, ad.data(), ad.size(), nonce,
                                                 s2c.data()) != 0)
    return OpenError::kBadSeal;
  packet = {out.bytes.data(), size_t(mlen)};
  return OpenError::kNone;
}

std::array<uint8_t, kProofBytes> seal_proof(const Key& c2s, std::span<const uint8_t> cookie, uint64_t world_hash,
                                            uint64_t settings_hash) {
  ensure_sodium();
  std::array<uint8_t, kProofBytes> out{};
  randombytes_buf(out.data(), kReplyNonceBytes);
  uint8_t m[16];
  put_u64(m, world_hash);
  put_u64(m + 8, settings_hash);
  unsigned long long clen = 0;
  crypto_aead_xchacha20poly1305_ietf_encrypt(out.data() + kReplyNonceBytes, &clen, m, sizeof m, cookie.data(),
                                             cookie.size(), nullptr, out.data(), c2s.data());
  return out;
}

bool open_proof(const Key& c2s, std::span<const uint8_t> cookie, std::span<const uint8_t> proof, uint64_t& world_hash,
                uint64_t& settings_hash) {
  ensure_sodium();
  if (proof.size() != kProofBytes) return false;
  uint8_t m[16];
  unsigned long long mlen = 0;
  if (crypto_aead_xchacha20poly1305_ietf_decrypt(m, &mlen, nullptr, proof.data() + kReplyNonceBytes,
                                                 proof.size() - kReplyNonceBytes, cookie.data(), cookie.size(),
                                                 proof.data(), c2s.data()) != 0 ||
      mlen != sizeof m)
    return false;
  world_hash = get_u64(m);
  settings_hash = get_u64(m + 8);
  return true;
}

std::span<const uint8_t> frame_clear(std::span<const uint8_t> packet, DatagramBuffer& out) {
  if (packet.size() + 1 > out.bytes.size()) return {};
  out.bytes[0] = kClearPrefix;
  if (!packet.empty()) std::memcpy(out.bytes.data() + 1, packet.data(), packet.size());
  return {out.bytes.data(), packet.size() + 1};
}

std::span<const uint8_t> unframe_clear(std::span<const uint8_t> datagram, DatagramBuffer& out) {
  if (layer_of(datagram) != Layer::kClear || datagram.size() - 1 > out.bytes.size()) return {};
  if (datagram.size() > 1) std::memcpy(out.bytes.data(), datagram.data() + 1, datagram.size() - 1);
  return {out.bytes.data(), datagram.size() - 1};
}

}  // namespace foothold::proto
