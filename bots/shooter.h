#pragma once
// The shooting bots (foothold-bot --pattern shoot): against foothold-server --game hitscan
// (games/hitscan_game.h), each bot shoots twice a second at the centre of the nearest other
// character as its client draws it this frame (ClientSession::view_tick), aimed `aim_offset` metres
// to the side, across the line of fire, and tallies the server's verdicts: a hit on the character
// aimed at, a hit on another (a ray that passed it), a miss, a refusal.

#include <cstdint>
#include <map>
#include <span>
#include <string>

#include "client/session.h"
#include "proto/message_endpoint.h"

namespace foothold::bots {

/// A bot's shots and what became of them.
struct ShotCounts {
  uint64_t shots = 0;        ///< sent
  uint64_t hits = 0;         ///< "hit" on the character aimed at
  uint64_t other_hits = 0;   ///< "hit" on another character
  uint64_t misses = 0;       ///< "miss"
  uint64_t refused = 0;      ///< "refused"
  ShotCounts& operator+=(const ShotCounts& o) {
    shots += o.shots, hits += o.hits, other_hits += o.other_hits, misses += o.misses, refused += o.refused;
    return *this;
  }
};

class Shooter {
 public:
  /// Shoots every `period` (nanoseconds) from `first` on, `aim_offset` metres beside its target.
  Shooter(double aim_offset, proto::Nanos first, proto::Nanos period = proto::kSecond / 2);
  /// Fires when a shot is due and `session` is connected and shows someone to shoot at.
  void maybe_fire(client::ClientSession& session, proto::Nanos now);
  /// Takes a message from the server when it is a verdict on one of its shots (true), tallied.
  bool take(proto::Channel channel, std::span<const uint8_t> bytes);
  const ShotCounts& counts() const { return counts_; }

  /// The shot message of hitscan_game.h.
  static std::string shot_text(uint64_t seq, uint32_t fire_tick, double view_tick, const Vec3& origin, const Vec3& direction);

 private:
  double offset_;
  proto::Nanos next_, period_;
  uint64_t seq_ = 0;
  std::map<uint64_t, uint32_t> aimed_;  // shot -> the character aimed at, until its verdict
  ShotCounts counts_;
};

}  // namespace foothold::bots
