#include "shared/mover_clock.h"

#include <algorithm>

#include "shared/det_math.h"

namespace foothold {

int64_t MoverSegment::phase_at(uint32_t tick) const {
  const int64_t p = phase + int64_t(rate) * (int64_t(tick) - int64_t(from_tick));
  if (!has_target) return p;
  // Held at the target once there (a line drawn backwards is not held: it is only a guess).
  if (int64_t(tick) >= int64_t(from_tick) && ((rate > 0 && p > target) || (rate < 0 && p < target))) return target;
  return p;
}

std::string_view segment_problem(const MoverSegment& s) {
  if (s.rate > kMaxMoverRate || s.rate < -kMaxMoverRate) return "a mover's rate over 16 times its animation's";
  if (s.phase > kMaxMoverPhase || s.phase < -kMaxMoverPhase) return "a mover's phase beyond 2^52";
  if (s.has_target && (s.target > kMaxMoverPhase || s.target < -kMaxMoverPhase)) return "a mover's target beyond 2^52";
  return "";
}

std::vector<double> mover_keys(const Mover& mover) {
  std::vector<double> keys;
  for (const Link& link : mover.chain)
    for (const Channel& c : link.channels) keys.insert(keys.end(), c.times.begin(), c.times.end());
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

namespace {

// A mover's loop, seconds: its longest channel's period (0 for a mover that does not move).
double mover_period(const Mover& mover) {
  double period = 0;
  for (const Link& link : mover.chain)
    for (const Channel& c : link.channels) period = det_max(period, c.period);
  return period;
}

// Seconds to phase units, rounded; the caller's seconds are a key's, within a chain's checked range.
int64_t to_phase(double seconds, int tick_rate) {
  return det_llround(seconds * double(tick_rate) * double(kRateOne));
}

// The clock's bounds hold: a phase past kMaxMoverPhase stops there.
int64_t clamp_phase(int64_t p) { return std::clamp(p, -kMaxMoverPhase, kMaxMoverPhase); }

}  // namespace

std::string_view mover_command_problem(const GameCommand& c, const World& world) {
  if (c.kind != GameCommandKind::kMover) return "not a mover command";
  if (c.character >= world.movers().size()) return "no such mover";
  if (c.slot > kLastMoverAction) return "an unknown mover action";
  if (c.value > kMaxMoverRate || c.value < -kMaxMoverRate) return "a mover rate over 16 times its animation's";
  if (MoverAction(c.slot) == MoverAction::kGoTo) {
    if (c.value <= 0) return "a go-to with no speed";
    if (c.vector.x < 0 || std::size_t(c.vector.x) >= mover_keys(world.movers()[c.character]).size())
      return "a key the mover does not have";
  }
  return "";
}

double phase_seconds(int64_t phase, int tick_rate) { return double(phase) / (double(kRateOne) * double(tick_rate)); }

void MoverClocks::reset(const World& world) {
  clocks_.assign(world.movers().size(), Clock{});
  for (std::size_t m = 0; m < clocks_.size(); ++m)
    if (world.movers()[m].driven) clocks_[m].segments.push_back(MoverSegment{});
}

void MoverClocks::reserve(std::size_t segments) {
  for (Clock& c : clocks_) c.segments.reserve(segments);
}

int64_t MoverClocks::phase(std::size_t m, uint32_t tick) const {
  const auto& s = clocks_[m].segments;
  if (s.empty()) return int64_t(tick) << kPhaseBits;
  // The newest segment in force at `tick` (few are kept: look from the newest).
  for (std::size_t k = s.size(); k-- > 1;)
    if (int32_t(tick - s[k].from_tick) >= 0) return s[k].phase_at(tick);
  return s.front().phase_at(tick);
}

Pose MoverClocks::pose(const World& world, std::size_t m, uint32_t tick, int tick_rate) const {
  const Mover& mover = world.movers()[m];
  // On the world's clock, exactly as before there were clocks (the same seconds: a power of two
  // scales both terms of the division).
  if (m >= clocks_.size() || clocks_[m].segments.empty()) return chain_pose(mover.chain, tick, tick_rate);
  return chain_pose_at(mover.chain, phase_seconds(phase(m, tick), tick_rate));
}

Vec3 MoverClocks::carry(const World& world, std::size_t m, uint32_t from_tick, uint32_t to_tick, int tick_rate,
                        const Vec3& p) const {
  return foothold::apply(pose(world, m, to_tick, tick_rate), foothold::apply(inverse(pose(world, m, from_tick, tick_rate)), p));
}

void MoverClocks::start_segment(std::size_t m, const MoverSegment& s) {
  auto& segments = clocks_[m].segments;
  while (!segments.empty() && int32_t(segments.back().from_tick - s.from_tick) >= 0) segments.pop_back();
  segments.push_back(s);
}

bool MoverClocks::apply(const World& world, const GameCommand& c, uint32_t tick, int tick_rate) {
  if (!mover_command_problem(c, world).empty() || c.character >= clocks_.size() || tick == 0) return false;
  const std::size_t m = c.character;
  const uint32_t from = tick - 1;
  const int64_t now = phase(m, from);
  // What runs now: the world's clock when the mover has none of its own yet.
  const MoverSegment was = own(m) ? clocks_[m].segments.back() : MoverSegment{0, 0, kRateOne, false, 0};
  MoverSegment s{from, now, 0, false, 0};
  switch (MoverAction(c.slot)) {
    case MoverAction::kStart: s.rate = c.value; break;
    case MoverAction::kStop: break;
    case MoverAction::kReverse:
      // Back where this run started: a door half open closes again, a lift turns back.
      s.rate = -was.rate;
      if (was.has_target) {
        s.has_target = true;
        s.target = was.phase_at(was.from_tick);
      }
      break;
    case MoverAction::kGoTo: {
      const Mover& mover = world.movers()[m];
      const int64_t key = to_phase(mover_keys(mover)[std::size_t(c.vector.x)], tick_rate);
      // The nearest time its loop shows that key, so a looping mover does not wind back its loops.
      const int64_t period = to_phase(mover_period(mover), tick_rate);
      int64_t target = key;
      if (period > 0) {
        const int64_t d = now - key + period / 2;
        target = key + (d >= 0 ? d / period : -((-d + period - 1) / period)) * period;
      }
      s.has_target = true;
      s.target = clamp_phase(target);
      s.rate = s.target > now ? c.value : s.target < now ? -c.value : 0;
      break;
    }
  }
  start_segment(m, s);
  clocks_[m].changed = tick;
  return true;
}

bool MoverClocks::receive(std::size_t m, const MoverSegment& segment) {
  if (m >= clocks_.size() || !segment_problem(segment).empty()) return false;
  start_segment(m, segment);
  return true;
}

void MoverClocks::forget_before(uint32_t tick) {
  for (Clock& c : clocks_) {
    auto& s = c.segments;
    std::size_t drop = 0;
    while (drop + 1 < s.size() && int32_t(tick - s[drop + 1].from_tick) >= 0) ++drop;
    s.erase(s.begin(), s.begin() + std::ptrdiff_t(drop));
  }
}

}  // namespace foothold
