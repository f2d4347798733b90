#include "server/game_replay.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "replay/recording.h"
#include "server/counters.h"
#include "server/game_host.h"
#include "server/rewind.h"
#include "server/roster.h"
#include "server/simulation.h"
#include "shared/fixed_point.h"
#include "shared/server_limits.h"
#include "shared/workers/worker_pool.h"

namespace foothold::server {

namespace {

// A message's bytes for a person: as text when it is printable, else its size.
std::string shown(std::span<const uint8_t> bytes) {
  const bool text = std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b >= 0x20 && b < 0x7f; });
  if (!text || bytes.size() > 120) return std::to_string(bytes.size()) + " bytes";
  // Appended, not "'" + std::string(...) + "'": GCC 12 warns falsely (-Wrestrict) of that inlined.
  std::string out;
  out.reserve(bytes.size() + 2);
  out += '\'';
  out.append(bytes.begin(), bytes.end());
  out += '\'';
  return out;
}

// A command's vector in the units a person reads, beside its raw fixed-point ones (issue #66): a
// position in metres, a velocity in m/s; nothing for the kinds without one.
std::string vector_units(const GameCommand& c) {
  const bool position = c.kind == GameCommandKind::kTeleport || c.kind == GameCommandKind::kSpawn;
  if (!position && c.kind != GameCommandKind::kVelocity && c.kind != GameCommandKind::kPush) return "";
  const double scale = position ? kPositionScale : kVelocityScale;
  char text[96];
  std::snprintf(text, sizeof text, " = %.6g,%.6g,%.6g %s", double(c.vector.x) / scale, double(c.vector.y) / scale,
                double(c.vector.z) / scale, position ? "m" : "m/s");
  return text;
}

std::string shown(const GameCommand& c) {
  return std::string(to_string(c.kind)) + " of character " + std::to_string(c.character) + " (slot " + std::to_string(c.slot) +
         ", value " + std::to_string(c.value) + ", vector " + std::to_string(c.vector.x) + "," + std::to_string(c.vector.y) + "," +
         std::to_string(c.vector.z) + vector_units(c) + ")";
}

std::string shown(const InputCmd& in) {
  return "stick " + std::to_string(in.move_x) + "," + std::to_string(in.move_z) + " buttons " + std::to_string(in.buttons);
}

// One replay: the server's parts a game touches, fed from the recording.
class Replayer {
 public:
  Replayer(const World& world, const replay::RecordingHeader& h, std::unique_ptr<Game> game, GameLog log)
      : pool_(1),
        simulation_(world, h.settings, pool_, kMaxServerClients),
        roster_(kMaxServerClients),
        // Servers stagger their clients' snapshots from recording format 9 on (snapshot_phase.h).
        schedule_{std::max<uint32_t>(1, h.snapshot_interval), h.format_version >= 9},
        rewind_(h.rewind_window, schedule_, derive(h.settings)),
        host_(roster_, simulation_, counters_,
              [this](uint32_t id, proto::Channel channel, std::span<const uint8_t> bytes) { return sent(id, channel, bytes); },
              rewind_),
        game_(std::move(game)) {
    // The match's random source as it was: the same draws give the same numbers.
    host_.set_seed(h.game_seed);
    host_.set_npcs_wanted(h.npcs);
    // The game's spawns take the ids they took then (a client that came and went between two ticks
    // took one and left no trace); past the recorded ones, the roster's next.
    host_.set_spawn_ids([this] { return next_spawn_ < spawn_ids_.size() ? spawn_ids_[next_spawn_++] : roster_.reserve_id(); });
    host_.set_log(h.game, std::move(log));
  }

  // Record `t` (the tick after the last one replayed): the rest of the tick before, then this one.
  void tick(const replay::TickData& t) {
    expected_ = &t.sent;
    next_send_ = 0;
    // The NPCs this tick's boundary spawned: the game spawns them from its after_tick before or its
    // hooks at the start of this tick.
    spawn_ids_.clear();
    next_spawn_ = 0;
    for (const GameCommand& c : t.commands)
      if (c.kind == GameCommandKind::kSpawn) spawn_ids_.push_back(c.character);
    if (game_) {
      host_.install(std::move(game_));  // on_start's sends are the first tick's
    } else {
      host_.after_tick(simulation_);
      // Then the tick's snapshots: every client in the roster is sent one every interval, on its phase.
      for (std::size_t i = 0; i < roster_.size(); ++i)
        if (schedule_.due(roster_[i].id, simulation_.tick())) roster_[i].view.newest_sent = simulation_.tick();
    }
    if (t.tick != simulation_.tick() + 1) return fail("tick " + std::to_string(t.tick) + " follows tick " + std::to_string(simulation_.tick()));
    // The joins, as the server admitted them: the game told first, then the roster.
    for (std::size_t i = 0; i < t.joins.size(); ++i) {
      const replay::JoinEntry& j = t.joins[i];
      if (std::find(spawn_ids_.begin(), spawn_ids_.end(), j.id) != spawn_ids_.end()) continue;  // the game's own spawn
      auto c = std::make_unique<Client>();
      c->session.endpoint = {asio::ip::address_v4(0x0a000000u | (j.id & 0xffffffu)), uint16_t(1 + (j.id >> 24))};
      if (i < t.players.size()) {
        c->session.client_id = t.players[i].client_id;
        c->session.user_data_size = uint16_t(std::min(t.players[i].user_data.size(), c->session.user_data.size()));
        std::copy_n(t.players[i].user_data.begin(), c->session.user_data_size, c->session.user_data.begin());
      }
      c->character.state = j.state;
      host_.join({j.id, c->session.client_id, {c->session.user_data.data(), c->session.user_data_size}});
      roster_.skip_ids_to(j.id);
      roster_.add(std::move(c));
    }
    // The leaves the game's own removals did not cause, then the game told.
    for (uint32_t id : t.leaves) {
      const bool removed = std::any_of(t.commands.begin(), t.commands.end(), [&](const GameCommand& c) {
        return c.kind == GameCommandKind::kRemove && c.character == id;
      });
      if (!removed) roster_.remove(id);
    }
    if (t.allocation) host_.allocate(Allocation{t.allocation->labels, t.allocation->annotations});
    host_.allocated();
    host_.leaves();
    for (const replay::MessageEntry& m : t.messages) {
      host_.message(m.client, m.reliable ? proto::Channel::kReliable : proto::Channel::kUnreliable, m.bytes,
                    {m.newest_input, m.acked_snapshot});
      ++result_.messages;
    }
    host_.apply_commands(t.tick, [this](Client& c) { roster_.remove(c.id); });
    compare_commands(t);
    if (next_send_ < t.sent.size() && result_.difference.empty())
      fail("tick " + std::to_string(t.tick) + ": the recording has the game send " + shown(t.sent[next_send_].bytes) +
           " to character " + std::to_string(t.sent[next_send_].client) + ", which the replay did not");
    // The steps, with the recorded inputs; an NPC's is the game's (given at the boundary), checked.
    for (const replay::InputEntry& in : t.inputs) {
      Client* c = roster_.by_id(in.id);
      if (!c) return fail("tick " + std::to_string(t.tick) + ": an input for character " + std::to_string(in.id) + ", who is not there");
      if (c->npc) {
        compare_npc_input(t.tick, in);
        continue;
      }
      const InputCmd cmd = in.input;
      simulation_.offer_inputs(*c, std::span(&cmd, 1), 0, counters_);
    }
    simulation_.advance(roster_, counters_, nullptr, {}, host_.applied());
    host_.clear_sent();
    for (const replay::ChecksumEntry& e : t.checksums) {
      const Client* c = roster_.by_id(e.id);
      if ((!c || replay::state_checksum(c->character.state) != e.hash) && result_.difference.empty())
        fail("tick " + std::to_string(t.tick) + ": character " + std::to_string(e.id) +
             "'s state differs from the recording's (the movement, not the game, parted)");
    }
    rewind_.record(simulation_.tick(), roster_);
    ++result_.ticks;
  }

  GameReplayResult& result() { return result_; }
  bool failed() const { return !result_.difference.empty(); }

 private:
  void fail(const std::string& what) {
    if (result_.difference.empty()) result_.difference = what;
  }

  // What the game sends now must be what it sent then; it gets the verdict it got then.
  proto::SendError sent(uint32_t id, proto::Channel channel, std::span<const uint8_t> bytes) {
    if (bytes.empty()) return proto::SendError::kEmpty;
    if (bytes.size() > replay::kMaxRecordedMessage) return proto::SendError::kTooLarge;
    const std::string tick = "tick " + std::to_string(simulation_.tick() + 1);
    if (next_send_ >= expected_->size()) {
      fail(tick + ": the game sent " + shown(bytes) + " to character " + std::to_string(id) + ", which it did not in the recording");
      return proto::SendError::kNone;
    }
    const replay::MessageEntry& want = (*expected_)[next_send_++];
    ++result_.sends;
    const bool reliable = channel == proto::Channel::kReliable;
    if (want.client != id || want.reliable != reliable || !std::equal(want.bytes.begin(), want.bytes.end(), bytes.begin(), bytes.end()))
      fail(tick + ": the game sent " + shown(bytes) + " to character " + std::to_string(id) + " where the recording has " +
           shown(want.bytes) + " to character " + std::to_string(want.client) +
           (want.reliable != reliable ? std::string(" on the other channel") : std::string()));
    return proto::SendError(want.result);
  }

  void compare_npc_input(uint32_t tick, const replay::InputEntry& in) {
    ++result_.npc_inputs;
    const InputCmd got = host_.npc_input(in.id);
    if (!got.same_command(in.input))
      fail("tick " + std::to_string(tick) + ": the game set NPC " + std::to_string(in.id) + "'s input to " + shown(got) +
           " where the recording has " + shown(in.input));
  }

  void compare_commands(const replay::TickData& t) {
    const auto got = host_.applied();
    result_.commands += std::min(got.size(), t.commands.size());
    for (std::size_t i = 0; i < std::max(got.size(), t.commands.size()); ++i) {
      const std::string tick = "tick " + std::to_string(t.tick) + ": command " + std::to_string(i) + ": ";
      if (i >= got.size()) return fail(tick + "the recording has " + shown(t.commands[i]) + ", which the replay did not give");
      if (i >= t.commands.size()) return fail(tick + "the game gave " + shown(got[i]) + ", which it did not in the recording");
      if (!(got[i] == t.commands[i])) return fail(tick + "the game gave " + shown(got[i]) + " where the recording has " + shown(t.commands[i]));
    }
  }

  WorkerPool pool_;
  Simulation simulation_;
  Roster roster_;
  Counters counters_;
  SnapshotSchedule schedule_;
  RewindHistory rewind_;
  GameHost host_;
  std::unique_ptr<Game> game_;  // until the first tick installs it
  const std::vector<replay::MessageEntry>* expected_ = nullptr;
  std::size_t next_send_ = 0;
  std::vector<uint32_t> spawn_ids_;  // the ids of the NPCs this tick's boundary spawned, in order
  std::size_t next_spawn_ = 0;
  GameReplayResult result_;
};

}  // namespace

namespace {

// Replays `game` over `reader`, opened on the recording `path` names.
GameReplayResult replay_from(replay::RecordingReader& reader, const std::string& path, const World& world, std::unique_ptr<Game> game,
                             GameLog log) {
  GameReplayResult r;
  const replay::RecordingHeader& h = reader.header();
  if (h.source != "server") r.error = path + ": a " + h.source + "'s recording: the game runs in the server's";
  else if (h.format_version < 6)
    r.error = path + ": recording format " + std::to_string(h.format_version) +
              " does not hold what the game sent (format 6 does): it can be verified, not its game replayed";
  else if (h.start_tick != 1)
    r.error = path + ": the recording starts at tick " + std::to_string(h.start_tick) +
              ", not the server's first: the game's state before it cannot be known";
  else if (world.hash() != h.world_hash)
    r.error = path + ": recorded in another world than the one given (world hash differs)";
  if (!r.error.empty()) return r;
  std::optional<Replayer> replayer;
  replayer.emplace(world, h, std::move(game), std::move(log));
  while (!replayer->failed()) {
    const auto next = reader.next();
    if (next == replay::RecordingReader::Next::kTick) {
      try {
        replayer->tick(reader.tick());
      } catch (const std::invalid_argument& e) {  // the game's schema
        GameReplayResult out = replayer->result();
        out.error = std::string("the game: ") + e.what();
        return out;
      }
    } else if (next == replay::RecordingReader::Next::kKeyframe) {
      continue;
    } else {
      if (next == replay::RecordingReader::Next::kCorrupt || next == replay::RecordingReader::Next::kRefused) {
        GameReplayResult out = replayer->result();
        out.error = reader.error();
        return out;
      }
      replayer->result().truncated = next == replay::RecordingReader::Next::kTruncated;
      break;
    }
  }
  GameReplayResult out = replayer->result();
  out.ok = out.difference.empty() && out.error.empty();
  return out;
}

}  // namespace

GameReplayResult replay_game(const std::string& path, const World& world, std::unique_ptr<Game> game, GameLog log) {
  replay::RecordingReader reader;
  if (!reader.open(path)) {
    GameReplayResult r;
    r.error = reader.error();
    return r;
  }
  return replay_from(reader, path, world, std::move(game), std::move(log));
}

GameReplayResult replay_game_bytes(std::vector<uint8_t> bytes, const std::string& name, const World& world,
                                   std::unique_ptr<Game> game, GameLog log) {
  replay::RecordingReader reader;
  if (!reader.open_bytes(std::move(bytes), name)) {
    GameReplayResult r;
    r.error = reader.error();
    return r;
  }
  return replay_from(reader, name, world, std::move(game), std::move(log));
}

}  // namespace foothold::server
