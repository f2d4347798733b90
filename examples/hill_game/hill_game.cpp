// hill-server: king of the hill, a complete small game on Foothold's game API (server/game.h), and
// its own server in the last lines. It builds out of tree against the installed package alone:
//
//   cmake -S /usr/share/foothold/examples/hill_game -B build-hill && cmake --build build-hill
//   build-hill/hill-server --world /usr/share/foothold/examples/hill_game/hill.gltf
//
// The rules, each written with one part of the API:
//  - the level says where things are: the triggers `hill`, `pad_west` and `pad_east` of hill.gltf
//    (on_trigger_enter / on_trigger_leave; no distance checks in the game);
//  - a jump pad throws whoever steps on it up onto the ledge beside it (set_velocity);
//  - the door in the south wall opens while anyone stands on a switch before or behind it, and shuts
//    when the last one steps off (mover: the level marks the door driven, so it starts shut; the
//    clients predict it from the tick it starts to move, riders and all);
//  - whoever stands alone on the hill scores a point a second (a character attribute `score`, seen
//    by every client that sees the character: a scoreboard and name tags need no messages);
//  - the one holding the hill knocks back whoever touches it (push: the knockback carries on the
//    ground and slides along walls), at most once a second per victim;
//  - players start at a corner drawn from the match's random source (random_below: the same draw
//    under --verify-game, which a rand() would not give);
//  - a round lasts 90 s; its winner is announced to every client (a reliable message "winner ID
//    SCORE") and in the server's log (log), and the scores start again.
// Replicated attributes: character `score` (0) and `on_hill` (1), both seen by all; match `holder`
// (0, the one scoring now, 0: nobody), `seconds_left` (1), `round` (2).

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "server/game.h"
#include "server/server_program.h"

namespace {

using foothold::Vec3;
using namespace foothold::server;

constexpr int kScore = 0, kOnHill = 1;                    // character attributes
constexpr int kHolder = 0, kSecondsLeft = 1, kRound = 2;  // match attributes
constexpr uint32_t kRoundSeconds = 90;
constexpr double kStandingHeight = 0.919921875;  // the default capsule's centre on a floor at y = 0
constexpr double kPadUp = 12, kPadAcross = 4;    // m/s: a pad's throw reaches 3.6 m, onto its ledge
constexpr double kKnockback = 7;                 // m/s: about 1.2 m on the ground before it dies
constexpr int kDoorOpen = 1, kDoorShut = 2;      // the door's keys (hill.gltf: shut, open, shut)
constexpr double kDoorSpeed = 2;                 // twice its animation's speed: open in half a second

class HillGame final : public Game {
 public:
  GameSchema schema() const override {
    return {{"score", "on_hill"}, {"holder", "seconds_left", "round"}, {"score", "on_hill"}};
  }

  void on_start(GameControl& g) override {
    hill_ = g.trigger_index("hill");
    pad_west_ = g.trigger_index("pad_west");
    pad_east_ = g.trigger_index("pad_east");
    switches_ = {g.trigger_index("switch_north"), g.trigger_index("switch_south")};
    door_ = g.mover_index("door");
    if (hill_ < 0) g.log(GameLogLevel::kWarn, "the world has no trigger 'hill': nobody can score (use hill.gltf)");
    start_round(g);
  }

  std::optional<Vec3> on_join(GameControl& g, const Joining&) override {
    static constexpr std::array<Vec3, 4> kCorners{{{-15, kStandingHeight, -15}, {15, kStandingHeight, -15},
                                                   {-15, kStandingHeight, 15}, {15, kStandingHeight, 15}}};
    return kCorners[g.random_below(kCorners.size())];
  }

  void on_leave(GameControl&, uint32_t id) override {
    players_.erase(id);
    if (holder_ == id) holder_ = 0;
  }

  void on_trigger_enter(GameControl& g, uint32_t id, int trigger) override {
    if (trigger == pad_west_ || trigger == pad_east_)
      g.set_velocity(id, {trigger == pad_west_ ? -kPadAcross : kPadAcross, kPadUp, 0});
    if (trigger == hill_) g.set_attribute(id, kOnHill, 1);
    if (is_switch(trigger) && on_switches_++ == 0) g.mover(door_, MoverCommand::go_to(kDoorOpen, kDoorSpeed));
  }

  void on_trigger_leave(GameControl& g, uint32_t id, int trigger) override {
    if (trigger == hill_ && g.character(id)) g.set_attribute(id, kOnHill, 0);
    // A leave for every enter, also of one who leaves the match: the count comes back to 0.
    if (is_switch(trigger) && --on_switches_ == 0) g.mover(door_, MoverCommand::go_to(kDoorShut, kDoorSpeed));
  }

  void after_tick(GameControl& g, const TickReport& report) override {
    const uint32_t rate = uint32_t(g.settings().tick_rate);
    update_holder(g, report);
    knock_back(g, report);
    if (report.tick % rate == 0) each_second(g);
  }

 private:
  struct Player {
    int32_t score = 0;
    uint32_t knocked_until = 0;  // the tick before which it is not knocked back again
  };

  // The hill's holder: the one character on it, if there is exactly one.
  void update_holder(GameControl& g, const TickReport& report) {
    uint32_t alone = 0;
    int on_hill = 0;
    for (const CharacterReport& c : report.characters) {
      players_.try_emplace(c.id);
      for (const int t : g.triggers_at(c.id))
        if (t == hill_) {
          alone = c.id;
          ++on_hill;
        }
    }
    const uint32_t holder = on_hill == 1 ? alone : 0;
    if (holder != holder_) g.set_match_attribute(kHolder, int32_t(holder));
    holder_ = holder;
  }

  // Whoever touches the holder is pushed away from it, horizontally.
  void knock_back(GameControl& g, const TickReport& report) {
    if (holder_ == 0) return;
    const foothold::CharacterState* holder = g.character(holder_);
    if (!holder) return;
    const Vec3 centre = foothold::to_position(holder->position);
    for (const CharacterReport& c : report.characters) {
      if (c.id == holder_ || report.tick < players_[c.id].knocked_until) continue;
      bool touched = false;
      for (const foothold::Touch& t : c.touches)
        touched = touched || (t.kind == foothold::TouchKind::kCharacter && t.character == holder_);
      if (!touched) continue;
      Vec3 away = foothold::to_position(c.state.position) - centre;
      away.y = 0;
      const double len = foothold::length(away);
      away = len > 0 ? away * (kKnockback / len) : Vec3{kKnockback, 0, 0};
      g.push(c.id, away);
      players_[c.id].knocked_until = report.tick + uint32_t(g.settings().tick_rate);
    }
  }

  void each_second(GameControl& g) {
    if (holder_ != 0) g.set_attribute(holder_, kScore, ++players_[holder_].score);
    if (seconds_left_ > 0) --seconds_left_;
    g.set_match_attribute(kSecondsLeft, int32_t(seconds_left_));
    if (seconds_left_ == 0) end_round(g);
  }

  void end_round(GameControl& g) {
    uint32_t winner = 0;
    int32_t best = -1;
    for (const auto& [id, p] : players_)  // ascending id: the lowest wins a tie
      if (p.score > best) {
        best = p.score;
        winner = id;
      }
    const std::string line = "winner " + std::to_string(winner) + " " + std::to_string(best < 0 ? 0 : best);
    g.broadcast(foothold::proto::Channel::kReliable, {reinterpret_cast<const uint8_t*>(line.data()), line.size()});
    g.log(GameLogLevel::kInfo, "round " + std::to_string(round_) + ": " + line);
    for (auto& [id, p] : players_)
      if (p.score != 0 && g.character(id)) {
        p.score = 0;
        g.set_attribute(id, kScore, 0);
      }
    start_round(g);
  }

  void start_round(GameControl& g) {
    ++round_;
    seconds_left_ = kRoundSeconds;
    g.set_match_attribute(kRound, int32_t(round_));
    g.set_match_attribute(kSecondsLeft, int32_t(seconds_left_));
  }

  bool is_switch(int trigger) const { return door_ >= 0 && trigger >= 0 && (trigger == switches_[0] || trigger == switches_[1]); }

  int hill_ = -1, pad_west_ = -1, pad_east_ = -1;
  std::array<int, 2> switches_{-1, -1};
  int door_ = -1;
  int on_switches_ = 0;  // characters on a switch, counting one on both twice
  std::map<uint32_t, Player> players_;  // by id: every decision walks them in id order
  uint32_t holder_ = 0;
  uint32_t round_ = 0, seconds_left_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const GameEntry games[] = {{"hill", "king of the hill with jump pads and knockback (hill.gltf)",
                              [] { return std::make_unique<HillGame>(); }}};
  return run_server(argc, argv, games, "hill-server", "hill");
}
