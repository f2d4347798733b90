#pragma once
// The cookies of Connects that the server has judged (their proof opened: a session, or a sealed
// Reject), remembered until they expire, so that a Connect replayed after its session ended (from
// the player's spoofed address, within the cookie's life) cannot open another: a cookie is judged
// once. Each entry keeps which attempt spent it and the verdict, so that the same attempt repeated
// (its reply was lost) gets the same answer again and a replay of anything else gets nothing.
// Memory is bounded: the server issues at most `handshake_rate` cookies a second, each valid for
// CookieJar::kLifetime, so no more than that many can be spent at once; the capacity follows from
// that bound, and a full memory refuses (it never forgets early).

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>

#include <map>
#include <span>

#include "proto/endpoint.h"
#include "proto/foothold_generated.h"
#include "proto/secure.h"

namespace foothold::server {

/// A set of cookie MACs (16 bytes, random under the jar's key) with the time each may be forgotten.
/// Not thread-safe.
class SpentCookies {
 public:
  /// A cookie's identity: its MAC (bytes 16 to 31).
  using Mac = std::array<uint8_t, 16>;
  /// Who spent a cookie, and what they were told.
  struct Spent {
    proto::RequestTag attempt{};  ///< request_tag() of the Connect that spent it
    bool accepted = false;        ///< it opened a session; else it was refused with `refusal`
    proto::fb::RejectReason refusal = proto::fb::RejectReason::Unknown;
  };
  /// Remembers at most `capacity` cookies (at least 1).
  explicit SpentCookies(std::size_t capacity);
  /// The capacity a server issuing at most `cookies_per_second` (with bursts of `burst`) needs: an
  /// entry lives up to a lifetime after its cookie was spent, which is up to a lifetime after it
  /// was issued.
  static std::size_t capacity_for(double cookies_per_second, double burst, proto::Nanos lifetime);

  /// The MAC of a cookie (the caller has checked it with the jar; a cookie of another size gives zeros).
  static Mac mac_of(std::span<const uint8_t> cookie);
  /// The entry of `mac` if it is remembered and not forgotten by `now` (else nullptr). The pointer
  /// is valid until the next call.
  const Spent* find(const Mac& mac, proto::Nanos now);
  /// Remembers `mac` until `until` (the cookie's expiry or later); false, remembering nothing, when
  /// the memory is full of cookies that have not expired. An entry already there is kept as it is.
  bool remember(const Mac& mac, const Spent& spent, proto::Nanos until, proto::Nanos now);
  /// Cookies remembered now (including any not yet forgotten at the last call's time).
  std::size_t size() const { return macs_.size(); }
  /// The most it remembers at once.
  std::size_t capacity() const { return capacity_; }

 private:
  /// Forgets the entries whose time has come: in the order remembered, whose `until` never
  /// decreases (remember() keeps it so), so the oldest are at the front.
  void forget(proto::Nanos now);
  std::size_t capacity_;
  std::map<Mac, Spent> macs_;
  std::deque<std::pair<proto::Nanos, Mac>> order_;
};

}  // namespace foothold::server
