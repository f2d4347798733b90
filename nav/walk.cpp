#include "nav/walk.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "follow/nearby_index.h"
#include "follow/path_follower.h"
#include "shared/det_math.h"
#include "shared/tick.h"

namespace foothold::nav {

namespace {

using Clock = std::chrono::steady_clock;

// Draws before a spawn or a goal is given up on.
constexpr int kSpawnTries = 1000;
constexpr int kGoalTries = 16;

// The counter-th number of the SplitMix64 stream seeded with `seed`: GameControl::random()'s
// generator (server/game_host.h game_random), so a walk draws as a game would.
uint64_t splitmix(uint64_t seed, uint64_t counter) {
  uint64_t z = seed + (counter + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double horizontal_distance(const Vec3& a, const Vec3& b) {
  const double dx = a.x - b.x, dz = a.z - b.z;
  return std::sqrt(dx * dx + dz * dz);
}

class Walker {
 public:
  Walker(const World& world, const MoveSettings& settings, const NavMesh& mesh, const WalkOptions& options)
      : world_(world),
        settings_(settings),
        derived_(derive(settings)),
        follow_(follow::follow_settings(settings)),
        mesh_(mesh),
        query_(mesh),
        options_(options) {}

  WalkResult run() {
    WalkResult r;
    r.agents = options_.agents;
    if (!spawn()) {
      r.error = "could not place " + std::to_string(options_.agents) + " characters with somewhere to walk to";
      return r;
    }
    const auto ticks = uint32_t(det_llround(options_.seconds * settings_.tick_rate));
    Clock::duration following{};
    for (uint32_t tick = 1; tick <= ticks; ++tick) {
      const auto start = Clock::now();
      index_cells();
      for (std::size_t k = 0; k < agents_.size(); ++k) characters_[k].input = input_for(k, tick);
      following += Clock::now() - start;
      runner_.run(tick, characters_, world_, derived_, options_.threads);
      for (std::size_t k = 0; k < agents_.size(); ++k) characters_[k].state = runner_.results()[k].state;
    }
    r.goals = arrived_ + gave_up_;
    r.arrived = arrived_;
    r.give_ups = gave_up_;
    for (const Agent& a : agents_) {
      r.stuck += a.follower.counts().stuck;
      r.jumps += a.follower.counts().jumps;
      r.gave_way += a.follower.counts().gave_way;
      r.paths += a.follower.counts().paths;
      r.off_path += a.follower.counts().off_path;
    }
    r.mean_time_ratio = arrived_ > 0 ? ratio_sum_ / arrived_ : 0;
    const double npc_ticks = double(ticks) * double(agents_.size());
    r.us_per_npc_tick = npc_ticks > 0 ? std::chrono::duration<double, std::micro>(following).count() / npc_ticks : 0;
    return r;
  }

 private:
  struct Agent {
    follow::PathFollower follower;
    follow::Path ready;  // the path found when its goal was chosen, handed over when asked for
    bool has_ready = false;
    uint32_t rest_until = 0;  // after a goal given up: no new one before this tick
  };

  Vec3 random_point() { return mesh_.random_point(splitmix(options_.seed, drawn_++)); }
  Vec3 feet(std::size_t k) const {
    return to_position(characters_[k].state.position) - Vec3{0, settings_.height / 2, 0};
  }

  // Every character on a random point of the mesh clear of the others', from which a goal can be
  // reached (not on an island of the mesh).
  bool spawn() {
    const double apart = 2 * settings_.radius + 0.3;
    const double above = settings_.height / 2 + settings_.contact_distance / 2 + 0.01;
    for (int k = 0; k < options_.agents; ++k) {
      bool placed = false;
      for (int tries = 0; tries < kSpawnTries && !placed; ++tries) {
        const Vec3 p = random_point();
        bool clear = true;
        for (std::size_t j = 0; j < characters_.size() && clear; ++j)
          clear = horizontal_distance(p, feet(j)) >= apart || std::fabs(p.y - feet(j).y) >= settings_.height;
        if (!clear) continue;
        characters_.push_back({uint32_t(k + 1), spawn_state(p + Vec3{0, above, 0}), {}, nullptr});
        agents_.emplace_back();
        placed = choose_goal(characters_.size() - 1, 0);
        if (!placed) {
          characters_.pop_back();
          agents_.pop_back();
        }
      }
      if (!placed) return false;
    }
    return true;
  }

  // A goal for character k: a random point of the mesh far enough away that a complete path reaches.
  bool choose_goal(std::size_t k, uint32_t tick) {
    const Vec3 from = follow::path_start(characters_[k].state, follow_);
    for (int tries = 0; tries < kGoalTries; ++tries) {
      const Vec3 goal = random_point();
      if (horizontal_distance(goal, from) < options_.min_goal_distance) continue;
      const PathResult path = query_.find_path(from, goal);
      if (path.status != PathStatus::kFound) continue;
      Agent& a = agents_[k];
      a.follower.go_to(goal, tick);
      a.ready = to_follow_path(path);
      a.has_ready = true;
      return true;
    }
    return false;
  }

  InputCmd input_for(std::size_t k, uint32_t tick) {
    Agent& a = agents_[k];
    // A character that gave up rests a second before its next goal (it may stand where none starts).
    if (!a.follower.active() && (tick < a.rest_until || !choose_goal(k, tick))) return InputCmd{tick, 0, 0, 0};
    const CharacterState& state = characters_[k].state;
    if (a.follower.wants_nearby(tick))
      gather_nearby(k);
    else
      nearby_.clear();
    follow::FollowStep s = a.follower.step(state, tick, follow_, nearby_);
    if (s.event == follow::FollowEvent::kNeedPath) {
      a.follower.set_path(
          a.has_ready ? a.ready : to_follow_path(query_.find_path(follow::path_start(state, follow_), a.follower.goal())),
          tick);
      a.has_ready = false;
      s = a.follower.step(state, tick, follow_, nearby_);
    }
    if (s.event == follow::FollowEvent::kArrived) {
      ++arrived_;
      const double seconds = double(tick - a.follower.goal_tick()) / settings_.tick_rate;
      ratio_sum_ += seconds / (a.follower.first_length() / settings_.walk_speed);
    } else if (s.event == follow::FollowEvent::kGaveUp) {
      ++gave_up_;
      a.rest_until = tick + uint32_t(settings_.tick_rate);
      if (options_.note) note_give_up(k, tick, s.gave_up);
    }
    return s.input;
  }

  // Every character by cell: who is near whom this tick.
  void index_cells() {
    near_.clear();
    for (std::size_t k = 0; k < characters_.size(); ++k) near_.add(uint32_t(k), characters_[k].state);
    near_.sort();
  }

  // The characters within follow::kNearbyReach of character k, into nearby_ (by cell, then k: an order of the
  // characters alone).
  void gather_nearby(std::size_t k) { near_.near(characters_[k].state.position, uint32_t(k), nearby_); }

  void note_give_up(std::size_t k, uint32_t tick, follow::GiveUp why) const {
    const Agent& a = agents_[k];
    const Vec3 at = feet(k), goal = a.follower.goal();
    char line[256];
    std::snprintf(line, sizeof line,
                  "gave up: agent %zu at tick %u (%s): at (%.2f, %.2f, %.2f), goal (%.2f, %.2f, %.2f), path %.1f m, "
                  "corner %zu of %zu",
                  k + 1, tick, follow::to_string(why), at.x, at.y, at.z, goal.x, goal.y, goal.z, a.follower.first_length(),
                  a.follower.next_corner(), a.follower.corner_count());
    options_.note(line);
  }

  const World& world_;
  const MoveSettings& settings_;
  const DerivedSettings derived_;
  const follow::FollowSettings follow_;
  const NavMesh& mesh_;
  NavQuery query_;
  const WalkOptions& options_;
  uint64_t drawn_ = 0;
  std::vector<TickCharacter> characters_;  // by id, ascending: TickRunner's order
  follow::NearbyIndex near_{follow::kNearbyReach};  // this tick's characters, by cell: as a game's
  std::vector<follow::Nearby> nearby_;      // the character being stepped's neighbours
  std::vector<Agent> agents_;
  TickRunner runner_;
  uint32_t arrived_ = 0, gave_up_ = 0;
  double ratio_sum_ = 0;
};

}  // namespace

WalkResult walk(const World& world, const MoveSettings& settings, const NavMesh& mesh, const WalkOptions& options) {
  return Walker(world, settings, mesh, options).run();
}

}  // namespace foothold::nav
