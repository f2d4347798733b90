#include "shared/animation.h"

#include <cmath>

#include "shared/det_math.h"

namespace foothold {

Quat normalized(const Quat& q) {
  const double n = std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
  if (!(n > 0) || !std::isfinite(n)) return {};
  return {q.x / n, q.y / n, q.z / n, q.w / n};
}

Quat multiply(const Quat& a, const Quat& b) {
  return {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
          a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}

Vec3 rotate(const Quat& q, const Vec3& v) {
  // v + 2w (u x v) + 2 u x (u x v), with u the vector part.
  const Vec3 u{q.x, q.y, q.z};
  const Vec3 t = cross(u, v) * 2.0;
  return v + t * q.w + cross(u, t);
}

Vec3 apply(const Pose& pose, const Vec3& p) { return rotate(pose.rotation, p) + pose.translation; }

Pose compose(const Pose& outer, const Pose& inner) {
  return {multiply(outer.rotation, inner.rotation), apply(outer, inner.translation)};
}

Pose inverse(const Pose& pose) {
  const Quat conj{-pose.rotation.x, -pose.rotation.y, -pose.rotation.z, pose.rotation.w};
  return {conj, rotate(conj, Vec3{} - pose.translation)};
}

Quat slerp(const Quat& a, const Quat& b0, double u) {
  double d = a.x * b0.x + a.y * b0.y + a.z * b0.z + a.w * b0.w;
  Quat b = b0;
  if (d < 0) {  // the shorter arc: q and -q are the same rotation
    b = {-b.x, -b.y, -b.z, -b.w};
    d = -d;
  }
  double wa = 1 - u, wb = u;
  const double s = std::sqrt(det_max(0.0, 1 - d * d));
  // Nearly the same rotation: sin(theta) would divide by almost nothing; the chord is the arc.
  if (s > 1e-9) {
    const double theta = det_angle(s, d);  // in [0, pi/2]
    wa = det_sin((1 - u) * theta) / s;
    wb = det_sin(u * theta) / s;
  }
  return normalized({wa * a.x + wb * b.x, wa * a.y + wb * b.y, wa * a.z + wb * b.z, wa * a.w + wb * b.w});
}

namespace {

// Seconds into a channel's loop, in [0, period): a floor and a subtraction, the same bits everywhere.
double looped(double seconds, double period) {
  if (!(period > 0)) return 0;
  const double k = det_floor(seconds / period);
  const double t = seconds - k * period;
  return t < 0 ? 0 : t >= period ? 0 : t;
}

// The channel's value at `t` (seconds into its loop), `n` numbers (3 or 4) into `out`.
void sample(const Channel& c, double t, int n, double* out) {
  const std::size_t keys = c.times.size();
  const bool cubic = c.interpolation == Channel::Interpolation::kCubicSpline;
  const int stride = cubic ? 3 * n : n;   // numbers per key
  const int value_at = cubic ? n : 0;     // the value within a key's numbers
  auto value = [&](std::size_t k, int i) { return c.values[k * std::size_t(stride) + std::size_t(value_at + i)]; };
  // Before the first key or after the last, the nearest key holds.
  if (t <= c.times.front() || keys == 1) {
    for (int i = 0; i < n; ++i) out[i] = value(0, i);
    return;
  }
  if (t >= c.times.back()) {
    for (int i = 0; i < n; ++i) out[i] = value(keys - 1, i);
    return;
  }
  // The last key at or before t (binary search: keys are strictly increasing).
  std::size_t lo = 0, hi = keys - 1;
  while (hi - lo > 1) {
    const std::size_t mid = (lo + hi) / 2;
    (c.times[mid] <= t ? lo : hi) = mid;
  }
  const double span = c.times[hi] - c.times[lo];
  const double u = (t - c.times[lo]) / span;
  switch (c.interpolation) {
    case Channel::Interpolation::kStep:
      for (int i = 0; i < n; ++i) out[i] = value(lo, i);
      return;
    case Channel::Interpolation::kLinear:
      if (n == 4) {
        const Quat q = slerp({value(lo, 0), value(lo, 1), value(lo, 2), value(lo, 3)},
                             {value(hi, 0), value(hi, 1), value(hi, 2), value(hi, 3)}, u);
        out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
      } else {
        for (int i = 0; i < n; ++i) out[i] = value(lo, i) * (1 - u) + value(hi, i) * u;
      }
      return;
    case Channel::Interpolation::kCubicSpline: {
      // glTF's Hermite spline: tangents scaled by the key span.
      const double u2 = u * u, u3 = u2 * u;
      const double h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
      for (int i = 0; i < n; ++i) {
        const double out_tangent = c.values[lo * std::size_t(stride) + std::size_t(2 * n + i)];
        const double in_tangent = c.values[hi * std::size_t(stride) + std::size_t(i)];
        out[i] = h00 * value(lo, i) + h10 * span * out_tangent + h01 * value(hi, i) + h11 * span * in_tangent;
      }
      return;
    }
  }
}

}  // namespace

std::string validate_chain(const std::vector<Link>& chain) {
  for (std::size_t l = 0; l < chain.size(); ++l) {
    const Link& link = chain[l];
    const std::string where = "link " + std::to_string(l);
    const Quat& r = link.rest.rotation;
    const Vec3& p = link.rest.translation;
    if (!(std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z)) || !(std::fabs(p.x) <= kMaxMoverReach) ||
        !(std::fabs(p.y) <= kMaxMoverReach) || !(std::fabs(p.z) <= kMaxMoverReach))
      return where + ": its translation is not finite or reaches beyond +-65536 m";
    const double n2 = r.x * r.x + r.y * r.y + r.z * r.z + r.w * r.w;
    if (!(std::fabs(n2 - 1) <= 1e-6)) return where + ": its rotation is not a unit quaternion";
    for (std::size_t k = 0; k < link.channels.size(); ++k) {
      const Channel& c = link.channels[k];
      const std::string at = where + ", channel " + std::to_string(k);
      const std::size_t n = c.path == Channel::Path::kRotation ? 4 : 3;
      const std::size_t per_key = c.interpolation == Channel::Interpolation::kCubicSpline ? 3 * n : n;
      if (c.times.empty()) return at + ": no keyframes";
      for (std::size_t i = 0; i < c.times.size(); ++i) {
        if (!std::isfinite(c.times[i]) || c.times[i] < 0) return at + ": a key time is negative or not finite";
        if (i > 0 && !(c.times[i] > c.times[i - 1])) return at + ": key times must increase strictly";
      }
      if (c.values.size() != c.times.size() * per_key)
        return at + ": " + std::to_string(c.values.size()) + " values for " + std::to_string(c.times.size()) +
               " keys (expected " + std::to_string(c.times.size() * per_key) + ")";
      for (double v : c.values) {
        if (!std::isfinite(v) || !(std::fabs(v) <= kMaxMoverReach)) return at + ": a value is not finite or beyond +-65536";
      }
      if (!(c.period >= c.times.back()) || !std::isfinite(c.period)) return at + ": its period ends before its last key";
    }
  }
  return "";
}

Pose link_pose(const Link& link, double seconds) {
  Pose p = link.rest;
  for (const Channel& c : link.channels) {
    const double t = looped(seconds, c.period);
    double v[4] = {0, 0, 0, 1};
    if (c.path == Channel::Path::kTranslation) {
      sample(c, t, 3, v);
      p.translation = {v[0], v[1], v[2]};
    } else {
      sample(c, t, 4, v);
      p.rotation = normalized({v[0], v[1], v[2], v[3]});
    }
  }
  return p;
}

Pose chain_pose(const std::vector<Link>& chain, uint32_t tick, int tick_rate) {
  return chain_pose_at(chain, double(tick) / double(tick_rate));
}

Pose chain_pose_at(const std::vector<Link>& chain, double seconds) {
  Pose p;
  for (const Link& link : chain) p = compose(p, link_pose(link, seconds));
  return p;
}

Vec3 carry(const std::vector<Link>& chain, uint32_t from_tick, uint32_t to_tick, int tick_rate, const Vec3& point) {
  return apply(chain_pose(chain, to_tick, tick_rate), apply(inverse(chain_pose(chain, from_tick, tick_rate)), point));
}

}  // namespace foothold
