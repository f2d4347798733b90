#include "replay/resimulate.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <ostream>
#include <thread>

#include "shared/step.h"

namespace foothold::replay {

namespace {

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
    // Every live character has an input and a checksum in every tick; anything else is damage.
    for (const auto& in : t.inputs) {
      auto it = live.find(in.id);
      if (it == live.end()) continue;
      it->second.inputs.push_back(in.input);
      it->second.repeated.push_back(in.repeated ? 1 : 0);
      it->second.met.push_back(in.met ? 1 : 0);
    }
    for (const auto& c : t.checksums) {
      auto it = live.find(c.id);
      if (it != live.end()) it->second.checksums.push_back(c.hash);
    }
    for (auto& [id, tl] : live) {
      const std::size_t want = std::size_t(t.tick - tl.first_tick + 1);
      if (tl.inputs.size() != want || tl.checksums.size() != want) {
        out.problem = "tick " + std::to_string(t.tick) + " (byte " + std::to_string(reader.offset()) +
                      ") lacks the input or checksum of character " + std::to_string(id);
        // Keep what is consistent: cut this character's timeline back to the previous tick.
        tl.inputs.resize(std::min(tl.inputs.size(), want - 1));
        tl.repeated.resize(tl.inputs.size());
        tl.met.resize(tl.inputs.size());
        tl.checksums.resize(tl.inputs.size());
      }
    }
    out.max_concurrent = std::max(out.max_concurrent, live.size());
    if (!out.problem.empty()) break;
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

ResimResult resimulate(const LoadedRecording& rec, const World& world, const ResimOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  const DerivedSettings settings = derive(rec.header.settings);
  ResimResult result;
  const std::size_t n = rec.characters.size();
  // Where each character starts: its join, or the last keyframe before from_tick.
  const KeyframeData* keyframe = nullptr;
  if (options.from_tick > rec.first_tick)
    for (const auto& k : rec.keyframes)
      if (k.tick < options.from_tick) keyframe = &k;
  result.start_tick = keyframe ? keyframe->tick + 1 : rec.first_tick;
  std::vector<CharacterState> start(n);
  std::vector<uint32_t> skip(n, 0);  // ticks of the timeline the keyframe covers
  std::vector<bool> active(n, true);
  result.start_of.assign(n, 0);
  for (std::size_t c = 0; c < n; ++c) {
    const Timeline& tl = rec.characters[c];
    start[c] = tl.start;
    result.start_of[c] = tl.first_tick;
    if (!keyframe) continue;
    if (tl.last_tick() <= keyframe->tick) {
      active[c] = false;  // gone before the keyframe
      continue;
    }
    if (tl.first_tick > keyframe->tick) continue;  // joins later: from its join
    const auto it = std::find_if(keyframe->states.begin(), keyframe->states.end(), [&](const JoinEntry& e) { return e.id == tl.id; });
    if (it == keyframe->states.end()) {
      active[c] = false;  // the keyframe does not know it: cannot start it here
      continue;
    }
    start[c] = it->state;
    skip[c] = keyframe->tick - tl.first_tick + 1;
    result.start_of[c] = keyframe->tick + 1;
  }
  if (options.keep_states) result.states.resize(n);

  // Tick by tick, as the server ran it: every character alive in a tick steps against the others as
  // they were at its start (movement.md §16), the movers placed once per tick (§15.1). The steps of a
  // tick are independent of each other, so they are shared among the threads.
  std::vector<CharacterState> state = start, next = start;
  std::vector<std::size_t> alive;       // indices into rec.characters, ascending id
  std::vector<OtherCharacter> seen;     // as the others see them, in `alive` order
  Crowd crowd;
  MoverFrame frame;
  const int threads = std::max(1, options.threads);
  struct Worker {
    StepScratch scratch;
    std::vector<OtherCharacter> near;
    uint64_t steps = 0, mismatches = 0;
    Mismatch first{~0u, ~0u, 0, 0};
  };
  std::vector<Worker> workers(static_cast<std::size_t>(threads));
  for (std::size_t c = 0; c < n; ++c)
    if (active[c] && options.keep_states) result.states[c].reserve(rec.characters[c].inputs.size() - skip[c]);
  for (uint32_t tick = result.start_tick; tick <= rec.last_tick && rec.ticks > 0; ++tick) {
    alive.clear();
    seen.clear();
    for (std::size_t c = 0; c < n; ++c) {
      const Timeline& tl = rec.characters[c];
      if (!active[c] || tick < result.start_of[c] || tick > tl.last_tick()) continue;
      alive.push_back(c);
      seen.push_back(as_other(tl.id, state[c]));
    }
    if (alive.empty()) continue;
    frame.build(world, tick, settings.tick_rate);
    crowd.build(seen, &frame);
    auto work = [&](int t) {
      Worker& w = workers[size_t(t)];
      for (std::size_t k = size_t(t); k < alive.size(); k += size_t(threads)) {
        const std::size_t c = alive[k];
        const Timeline& tl = rec.characters[c];
        const std::size_t i = tick - tl.first_tick;
        InputCmd in = tl.inputs[i];
        in.tick = tick;
        crowd.neighbours(k, w.near);
        const CharacterState s = step(state[c], in, world, settings, w.scratch, {&frame, w.near, tl.id}).state;
        next[c] = s;
        ++w.steps;
        const uint32_t sum = state_checksum(s);
        if (sum != tl.checksums[i]) {
          ++w.mismatches;
          const Mismatch m{tick, tl.id, tl.checksums[i], sum};
          if (m.tick < w.first.tick || (m.tick == w.first.tick && m.id < w.first.id)) w.first = m;
        }
      }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads && std::size_t(t) < alive.size(); ++t) pool.emplace_back(work, t);
    work(0);
    for (auto& th : pool) th.join();
    for (std::size_t c : alive) {
      state[c] = next[c];
      if (options.keep_states) result.states[c].push_back(state[c]);
    }
  }
  Mismatch first{~0u, ~0u, 0, 0};
  for (const auto& w : workers) {
    result.steps += w.steps;
    result.mismatches += w.mismatches;
    if (w.first.tick < first.tick || (w.first.tick == first.tick && w.first.id < first.id)) first = w.first;
  }
  result.ok = result.mismatches == 0;
  result.first = first;
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
