// libFuzzer: recordings read from untrusted files, re-simulated when small, and their game replayed
// (server/game_replay.h) when the header names a game: the header's fields (the snapshot interval
// and the rewind window the replay sizes its rewind memory by, the game, the start tick) and every
// tick's joins, leaves and messages reach the server's parts as `foothold-server --verify-game` feeds
// them. Whatever the reader accepts must be within the server's limits (shared/server_limits.h).

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "replay/resimulate.h"
#include "server/game.h"
#include "server/game_replay.h"
#include "shared/server_limits.h"
#include "shared/world.h"
#include "shared/formats/world_file.h"

namespace {

using namespace foothold;
using server::Game;
using server::GameControl;

// A game that uses what the header sizes: every message echoed, and a shot at the view the rewind
// window's oldest tick gives, as a lag-compensated game asks.
class ProbeGame final : public Game {
 public:
  void on_message(GameControl& game, uint32_t id, proto::Channel channel, std::span<const uint8_t> bytes) override {
    game.send(id, channel, bytes);
    const double view = double(game.tick()) - double(bytes[0]);
    (void)game.ray(id, view, game.tick(), Vec3{12, 2, 12}, Vec3{1, 0, 0}, 50);
    (void)game.position_at(id, game.tick() - bytes[0] % 8);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto world = std::move(load_world("arena").world);
  replay::LoadedRecording rec;
  std::string err;
  if (!replay::load_recording_bytes(std::vector<uint8_t>(data, data + size), "fuzz.rec", rec, err)) return 0;
  // What the reader accepted is what a server could have had: the replay below sizes memory by it.
  const replay::RecordingHeader& h = rec.header;
  if (h.rewind_window > max_rewind_ticks(h.settings.tick_rate) || h.snapshot_interval > max_snapshot_ticks(h.settings.tick_rate) ||
      rec.max_concurrent > std::size_t(kMaxServerClients))
    std::abort();
  // Re-simulating must survive whatever states and inputs the file holds (bounded to stay fast).
  if (rec.characters.size() <= 4 && rec.ticks <= 64) {
    replay::ResimOptions o;
    o.threads = 1;
    o.keep_states = true;
    (void)replay::resimulate(rec, *world, o);
    // The game's replay, from the same bytes: it stops at the first difference or problem it meets.
    if (!h.game.empty())
      (void)server::replay_game_bytes(std::vector<uint8_t>(data, data + size), "fuzz.rec", *world, std::make_unique<ProbeGame>());
  }
  return 0;
}
