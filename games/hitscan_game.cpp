#include "games/hitscan_game.h"

#include <charconv>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace foothold::server {

namespace {

struct Shot {
  uint32_t shooter = 0;
  uint64_t seq = 0;
  uint32_t fire_tick = 0;
  double view_tick = 0;
  double earliest_view = 0;  // what its sender's timing grants (GameControl::earliest_view)
  Vec3 origin, direction;
};

// The next space-separated word of `text` as a number; false when there is none or it is not one.
template <class T>
bool next_number(std::string_view& text, T& out) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  const char* end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), end, out);
  if (ec != std::errc() || (p != end && *p != ' ')) return false;
  text.remove_prefix(std::size_t(p - text.data()));
  return true;
}

bool parse_shot(std::string_view text, Shot& s) {
  if (text.substr(0, 5) != "shot ") return false;
  text.remove_prefix(5);
  double v[6];
  if (!next_number(text, s.seq) || !next_number(text, s.fire_tick) || !next_number(text, s.view_tick)) return false;
  for (double& x : v)
    if (!next_number(text, x) || !(x == x) || x > 1e7 || x < -1e7) return false;
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  if (!text.empty()) return false;
  s.origin = {v[0], v[1], v[2]};
  s.direction = {v[3], v[4], v[5]};
  return true;
}

class HitscanGame final : public Game {
 public:
  GameSchema schema() const override { return {{"hits", "shots"}, {}}; }

  void on_message(GameControl& game, uint32_t id, proto::Channel channel, std::span<const uint8_t> bytes) override {
    if (channel != proto::Channel::kReliable) return;
    Shot s;
    s.shooter = id;
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    if (!parse_shot(text, s)) return answer(game, id, s.seq, "refused", "malformed");
    // Judged once the server has simulated its fire tick (the shooter's client runs ahead, but no
    // further than the inputs it has sent: a fire tick beyond them is not a tick it predicted).
    const MessageTiming& timing = game.message_timing();
    if (s.fire_tick > game.tick() + uint32_t(game.settings().tick_rate) || !game.fire_tick_allowed(timing, s.fire_tick))
      return answer(game, id, s.seq, "refused", "early");
    s.earliest_view = game.earliest_view(timing);
    // Each shooter's own queue: one that fills it keeps only its own shots waiting.
    uint32_t& mine = waiting_[id];
    if (mine >= kMaxWaitingPerShooter) return answer(game, id, s.seq, "refused", "busy");
    pending_[s.fire_tick].push_back(s);
    ++mine;
  }

  void on_leave(GameControl&, uint32_t id) override {
    for (auto& [tick, shots] : pending_)
      for (Shot& s : shots)
        if (s.shooter == id) s.shooter = 0;  // judged as nothing: no one to answer
    waiting_.erase(id);
    hits_.erase(id);
    shots_.erase(id);
  }

  void after_tick(GameControl& game, const TickReport& report) override {
    while (!pending_.empty() && pending_.begin()->first <= report.tick) {
      for (const Shot& s : pending_.begin()->second) {
        if (const auto it = waiting_.find(s.shooter); it != waiting_.end() && --it->second == 0) waiting_.erase(it);
        judge(game, s);
      }
      pending_.erase(pending_.begin());
    }
  }

 private:
  void judge(GameControl& game, const Shot& s) {
    if (s.shooter == 0) return;
    if (!game.position_at(s.shooter, s.fire_tick)) return answer(game, s.shooter, s.seq, "refused", "late");
    if (!game.origin_allowed(s.shooter, s.fire_tick, s.origin)) return answer(game, s.shooter, s.seq, "refused", "origin");
    const RayHit hit = game.ray(s.shooter, s.view_tick, s.fire_tick, s.origin, s.direction, kRange, s.earliest_view);
    game.set_attribute(s.shooter, 1, ++shots_[s.shooter]);
    if (hit.kind != RayHit::Kind::kCharacter) return answer(game, s.shooter, s.seq, "miss", "");
    ++hits_[s.shooter];
    game.set_attribute(s.shooter, 0, hits_[s.shooter]);
    answer(game, s.shooter, s.seq, "hit", std::to_string(hit.character));
  }

  void answer(GameControl& game, uint32_t id, uint64_t seq, const char* verdict, const std::string& what) {
    std::string text(verdict);
    text.append(" ").append(std::to_string(seq));
    if (!what.empty()) text.append(" ").append(what);
    game.send(id, proto::Channel::kReliable, {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
  }

  std::map<uint32_t, std::vector<Shot>> pending_;  // by fire tick
  std::map<uint32_t, uint32_t> waiting_;           // shots waiting, by shooter (none: absent)
  std::map<uint32_t, int32_t> hits_, shots_;  // by shooter (ordered: deterministic)
};

}  // namespace

std::unique_ptr<Game> make_hitscan_game() { return std::make_unique<HitscanGame>(); }

}  // namespace foothold::server
