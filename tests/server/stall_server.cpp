// A server program whose one game hangs the tick loop (a game that blocks, the bug health checks
// exist for): the first message it is handed never returns. For tests/server/agones_lifecycle.sh,
// which kills it with SIGKILL (a hung io thread cannot take SIGTERM). Never part of a product.
#include <chrono>
#include <thread>

#include "server/server_program.h"

namespace {

struct HangingGame final : foothold::server::Game {
  void on_message(foothold::server::GameControl&, uint32_t, foothold::proto::Channel, std::span<const uint8_t>) override {
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
};

}  // namespace

int main(int argc, char** argv) {
  const foothold::server::GameEntry games[] = {
      {"hang", "the first message a client sends hangs the tick loop, for good", [] { return std::make_unique<HangingGame>(); }}};
  return foothold::server::run_server(argc, argv, games, "stall-server", "hang");
}
