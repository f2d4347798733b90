#include "bots/shooter.h"

#include <charconv>
#include <cstdio>
#include <string_view>

namespace foothold::bots {

Shooter::Shooter(double aim_offset, proto::Nanos first, proto::Nanos period)
    : offset_(aim_offset), next_(first), period_(period) {}

std::string Shooter::shot_text(uint64_t seq, uint32_t fire_tick, double view_tick, const Vec3& o, const Vec3& d) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "shot %llu %u %.17g %.17g %.17g %.17g %.17g %.17g %.17g", static_cast<unsigned long long>(seq),
                fire_tick, view_tick, o.x, o.y, o.z, d.x, d.y, d.z);
  return buf;
}

void Shooter::maybe_fire(client::ClientSession& session, proto::Nanos now) {
  if (now < next_ || session.phase() != client::ClientSession::Phase::kConnected) return;
  next_ += period_;
  if (next_ <= now) next_ = now + period_;  // fell behind: the next one a period from now
  const double view = session.view_tick(now);
  const Vec3 me = to_position(session.predictor().latest_state().position);
  // The nearest other character as drawn this frame (ties: the lowest id).
  uint32_t target = 0;
  Vec3 at;
  double best = 0;
  for (const OtherCharacter& o : session.others()) {
    const auto drawn = session.remotes().sample(o.id, view);
    if (!drawn) continue;
    const double d2 = length_sq(drawn->position - me);
    if (target == 0 || d2 < best || (d2 == best && o.id < target)) {
      target = o.id;
      at = drawn->position;
      best = d2;
    }
  }
  if (target == 0 || best <= 0) return;
  const Vec3 across = normalized_or_zero(cross(at - me, kUp));
  const Vec3 aim = at + across * offset_;
  const std::string text = shot_text(++seq_, session.predictor().latest_tick(), view, me, aim - me);
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
