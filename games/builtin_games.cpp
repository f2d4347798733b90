#include "games/builtin_games.h"

#include "games/hitscan_game.h"
#include "games/patrol_game.h"
#include "games/tag_game.h"

namespace foothold::server {

namespace {

// Every message back to its sender, on its channel. A refused echo (the sender's queue is full: it
// sends faster than it reads) is counted by the core as messages_refused; the sender's check finds
// it missing.
class EchoGame final : public Game {
 public:
  void on_message(GameControl& game, uint32_t id, proto::Channel channel, std::span<const uint8_t> bytes) override {
    game.send(id, channel, bytes);
  }
};

}  // namespace

std::span<const GameEntry> builtin_games() {
  static const GameEntry kGames[] = {
      {"echo", "every message back to its sender", [] { return std::unique_ptr<Game>(std::make_unique<EchoGame>()); }},
      {"tag", "one character is it; touching another passes it on; 60 s rounds; --npcs N NPC players", make_tag_game},
      {"hitscan", "shots judged against the world as the shooter drew it (lag compensation)", make_hitscan_game},
      {"patrol", "--npcs N NPCs (8 without) walk between random reachable points of the navigation mesh", make_patrol_game, true},
  };
  return kGames;
}

}  // namespace foothold::server
