#pragma once
// The shooting bots (foothold-bot --pattern shoot): against foothold-server --game hitscan
// (games/hitscan_game.h), each bot shoots twice a second at the centre of the nearest other
// character it can see as its client draws it this frame (ClientSession::view_tick), aimed
// `aim_offset` metres to the side, across the line of fire, and tallies the server's verdicts: a hit
// on the character aimed at, a hit on another (a ray that passed it), a miss, a refusal.
//
// "Can see" is the client's own ray, cast against the scene it draws (the static world, the movers
// where its prediction has them, the others where it draws them): a player does not shoot at someone
// behind a wall, and a shot the client itself shows blocked is not lag compensation's to grant. So
// hit_rate measures what it is meant to: how often the server confirms a hit its client showed.

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "client/session.h"
#include "proto/message_endpoint.h"
#include "shared/mover_frame.h"
#include "shared/ray_query.h"
#include "shared/settings.h"

namespace foothold::bots {

/// A bot's shots and what became of them.
struct ShotCounts {
  uint64_t shots = 0;        ///< sent
  uint64_t hits = 0;         ///< "hit" on the character aimed at
  uint64_t other_hits = 0;   ///< "hit" on another character
  uint64_t misses = 0;       ///< "miss"
  uint64_t refused = 0;      ///< "refused"
  /// Shots not fired: no other could be seen (the client's own ray met something first), or, aiming
  /// beside it, the nearest was nearly above or below (aim_beside).
  uint64_t hidden = 0;
  ShotCounts& operator+=(const ShotCounts& o) {
    shots += o.shots, hits += o.hits, other_hits += o.other_hits, misses += o.misses, refused += o.refused;
    hidden += o.hidden;
    return *this;
  }
};

class Shooter {
 public:
  /// Shoots every `period` (nanoseconds) from `first` on, `aim_offset` metres beside its target, in
  /// `world` (referenced: it must outlive the shooter) with `settings`' capsules.
  Shooter(const World& world, const MoveSettings& settings, double aim_offset, proto::Nanos first,
          proto::Nanos period = proto::kSecond / 2);
  /// Fires when a shot is due and `session` is connected and shows someone to shoot at.
  void maybe_fire(client::ClientSession& session, proto::Nanos now);
  /// Takes a message from the server when it is a verdict on one of its shots (true), tallied.
  bool take(proto::Channel channel, std::span<const uint8_t> bytes);
  const ShotCounts& counts() const { return counts_; }

  /// Where to aim from `from` to pass the upright axis through `center` `offset` metres to its side
  /// (0: `center` itself); nothing when no ray from `from` can (the axis is nearer than `offset`, seen
  /// from above). Exposed for tests.
  static std::optional<Vec3> aim_beside(const Vec3& from, const Vec3& center, double offset);
  /// The shot message of hitscan_game.h.
  static std::string shot_text(uint64_t seq, uint32_t fire_tick, double view_tick, const Vec3& origin, const Vec3& direction);

 private:
  const World& world_;
  DerivedSettings settings_;
  MoverFrame movers_;
  QueryScratch scratch_;
  std::vector<QueryCapsule> drawn_;
  double offset_;
  proto::Nanos next_, period_;
  uint64_t seq_ = 0;
  std::map<uint64_t, uint32_t> aimed_;  // shot -> the character aimed at, until its verdict
  ShotCounts counts_;
};

}  // namespace foothold::bots
