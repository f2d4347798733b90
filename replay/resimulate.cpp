#include "replay/resimulate.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <ostream>

#include "shared/tick.h"
#include "shared/workers/worker_pool.h"

namespace foothold::replay {

namespace {

// A message of tick `t` whose sender is not simulated in it (not live before it, or leaving, and not
// joining), as a problem; empty when every sender is. The server only hands the game messages of
// clients it simulates in that tick, and a replay must not hand game code a player who is not there.
std::string stray_sender(const TickData& t, const std::map<uint32_t, Timeline>& live, uint64_t offset) {
  for (const MessageEntry& m : t.messages) {
    const bool joining = std::any_of(t.joins.begin(), t.joins.end(), [&](const JoinEntry& j) { return j.id == m.client; });
    const bool leaving = std::find(t.leaves.begin(), t.leaves.end(), m.client) != t.leaves.end();
    if (!joining && (leaving || !live.count(m.client)))
      return "tick " + std::to_string(t.tick) + " (byte " + std::to_string(offset) + ") has a message from character " +
             std::to_string(m.client) + ", who is not in the game in that tick";
  }
  return {};
}

// Adds tick `t`'s inputs, checksums and game commands to the timelines of the characters live in it.
void add_tick(const TickData& t, std::map<uint32_t, Timeline>& live) {
  // Every live character has an input and a checksum in every tick; anything else is damage.
  for (const auto& in : t.inputs) {
    auto it = live.find(in.id);
    if (it == live.end()) continue;
    it->second.inputs.push_back(in.input);
    it->second.repeated.push_back(in.repeated ? 1 : 0);
    it->second.met.push_back(in.met ? 1 : 0);
    it->second.commanded.push_back(0);
  }
  for (const GameCommand& g : t.commands) {
    auto it = live.find(g.character);
    if (it != live.end() && changes_state(g.kind) && !it->second.commanded.empty() &&
        it->second.first_tick + it->second.commanded.size() - 1 == t.tick)
      it->second.commanded.back() = uint8_t(g.kind);
  }
  for (const auto& c : t.checksums) {
    auto it = live.find(c.id);
    if (it != live.end()) it->second.checksums.push_back(c.hash);
  }
}

bool load(RecordingReader& reader, LoadedRecording& out, std::string& error) {
  out = LoadedRecording{};
  out.header = reader.header();
  out.file_size = reader.size();
  std::map<uint32_t, Timeline> live;  // characters present now
  std::vector<Timeline> done;
  bool first = true;
  uint32_t expected_tick = 0;
  while (true) {
    const auto next = reader.next();
    if (next == RecordingReader::Next::kEnd) break;
    if (next == RecordingReader::Next::kFooter) {
      out.clean = true;
      break;
    }
    if (next == RecordingReader::Next::kRefused) {
      // Not damage that ends a good file early: a record no server could have written. Nothing of
      // the file is used.
      error = reader.error();
      return false;
    }
    if (next == RecordingReader::Next::kTruncated || next == RecordingReader::Next::kCorrupt) {
      out.problem = reader.error();
      break;
    }
    if (next == RecordingReader::Next::kKeyframe) {
      out.keyframes.push_back(reader.keyframe());
      continue;
    }
    const TickData& t = reader.tick();
    if (!first && t.tick != expected_tick) {
      out.problem = "tick " + std::to_string(t.tick) + " at byte " + std::to_string(reader.offset()) + " follows tick " +
                    std::to_string(expected_tick - 1) + ": the ticks are not consecutive";
      break;
    }
    if (out.problem = stray_sender(t, live, reader.offset()); !out.problem.empty()) break;
    if (first) out.first_tick = t.tick;
    first = false;
    expected_tick = t.tick + 1;
    out.last_tick = t.tick;
    ++out.ticks;
    for (uint32_t id : t.leaves) {
      auto it = live.find(id);
      if (it != live.end()) {
        done.push_back(std::move(it->second));
        live.erase(it);
      }
    }
    for (const auto& j : t.joins) {
      if (live.count(j.id)) continue;  // a duplicate join: ignore
      Timeline tl;
      tl.id = j.id;
      tl.first_tick = t.tick;
      tl.start = j.state;
      live.emplace(j.id, std::move(tl));
    }
    add_tick(t, live);
    for (auto& [id, tl] : live) {
      const std::size_t want = std::size_t(t.tick - tl.first_tick + 1);
      if (tl.inputs.size() != want || tl.checksums.size() != want) {
        out.problem = "tick " + std::to_string(t.tick) + " (byte " + std::to_string(reader.offset()) +
                      ") lacks the input or checksum of character " + std::to_string(id);
        // Keep what is consistent: cut this character's timeline back to the previous tick.
        tl.inputs.resize(std::min(tl.inputs.size(), want - 1));
        tl.repeated.resize(tl.inputs.size());
        tl.met.resize(tl.inputs.size());
        tl.commanded.resize(tl.inputs.size());
        tl.checksums.resize(tl.inputs.size());
      }
    }
    out.max_concurrent = std::max(out.max_concurrent, live.size());
    if (!out.problem.empty()) break;
    if (!t.commands.empty()) {
      out.commands.push_back({t.tick, t.commands});
      out.command_count += t.commands.size();
    }
    if (!t.messages.empty()) {
      out.messages.push_back({t.tick, t.messages});
      out.message_count += t.messages.size();
      for (const MessageEntry& m : t.messages) out.message_bytes += m.bytes.size();
    }
    out.sent_count += t.sent.size();
    for (const MessageEntry& m : t.sent) out.sent_bytes += m.bytes.size();
  }
  for (auto& [id, tl] : live) done.push_back(std::move(tl));
  done.erase(std::remove_if(done.begin(), done.end(), [](const Timeline& t) { return t.inputs.empty(); }), done.end());
  std::sort(done.begin(), done.end(), [](const Timeline& a, const Timeline& b) { return a.id < b.id; });
  out.characters = std::move(done);
  if (out.ticks == 0 && !out.problem.empty()) {
    error = out.problem;
    return false;
  }
  return true;
}

}  // namespace

bool load_recording(const std::string& path, LoadedRecording& out, std::string& error) {
  RecordingReader reader;
  if (!reader.open(path)) {
    error = reader.error();
    return false;
  }
  return load(reader, out, error);
}

bool load_recording_bytes(std::vector<uint8_t> bytes, const std::string& name, LoadedRecording& out, std::string& error) {
  RecordingReader reader;
  if (!reader.open_bytes(std::move(bytes), name)) {
    error = reader.error();
    return false;
  }
  return load(reader, out, error);
}

namespace {

// Where each character starts: its join, or its state in the last keyframe before options.from_tick.
struct Start {
  uint32_t tick = 0;                      // the first tick simulated
  std::vector<CharacterState> state;      // per character
  std::vector<uint32_t> first;            // per character: its first tick simulated
  std::vector<bool> active;               // per character: simulated at all
};

Start find_start(const LoadedRecording& rec, uint32_t from_tick) {
  const std::size_t n = rec.characters.size();
  const KeyframeData* keyframe = nullptr;
  if (from_tick > rec.first_tick)
    for (const auto& k : rec.keyframes)
      if (k.tick < from_tick) keyframe = &k;
  Start s;
  s.tick = keyframe ? keyframe->tick + 1 : rec.first_tick;
  s.state.resize(n);
  s.first.assign(n, 0);
  s.active.assign(n, true);
  for (std::size_t c = 0; c < n; ++c) {
    const Timeline& tl = rec.characters[c];
    s.state[c] = tl.start;
    s.first[c] = tl.first_tick;
    if (!keyframe) continue;
    if (tl.last_tick() <= keyframe->tick) {
      s.active[c] = false;  // gone before the keyframe
      continue;
    }
    if (tl.first_tick > keyframe->tick) continue;  // joins later: from its join
    const auto it = std::find_if(keyframe->states.begin(), keyframe->states.end(), [&](const JoinEntry& e) { return e.id == tl.id; });
    if (it == keyframe->states.end()) {
      s.active[c] = false;  // the keyframe does not know it: cannot start it here
      continue;
    }
    s.state[c] = it->state;
    s.first[c] = keyframe->tick + 1;
  }
  return s;
}

// Applies tick `tick`'s commands to the characters simulated in it, as the server did before its
// steps; one naming a character not simulated then (it left) does nothing there either, nor one out
// of the range the server holds its game's commands to (a hostile recording's: no server gave it).
void apply_commands(const LoadedRecording& rec, uint32_t tick, std::span<const GameCommand> commands, const Start& start,
                    const Aabb& bounds, std::vector<CharacterState>& state) {
  for (const GameCommand& g : commands) {
    if (!changes_state(g.kind) || !command_problem(g, bounds).empty()) continue;
    const auto it = std::lower_bound(rec.characters.begin(), rec.characters.end(), g.character,
                                     [](const Timeline& t, uint32_t id) { return t.id < id; });
    if (it == rec.characters.end() || it->id != g.character) continue;
    const std::size_t c = std::size_t(it - rec.characters.begin());
    if (!start.active[c] || tick < start.first[c] || tick > it->last_tick()) continue;
    apply_command(g, state[c]);
  }
}

// Applies tick `tick`'s mover commands to the movers' clocks, as the server did before its steps
// (those a world's movers refuse do nothing: MoverClocks::apply).
void apply_mover_commands(uint32_t tick, std::span<const GameCommand> commands, const World& world, int tick_rate,
                          MoverClocks& clocks) {
  for (const GameCommand& g : commands)
    if (g.kind == GameCommandKind::kMover) clocks.apply(world, g, tick, tick_rate);
}

// The earlier of two mismatches (lowest tick, then lowest id).
bool earlier(const Mismatch& a, const Mismatch& b) { return a.tick != b.tick ? a.tick < b.tick : a.id < b.id; }

}  // namespace

ResimResult resimulate(const LoadedRecording& rec, const World& world, const ResimOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  const DerivedSettings settings = derive(rec.header.settings);
  const std::size_t n = rec.characters.size();
  Start start = find_start(rec, options.from_tick);
  ResimResult result;
  result.start_tick = start.tick;
  result.start_of = start.first;
  if (options.keep_states) {
    result.states.resize(n);
    for (std::size_t c = 0; c < n; ++c)
      if (start.active[c]) result.states[c].reserve(rec.characters[c].inputs.size() - (start.first[c] - rec.characters[c].first_tick));
  }
  // Tick by tick, as the server ran it (shared/tick.h): every character alive in a tick, with its
  // recorded input, on a pool of threads started once.
  std::vector<CharacterState>& state = start.state;
  std::vector<TickCharacter> alive;
  std::vector<std::size_t> timeline_of;  // per entry of `alive`: its index into rec.characters
  TickRunner runner;
  WorkerPool pool(std::max(1, options.threads));
  result.first = Mismatch{~0u, ~0u, 0, 0};
  // The game's commands, tick by tick: those before the start are in the start's states already,
  // but not in the movers' clocks, which only the mover commands since the first tick give.
  MoverClocks clocks;
  clocks.reset(world);
  auto commands = rec.commands.begin();
  for (; commands != rec.commands.end() && commands->tick < result.start_tick; ++commands)
    apply_mover_commands(commands->tick, commands->commands, world, settings.tick_rate, clocks);
  for (uint32_t tick = result.start_tick; tick <= rec.last_tick && rec.ticks > 0; ++tick) {
    if (commands != rec.commands.end() && commands->tick == tick) {
      apply_commands(rec, tick, commands->commands, start, world.bounds(), state);
      apply_mover_commands(tick, commands->commands, world, settings.tick_rate, clocks);
      ++commands;
    }
    alive.clear();
    timeline_of.clear();
    for (std::size_t c = 0; c < n; ++c) {
      const Timeline& tl = rec.characters[c];
      if (!start.active[c] || tick < start.first[c] || tick > tl.last_tick()) continue;
      alive.push_back({tl.id, state[c], tl.inputs[tick - tl.first_tick], nullptr});
      timeline_of.push_back(c);
    }
    if (alive.empty()) continue;
    runner.run(tick, alive, world, settings, &pool, &clocks);
    for (std::size_t k = 0; k < alive.size(); ++k) {
      const std::size_t c = timeline_of[runner.given_at(k)];
      const Timeline& tl = rec.characters[c];
      state[c] = runner.results()[k].state;
      ++result.steps;
      const uint32_t expected = tl.checksums[tick - tl.first_tick], sum = state_checksum(state[c]);
      if (sum != expected) {
        ++result.mismatches;
        const Mismatch m{tick, tl.id, expected, sum};
        if (earlier(m, result.first)) result.first = m;
      }
      if (options.keep_states) result.states[c].push_back(state[c]);
    }
  }
  result.ok = result.mismatches == 0;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

void write_trace(const LoadedRecording& rec, const ResimResult& result, std::ostream& out) {
  TraceWriter writer(out);
  // Tick-major order: a cursor per character.
  std::vector<std::size_t> cursor(rec.characters.size(), 0);
  for (uint32_t tick = result.start_tick; tick <= rec.last_tick && rec.ticks > 0; ++tick) {
    for (std::size_t c = 0; c < rec.characters.size(); ++c) {
      if (c >= result.states.size()) break;
      const auto& states = result.states[c];
      const uint32_t first = result.start_of[c];
      if (tick < first || tick - first >= states.size()) continue;
      writer.write({tick, rec.characters[c].id, states[tick - first]});
    }
  }
}

}  // namespace foothold::replay
