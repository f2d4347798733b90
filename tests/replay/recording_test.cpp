// Recordings: written by the server's recorder during a simulated session, read back whole or cut
// short or damaged, re-simulated, verified and diffed.

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "replay/crc32c.h"
#include "shared/setting_keys.h"
#include "replay/recording.h"
#include "replay/report.h"
#include "replay/resimulate.h"
#include "replay/trace_diff.h"
#include "server/recorder.h"
#include "support/process.h"
#include "support/scenario_support.h"
#include "support/sim_harness.h"

namespace foothold::test {
namespace {

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A recorded session: 4 bots on the arena for `seconds` of virtual time, keyframes every second.
std::vector<uint8_t> record_session(const TempDir& dir, double seconds, int clients = 4) {
  HarnessOptions o;
  o.clients = clients;
  SimHarness h(arena_world(), o);
  replay::RecordingWriter writer;
  const auto header = server::server_recording_header("arena", arena_world(), o.settings, 1, 60);
  EXPECT_TRUE(writer.open(dir.file("s.rec"), header)) << writer.error();
  server::ServerRecorder recorder(writer, 60);
  h.server().set_observer(&recorder);
  h.start_all();
  h.run_for(proto::Nanos(seconds * 1e9));
  h.client(clients - 1).disconnect();  // someone leaves
  h.run_for(proto::kSecond / 2);
  writer.close(recorder.last_tick());
  EXPECT_TRUE(writer.ok()) << writer.error();
  return read_bytes(dir.file("s.rec"));
}

TEST(Recording, CrcIsCrc32c) {
  const std::string check = "123456789";
  EXPECT_EQ(replay::crc32c(reinterpret_cast<const uint8_t*>(check.data()), check.size()), 0xe3069283u);
}

TEST(Recording, SessionRecordsAndVerifies) {
  TempDir dir;
  const auto bytes = record_session(dir, 3);
  replay::LoadedRecording rec;
  std::string err;
  ASSERT_TRUE(replay::load_recording_bytes(bytes, "s.rec", rec, err)) << err;
  EXPECT_TRUE(rec.clean);
  EXPECT_TRUE(rec.problem.empty()) << rec.problem;
  EXPECT_EQ(rec.characters.size(), 4u);
  EXPECT_EQ(rec.header.source, "server");
  EXPECT_GE(rec.keyframes.size(), 2u);
  EXPECT_GT(rec.ticks, 3u * 60);
  // The client that left has a shorter life.
  EXPECT_LT(rec.characters.back().last_tick(), rec.last_tick);
  const auto result = replay::resimulate(rec, arena_world(), {});
  EXPECT_TRUE(result.ok) << "tick " << result.first.tick << " id " << result.first.id;
  EXPECT_GT(result.steps, 4u * 170);
}

TEST(Recording, ReplayFromAKeyframeGivesTheSameStates) {
  TempDir dir;
  const auto bytes = record_session(dir, 3);
  replay::LoadedRecording rec;
  std::string err;
  ASSERT_TRUE(replay::load_recording_bytes(bytes, "s.rec", rec, err)) << err;
  replay::ResimOptions all;
  all.keep_states = true;
  const auto full = replay::resimulate(rec, arena_world(), all);
  replay::ResimOptions mid = all;
  mid.from_tick = rec.keyframes[1].tick + 10;
  const auto part = replay::resimulate(rec, arena_world(), mid);
  ASSERT_TRUE(part.ok);
  EXPECT_EQ(part.start_tick, rec.keyframes[1].tick + 1);
  EXPECT_LT(part.steps, full.steps);
  for (std::size_t c = 0; c < rec.characters.size(); ++c) {
    if (part.states[c].empty()) continue;
    const uint32_t offset = part.start_of[c] - full.start_of[c];
    for (std::size_t i = 0; i < part.states[c].size(); ++i) ASSERT_EQ(part.states[c][i], full.states[c][offset + i]);
  }
}

// Record boundaries: every offset where a record starts.
std::vector<std::size_t> record_starts(const std::vector<uint8_t>& b) {
  std::vector<std::size_t> starts;
  std::size_t pos = 8;
  while (pos + 8 <= b.size()) {
    starts.push_back(pos);
    const uint32_t size = uint32_t(b[pos]) | uint32_t(b[pos + 1]) << 8 | uint32_t(b[pos + 2]) << 16 | uint32_t(b[pos + 3]) << 24;
    pos += 8 + size;
  }
  return starts;
}

TEST(Recording, FileCutAtAnyByteReadsEverythingComplete) {
  TempDir dir;
  const auto bytes = record_session(dir, 1.5);
  const auto starts = record_starts(bytes);
  ASSERT_GT(starts.size(), 20u);
  // Every byte offset within the last three records (footer, a keyframe or ticks before it).
  const std::size_t from = starts[starts.size() - 3];
  for (std::size_t cut = from; cut < bytes.size(); ++cut) {
    const std::vector<uint8_t> part(bytes.begin(), bytes.begin() + long(cut));
    replay::LoadedRecording rec;
    std::string err;
    ASSERT_TRUE(replay::load_recording_bytes(part, "cut.rec", rec, err)) << err;
    // Complete records before the cut are all there.
    std::size_t complete_ticks = 0;
    replay::RecordingReader reader;
    ASSERT_TRUE(reader.open_bytes(bytes, "full"));
    while (true) {
      const auto n = reader.next();
      if (n != replay::RecordingReader::Next::kTick && n != replay::RecordingReader::Next::kKeyframe) break;
      if (reader.offset() + 8 > cut) break;
      // A record counts as complete when it ends at or before the cut.
      const auto next_start = std::upper_bound(starts.begin(), starts.end(), reader.offset());
      const std::size_t end = next_start == starts.end() ? bytes.size() : *next_start;
      if (end > cut) break;
      if (n == replay::RecordingReader::Next::kTick) ++complete_ticks;
    }
    EXPECT_EQ(rec.ticks, complete_ticks) << "cut at " << cut;
    EXPECT_FALSE(rec.clean) << "cut at " << cut;
    const bool at_boundary = std::binary_search(starts.begin(), starts.end(), cut);
    if (!at_boundary) {
      EXPECT_NE(rec.problem.find("ends inside the record"), std::string::npos) << cut << ": " << rec.problem;
    }
  }
}

TEST(Recording, FlippedBytesAreCaughtByTheCrcWithTheirOffset) {
  TempDir dir;
  const auto bytes = record_session(dir, 1);
  const auto starts = record_starts(bytes);
  int caught = 0;
  // A flip in every 7th byte of the records after the header.
  for (std::size_t i = starts[1]; i < bytes.size(); i += 7) {
    std::vector<uint8_t> damaged = bytes;
    damaged[i] ^= 0x10;
    replay::LoadedRecording rec;
    std::string err;
    const bool loaded = replay::load_recording_bytes(damaged, "flip.rec", rec, err);
    const std::string& msg = loaded ? rec.problem : err;
    ASSERT_FALSE(msg.empty()) << "flip at " << i << " went unnoticed";
    const std::size_t record = *(std::upper_bound(starts.begin(), starts.end(), i) - 1);
    // A flipped size field may make the record look longer than the file (cut short) or mis-sized.
    EXPECT_NE(msg.find("byte " + std::to_string(record)), std::string::npos) << "flip at " << i << ": " << msg;
    ++caught;
  }
  EXPECT_GT(caught, 100);
}

// Rewrites a recording, changing one tick through `edit`.
std::vector<uint8_t> rewrite(const std::vector<uint8_t>& bytes, const TempDir& dir,
                             const std::function<void(replay::TickData&)>& edit) {
  replay::RecordingReader reader;
  EXPECT_TRUE(reader.open_bytes(bytes, "in"));
  replay::RecordingWriter writer;
  EXPECT_TRUE(writer.open(dir.file("edited.rec"), reader.header()));
  uint32_t last = 0;
  while (true) {
    const auto n = reader.next();
    if (n == replay::RecordingReader::Next::kTick) {
      replay::TickData t = reader.tick();
      edit(t);
      writer.write_tick(t);
      last = t.tick;
    } else if (n == replay::RecordingReader::Next::kKeyframe) {
      writer.write_keyframe(reader.keyframe());
    } else {
      break;
    }
  }
  writer.close(last);
  return read_bytes(dir.file("edited.rec"));
}

TEST(Recording, AlteredChecksumMakesVerifyFailAtThatTick) {
  TempDir dir;
  const auto bytes = record_session(dir, 2);
  replay::LoadedRecording orig;
  std::string err;
  ASSERT_TRUE(replay::load_recording_bytes(bytes, "s.rec", orig, err));
  const uint32_t target_tick = orig.first_tick + 77;
  const uint32_t target_id = orig.characters[1].id;
  const auto edited = rewrite(bytes, dir, [&](replay::TickData& t) {
    if (t.tick != target_tick) return;
    for (auto& c : t.checksums)
      if (c.id == target_id) c.hash ^= 1;
  });
  replay::LoadedRecording rec;
  ASSERT_TRUE(replay::load_recording_bytes(edited, "edited.rec", rec, err)) << err;
  const auto result = replay::resimulate(rec, arena_world(), {});
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.mismatches, 1u);
  EXPECT_EQ(result.first.tick, target_tick);
  EXPECT_EQ(result.first.id, target_id);
}

// The trace of a recording's re-simulation, written to DIR/NAME and read back as the CLI would.
replay::Trace resimulated_trace(const replay::LoadedRecording& r, const TempDir& dir, const std::string& name) {
  replay::ResimOptions ro;
  ro.keep_states = true;
  const auto res = replay::resimulate(r, arena_world(), ro);
  std::ostringstream csv;
  replay::write_trace(r, res, csv);
  std::ofstream(dir.file(name)) << csv.str();
  replay::Trace t;
  std::string e;
  EXPECT_TRUE(replay::read_trace(dir.file(name), t, e)) << e;
  return t;
}

TEST(Recording, AlteredInputShowsInDiffAsAnInputDivergenceAtThatTick) {
  TempDir dir;
  const auto bytes = record_session(dir, 2);
  replay::LoadedRecording orig;
  std::string err;
  ASSERT_TRUE(replay::load_recording_bytes(bytes, "s.rec", orig, err));
  const uint32_t target_tick = orig.first_tick + 90;
  const uint32_t target_id = orig.characters[0].id;
  const auto edited_bytes = rewrite(bytes, dir, [&](replay::TickData& t) {
    if (t.tick != target_tick) return;
    for (auto& in : t.inputs)
      if (in.id == target_id) {
        in.input.move_x = int8_t(in.input.move_x == 127 ? -127 : 127);
        in.input.buttons ^= kButtonJump;
        in.repeated = true;
      }
  });
  replay::LoadedRecording edited;
  ASSERT_TRUE(replay::load_recording_bytes(edited_bytes, "edited.rec", edited, err));
  // Traces of both re-simulations.
  const auto a = resimulated_trace(orig, dir, "a.csv");
  const auto b = resimulated_trace(edited, dir, "b.csv");
  auto diff = replay::diff_traces(a, b, 0);
  replay::explain_divergences(diff, orig, edited);
  EXPECT_FALSE(diff.within_tolerance);
  for (const auto& d : diff.characters) {
    if (d.id != target_id) {
      EXPECT_FALSE(d.diverged) << "only the altered character differs";
      continue;
    }
    ASSERT_TRUE(d.diverged);
    EXPECT_EQ(d.first_divergent_tick, target_tick);
    EXPECT_EQ(d.cause, replay::CharacterDiff::Cause::kInputDiffers);
    EXPECT_EQ(d.cause_tick, target_tick);
    EXPECT_NE(d.explanation.find("repeated"), std::string::npos) << d.explanation;
  }
  // Same inputs but different states, in a tick where the character met no other one: a determinism
  // bug. In one where it did: an interaction.
  const replay::Timeline& third = orig.characters[2];
  auto altered_at = [&](bool met) {
    for (uint32_t t = target_tick + 5; t <= third.last_tick(); ++t)
      if ((third.met[t - third.first_tick] != 0) == met) return t;
    return 0u;
  };
  for (const bool met : {false, true}) {
    const uint32_t at = altered_at(met);
    if (at == 0) {
      EXPECT_TRUE(met) << "character " << third.id << " met another one in every tick";
      continue;
    }
    replay::Trace c = b;
    for (auto& row : c.rows)
      if (row.id == third.id && row.tick == at) row.state.position.y += 1;
    auto diff2 = replay::diff_traces(b, c, 0);
    replay::explain_divergences(diff2, edited, edited);
    for (const auto& d : diff2.characters)
      if (d.diverged) {
        EXPECT_EQ(d.cause, met ? replay::CharacterDiff::Cause::kInteraction : replay::CharacterDiff::Cause::kDeterminism);
        EXPECT_EQ(d.first_divergent_tick, at);
      }
  }
  const std::string svg = replay::render_svg(diff, "a.csv", "b.csv", 0);
  EXPECT_NE(svg.find("parts at tick " + std::to_string(target_tick)), std::string::npos);
}

TEST(Recording, GarbageIsRefusedWithAReason) {
  std::string err;
  replay::LoadedRecording rec;
  EXPECT_FALSE(replay::load_recording_bytes({1, 2, 3}, "tiny.rec", rec, err));
  EXPECT_NE(err.find("bad magic"), std::string::npos);
  std::vector<uint8_t> just_magic(replay::kRecordingMagic, replay::kRecordingMagic + 8);
  EXPECT_FALSE(replay::load_recording_bytes(just_magic, "empty.rec", rec, err));
  EXPECT_NE(err.find("header"), std::string::npos) << err;
  EXPECT_FALSE(replay::load_recording("/nonexistent.rec", rec, err));
  EXPECT_NE(err.find("/nonexistent.rec"), std::string::npos);
}

}  // namespace
}  // namespace foothold::test

namespace foothold::test {
namespace {

// The HTML report of a recording with one altered input: the altered character parts at that very
// tick, for the altered input; every other character stays identical; the page is self-contained.
TEST(Report, AlteredInputPartsAtThatTickAndNowhereElse) {
  TempDir dir;
  const auto bytes = record_session(dir, 2);
  replay::LoadedRecording orig, edited;
  std::string err;
  ASSERT_TRUE(replay::load_recording_bytes(bytes, "s.rec", orig, err));
  const uint32_t target_tick = orig.first_tick + 90;
  const uint32_t target_id = orig.characters[0].id;
  const auto edited_bytes = rewrite(bytes, dir, [&](replay::TickData& t) {
    if (t.tick != target_tick) return;
    for (auto& in : t.inputs)
      if (in.id == target_id) in.input.move_x = int8_t(in.input.move_x == 127 ? -127 : 127);
  });
  ASSERT_TRUE(replay::load_recording_bytes(edited_bytes, "edited.rec", edited, err));
  const auto a = resimulated_trace(orig, dir, "a.csv");
  const auto b = resimulated_trace(edited, dir, "b.csv");

  std::vector<TraceRow> rows_a, rows_b;
  for (const auto& r : a.rows)
    if (r.id == target_id) rows_a.push_back(r);
  for (const auto& r : b.rows)
    if (r.id == target_id) rows_b.push_back(r);
  const auto statuses = replay::tick_statuses(rows_a, rows_b, &orig, &edited);
  ASSERT_FALSE(statuses.empty());
  for (const auto& [tick, status] : statuses) {
    if (tick < target_tick) {
      EXPECT_EQ(status, replay::TickStatus::kIdentical) << "tick " << tick;
    } else if (tick == target_tick) {
      EXPECT_EQ(status, replay::TickStatus::kCorrectedInput) << "the altered tick";
    }
  }
  // Without input streams, the same difference is a divergence with no known cause.
  const auto unknown = replay::tick_statuses(rows_a, rows_b, nullptr, nullptr);
  for (const auto& [tick, status] : unknown) {
    if (tick == target_tick) {
      EXPECT_EQ(status, replay::TickStatus::kDiverged);
    }
  }

  replay::ReportOptions ro;
  ro.title = "altered";
  ro.world_name = "arena";
  const std::string json = replay::report_json(arena_world(), orig.header.settings,
                                               {{"a.csv", a.rows, &orig}, {"b.csv", b.rows, &edited}}, ro);
  const std::string parted = "{\"id\":" + std::to_string(target_id) + ",\"parting_tick\":" + std::to_string(target_tick) +
                             ",\"divergence\":\"input\"";
  EXPECT_NE(json.find(parted), std::string::npos) << json.substr(0, 400);
  std::size_t never = 0, at = 0;
  while ((at = json.find("\"parting_tick\":null", at)) != std::string::npos) ++never, ++at;
  EXPECT_EQ(never, orig.characters.size() - 1) << "every other character stays identical";

  const std::string html = replay::render_report_html(json);
  EXPECT_EQ(html.find("/*@"), std::string::npos) << "every placeholder replaced";
  EXPECT_NE(html.find(parted), std::string::npos);
  EXPECT_NE(html.find("REVISION"), std::string::npos) << "three.js is inlined";
  // (three.js names XML namespaces by URL, so URLs as such are no sign of a fetch; loading markup is.)
  for (const char* remote : {"<script src", "<link", "<img", "@import"})
    EXPECT_EQ(html.find(remote), std::string::npos) << remote << ": the page must fetch nothing";
}

}  // namespace
}  // namespace foothold::test

namespace foothold::test {
namespace {

// The recording's copy of the movement settings (recording.fbs `table Settings`, written and read
// field by field in recording.cpp) against the settings' key table (shared/setting_keys.h): the
// same names with the same kinds, and every value through a file and back. A setting added to the
// table but not to the recording fails here, not in a re-simulation that quietly uses a default.
TEST(Recording, TheHeaderCarriesEverySettingOfTheKeyTableUnderItsName) {
  std::ifstream schema(std::string(FOOTHOLD_SOURCE_DIR) + "/replay/recording.fbs");
  ASSERT_TRUE(schema) << "replay/recording.fbs";
  std::map<std::string, std::string> fields;  // name -> type
  bool inside = false;
  for (std::string line; std::getline(schema, line);) {
    if (line.rfind("table Settings", 0) == 0) inside = true;
    else if (inside && line.rfind("}", 0) == 0) break;
    else if (inside && line.find(':') != std::string::npos) {
      const auto start = line.find_first_not_of(' ');
      const auto colon = line.find(':');
      fields[line.substr(start, colon - start)] = line.substr(colon + 1, line.find(';') - colon - 1);
    }
  }
  ASSERT_FALSE(fields.empty()) << "no table Settings in recording.fbs";
  EXPECT_EQ(fields.size(), setting_keys().size()) << "fields in the recording vs keys in the table";
  MoveSettings nudged;
  for (const SettingKey& k : setting_keys()) {
    ASSERT_TRUE(fields.count(k.name)) << k.name << " is a setting the recording does not carry";
    EXPECT_EQ(fields[k.name], k.real ? "double" : "int") << k.name;
    // Every value a little off its default, so a field read into another (or not read) shows.
    if (k.real) nudged.*k.real *= 1.0 + 1.0 / 1024;
    else nudged.*k.whole += 1;
  }
  nudged.tick_rate = 64;
  ASSERT_TRUE(nudged.validate().empty()) << nudged.validate()[0];
  replay::RecordingHeader h;
  h.source = "server";
  h.world = "arena";
  h.settings = nudged;
  h.settings_hash = nudged.hash();
  const std::string path = ::testing::TempDir() + "/settings_round_trip.fhr";
  {
    replay::RecordingWriter w;
    ASSERT_TRUE(w.open(path, h)) << w.error();
    w.close(0);
  }
  replay::RecordingReader r;
  ASSERT_TRUE(r.open(path)) << r.error();
  for (const SettingKey& k : setting_keys())
    EXPECT_EQ(setting_value(r.header().settings, k), setting_value(nudged, k)) << k.name;
  std::remove(path.c_str());
}

}  // namespace
}  // namespace foothold::test
