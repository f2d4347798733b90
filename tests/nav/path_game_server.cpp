// A server whose game asks for paths (GameEntry::paths): the navigation mesh is baked at load,
// before on_start, which logs the path it finds across the arena (tests/nav/nav_server_test.cpp).

#include <memory>
#include <string>

#include "server/server_program.h"

namespace {

using namespace foothold;

class PathGame final : public server::Game {
 public:
  void on_start(server::GameControl& game) override {
    const follow::Path path = game.path({-28, 0.92, 22}, {28, 0.92, -8});
    game.log(server::GameLogLevel::kInfo, std::string("path ") + follow::to_string(path.status) + ", " +
                                              std::to_string(path.corners.size()) + " corners");
  }
};

}  // namespace

int main(int argc, char** argv) {
  const server::GameEntry games[] = {
      {"paths", "logs a path across the world at its start", [] { return std::make_unique<PathGame>(); }, true}};
  return server::run_server(argc, argv, games, "path-game-server", "paths");
}
