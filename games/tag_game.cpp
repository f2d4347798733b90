#include "games/tag_game.h"

#include <algorithm>
#include <map>
#include <string>

namespace foothold::server {

namespace {

enum Match : int { kIt = 0, kRound = 1, kSecondsLeft = 2, kTags = 3 };
enum Character : int { kItSeconds = 0 };

constexpr int kRoundSeconds = 60;
constexpr int kNoTagBackSeconds = 3;
constexpr int kFrozenSeconds = 1;

class TagGame final : public Game {
 public:
  // it_seconds is everyone's to see: a scoreboard over each player.
  GameSchema schema() const override { return {{"it_seconds"}, {"it", "round", "seconds_left", "tags"}, {"it_seconds"}}; }

  void on_start(GameControl& game) override {
    rate_ = uint32_t(game.settings().tick_rate);
    has_it_profile_ = game.settings().profile_index("it") > 0;
    game.set_match_attribute(kRound, 1);
    game.set_match_attribute(kSecondsLeft, kRoundSeconds);
  }

  void on_leave(GameControl&, uint32_t id) override {
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
};

}  // namespace

std::unique_ptr<Game> make_tag_game() { return std::make_unique<TagGame>(); }

}  // namespace foothold::server
