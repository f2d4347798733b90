#include "bots/tag_brain.h"

#include <cmath>
#include <string_view>

#include "bots/rng.h"

namespace foothold::bots {

namespace {

constexpr double kPi = 3.14159265358979323846;
// The game will not take "it" straight back from the one who passed it (games/tag_game.h): 3 s.
constexpr double kNoTagBackSeconds = 3;
// Runners flee at this angle off straight away from "it", so that it gains on them (cos 35° of its
// speed) and a chase ends in a tag rather than in a procession across the arena.
constexpr double kFleeDegrees = 55;
// Pushing yet slower than this horizontally (m/s) for kStuckSeconds: against a wall or in a corner.
constexpr double kStuckSpeed = 1.0;
constexpr double kStuckSeconds = 0.3;
constexpr double kWanderSpeed = 0.5;  // of full stick: unhurried while nobody is after them
constexpr double kJumpsPerSecond = 0.4;

Vec3 rotated(const Vec3& v, double degrees) {
  const double a = degrees * kPi / 180, c = std::cos(a), s = std::sin(a);
  return {v.x * c - v.z * s, 0, v.x * s + v.z * c};
}

Vec3 unit_or_zero(const Vec3& v) {
  const double len = length(v);
  return len > 1e-9 ? v * (1 / len) : Vec3{};
}

const OtherCharacter* find(std::span<const OtherCharacter> others, uint32_t id) {
  if (id == 0) return nullptr;
  for (const OtherCharacter& o : others)
    if (o.id == id) return &o;
  return nullptr;
}

class Tag final : public client::InputSource {
 public:
  Tag(uint64_t seed, int tick_rate, TagEyes eyes) : rng_{seed}, rate_(tick_rate), eyes_(std::move(eyes)) {
    side_ = rng_.uniform() < 0.5 ? -1 : 1;
  }

  InputCmd next(uint32_t tick, const CharacterState& s) override {
    const TagView view = eyes_();
    note_pass(tick, view);
    const Vec3 me = to_position(s.position);
    const OtherCharacter* it = find(view.others, view.it);
    Vec3 wish;
    if (view.self != 0 && view.it == view.self) {
      wish = chase(tick, view, me);
    } else if (it != nullptr && length(horizontal(to_position(it->position) - me)) < kFleeRadius) {
      wish = flee(me, *it);
    } else {
      wish = wander();
    }
    wish = unstick(s, wish);
    const bool jump = rng_.uniform() < kJumpsPerSecond / rate_;
    return encode_move(wish.x, wish.z, jump ? kButtonJump : 0, tick);
  }

 private:
  // "it" just came to this bot from another: that one may not be tagged back for a while.
  void note_pass(uint32_t tick, const TagView& view) {
    if (view.it != last_it_ && view.self != 0 && view.it == view.self && last_it_ != 0) {
      spared_ = last_it_;
      spared_until_ = tick + uint32_t(kNoTagBackSeconds * rate_);
    }
    last_it_ = view.it;
  }

  // Full speed at the nearest other (the spared one only when nobody else is there).
  Vec3 chase(uint32_t tick, const TagView& view, const Vec3& me) {
    const OtherCharacter* best = nullptr;
    double best_distance = 0;
    bool best_spared = false;
    for (const OtherCharacter& o : view.others) {
      if (o.id == view.self) continue;
      const bool spared = o.id == spared_ && tick < spared_until_;
      const double d = length(to_position(o.position) - me);
      // Not spared beats spared; then nearer; then (the others come sorted by id, but any order
      // will do) the lower id.
      const bool better = best == nullptr || (best_spared && !spared) ||
                          (spared == best_spared && (d < best_distance || (d == best_distance && o.id < best->id)));
      if (better) {
        best = &o;
        best_distance = d;
        best_spared = spared;
      }
    }
    if (best == nullptr) return wander();
    return unit_or_zero(horizontal(to_position(best->position) - me));
  }

  // Away from "it", at an angle to one side, the side switched every two to four seconds.
  Vec3 flee(const Vec3& me, const OtherCharacter& it) {
    if (side_left_ == 0) {
      if (rng_.uniform() < 0.5) side_ = -side_;
      side_left_ = uint32_t(rate_ * (2 + 2 * rng_.uniform()));
    }
    --side_left_;
    Vec3 away = unit_or_zero(horizontal(me - to_position(it.position)));
    if (length(away) == 0) away = {1, 0, 0};  // on top of each other: any way out
    return rotated(away, side_ * kFleeDegrees);
  }

  // A direction that changes every one to three seconds.
  Vec3 wander() {
    if (wander_left_ == 0) {
      wander_angle_ = rng_.uniform() * 2 * kPi;
      wander_left_ = uint32_t(rate_ * (1 + 2 * rng_.uniform()));
    }
    --wander_left_;
    return Vec3{std::cos(wander_angle_), 0, std::sin(wander_angle_)} * kWanderSpeed;
  }

  // Pushing but hardly moving for a moment (a wall, a corner, someone in the way, frozen): swerve to
  // the side for a second, and flee to the other side from then on.
  Vec3 unstick(const CharacterState& s, const Vec3& wish) {
    if (detour_left_ > 0) {
      --detour_left_;
      return rotated(wish, side_ * 90);
    }
    const bool pushing = length(wish) > 0.5;
    slow_ticks_ = pushing && length(horizontal(to_velocity(s.velocity))) < kStuckSpeed ? slow_ticks_ + 1 : 0;
    if (slow_ticks_ >= uint32_t(kStuckSeconds * rate_)) {
      slow_ticks_ = 0;
      side_ = -side_;
      detour_left_ = uint32_t(rate_);
      return rotated(wish, side_ * 90);
    }
    return wish;
  }

  Rng rng_;
  int rate_;
  TagEyes eyes_;
  uint32_t last_it_ = 0;
  uint32_t spared_ = 0, spared_until_ = 0;  // who may not be tagged back, until which tick
  int side_ = 1;                            // -1 or 1: which way off straight away runners flee and swerve
  uint32_t side_left_ = 0;                  // ticks until the side may switch
  double wander_angle_ = 0;
  uint32_t wander_left_ = 0;
  uint32_t slow_ticks_ = 0, detour_left_ = 0;
};

}  // namespace

int32_t tag_attribute(const client::ClientSession& session, bool match, std::string_view name, int fallback) {
  const int named = match ? session.match_attribute_index(name) : session.attribute_index(name);
  const bool unnamed = match ? session.match_attribute_names().empty() : session.attribute_names().empty();
  const int index = named >= 0 ? named : (unnamed ? fallback : -1);
  if (index < 0) return 0;
  return match ? session.match_attribute(index) : session.attribute(index);
}

TagView tag_view(const client::ClientSession& session) {
  TagView v;
  v.self = session.character_id();
  v.it = uint32_t(tag_attribute(session, true, "it", kTagMatchIt));
  v.others = session.others();
  return v;
}

TagStanding tag_standing(const client::ClientSession& session) {
  return {session.character_id(), tag_attribute(session, true, "round", kTagMatchRound),
          tag_attribute(session, false, "it_seconds", kTagCharacterItSeconds)};
}

std::unique_ptr<client::InputSource> make_tag_brain(uint64_t seed, uint32_t bot_index, int tick_rate, TagEyes eyes) {
  return std::make_unique<Tag>(brain_seed(seed, bot_index), tick_rate, std::move(eyes));
}

}  // namespace foothold::bots
