#include "client/drawing.h"

#include <algorithm>
#include <cmath>

namespace foothold::client {

void LocalDrawing::reset() {
  times_ = {};
  latest_ = 0;
  next_ = 0;
  error_ = {};
  error_at_ = 0;
  drawn_ = false;
}

void LocalDrawing::on_tick(uint32_t tick, proto::Nanos at, proto::Nanos next) {
  times_[tick % kTimes] = {tick, at};
  latest_ = tick;
  next_ = std::max(next, at + 1);
}

const LocalDrawing::TickTime* LocalDrawing::time_of(uint32_t tick) const {
  const TickTime& t = times_[tick % kTimes];
  return t.tick == tick && tick != 0 ? &t : nullptr;
}

std::optional<DrawnPose> LocalDrawing::predicted(const Predictor& p, proto::Nanos now) const {
  // The tick whose moment `now` is in: the newest at or before it (an earlier frame's time finds an
  // earlier tick, as long as the times are kept).
  uint32_t last = p.latest_tick();
  const TickTime* t = time_of(last);
  if (!t) return std::nullopt;
  proto::Nanos next = next_;
  for (uint32_t back = 1; back < kTimes && now < t->at; ++back) {
    const TickTime* earlier = time_of(last - 1);
    if (!earlier || !p.state(last - 1)) break;
    next = t->at;
    t = earlier;
    --last;
  }
  const CharacterState* b = p.state(last);
  if (!b) return std::nullopt;
  // Where `now` falls between this tick's moment and the next's.
  const double span = double(std::max<proto::Nanos>(1, next - t->at));
  const double alpha = std::clamp(double(now - t->at) / span, 0.0, 1.0);
  DrawnPose d;
  d.crouched = b->crouched;
  d.platform = b->platform;
  const Vec3 pb = to_position(b->position), vb = to_velocity(b->velocity);
  const CharacterState* a = p.state(last - 1);
  if (options_.extrapolate || !a) {
    d.position = pb + vb * (alpha * span / double(proto::kSecond));
    d.velocity = vb;
    d.tick = double(last) + alpha;
    return d;
  }
  const Vec3 pa = to_position(a->position), va = to_velocity(a->velocity);
  d.position = pa + (pb - pa) * alpha;
  d.velocity = va + (vb - va) * alpha;
  d.tick = double(last) - 1 + alpha;
  if (alpha < 0.5) {
    d.crouched = a->crouched;
    d.platform = a->platform;
  }
  return d;
}

void LocalDrawing::corrected(const Vec3& moved) {
  if (!drawn_) return;  // nothing drawn yet: nothing to hide
  if (length_sq(moved) > options_.snap_m * options_.snap_m) {
    error_ = {};
    ++snaps_;
    return;
  }
  // What was drawn stays drawn: the offset takes up what the prediction moved; but never more than
  // snap_m of it (corrections that pile up faster than they are taken in snap too).
  error_ = error_ - moved;
  if (length_sq(error_) > options_.snap_m * options_.snap_m) {
    error_ = {};
    ++snaps_;
    return;
  }
  ++smoothed_;
}

std::optional<DrawnPose> LocalDrawing::draw(const Predictor& p, proto::Nanos now) {
  std::optional<DrawnPose> d = predicted(p, now);
  if (!d) return d;
  if (options_.smoothing_s <= 0) {
    error_ = {};
  } else if (drawn_ && now > error_at_) {
    const double dt = double(now - error_at_) / double(proto::kSecond);
    const Vec3 decayed = error_ * std::exp(-dt / options_.smoothing_s);
    // At most max_release_mps of it released in this frame.
    const double released = std::sqrt(length_sq(error_ - decayed)), cap = options_.max_release_mps * dt;
    error_ = options_.max_release_mps > 0 && released > cap ? error_ + (decayed - error_) * (cap / released) : decayed;
  }
  error_at_ = std::max(error_at_, now);
  drawn_ = true;
  Vec3 offset = error_;
  const double len = std::sqrt(length_sq(offset));
  if (len > 1e-6) {
    // Never drawn through a wall: cut where a ray from the predicted centre along the offset meets
    // the world, less the capsule's radius.
    const RayHit hit = cast_ray(world_, nullptr, {}, d->position, offset, len + settings_.radius, 0, scratch_);
    if (hit.kind != RayHit::Kind::kNone) {
      const double room = std::max(0.0, hit.distance - settings_.radius);
      if (room < len) offset = offset * (room / len);
    }
  }
  d->position = d->position + offset;
  d->error = offset;
  return d;
}

}  // namespace foothold::client
