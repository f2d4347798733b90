#include "games/tag_game.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "follow/path_follower.h"

namespace foothold::server {

namespace {

enum Match : int { kIt = 0, kRound = 1, kSecondsLeft = 2, kTags = 3 };
enum Character : int { kItSeconds = 0 };

constexpr int kRoundSeconds = 60;
constexpr int kNoTagBackSeconds = 3;
constexpr int kFrozenSeconds = 1;

// The NPC players (--npcs N): "it" chases the nearest one it may tag, the others flee from "it" when
// it comes near and wander otherwise, all by paths on the navigation mesh (GameControl::follow).
constexpr double kFleeRadius = 8;        // metres: "it" this near, an NPC flees (as the tag bots do)
constexpr double kChaseRegoal = 1.0;     // metres: where the chased one is headed moved this far from the goal...
constexpr int kChaseRegoalTicks = 15;    // ...and this many ticks passed since it was set: a new goal
constexpr double kChaseLeadSeconds = 1;  // the goal leads the chased one by its velocity, this long at most
constexpr double kPounce = 2.5;          // metres: this near, "it" runs straight at the chased one
constexpr int kFleeCandidates = 4;       // points drawn to flee to; the farthest from "it" wins
constexpr double kFleeReach = 25;        // metres: a flee point farther from the NPC than this is not drawn again
constexpr int kIdleTicks = 60;           // a wanderer rests this long between goals

// Horizontal squared distance, metres.
double distance2(const Vec3& a, const Vec3& b) {
  const double dx = a.x - b.x, dz = a.z - b.z;
  return dx * dx + dz * dz;
}

class TagNpcs {
 public:
  // Spawns `count` NPC players at points of the mesh drawn from the match's random source.
  void spawn(GameControl& game, uint32_t count) {
    const double lift = game.settings().height / 2 + 0.05;
    for (uint32_t i = 0; i < count; ++i) {
      const std::optional<Vec3> p = game.random_point();
      if (!p) {
        game.log(GameLogLevel::kWarn, "no navigation mesh: no NPC players");
        return;
      }
      if (const uint32_t id = game.spawn({p->x, p->y + lift, p->z}); id != 0) npcs_[id] = {};
    }
  }

  void forget(uint32_t id) { npcs_.erase(id); }

  // Each NPC's input for the next tick. `it` is "it" (0: nobody), `immune` who "it" may not tag yet.
  void drive(GameControl& game, uint32_t tick, uint32_t it, uint32_t immune) {
    for (auto& [id, npc] : npcs_) {
      const CharacterState* me = game.character(id);
      if (!me) continue;  // spawned at this boundary: in the match from the next tick
      const Vec3 at = to_position(me->position);
      if (id == it) chase(game, npc, id, at, tick, immune);
      else if (const CharacterState* chaser = it ? game.character(it) : nullptr;
               chaser && distance2(at, to_position(chaser->position)) < kFleeRadius * kFleeRadius)
        flee(game, npc, at, to_position(chaser->position), tick);
      else wander(game, npc, tick);
      npc.fleeing = npc.fleeing && npc.follower.active();
      if (id == it && npc.pounce) {
        game.set_input(id, npc.pounce_input);
        continue;
      }
      npc.pounce = false;
      const follow::FollowStep step = game.follow(id, npc.follower);
      if (step.event == follow::FollowEvent::kArrived || step.event == follow::FollowEvent::kGaveUp) npc.rest_until = tick + kIdleTicks;
    }
  }

 private:
  struct Npc {
    follow::PathFollower follower;
    uint32_t target = 0;      // chasing: whom
    uint32_t goal_tick = 0;   // when the goal was last set
    uint32_t rest_until = 0;  // wandering: idle until
    bool fleeing = false;
    bool pounce = false;      // chasing, within reach: pounce_input, not the follower's
    InputCmd pounce_input;
  };

  // "it": toward the nearest character it may tag (ascending id breaks ties), its goal moved along
  // as the chased one runs.
  static void chase(GameControl& game, Npc& npc, uint32_t id, const Vec3& at, uint32_t tick, uint32_t immune) {
    uint32_t best = 0;
    double best_d = 0;
    Vec3 best_at;
    for (uint32_t other : game.characters()) {
      const CharacterState* s = other == id || other == immune ? nullptr : game.character(other);
      if (!s) continue;
      const Vec3 p = to_position(s->position);
      if (const double d = distance2(at, p); best == 0 || d < best_d) {
        best = other;
        best_d = d;
        best_at = p;
      }
    }
    npc.fleeing = false;
    if (best == 0) return;
    // Where the chased one will be when "it" gets there (at walk speed), at most a second ahead: a
    // runner that turns is cut off.
    const Vec3 v = to_velocity(game.character(best)->velocity);
    const double lead = std::min(kChaseLeadSeconds, std::sqrt(best_d)  /* IEEE: exact everywhere */ / game.settings().walk_speed);
    const Vec3 ahead{best_at.x + v.x * lead, best_at.y, best_at.z + v.z * lead};
    npc.pounce = best_d < kPounce * kPounce;
    if (npc.pounce) {  // within reach: straight at it, no path needed
      npc.target = best;
      npc.follower.stop();
      npc.pounce_input = encode_move(ahead.x - at.x, ahead.z - at.z, 0, 0);
      return;
    }
    const bool moved = distance2(ahead, npc.follower.goal()) > kChaseRegoal * kChaseRegoal;
    if (best != npc.target || !npc.follower.active() || (moved && tick >= npc.goal_tick + kChaseRegoalTicks)) {
      npc.target = best;
      npc.goal_tick = tick;
      npc.follower.go_to(ahead, tick);
    }
  }

  // Away from "it": of a few points of the mesh drawn near, the farthest from "it"; kept until
  // reached (or given up).
  static void flee(GameControl& game, Npc& npc, const Vec3& at, const Vec3& chaser, uint32_t tick) {
    npc.target = 0;
    if (npc.fleeing && npc.follower.active()) return;
    std::optional<Vec3> best;
    for (int k = 0; k < kFleeCandidates; ++k) {
      const std::optional<Vec3> p = game.random_point();
      if (!p || distance2(*p, at) > kFleeReach * kFleeReach) continue;
      if (!best || distance2(*p, chaser) > distance2(*best, chaser)) best = p;
    }
    if (!best || distance2(*best, chaser) <= distance2(at, chaser)) return;  // nowhere better: wander on
    npc.fleeing = true;
    npc.goal_tick = tick;
    npc.follower.go_to(*best, tick);
  }

  // Nobody near: to a point of the mesh, a rest, another.
  static void wander(GameControl& game, Npc& npc, uint32_t tick) {
    npc.target = 0;
    if (npc.follower.active() && !npc.fleeing) return;
    if (tick < npc.rest_until) return;
    if (const std::optional<Vec3> p = game.random_point()) {
      npc.fleeing = false;
      npc.goal_tick = tick;
      npc.follower.go_to(*p, tick);
    }
  }

  std::map<uint32_t, Npc> npcs_;  // by id (ordered: the same order every run)
};

class TagGame final : public Game {
 public:
  // it_seconds is everyone's to see: a scoreboard over each player.
  GameSchema schema() const override { return {{"it_seconds"}, {"it", "round", "seconds_left", "tags"}, {"it_seconds"}}; }

  void on_start(GameControl& game) override {
    rate_ = uint32_t(game.settings().tick_rate);
    has_it_profile_ = game.settings().profile_index("it") > 0;
    game.set_match_attribute(kRound, 1);
    game.set_match_attribute(kSecondsLeft, kRoundSeconds);
    npcs_.spawn(game, game.npcs_wanted());
  }

  void on_leave(GameControl&, uint32_t id) override {
    npcs_.forget(id);
    it_ticks_.erase(id);
    if (id == it_) it_ = 0;  // chosen again after the next tick
    if (id == previous_) previous_ = 0;
  }

  void after_tick(GameControl& game, const TickReport& report) override {
    if (round_start_ == 0) round_start_ = report.tick;
    if (unfreeze_at_ != 0 && report.tick >= unfreeze_at_) {
      game.freeze(frozen_, false);
      unfreeze_at_ = 0;
    }
    if (report.characters.empty()) return;
    if (it_ == 0) pass(game, 0, least_it(report), report.tick);
    ++it_ticks_[it_];
    const int32_t seconds = int32_t(it_ticks_[it_] / rate_);
    if (seconds != game.attribute(it_, kItSeconds)) game.set_attribute(it_, kItSeconds, seconds);
    if (const uint32_t to = touched(report); to != 0) pass(game, it_, to, report.tick);

    const uint32_t elapsed = report.tick - round_start_ + 1;
    const int32_t left = kRoundSeconds - int32_t(elapsed / rate_);
    if (left != game.match_attribute(kSecondsLeft)) game.set_match_attribute(kSecondsLeft, std::max(left, 0));
    if (elapsed >= uint32_t(kRoundSeconds) * rate_) end_round(game, report);
    npcs_.drive(game, report.tick, it_, report.tick < no_tag_back_until_ ? previous_ : 0);
  }

 private:
  // The character "it" touched, or who touched "it", the lowest id first; 0 for none (or only the
  // one who may not be tagged back yet).
  uint32_t touched(const TickReport& report) const {
    uint32_t best = 0;
    auto consider = [&](uint32_t id) {
      if (id == it_ || (id == previous_ && report.tick < no_tag_back_until_)) return;
      if (best == 0 || id < best) best = id;
    };
    for (const CharacterReport& c : report.characters) {
      for (const Touch& t : c.touches) {
        if (t.kind != TouchKind::kCharacter) continue;
        if (c.id == it_) consider(t.character);
        else if (t.character == it_) consider(c.id);
      }
    }
    // Only characters still present (a touch names the id the other had at the start of the tick).
    for (const CharacterReport& c : report.characters)
      if (c.id == best) return best;
    return 0;
  }

  // The present character who was "it" least this round (ties: the lowest id).
  uint32_t least_it(const TickReport& report) const {
    uint32_t best = 0, best_ticks = 0;
    for (const CharacterReport& c : report.characters) {
      const auto found = it_ticks_.find(c.id);
      const uint32_t ticks = found == it_ticks_.end() ? 0 : found->second;
      if (best == 0 || ticks < best_ticks) {
        best = c.id;
        best_ticks = ticks;
      }
    }
    return best;
  }

  void pass(GameControl& game, uint32_t from, uint32_t to, uint32_t tick) {
    if (unfreeze_at_ != 0) game.freeze(frozen_, false);
    if (has_it_profile_ && from != 0) game.set_profile(from, "base");
    it_ = to;
    previous_ = from;
    no_tag_back_until_ = tick + uint32_t(kNoTagBackSeconds) * rate_;
    game.set_match_attribute(kIt, int32_t(to));
    if (from != 0) {
      game.set_match_attribute(kTags, ++tags_);
      game.freeze(to, true);
      frozen_ = to;
      unfreeze_at_ = tick + uint32_t(kFrozenSeconds) * rate_;
    }
    if (has_it_profile_) game.set_profile(to, "it");
    // Appended piece by piece: GCC 12's -Wrestrict misjudges "literal" + std::string in Release.
    std::string text = "tag ";
    text.append(std::to_string(from)).append(" ").append(std::to_string(to));
    game.broadcast(proto::Channel::kReliable, {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
  }

  void end_round(GameControl& game, const TickReport& report) {
    std::string text = "scores ";
    text.append(std::to_string(round_));
    for (const CharacterReport& c : report.characters) {
      const auto found = it_ticks_.find(c.id);
      text.append(" ").append(std::to_string(c.id)).append(":");
      text.append(std::to_string(found == it_ticks_.end() ? 0 : found->second / rate_));
    }
    game.broadcast(proto::Channel::kReliable, {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
    // The next round starts with the one who was "it" least in this one.
    const uint32_t next = least_it(report);
    for (const CharacterReport& c : report.characters) game.set_attribute(c.id, kItSeconds, 0);
    it_ticks_.clear();
    ++round_;
    tags_ = 0;
    round_start_ = report.tick + 1;
    game.set_match_attribute(kRound, int32_t(round_));
    game.set_match_attribute(kSecondsLeft, kRoundSeconds);
    game.set_match_attribute(kTags, 0);
    if (next != it_) pass(game, 0, next, report.tick);
  }

  uint32_t rate_ = 60;
  bool has_it_profile_ = false;
  uint32_t it_ = 0, previous_ = 0, frozen_ = 0;
  uint32_t no_tag_back_until_ = 0, unfreeze_at_ = 0, round_start_ = 0;
  uint32_t round_ = 1;
  int32_t tags_ = 0;
  std::map<uint32_t, uint32_t> it_ticks_;  // ticks as "it" this round, by character (ordered: deterministic)
  TagNpcs npcs_;
};

}  // namespace

std::unique_ptr<Game> make_tag_game() { return std::make_unique<TagGame>(); }

}  // namespace foothold::server
