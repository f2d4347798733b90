#pragma once
// Each mover's clock (movement.md §15.4): where in its animation a mover is at the end of a tick.
// A mover on the world's clock is at tick / tick_rate seconds, from the world alone. A game can
// drive any mover instead (GameControl::mover: start, stop, reverse, go to a key), and a glTF mover
// marked extras.foothold.driven starts still. A driven clock is a run of segments, each a straight
// line from a tick: integer arithmetic in 1/65536 of a tick, so that the server, re-simulation and
// every client pose it alike. The server keeps the segments of its rewind window, a client those it
// received (a snapshot carries a mover's newest segment until the client acknowledges it).

#include <cstdint>
#include <string_view>
#include <vector>

#include "shared/animation.h"
#include "shared/game_command.h"
#include "shared/world.h"

namespace foothold {

/// What a mover command does (GameCommand::slot of a GameCommandKind::kMover).
enum class MoverAction : uint8_t {
  kStart = 0,    ///< runs at `rate` (GameCommand::value), either way, without end (looping)
  kStop = 1,     ///< holds where it is
  kReverse = 2,  ///< runs the other way: one going to a key goes back to where that run started
  kGoTo = 3,     ///< runs at `speed` (value, > 0) to key GameCommand::vector.x and stops there
};
/// The largest MoverAction.
inline constexpr uint8_t kLastMoverAction = 3;

/// A clock's units: 1/65536 of a tick. A rate of kRateOne runs the animation at its own speed.
inline constexpr int kPhaseBits = 16;
/// The animation's own speed, in phase units per tick.
inline constexpr int32_t kRateOne = int32_t(1) << kPhaseBits;
/// The fastest a game may run a mover: 16 times its animation's speed, either way.
inline constexpr int32_t kMaxMoverRate = 16 * kRateOne;
/// The farthest a clock's phase may be from 0 (2^52): its seconds are then exact in a double.
inline constexpr int64_t kMaxMoverPhase = int64_t(1) << 52;

/// One straight run of a clock: from the end of tick `from_tick` on, the phase is
/// phase + rate * (tick - from_tick), held at `target` once it gets there (when has_target).
struct MoverSegment {
  uint32_t from_tick = 0;
  int64_t phase = 0;        ///< at the end of from_tick, 1/65536 tick
  int32_t rate = 0;         ///< phase units per tick (kRateOne: the animation's speed)
  bool has_target = false;  ///< stops at `target` (a go-to's key)
  int64_t target = 0;       ///< 1/65536 tick
  bool operator==(const MoverSegment&) const = default;
  /// The phase at the end of `tick` (earlier than from_tick: the line drawn backwards).
  int64_t phase_at(uint32_t tick) const;
};

/// Why `s` cannot be a clock's segment (a received one: rate over kMaxMoverRate, a phase or target
/// beyond kMaxMoverPhase), or empty.
std::string_view segment_problem(const MoverSegment& s);

/// A mover's keys: the distinct key times of every channel of its chain, ascending, seconds.
std::vector<double> mover_keys(const Mover& mover);

/// Why a kMover command cannot drive a mover of `world` (no such mover, an unknown action, a rate
/// over kMaxMoverRate, a go-to with no speed or to a key the mover does not have), or empty.
std::string_view mover_command_problem(const GameCommand& command, const World& world);

/// The clocks of one world's movers. Copyable plain data.
class MoverClocks {
 public:
  /// Every mover of `world` on the world's clock, but the driven ones, still at 0.
  void reset(const World& world);
  /// Room for `segments` segments in every mover's clock, so that taking that many allocates nothing.
  void reserve(std::size_t segments);
  /// Number of movers (0 before reset()).
  std::size_t size() const { return clocks_.size(); }
  /// Whether mover m has a clock of its own (driven, or given a command): else it is on the world's.
  bool own(std::size_t m) const { return !clocks_[m].segments.empty(); }
  /// Mover m's phase at the end of `tick`, 1/65536 tick.
  int64_t phase(std::size_t m, uint32_t tick) const;
  /// Mover m's pose at the end of `tick` (chain_pose() for one on the world's clock).
  Pose pose(const World& world, std::size_t m, uint32_t tick, int tick_rate) const;
  /// Where a point riding mover m at the end of `from_tick` is at the end of `to_tick`.
  Vec3 carry(const World& world, std::size_t m, uint32_t from_tick, uint32_t to_tick, int tick_rate, const Vec3& p) const;
  /// Mover m's newest segment (precondition: own(m)).
  const MoverSegment& newest(std::size_t m) const { return clocks_[m].segments.back(); }
  /// The tick the boundary before which last changed mover m's clock (0: never since reset()).
  uint32_t changed(std::size_t m) const { return clocks_[m].changed; }

  /// Applies a kMover command at the boundary before tick `tick` (>= 1): the mover's new segment
  /// starts at the end of tick - 1, where its clock then is. A command mover_command_problem()
  /// refuses does nothing (a hostile recording's). Returns whether it applied.
  bool apply(const World& world, const GameCommand& command, uint32_t tick, int tick_rate);
  /// Takes a segment the server sent for mover m: it replaces every one from its tick on. Returns
  /// false (and changes nothing) for a mover out of range or a segment_problem().
  bool receive(std::size_t m, const MoverSegment& segment);
  /// Forgets the segments no tick from `tick` on needs (each clock keeps the one in force then).
  void forget_before(uint32_t tick);

 private:
  struct Clock {
    std::vector<MoverSegment> segments;  // ascending from_tick; empty: the world's clock
    uint32_t changed = 0;
  };
  void start_segment(std::size_t m, const MoverSegment& s);
  std::vector<Clock> clocks_;
};

/// Seconds into its animation of a clock's phase at `tick_rate`.
double phase_seconds(int64_t phase, int tick_rate);

}  // namespace foothold
