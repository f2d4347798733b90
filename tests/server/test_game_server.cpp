// A server program with games that exist to test the server program itself, never part of a
// product:
//   hang  the first message a client sends hangs the tick loop for good (a game that blocks: the bug
//         health checks exist for); the test kills it with SIGKILL, as a hung io thread cannot take
//         SIGTERM;
//   end   the first message a client sends ends the match (GameControl::end_match).
// For tests/server/agones_lifecycle.sh.
#include <chrono>
#include <thread>

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

}  // namespace

int main(int argc, char** argv) {
  const foothold::server::GameEntry games[] = {
      {"hang", "the first message a client sends hangs the tick loop, for good", [] { return std::make_unique<HangingGame>(); }},
      {"end", "the first message a client sends ends the match", [] { return std::make_unique<EndingGame>(); }}};
  return foothold::server::run_server(argc, argv, games, "test-game-server", "hang");
}
