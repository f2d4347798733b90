// A server program with games that exist to test the server program itself, never part of a
// product:
//   hang  the first message a client sends hangs the tick loop for good (a game that blocks: the bug
//         health checks exist for); the test kills it with SIGKILL, as a hung io thread cannot take
//         SIGTERM;
//   end   the first message a client sends ends the match (GameControl::end_match).
// For tests/server/agones_lifecycle.sh. And, to measure what attributes cost on the wire (#66):
//   seen4 every character's 4 attributes, visibility `all`, change every second;
//   self4 the same, visibility `self`.
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "server/server_program.h"

namespace {

using foothold::proto::Channel;
using foothold::server::GameControl;

struct HangingGame final : foothold::server::Game {
  void on_message(GameControl&, uint32_t, Channel, std::span<const uint8_t>) override {
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
};

struct EndingGame final : foothold::server::Game {
  void on_message(GameControl& g, uint32_t, Channel, std::span<const uint8_t>) override { g.end_match(); }
};

// Four attributes per character, each a new value every second (staggered over the second, a
// different one per character).
struct FourAttributesGame final : foothold::server::Game {
  explicit FourAttributesGame(bool seen_by_all) : seen_by_all_(seen_by_all) {}
  foothold::server::GameSchema schema() const override {
    const std::vector<std::string> names = {"a0", "a1", "a2", "a3"};
    return {names, {}, seen_by_all_ ? names : std::vector<std::string>{}};
  }
  void after_tick(GameControl& g, const foothold::server::TickReport& r) override {
    const uint32_t rate = uint32_t(g.settings().tick_rate);
    for (const auto& c : r.characters)
      for (int a = 0; a < 4; ++a)
        if ((r.tick + c.id + uint32_t(a) * rate / 4) % rate == 0)
          g.set_attribute(c.id, a, int32_t((r.tick / rate + c.id * 7 + uint32_t(a)) % 100));
  }
  bool seen_by_all_;
};

}  // namespace

int main(int argc, char** argv) {
  const foothold::server::GameEntry games[] = {
      {"hang", "the first message a client sends hangs the tick loop, for good", [] { return std::make_unique<HangingGame>(); }},
      {"end", "the first message a client sends ends the match", [] { return std::make_unique<EndingGame>(); }},
      {"seen4", "4 attributes seen by all per character, each changed every second",
       [] { return std::make_unique<FourAttributesGame>(true); }},
      {"self4", "4 attributes of visibility self per character, each changed every second",
       [] { return std::make_unique<FourAttributesGame>(false); }}};
  return foothold::server::run_server(argc, argv, games, "test-game-server", "hang");
}
