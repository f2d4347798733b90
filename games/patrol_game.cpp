#include "games/patrol_game.h"

#include <map>
#include <optional>
#include <string>

#include "follow/path_follower.h"

namespace foothold::server {

namespace {

enum Match : int { kNpcs = 0, kArrivals = 1, kGiveUps = 2 };

constexpr int kRestTicks = 30;      // a patroller rests this long at each point
constexpr int kGoalDraws = 8;       // points drawn for a goal a complete path reaches, at most

class PatrolGame final : public Game {
 public:
  GameSchema schema() const override { return {{}, {"npcs", "arrivals", "give_ups"}}; }

  void on_start(GameControl& game) override {
    const uint32_t wanted = game.npcs_wanted() > 0 ? game.npcs_wanted() : kDefaultPatrolNpcs;
    const double lift = game.settings().height / 2 + 0.05;  // the capsule's centre over the mesh
    for (uint32_t i = 0; i < wanted; ++i) {
      const std::optional<Vec3> p = game.random_point();
      if (!p) {
        game.log(GameLogLevel::kWarn, "no navigation mesh: nobody patrols");
        break;
      }
      if (const uint32_t id = game.spawn({p->x, p->y + lift, p->z}); id != 0) walkers_[id] = {};
    }
    game.set_match_attribute(kNpcs, int32_t(walkers_.size()));
  }

  void on_leave(GameControl& game, uint32_t id) override {
    if (walkers_.erase(id) > 0) game.set_match_attribute(kNpcs, int32_t(walkers_.size()));
  }

  void after_tick(GameControl& game, const TickReport& report) override {
    for (auto& [id, w] : walkers_) {
      if (!game.character(id)) continue;  // joins at the next boundary
      if (!w.follower.active() && report.tick >= w.rest_until) next_goal(game, id, w, report.tick);
      const follow::FollowStep step = game.follow(id, w.follower);
      if (step.event == follow::FollowEvent::kArrived) {
        game.set_match_attribute(kArrivals, ++arrivals_);
        w.rest_until = report.tick + kRestTicks;
      } else if (step.event == follow::FollowEvent::kGaveUp) {
        game.set_match_attribute(kGiveUps, ++give_ups_);
        game.log(GameLogLevel::kDebug, "NPC " + std::to_string(id) + " gave up its goal: " + follow::to_string(step.gave_up));
        w.rest_until = report.tick + kRestTicks;
      }
    }
  }

 private:
  struct Walker {
    follow::PathFollower follower;
    uint32_t rest_until = 0;
  };

  // A point of the mesh that a complete path reaches from where the walker stands (of kGoalDraws
  // drawn; else the last drawn, which the follower walks toward as far as it leads).
  static void next_goal(GameControl& game, uint32_t id, Walker& w, uint32_t tick) {
    const follow::FollowSettings fs = follow::follow_settings(game.settings());
    const Vec3 from = follow::path_start(*game.character(id), fs);
    std::optional<Vec3> goal;
    for (int k = 0; k < kGoalDraws; ++k) {
      goal = game.random_point();
      if (!goal || game.path(from, *goal).status == follow::PathStatus::kComplete) break;
    }
    if (goal) w.follower.go_to(*goal, tick);
  }

  std::map<uint32_t, Walker> walkers_;  // by id (ordered: the same order every run)
  int32_t arrivals_ = 0, give_ups_ = 0;
};

}  // namespace

std::unique_ptr<Game> make_patrol_game() { return std::make_unique<PatrolGame>(); }

}  // namespace foothold::server
