#include "client/drawing.h"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace foothold::client {

std::string draw_cause_text(uint32_t bits) {
  static constexpr const char* kTokens[] = {"correction",  "snap",          "neighbour_restep",
                                            "re_added",    "kept_unsaid",   "mover_carry",
                                            "extrapolating", "extrapolation_end", "view_delay"};
  std::string text;
  // Appended, not ("+" or "") + std::string(...): GCC 12 warns falsely (-Wrestrict) of that inlined
  // in an optimised build, and ./demo.sh's first build would print it.
  for (std::size_t i = 0; i < std::size(kTokens); ++i)
    if (bits & (1u << i)) {
      if (!text.empty()) text += '+';
      text += kTokens[i];
    }
  return text.empty() ? "interpolated" : text;
}

void LocalDrawing::reset() {
  times_ = {};
  latest_ = 0;
  next_ = 0;
  error_ = {};
  causes_ = 0;
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

void LocalDrawing::corrected(const Vec3& moved, uint32_t cause) {
  if (!error_.started()) return;  // nothing drawn yet: nothing to hide
  if (error_.corrected(moved, options_.smoothing())) {
    ++smoothed_;
    causes_ |= cause;
  } else {
    ++snaps_;
    causes_ |= cause | kCauseSnap;
  }
}

std::optional<DrawnPose> LocalDrawing::draw(const Predictor& p, proto::Nanos now) {
  std::optional<DrawnPose> d = predicted(p, now);
  if (!d) return d;
  error_.decay(now, options_.smoothing());
  // Never drawn through a wall: cut where a ray from the predicted centre along the offset meets
  // the world, less the capsule's radius.
  error_.cut(world_, d->position, settings_.radius, scratch_);
  d->position = d->position + error_.error();
  d->error = error_.error();
  d->causes = causes_ | (d->platform != 0 ? kCauseMoverCarry : 0u);
  causes_ = 0;
  return d;
}

}  // namespace foothold::client
