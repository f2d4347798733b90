#pragma once
// Rigid motion for movers (movement.md §15.1): quaternions, poses, and glTF animation channels
// sampled at a tick. Everything here uses IEEE +, -, *, / and sqrt in a fixed order, and det_math's
// sine and arctangent: a pose is the same bits on every machine.

#include <cstdint>
#include <string>
#include <vector>

#include "shared/vec3.h"

namespace foothold {

/// A rotation as a unit quaternion (x, y, z vector part, w scalar part), as glTF stores it.
struct Quat {
  double x = 0, y = 0, z = 0, w = 1;  ///< components; identity by default
  bool operator==(const Quat&) const = default;
};

/// A rigid transform: rotate, then translate. Maps a point of a mover's own axes to world axes.
struct Pose {
  Quat rotation;     ///< unit quaternion
  Vec3 translation;  ///< metres
  bool operator==(const Pose&) const = default;
};

/// `q` scaled to unit length (identity for a zero or non-finite quaternion).
Quat normalized(const Quat& q);
/// The rotation `a` after `b` (a * b).
Quat multiply(const Quat& a, const Quat& b);
/// `v` rotated by the unit quaternion `q`.
Vec3 rotate(const Quat& q, const Vec3& v);
/// The point `p` (in the pose's axes) in the axes the pose maps to.
Vec3 apply(const Pose& pose, const Vec3& p);
/// The pose `outer` after `inner`: apply(compose(outer, inner), p) == apply(outer, apply(inner, p)).
Pose compose(const Pose& outer, const Pose& inner);
/// The inverse transform: apply(inverse(pose), apply(pose, p)) == p (up to rounding).
Pose inverse(const Pose& pose);
/// Spherical linear interpolation from `a` (u = 0) to `b` (u = 1) along the shorter arc, as glTF's
/// LINEAR rotation channels require; unit result.
Quat slerp(const Quat& a, const Quat& b, double u);

/// One glTF animation channel of a node: keyframe times and values, and how to interpolate them.
struct Channel {
  enum class Path : uint8_t { kTranslation, kRotation };
  enum class Interpolation : uint8_t { kLinear, kStep, kCubicSpline };
  Path path = Path::kTranslation;
  Interpolation interpolation = Interpolation::kLinear;
  std::vector<double> times;   ///< seconds, strictly increasing, at least one
  /// Per key: the value (3 numbers for a translation, 4 for a rotation, x y z w); for kCubicSpline,
  /// in-tangent, value, out-tangent, as glTF lays them out.
  std::vector<double> values;
  /// Seconds after which the channel starts over: its animation's longest channel (the loop).
  double period = 0;
  bool operator==(const Channel&) const = default;
};

/// One node on the path from the scene's root to a mover: its rest pose and the channels that
/// animate it (a later channel on the same path wins, as in glTF).
struct Link {
  Pose rest;                      ///< the node's own translation and rotation when not animated
  std::vector<Channel> channels;  ///< translation and rotation channels
  bool operator==(const Link&) const = default;
};

/// What is wrong with a chain (its first problem, naming the link and channel), or "" when every
/// rest pose is finite with a unit rotation and every channel has strictly increasing finite times
/// from 0, as many finite values as its keys need (translations within +-kMaxMoverReach), and a
/// period no shorter than its last key.
std::string validate_chain(const std::vector<Link>& chain);
/// Metres: how far from the origin a mover's translation keys may reach.
inline constexpr double kMaxMoverReach = 65536;

/// A link's pose `seconds` after the animation started (each channel looped over its period).
Pose link_pose(const Link& link, double seconds);

/// The pose of a chain of links (root first) at the end of tick `tick`: the instant tick / tick_rate
/// seconds after tick 0, when every animation started (movement.md §15.1).
Pose chain_pose(const std::vector<Link>& chain, uint32_t tick, int tick_rate);
/// The pose of a chain `seconds` into its animation (a driven mover's clock: shared/mover_clock.h).
Pose chain_pose_at(const std::vector<Link>& chain, double seconds);

/// Where a point riding the chain's mover is at the end of `to_tick` if it was at `point` at the end
/// of `from_tick`: apply(chain_pose(to), apply(inverse(chain_pose(from)), point)).
Vec3 carry(const std::vector<Link>& chain, uint32_t from_tick, uint32_t to_tick, int tick_rate, const Vec3& point);

}  // namespace foothold
