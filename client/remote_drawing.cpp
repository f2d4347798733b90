#include "client/remote_drawing.h"

#include <algorithm>
#include <cmath>

#include "shared/animation.h"

namespace foothold::client {

std::optional<DrawnRemote> RemoteDrawing::raw(const RemoteFrame& f, const OtherCharacter& o, double view) const {
  const auto s = f.samples.sample(o.id, view, settings_.crouch_drop, true);
  if (!s) return std::nullopt;
  DrawnRemote d;
  d.id = o.id;
  d.position = s->position;
  d.ground = s->ground;
  d.crouched = s->crouched;
  d.platform = o.platform;
  const double rate = double(settings_.tick_rate);
  d.velocity = s->motion * rate;
  const auto newest = f.samples.newest_tick(o.id);
  if (!newest || view <= double(*newest)) return d;
  // Past its newest sample: held, unless that sample is the newest snapshot's (then the next is
  // late, and it is carried on, for a while).
  d.velocity = {};
  if (*newest != f.newest_snapshot) return d;
  d.extrapolated = true;
  const double limit = options_.remote_extrapolate_s * rate;
  const double ahead = std::min(view - double(*newest), limit);
  if (ahead <= 0) return d;
  const bool carrying = view - double(*newest) < limit;  // still moving, not yet held
  const FixedVec3 m = f.samples.motion(o.id, *newest, f.max_gap);
  const auto& movers = world_.movers();
  if (o.platform != 0 && o.platform <= movers.size()) {
    // A mover carries it: from where the mover had it at its newest sample, between the two whole
    // ticks around the moment; and its own steps aboard (its motion less the mover's) on top.
    const std::size_t mover = o.platform - 1u;
    const int rate_hz = settings_.tick_rate;
    auto carry_to = [&](uint32_t to) {
      return clocks_ ? clocks_->carry(world_, mover, *newest, to, rate_hz, d.position)
                     : carry(movers[mover].chain, *newest, to, rate_hz, d.position);
    };
    const Vec3 last_step = d.position - carry_to(*newest - 1);
    const Vec3 own = horizontal(to_position(m) - last_step);
    const uint32_t whole = *newest + uint32_t(ahead);
    const double frac = ahead - std::floor(ahead);
    const Vec3 a = carry_to(whole);
    const Vec3 b = carry_to(whole + 1);
    d.position = a + (b - a) * frac + own * ahead;
    if (carrying) d.velocity = (b - a + own) * rate;
    return d;
  }
  const Vec3 step = to_position(m);
  const double len = std::sqrt(length_sq(step)) * ahead;
  Vec3 flat{};  // the velocity across the ground drawn
  if (len > 0) {
    // Never through a wall: cut where a ray along the motion meets the world, less the radius.
    double room = len;
    const RayHit hit = cast_ray(world_, nullptr, {}, d.position, step, len + settings_.radius, 0, scratch_);
    if (hit.kind != RayHit::Kind::kNone) room = std::max(0.0, std::min(len, hit.distance - settings_.radius));
    d.position = d.position + step * (room / std::sqrt(length_sq(step)));
    if (room == len) flat = step * rate;
  }
  double vertical = 0;  // metres per tick drawn
  if (airborne(f, o, *newest, d, step)) d.position.y += fall(f, o, *newest, d, ahead, vertical);
  if (carrying) d.velocity = flat + Vec3{0, vertical * rate, 0};
  return d;
}

namespace {

// The ticks between character `id`'s two newest samples (the newest at `newest`), when at most
// `max_gap`; 0 when longer (or there is one sample). The interpolator gives a segment's motion, not
// its ends: each moment inside the newest segment gives the same motion, to the bit (one
// computation), and the first half tick before its older end gives another's.
uint32_t newest_gap(const RemoteInterpolator& samples, uint32_t id, uint32_t newest, uint32_t max_gap) {
  const auto last = samples.sample(id, double(newest) - 0.5);
  if (!last) return 0;
  for (uint32_t j = 1; j <= max_gap && j < newest; ++j) {
    const auto s = samples.sample(id, double(newest - j) - 0.5);
    if (!s || !(s->motion == last->motion)) return j;
  }
  return 0;
}

}  // namespace

bool RemoteDrawing::airborne(const RemoteFrame& f, const OtherCharacter& o, uint32_t newest, const DrawnRemote& d,
                             const Vec3& step) const {
  if (d.ground == GroundKind::kNone) return true;
  // Said to stand, but going down more steeply than any walkable ground goes: it left the ground
  // since (a step down a stair is stopped by the floor at once). Never up: a stair's riser climbed
  // in a tick is no jump.
  // (Above the grid's step a tick, which published positions move by.) The gap is looked for last:
  // it takes a sample per tick of it.
  const auto last = f.samples.sample(o.id, double(newest) - 0.5);
  if (!last) return false;
  const double down = -last->motion.y, across = std::sqrt(length_sq(step));
  if (!(down > settings_.tan_max_slope * across + double(1 << kPublishedShift) * kPositionQuantum)) return false;
  return newest_gap(f.samples, o.id, newest, f.max_gap) != 0;
}

double RemoteDrawing::fall(const RemoteFrame& f, const OtherCharacter& o, uint32_t newest, const DrawnRemote& d,
                           double ahead, double& velocity) const {
  // Under gravity as the step gives it (half before the move, half after: a parabola through every
  // tick's position), per tick. The newest segment's slope is the mean of its h ticks' velocities,
  // so the velocity at its newer end is that less half of h ticks of gravity; nothing when the
  // segment says nothing of now (then it falls from rest).
  const double g = settings_.gravity * settings_.dt * settings_.dt, top = settings_.max_fall_speed * settings_.dt;
  const uint32_t h = newest_gap(f.samples, o.id, newest, f.max_gap);
  double v0 = 0;
  if (h != 0) v0 = f.samples.sample(o.id, double(newest) - 0.5)->motion.y - g * double(h) / 2;
  v0 = std::max(v0, -top);
  const double t = g > 0 ? std::min(ahead, (v0 + top) / g) : ahead;  // ticks until it falls as fast as it can
  double dy = v0 * t - g * t * t / 2 - top * (ahead - t);
  velocity = v0 - g * t;
  // Stopped where the world is, by a ray from the centre along the fall: the capsule's half
  // height (and the gap a grounded one rests at) from it, not its radius, or it would sink.
  const double half = (d.crouched ? settings_.crouch_half_segment : settings_.half_segment) + settings_.radius;
  const double reach = half + settings_.rest_gap;
  if (dy == 0) return 0;
  const Vec3 way{0, dy < 0 ? -1.0 : 1.0, 0};
  const RayHit hit = cast_ray(world_, nullptr, {}, d.position, way, std::abs(dy) + reach, 0, scratch_);
  if (hit.kind != RayHit::Kind::kNone && hit.distance - reach < std::abs(dy)) {
    dy = std::copysign(std::max(0.0, hit.distance - reach), dy);
    velocity = 0;  // landed (or met a ceiling)
  }
  return dy;
}

Vec3 RemoteDrawing::feet(const DrawnRemote& d) const {
  return d.position + Vec3{0, d.crouched ? settings_.crouch_drop : 0, 0};
}

uint32_t RemoteDrawing::causes(const RemoteFrame& f, const OtherCharacter& o, const DrawnRemote& d) const {
  if (!d.extrapolated) return 0;
  const auto newest = f.samples.newest_tick(o.id);
  if (newest && *newest != f.newest_snapshot) return kCauseKeptUnsaid;
  if (length_sq(d.velocity) == 0) return 0;  // held: its time to be carried on ran out
  return o.platform != 0 && o.platform <= world_.movers().size() ? kCauseMoverCarry : kCauseExtrapolating;
}

std::size_t RemoteDrawing::draw(const RemoteFrame& f, std::span<DrawnRemote> out) {
  const SmoothingOptions smoothing = options_.smoothing();
  const uint32_t jumped = f.view_jumps != view_jumps_ ? kCauseViewDelay : 0;
  view_jumps_ = f.view_jumps;
  next_.clear();
  std::size_t n = 0, old = 0;
  for (const OtherCharacter& o : f.others) {
    std::optional<DrawnRemote> d = raw(f, o, f.view);
    if (!d) continue;
    while (old < states_.size() && states_[old].id < o.id) ++old;
    State st;
    st.id = o.id;
    d->causes = causes(f, o, *d) | jumped;
    st.carried = (d->causes & (kCauseMoverCarry | kCauseExtrapolating)) != 0;
    if (old < states_.size() && states_[old].id == o.id) {
      const State& was = states_[old];
      st.error = was.error;
      if (was.carried && !st.carried) d->causes |= kCauseExtrapolationEnd;
      if (f.view < was.view) d->causes |= kCauseViewDelay;
      // What the newest word says of the moment drawn last frame, against what was drawn then: a
      // guess taken back (or a late sample slotted in) is taken in, not jumped.
      if (const auto again = raw(f, o, was.view)) {
        const Vec3 moved = feet(*again) - was.feet;
        if (length_sq(moved) > 0) {
          const bool smooth = st.error.corrected(moved, smoothing);
          (smooth ? smoothed_ : snaps_)++;
          d->causes |= smooth ? kCauseCorrection : kCauseCorrection | kCauseSnap;
        }
      }
    } else {
      d->causes |= kCauseReAdded;
    }
    st.error.decay(f.now, smoothing);
    st.error.cut(world_, d->position, settings_.radius, scratch_);
    st.view = f.view;
    st.feet = feet(*d);
    next_.push_back(st);
    d->error = st.error.error();
    d->position = d->position + d->error;
    if (n < out.size()) out[n] = *d;
    ++n;
  }
  states_.swap(next_);
  return n;
}

}  // namespace foothold::client
