#pragma once
// The path follower on small worlds: characters driven by follow::PathFollower on a baked mesh's
// paths, stepped by the real tick (TickRunner), with a hook to disturb them each tick.

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <vector>

#include "follow/path_follower.h"
#include "nav_support.h"
#include "shared/tick.h"

namespace foothold::nav::test {

/// Characters on a world: some followers, some still (blockers), stepped together.
class FollowRun {
 public:
  explicit FollowRun(const World& world, const MoveSettings& settings = {})
      : world_(world),
        settings_(settings),
        derived_(derive(settings)),
        follow_(follow::follow_settings(settings)),
        mesh_(bake(world, settings)),
        query_(*mesh_) {}

  /// A character standing with its feet at `feet`; returns its index.
  std::size_t add(const Vec3& feet) {
    const double above = settings_.height / 2 + settings_.contact_distance / 2 + 0.01;
    characters_.push_back({uint32_t(characters_.size() + 1), spawn_state(feet + Vec3{0, above, 0}), {}, nullptr});
    followers_.emplace_back();
    events_.emplace_back();
    return characters_.size() - 1;
  }
  /// Character k's goal from the next tick on.
  void go(std::size_t k, const Vec3& goal) { followers_[k].go_to(goal, tick_ + 1); }

  struct Events {
    bool arrived = false;
    follow::GiveUp gave_up = follow::GiveUp::kNone;
    uint32_t ended = 0;                       // the tick it arrived or gave up
    std::vector<follow::Replan> replans;      // every path asked for, in order
    std::vector<Vec3> positions;              // capsule centre after each tick
    std::vector<InputCmd> inputs;             // the input it stepped with each tick (from the position before)
  };

  /// Runs up to `ticks` ticks (until every goal has ended); `each(tick)` runs before each.
  void run(uint32_t ticks, const std::function<void(uint32_t)>& each = {}) {
    const bool print = std::getenv("FOOTHOLD_PRINT_FOLLOW") != nullptr;
    for (uint32_t n = 0; n < ticks; ++n) {
      ++tick_;
      if (each) each(tick_);
      bool any = false;
      for (std::size_t k = 0; k < characters_.size(); ++k) {
        characters_[k].input = input_for(k);
        any |= followers_[k].active();
      }
      runner_.run(tick_, characters_, world_, derived_);
      for (std::size_t k = 0; k < characters_.size(); ++k) {
        characters_[k].state = runner_.results()[k].state;
        events_[k].positions.push_back(to_position(characters_[k].state.position));
        events_[k].inputs.push_back(characters_[k].input);
        if (print && followers_[k].active()) {
          const Vec3 p = to_position(characters_[k].state.position);
          std::printf("tick %u char %zu at (%.3f, %.3f, %.3f) ground %d input (%d, %d, %d) corner %zu/%zu\n", tick_, k,
                      p.x, p.y, p.z, int(characters_[k].state.ground), characters_[k].input.move_x,
                      characters_[k].input.move_z, characters_[k].input.buttons, followers_[k].next_corner(),
                      followers_[k].corner_count());
        }
      }
      if (!any) return;
    }
  }

  /// Moves the clock on by `ticks` with no one stepping (before run(): the tick the goals begin at).
  void skip(uint32_t ticks) { tick_ += ticks; }

  Vec3 feet(std::size_t k) const { return to_position(characters_[k].state.position) - Vec3{0, settings_.height / 2, 0}; }
  CharacterState& state(std::size_t k) { return characters_[k].state; }
  const Events& events(std::size_t k) const { return events_[k]; }
  const follow::PathFollower& follower(std::size_t k) const { return followers_[k]; }
  NavQuery& query() { return query_; }
  const NavMesh& mesh() const { return *mesh_; }
  const follow::FollowSettings& follow_settings() const { return follow_; }
  /// The followers' settings, to change before run().
  follow::FollowSettings& tune() { return follow_; }
  uint32_t tick() const { return tick_; }
  /// Gather a follower's neighbours only on the ticks it weighs them (PathFollower::wants_nearby()),
  /// as the game and foothold-nav walk do; by default, every tick.
  void gather_only_when_wanted(bool only) { only_when_wanted_ = only; }
  /// Steps that were given no neighbours because the follower did not want them.
  uint32_t gathers_skipped() const { return skipped_; }

 private:
  InputCmd input_for(std::size_t k) {
    follow::PathFollower& f = followers_[k];
    const CharacterState& state = characters_[k].state;
    nearby_.clear();
    if (only_when_wanted_ && !f.wants_nearby(tick_)) {
      ++skipped_;
    } else {
      for (std::size_t j = 0; j < characters_.size(); ++j)
        if (j != k) nearby_.push_back(follow::nearby_of(characters_[j].state));
    }
    follow::FollowStep s = f.step(state, tick_, follow_, nearby_);
    if (s.event == follow::FollowEvent::kNeedPath) {
      events_[k].replans.push_back(s.replan);
      if (std::getenv("FOOTHOLD_PRINT_FOLLOW")) std::printf("tick %u char %zu asks for a path: %s\n", tick_, k, follow::to_string(s.replan));
      f.set_path(to_follow_path(query_.find_path(follow::path_start(state, follow_), f.goal())), tick_);
      s = f.step(state, tick_, follow_, nearby_);
    }
    if (s.event == follow::FollowEvent::kArrived || s.event == follow::FollowEvent::kGaveUp) {
      events_[k].arrived = s.event == follow::FollowEvent::kArrived;
      events_[k].gave_up = s.gave_up;
      events_[k].ended = tick_;
    }
    return s.input;
  }

  const World& world_;
  MoveSettings settings_;
  DerivedSettings derived_;
  follow::FollowSettings follow_;
  std::unique_ptr<NavMesh> mesh_;
  NavQuery query_;
  TickRunner runner_;
  std::vector<TickCharacter> characters_;
  std::vector<follow::PathFollower> followers_;
  std::vector<Events> events_;
  std::vector<follow::Nearby> nearby_;
  uint32_t tick_ = 0;
  bool only_when_wanted_ = false;
  uint32_t skipped_ = 0;
};

}  // namespace foothold::nav::test
