#include "bots/shooter.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <string_view>

namespace foothold::bots {

Shooter::Shooter(const World& world, const MoveSettings& settings, double aim_offset, proto::Nanos first,
                 proto::Nanos period)
    : world_(world), settings_(derive(settings)), offset_(aim_offset), next_(first), period_(period) {}

std::string Shooter::shot_text(uint64_t seq, uint32_t fire_tick, double view_tick, const Vec3& o, const Vec3& d) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "shot %llu %u %.17g %.17g %.17g %.17g %.17g %.17g %.17g", static_cast<unsigned long long>(seq),
                fire_tick, view_tick, o.x, o.y, o.z, d.x, d.y, d.z);
  return buf;
}

std::optional<Vec3> Shooter::aim_beside(const Vec3& from, const Vec3& center, double offset) {
  if (offset == 0) return center;
  // Seen from above, the ray is the tangent from `from` to the circle of radius `offset` around the
  // capsule's upright axis, so that it passes the axis (and all of the core segment) `offset` aside;
  // it aims at the tangent point, at the centre's height. Offsetting the aim point by `offset` would
  // not do: a target nearly below the shooter would be passed much closer than that.
  const Vec3 h{center.x - from.x, 0, center.z - from.z};
  const double d = std::sqrt(length_sq(h));
  if (d <= std::abs(offset)) return std::nullopt;
  const Vec3 ahead = h * (1 / d);
  const Vec3 across = normalized_or_zero(cross(h, kUp));
  const double sin = offset / d, cos = std::sqrt(1 - sin * sin);
  const Vec3 u = ahead * cos + across * sin;
  const Vec3 tangent = from + u * (d * cos);
  return Vec3{tangent.x, center.y, tangent.z};
}

void Shooter::maybe_fire(client::ClientSession& session, proto::Nanos now) {
  if (now < next_ || session.phase() != client::ClientSession::Phase::kConnected) return;
  next_ += period_;
  if (next_ <= now) next_ = now + period_;  // fell behind: the next one a period from now
  const double view = session.view_tick(now);
  const Vec3 me = to_position(session.predictor().latest_state().position);
  // Every other character as drawn this frame; the movers where the prediction has them (where the
  // client draws them), as the server will place them for this shot's fire tick.
  drawn_.clear();
  for (const OtherCharacter& o : session.others()) {
    const auto drawn = session.remotes().sample(o.id, view);
    if (!drawn) continue;
    drawn_.push_back({o.id, drawn->position, o.crouched ? settings_.crouch_half_segment : settings_.half_segment,
                      settings_.radius});
  }
  const uint32_t fire_tick = session.predictor().latest_tick();
  movers_.build(world_, fire_tick, settings_.tick_rate, &session.mover_clocks());
  // The nearest other it can see (ties: the lowest id): the first thing its own ray meets.
  uint32_t target = 0;
  Vec3 at;
  double best = 0;
  bool hidden = false;
  for (const QueryCapsule& c : drawn_) {
    const double d2 = length_sq(c.center - me);
    if (target != 0 && (d2 > best || (d2 == best && c.id > target))) continue;
    const RayHit seen = cast_ray(world_, &movers_, drawn_, me, c.center - me, 1e4, session.character_id(), scratch_);
    if (seen.kind != RayHit::Kind::kCharacter || seen.character != c.id) {
      hidden = true;
      continue;
    }
    target = c.id;
    at = c.center;
    best = d2;
  }
  if (target == 0 && hidden) ++counts_.hidden;
  const auto aim = aim_beside(me, at, offset_);
  if (!aim) {
    ++counts_.hidden;  // nearly above or below: no ray from here passes it that far to the side
    return;
  }
  const std::string text = shot_text(++seq_, fire_tick, view, me, *aim - me);
  if (session.send_message(proto::Channel::kReliable, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size())) !=
      proto::SendError::kNone)
    return;
  aimed_[seq_] = target;
  ++counts_.shots;
}

bool Shooter::take(proto::Channel channel, std::span<const uint8_t> bytes) {
  if (channel != proto::Channel::kReliable) return false;
  std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  const std::size_t space = text.find(' ');
  if (space == std::string_view::npos) return false;
  const std::string_view verdict = text.substr(0, space);
  if (verdict != "hit" && verdict != "miss" && verdict != "refused") return false;
  text.remove_prefix(space + 1);
  uint64_t seq = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), seq);
  if (ec != std::errc()) return false;
  const auto it = aimed_.find(seq);
  if (it == aimed_.end()) return false;  // not one of ours: someone else's words
  const uint32_t target = it->second;
  aimed_.erase(it);
  if (verdict == "miss") {
    ++counts_.misses;
  } else if (verdict == "refused") {
    ++counts_.refused;
  } else {
    uint32_t victim = 0;
    const char* end = text.data() + text.size();
    const char* q = p;
    while (q < end && *q == ' ') ++q;
    std::from_chars(q, end, victim);
    ++(victim == target ? counts_.hits : counts_.other_hits);
  }
  return true;
}

}  // namespace foothold::bots
