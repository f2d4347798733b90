// Recordings: written by the server's recorder during a simulated session, read back whole or cut
// short or damaged, re-simulated, verified and diffed; the messages the game was handed, per tick.

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "replay/crc32c.h"
#include "replay/recording_generated.h"
#include "shared/setting_keys.h"
#include "shared/simulation_version.h"
#include "replay/recording.h"
#include "replay/report.h"
#include "replay/resimulate.h"
#include "replay/trace_diff.h"
#include "games/builtin_games.h"
#include "server/game.h"
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
  // With its notice (MIT: the notice travels with every copy), before the script that holds it.
  const std::size_t notice = html.find("Copyright (c) 2010-2017 three.js authors"), script = html.find("<script id=\"threeJs\">");
  ASSERT_NE(notice, std::string::npos) << "three.js's notice is in the report";
  EXPECT_LT(notice, script);
  EXPECT_NE(html.find("Permission is hereby granted, free of charge", notice), std::string::npos);
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
  // Every key, and the movement profiles (format 5).
  EXPECT_EQ(fields["profiles"], "[Profile]");
  EXPECT_EQ(fields.size(), setting_keys().size() + 1) << "fields in the recording vs keys in the table";
  MoveSettings nudged;
  for (const SettingKey& k : setting_keys()) {
    ASSERT_TRUE(fields.count(k.name)) << k.name << " is a setting the recording does not carry";
    EXPECT_EQ(fields[k.name], k.real ? "double" : "int") << k.name;
    // Every value a little off its default, so a field read into another (or not read) shows.
    if (k.real) nudged.*k.real *= 1.0 + 1.0 / 1024;
    else nudged.*k.whole += 1;
  }
  nudged.tick_rate = 64;
  MoveProfile fast{"fast", 9.5, 3.25, 8.5, 18.5, 12.5, 60.5, 0.125, 0.0625};
  MoveProfile slow{"slow", 1.5, 0.75, 2.5, 21.5, 3.5, 40.5, 0.25, 0.5};
  nudged.profiles = {fast, slow};
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
  EXPECT_EQ(r.header().settings.profiles, nudged.profiles);
  EXPECT_EQ(r.header().settings.hash(), nudged.hash());
  std::remove(path.c_str());
}

}  // namespace
}  // namespace foothold::test

namespace foothold::test {
namespace {

// The messages the game was handed (issue #35): written by the recorder with their tick, read back
// at that tick in the same order, from the format 4 file and through load_recording; a format 3 file
// still read; every malformed messages record refused by name.

using replay::MessageEntry;
using Next = replay::RecordingReader::Next;
using Head = foothold::rec::MessageHead;  // a message's head in a Messages record: client, size, reliable
constexpr proto::Nanos kS = proto::kSecond;

// A message's bytes, derived from `n` so that any two differ and any mix-up shows.
std::vector<uint8_t> numbered_message(uint32_t n, std::size_t size) {
  std::vector<uint8_t> v(size);
  for (std::size_t i = 0; i < size; ++i) v[i] = uint8_t(n * 151 + i * 13 + (i >> 8));
  for (std::size_t k = 0; k < 4 && k < size; ++k) v[k] = uint8_t(n >> (8 * k));
  return v;
}

// Checks two lists of messages are the same, in the same order; `where` names them in a failure.
void expect_same_messages(const std::vector<MessageEntry>& got, const std::vector<MessageEntry>& want, const std::string& where) {
  ASSERT_EQ(got.size(), want.size()) << where;
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].client, want[i].client) << where << ", message " << i;
    ASSERT_EQ(got[i].reliable, want[i].reliable) << where << ", message " << i;
    ASSERT_EQ(got[i].bytes, want[i].bytes) << where << ", message " << i;
  }
}

// Records TickRecords as the server would hand them over: characters 3 and 7 from tick 1, and per
// tick the messages `plan` gives (none for a tick it lacks).
void record_ticks(const std::string& path, uint32_t ticks, const std::map<uint32_t, std::vector<MessageEntry>>& plan) {
  replay::RecordingWriter writer;
  ASSERT_TRUE(writer.open(path, server::server_recording_header("arena", arena_world(), MoveSettings{}, 1, 0))) << writer.error();
  server::ServerRecorder recorder(writer, 0);
  const std::vector<server::JoinRecord> joins = {{3, CharacterState{}, 0, {}}, {7, CharacterState{}, 0, {}}};
  for (uint32_t tick = 1; tick <= ticks; ++tick) {
    std::vector<server::CharacterTick> characters(2);
    characters[0].id = 3;
    characters[1].id = 7;
    for (auto& c : characters) c.input.tick = tick;
    std::vector<server::MessageRecord> messages;
    if (auto it = plan.find(tick); it != plan.end())
      for (const MessageEntry& m : it->second) messages.push_back({m.client, m.reliable, m.bytes, {m.newest_input, m.acked_snapshot}});
    recorder.on_tick({tick, tick == 1 ? std::span(joins) : std::span<const server::JoinRecord>(), {}, characters, messages, {}, {}});
  }
  writer.close(recorder.last_tick());
  ASSERT_TRUE(writer.ok()) << writer.error();
}

// Format 8: the fleet's allocation rides in the Tick record of the tick that handed it to the game,
// reads back as written, and what a reader would refuse is refused at writing, by name.
TEST(RecordingAllocation, ReadsBackAtItsTickAndWhatCannotBeReadIsNotWritten) {
  TempDir dir;
  replay::AllocationEntry a;
  a.labels = {{"mode", "ctf"}, {"region", std::string(replay::kMaxAllocationText, 'e')}};
  a.annotations = {{"match", "m-1"}};
  {
    replay::RecordingWriter writer;
    ASSERT_TRUE(writer.open(dir.file("a.rec"), server::server_recording_header("arena", arena_world(), MoveSettings{}, 1, 0)));
    for (uint32_t tick = 1; tick <= 3; ++tick) {
      replay::TickData t;
      t.tick = tick;
      if (tick == 2) t.allocation = a;
      writer.write_tick(t);
    }
    writer.close(3);
    ASSERT_TRUE(writer.ok()) << writer.error();
  }
  replay::RecordingReader reader;
  ASSERT_TRUE(reader.open(dir.file("a.rec"))) << reader.error();
  for (uint32_t tick = 1; tick <= 3; ++tick) {
    ASSERT_EQ(reader.next(), Next::kTick) << reader.error();
    ASSERT_EQ(reader.tick().allocation.has_value(), tick == 2) << "tick " << tick;
  }
  // (the reader's tick 2, read again from a fresh reader, holds it exactly)
  replay::RecordingReader again;
  ASSERT_TRUE(again.open(dir.file("a.rec")));
  again.next();
  again.next();
  ASSERT_TRUE(again.tick().allocation.has_value());
  EXPECT_EQ(again.tick().allocation->labels, a.labels);
  EXPECT_EQ(again.tick().allocation->annotations, a.annotations);

  auto refused = [&](const replay::AllocationEntry& bad, const std::string& why) {
    replay::RecordingWriter writer;
    ASSERT_TRUE(writer.open(dir.file("bad.rec"), server::server_recording_header("arena", arena_world(), MoveSettings{}, 1, 0)));
    replay::TickData t;
    t.tick = 1;
    t.allocation = bad;
    writer.write_tick(t);
    EXPECT_FALSE(writer.ok()) << why;
    EXPECT_NE(writer.error().find("tick 1 has an allocation: "), std::string::npos) << writer.error();
    EXPECT_NE(writer.error().find(why), std::string::npos) << writer.error();
  };
  replay::AllocationEntry unsorted;
  unsorted.labels = {{"z", "1"}, {"a", "2"}};
  refused(unsorted, "labels not sorted by key, or a key twice");
  replay::AllocationEntry twice;
  twice.annotations = {{"a", "1"}, {"a", "2"}};
  refused(twice, "annotations not sorted by key, or a key twice");
  replay::AllocationEntry long_value;
  long_value.labels = {{"k", std::string(replay::kMaxAllocationText + 1, 'v')}};
  refused(long_value, "labels: an entry over 4096 bytes");
  replay::AllocationEntry many;
  for (std::size_t i = 0; i <= replay::kMaxAllocationEntries; ++i) {
    // Appended, not "k" + std::to_string(...): GCC 12 warns falsely (-Wrestrict) of that inlined.
    std::string key = "k";
    key += std::to_string(1000 + i);
    many.annotations.push_back({key, ""});
  }
  refused(many, "65 annotations (at most 64)");
}

TEST(RecordingMessages, WrittenFromTickRecordsTheyReadBackAtTheirTicksInTheirOrder) {
  TempDir dir;
  std::map<uint32_t, std::vector<MessageEntry>> plan;
  uint32_t n = 0;
  // Tick 2: both channels, both characters, the smallest and the largest message.
  for (auto [client, reliable, size] :
       {std::tuple{7u, true, 1u}, std::tuple{3u, false, 700u}, std::tuple{7u, true, 65536u}, std::tuple{3u, true, 20u}})
    plan[2].push_back({client, reliable, numbered_message(n++, size)});
  // Tick 4: more messages than one record holds; tick 5: more bytes than one record holds.
  for (uint32_t i = 0; i < replay::kMaxMessagesPerRecord + 904; ++i)
    plan[4].push_back({i % 3 == 0 ? 3u : 7u, i % 5 != 0, numbered_message(n++, 1 + i % 40)});
  for (uint32_t i = 0; i < replay::kMessageBytesPerRecord / replay::kMaxRecordedMessage + 2; ++i)
    plan[5].push_back({7, true, numbered_message(n++, replay::kMaxRecordedMessage)});
  plan[6].push_back({3, false, numbered_message(n++, 9)});
  record_ticks(dir.file("m.rec"), 7, plan);
  const auto bytes = read_bytes(dir.file("m.rec"));
  // Header, 7 ticks, footer, and the messages records: one each for ticks 2 and 6, two each for 4 and 5.
  EXPECT_EQ(record_starts(bytes).size(), 1u + 7 + 1 + 6);

  replay::RecordingReader reader;
  ASSERT_TRUE(reader.open_bytes(bytes, "m.rec")) << reader.error();
  EXPECT_EQ(reader.header().format_version, replay::kRecordingFormat);
  uint32_t ticks = 0;
  for (Next next; (next = reader.next()) != Next::kFooter;) {
    ASSERT_EQ(next, Next::kTick) << reader.error();
    const replay::TickData& t = reader.tick();
    ASSERT_EQ(t.tick, ++ticks);
    EXPECT_EQ(t.inputs.size(), 2u);
    expect_same_messages(t.messages, plan.count(t.tick) ? plan[t.tick] : std::vector<MessageEntry>{}, "tick " + std::to_string(t.tick));
  }
  EXPECT_EQ(ticks, 7u);

  replay::LoadedRecording rec;
  std::string err;
  ASSERT_TRUE(replay::load_recording_bytes(bytes, "m.rec", rec, err)) << err;
  EXPECT_TRUE(rec.problem.empty()) << rec.problem;
  ASSERT_EQ(rec.messages.size(), plan.size());
  uint64_t count = 0, total = 0;
  auto want = plan.begin();
  for (const replay::TickMessages& tm : rec.messages) {
    EXPECT_EQ(tm.tick, want->first);
    expect_same_messages(tm.messages, want->second, "loaded tick " + std::to_string(tm.tick));
    for (const MessageEntry& m : want->second) total += m.bytes.size();
    count += want->second.size();
    ++want;
  }
  EXPECT_EQ(rec.message_count, count);
  EXPECT_EQ(rec.message_bytes, total);
}

// The end to end case: an echo game on the simulated network, clients sending on both channels, the
// server recording. What the recording holds is exactly what the game was handed, tick for tick, and
// the recording still verifies (messages do not move characters) with the CLI's counts.
TEST(RecordingMessages, ASessionRecordsExactlyTheMessagesTheGameWasHandedTickForTick) {
  TempDir dir;
  HarnessOptions o;
  o.clients = 3;
  SimHarness h(arena_world(), o);
  replay::RecordingWriter writer;
  auto header = server::server_recording_header("arena", arena_world(), o.settings, 1, 60);
  header.rewind_window = 15;  // ticks at 60 Hz: info says 250 ms
  ASSERT_TRUE(writer.open(dir.file("s.rec"), header));
  server::ServerRecorder recorder(writer, 60);
  server::ServerCore& core = h.server();
  core.set_observer(&recorder);
  std::map<uint32_t, std::vector<MessageEntry>> handed;  // by the tick they are handed over for
  // An echo game that also notes what it was handed.
  struct Noting final : server::Game {
    std::map<uint32_t, std::vector<MessageEntry>>& handed;
    explicit Noting(std::map<uint32_t, std::vector<MessageEntry>>& h) : handed(h) {}
    void on_message(server::GameControl& g, uint32_t id, proto::Channel ch, std::span<const uint8_t> b) override {
      handed[g.tick() + 1].push_back({id, ch == proto::Channel::kReliable, {b.begin(), b.end()}});
      g.send(id, ch, b);
    }
  };
  core.set_game(std::make_unique<Noting>(handed));
  h.start_all();
  h.run_for(kS);
  uint32_t n = 0;
  uint64_t sent_reliable = 0;
  for (int step = 0; step < 60; ++step) {
    for (int c = 0; c < 3; ++c) {
      // The largest message once per client, then sizes up to 1500 bytes; unreliable ones between.
      const std::size_t size = step == 5 ? replay::kMaxRecordedMessage : 1 + (n * 37) % 1500;
      sent_reliable += h.client(c).send_message(proto::Channel::kReliable, numbered_message(n, size)) == proto::SendError::kNone;
      ++n;
      if (step % 2 == 0) (void)h.client(c).send_message(proto::Channel::kUnreliable, numbered_message(n, 1 + n % 1000));
      ++n;
      for (proto::ReceivedMessage m; h.client(c).receive_message(m);) {
      }
    }
    h.run_for(kS / 20);
  }
  h.run_for(2 * kS);
  writer.close(recorder.last_tick());
  ASSERT_TRUE(writer.ok()) << writer.error();

  replay::LoadedRecording rec;
  std::string err;
  ASSERT_TRUE(replay::load_recording(dir.file("s.rec"), rec, err)) << err;
  EXPECT_TRUE(rec.problem.empty()) << rec.problem;
  ASSERT_EQ(rec.messages.size(), handed.size()) << "ticks with messages";
  uint64_t count = 0, reliable = 0, total = 0, largest = 0;
  auto want = handed.begin();
  for (const replay::TickMessages& tm : rec.messages) {
    ASSERT_EQ(tm.tick, want->first);
    expect_same_messages(tm.messages, want->second, "tick " + std::to_string(tm.tick));
    for (const MessageEntry& m : tm.messages) {
      reliable += m.reliable;
      total += m.bytes.size();
      largest = std::max<uint64_t>(largest, m.bytes.size());
    }
    count += tm.messages.size();
    ++want;
  }
  // Every reliable one arrived (3 x 60) and most unreliable ones did (3 x 30 sent): both channels.
  EXPECT_EQ(sent_reliable, 180u);
  EXPECT_EQ(reliable, sent_reliable);
  EXPECT_GT(count - reliable, 60u);
  EXPECT_EQ(largest, replay::kMaxRecordedMessage);
  EXPECT_EQ(rec.message_count, count);
  const auto result = replay::resimulate(rec, arena_world(), {});
  EXPECT_TRUE(result.ok) << "tick " << result.first.tick << " id " << result.first.id;

  const std::string replay_bin = FOOTHOLD_REPLAY_BIN;
  const auto verified = run_command(replay_bin + " verify " + dir.file("s.rec"));
  EXPECT_EQ(verified.exit_code, 0) << verified.output;
  EXPECT_NE(verified.output.find("verified=1 "), std::string::npos) << verified.output;
  const auto info = run_command(replay_bin + " info " + dir.file("s.rec"));
  EXPECT_EQ(info.exit_code, 0) << info.output;
  EXPECT_NE(info.output.find("format: " + std::to_string(replay::kRecordingFormat) + "; source: server\n"), std::string::npos) << info.output;
  // Issue #66: info counted only the messages handed over; the game echoed each one, so as many
  // were sent, byte for byte.
  EXPECT_EQ(rec.sent_count, count);
  EXPECT_NE(info.output.find("ends: cleanly (footer present)\nmessages=" + std::to_string(count) + " message_bytes=" +
                             std::to_string(total) + " message_ticks=" + std::to_string(handed.size()) +
                             " messages_sent=" + std::to_string(count) + " sent_bytes=" + std::to_string(total) + "\n"),
            std::string::npos)
      << info.output;
  // Issue #66: the rewind window was printed in ticks where every flag says milliseconds.
  EXPECT_NE(info.output.find(" rewind_window_ms=250 rewind_window_ticks=15\n"), std::string::npos) << info.output;
}

// A session recorded in format 3 (what the server wrote before messages were recorded: the same
// records, no Messages record) still reads, with no messages, and verifies.
TEST(RecordingMessages, AFormat3RecordingStillReadsAndVerifies) {
  TempDir dir;
  HarnessOptions o;
  o.clients = 2;
  SimHarness h(arena_world(), o);
  replay::RecordingWriter writer;
  auto header = server::server_recording_header("arena", arena_world(), o.settings, 1, 60);
  header.format_version = 3;
  ASSERT_TRUE(writer.open(dir.file("v3.rec"), header));
  server::ServerRecorder recorder(writer, 60);
  h.server().set_observer(&recorder);
  h.start_all();
  h.run_for(2 * kS);
  writer.close(recorder.last_tick());
  ASSERT_TRUE(writer.ok()) << writer.error();
  replay::LoadedRecording rec;
  std::string err;
  ASSERT_TRUE(replay::load_recording(dir.file("v3.rec"), rec, err)) << err;
  EXPECT_EQ(rec.header.format_version, 3);
  EXPECT_TRUE(rec.clean);
  EXPECT_GT(rec.ticks, 100u);
  EXPECT_TRUE(rec.messages.empty());
  EXPECT_TRUE(replay::resimulate(rec, arena_world(), {}).ok);

  // Messages cannot go into a format 3 file: the writer says so rather than write what no reader takes.
  replay::TickData t;
  t.tick = rec.last_tick + 1;
  t.messages.push_back({1, true, {1, 2, 3}});
  replay::RecordingWriter old;
  ASSERT_TRUE(old.open(dir.file("v3m.rec"), header));
  old.write_tick(t);
  EXPECT_FALSE(old.ok());
  EXPECT_NE(old.error().find("format 3 recording cannot carry"), std::string::npos) << old.error();
  // Nor can a message the reader would refuse, in any format.
  replay::RecordingWriter big;
  ASSERT_TRUE(big.open(dir.file("big.rec"), server::server_recording_header("arena", arena_world(), o.settings, 1, 0)));
  t.messages[0].bytes.assign(replay::kMaxRecordedMessage + 1, 7);
  big.write_tick(t);
  EXPECT_FALSE(big.ok());
  EXPECT_NE(big.error().find("a message of 65537 bytes cannot be recorded"), std::string::npos) << big.error();

  // Formats older than 3, and newer than this reader, are refused by number.
  for (uint16_t format : {uint16_t(2), uint16_t(replay::kRecordingFormat + 1)}) {
    header.format_version = format;
    replay::RecordingWriter w;
    ASSERT_TRUE(w.open(dir.file("other.rec"), header));
    w.close(0);
    EXPECT_FALSE(replay::load_recording(dir.file("other.rec"), rec, err));
    EXPECT_NE(err.find("recording format " + std::to_string(format) + " is not supported (3 to " + std::to_string(replay::kRecordingFormat) + ")"), std::string::npos) << err;
  }
}

// Records of a file (after its magic), each with its frame; and a file from records.
std::vector<std::vector<uint8_t>> split_records(const std::vector<uint8_t>& bytes) {
  std::vector<std::vector<uint8_t>> records;
  const auto starts = record_starts(bytes);
  for (std::size_t i = 0; i < starts.size(); ++i)
    records.emplace_back(bytes.begin() + long(starts[i]), i + 1 < starts.size() ? bytes.begin() + long(starts[i + 1]) : bytes.end());
  return records;
}
std::vector<uint8_t> join_records(const std::vector<std::vector<uint8_t>>& records) {
  std::vector<uint8_t> bytes(replay::kRecordingMagic, replay::kRecordingMagic + 8);
  for (const auto& r : records) bytes.insert(bytes.end(), r.begin(), r.end());
  return bytes;
}

// A Messages record made by hand, framed as the writer frames one (padded to 8, CRC-32C): the heads
// as given (client, size, reliable) and `held` bytes after them, whatever the heads say.
std::vector<uint8_t> messages_record(uint32_t tick, const std::vector<Head>& heads, std::size_t held) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto head_vec = fbb.CreateVectorOfStructs(heads);
  const auto byte_vec = fbb.CreateVector(std::vector<uint8_t>(held, 0x5a));
  fbb.Finish(rec::CreateRecord(fbb, rec::Body::Messages, rec::CreateMessages(fbb, tick, head_vec, byte_vec).Union()),
             rec::RecordIdentifier());
  std::vector<uint8_t> payload(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  payload.resize((payload.size() + 7) & ~std::size_t(7), 0);
  const uint32_t size = uint32_t(payload.size());
  const uint32_t crc = replay::crc32c(payload.data(), payload.size());
  // Sized once and copied into, not an 8-byte vector grown by insert(): GCC 12 warns falsely
  // (-Warray-bounds) of that growth inlined in an optimised build.
  std::vector<uint8_t> record(8 + payload.size());
  for (int i = 0; i < 4; ++i) {
    record[std::size_t(i)] = uint8_t(size >> (8 * i));
    record[std::size_t(4 + i)] = uint8_t(crc >> (8 * i));
  }
  std::copy(payload.begin(), payload.end(), record.begin() + 8);
  return record;
}

TEST(RecordingMessages, AMalformedMessagesRecordIsRefusedByNameAndWhatCameBeforeIsKept) {
  TempDir dir;
  // Ticks 1 to 3, one message in tick 2: [header, tick 1, messages of 2, tick 2, tick 3, footer].
  std::map<uint32_t, std::vector<MessageEntry>> plan;
  plan[2].push_back({3, true, numbered_message(1, 10)});
  record_ticks(dir.file("base.rec"), 3, plan);
  const auto base = split_records(read_bytes(dir.file("base.rec")));
  ASSERT_EQ(base.size(), 6u);
  replay::LoadedRecording rec;
  std::string err;
  ASSERT_TRUE(replay::load_recording_bytes(join_records(base), "base.rec", rec, err)) << err;
  ASSERT_EQ(rec.ticks, 3u);
  ASSERT_EQ(rec.message_count, 1u) << "the untouched file reads whole";

  const auto with = [&](std::vector<uint8_t> record) {  // the base with its messages record replaced
    auto r = base;
    r[2] = std::move(record);
    return r;
  };
  const auto without = [&](std::size_t from) {  // the base cut before record `from`
    return std::vector<std::vector<uint8_t>>(base.begin(), base.begin() + long(from));
  };
  const uint64_t at = 8 + base[0].size() + base[1].size();  // the messages record's byte offset
  struct Case {
    std::string name;
    std::vector<std::vector<uint8_t>> records;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"over 64 KiB", with(messages_record(2, {{3, 65537, true}}, 65537)), "message 0 of tick 2 is 65537 bytes (at most 65536)"},
      {"too many", with(messages_record(2, std::vector<Head>(4097, {3, 1, true}), 4097)),
       "4097 messages in one record (at most 4096)"},
      {"sizes and bytes differ", with(messages_record(2, {{3, 10, true}, {3, 10, false}}, 15)),
       "the messages' sizes add up to 20 bytes, but the record holds 15"},
      {"empty message", with(messages_record(2, {{3, 4, true}, {3, 0, true}}, 4)), "message 1 of tick 2 is empty"},
      {"no message", with(messages_record(2, {}, 0)), "a messages record with no message"},
      {"another tick's", with(messages_record(5, {{3, 1, true}}, 1)), "the record of tick 2 follows the messages of tick 5 (from byte "},
      {"footer after messages", [&] { auto r = without(3); r.push_back(base[5]); return r; }(),
       "the footer follows the messages of tick 2 (from byte "},
      {"cut after messages", without(3), "the file ends after the messages of tick 2 (from byte "},
      {"a stranger's", with(messages_record(2, {{9, 1, true}}, 1)), "has a message from character 9, who is not in the game"},
  };
  for (const Case& c : cases) {
    ASSERT_TRUE(replay::load_recording_bytes(join_records(c.records), "bad.rec", rec, err)) << c.name << ": " << err;
    EXPECT_EQ(rec.ticks, 1u) << c.name << ": tick 1 is kept, nothing after";
    EXPECT_EQ(rec.message_count, 0u) << c.name;
    EXPECT_FALSE(rec.clean) << c.name;
    EXPECT_NE(rec.problem.find(c.says), std::string::npos) << c.name << ": " << rec.problem;
    // The reader names the messages record's byte; load names a stranger's tick record.
    const uint64_t where = c.name == "a stranger's" ? at + c.records[2].size() : at;
    EXPECT_NE(rec.problem.find("byte " + std::to_string(where)), std::string::npos) << c.name << ": " << rec.problem;
  }

  // A format 3 file holds no messages record: one there is damage.
  auto header = server::server_recording_header("arena", arena_world(), MoveSettings{}, 1, 0);
  header.format_version = 3;
  replay::RecordingWriter v3;
  ASSERT_TRUE(v3.open(dir.file("v3.rec"), header));
  v3.close(0);
  auto records = base;
  records[0] = split_records(read_bytes(dir.file("v3.rec")))[0];
  ASSERT_TRUE(replay::load_recording_bytes(join_records(records), "v3.rec", rec, err)) << err;
  EXPECT_EQ(rec.ticks, 1u);
  EXPECT_NE(rec.problem.find("messages in a format 3 recording (format 4 added them)"), std::string::npos) << rec.problem;
}

// The game's commands in the recording (format 5): a session of each built-in game verifies without
// the game's code (foothold-replay links none), and one command altered parts the replay at its tick.

// Passes every tick to `to`, with the commands of tick `alter_tick` (if any) changed by `alter`.
struct AlteringRecorder final : server::TickObserver {
  server::TickObserver& to;
  uint32_t alter_tick = 0;
  std::function<void(std::vector<GameCommand>&)> alter;
  std::vector<GameCommand> commands;
  explicit AlteringRecorder(server::TickObserver& t) : to(t) {}
  void on_tick(const server::TickRecord& r) override {
    if (r.tick != alter_tick || !alter) return to.on_tick(r);
    commands.assign(r.commands.begin(), r.commands.end());
    alter(commands);
    server::TickRecord changed = r;
    changed.commands = commands;
    to.on_tick(changed);
  }
};

struct RecordedGame {
  replay::LoadedRecording rec;
  std::string path;
};

// Four clients for `seconds` under `game`, recorded (through `wrap` when given, its header changed
// by `header_change` when given).
RecordedGame record_game(TempDir& dir, const std::string& name, std::unique_ptr<server::Game> game, double seconds,
                         bots::Pattern pattern, const std::function<void(AlteringRecorder&, server::ServerCore&)>& wrap = {},
                         const std::function<void(replay::RecordingHeader&)>& header_change = {}) {
  HarnessOptions o;
  o.clients = 4;
  o.pattern = pattern;
  SimHarness h(arena_world(), o);
  replay::RecordingWriter writer;
  RecordedGame out;
  out.path = dir.file(name + ".rec");
  replay::RecordingHeader header = server::server_recording_header("arena", arena_world(), o.settings, 1, 60);
  if (header_change) header_change(header);
  EXPECT_TRUE(writer.open(out.path, header));
  server::ServerRecorder recorder(writer, 60);
  AlteringRecorder altering(recorder);
  h.server().set_observer(&altering);
  h.server().set_game(std::move(game));
  if (wrap) wrap(altering, h.server());
  h.start_all();
  h.run_for(proto::Nanos(seconds * double(kS)));
  writer.close(recorder.last_tick());
  EXPECT_TRUE(writer.ok()) << writer.error();
  std::string err;
  EXPECT_TRUE(replay::load_recording(out.path, out.rec, err)) << err;
  return out;
}

TEST(RecordingCommands, ASessionOfEachBuiltInGameVerifiesWithoutTheGame) {
  TempDir dir;
  const std::string replay_bin = FOOTHOLD_REPLAY_BIN;
  for (const server::GameEntry& g : server::builtin_games()) {
    SCOPED_TRACE(g.name);
    const RecordedGame r = record_game(dir, g.name, g.make(), 4, bots::Pattern::kWander);
    EXPECT_TRUE(r.rec.problem.empty()) << r.rec.problem;
    if (g.name == "tag") {
      EXPECT_GT(r.rec.command_count, 4u) << "the tag game sets its attributes every second";
    }
    const auto result = replay::resimulate(r.rec, arena_world(), {});
    EXPECT_TRUE(result.ok) << "tick " << result.first.tick << " id " << result.first.id;
    const auto verified = run_command(replay_bin + " verify " + r.path);
    EXPECT_EQ(verified.exit_code, 0) << verified.output;
    const auto info = run_command(replay_bin + " info " + r.path);
    EXPECT_NE(info.output.find("commands=" + std::to_string(r.rec.command_count) + " "), std::string::npos) << info.output;
  }
}

// A game that moves characters: teleports, launches, freezes and switches profile now and then.
struct MovingGame final : server::Game {
  void after_tick(server::GameControl& g, const server::TickReport& r) override {
    for (const auto& c : r.characters) {
      const uint32_t k = (r.tick + c.id) % 40;
      if (k == 0) g.teleport(c.id, {double(c.id % 5) - 2, 3, -2});
      if (k == 13) g.set_velocity(c.id, {1, 6, -1});
      if (k == 20) g.freeze(c.id, true);
      if (k == 30) g.freeze(c.id, false);
    }
  }
};

// A wrap for record_game: the first teleport of tick 120 moved by 1/1024 m in the file; its
// character into `*altered_id` when given.
std::function<void(AlteringRecorder&, server::ServerCore&)> move_a_teleport_at_120(uint32_t* altered_id = nullptr) {
  return [altered_id](AlteringRecorder& a, server::ServerCore&) {
    a.alter_tick = 120;
    a.alter = [altered_id](std::vector<GameCommand>& commands) {
      for (GameCommand& c : commands)
        if (c.kind == GameCommandKind::kTeleport) {
          c.vector.x += 1;
          if (altered_id) *altered_id = c.character;
          return;
        }
    };
  };
}

TEST(RecordingCommands, OneAlteredCommandPartsTheReplayAtItsTick) {
  TempDir dir;
  const RecordedGame honest = record_game(dir, "honest", std::make_unique<MovingGame>(), 3, bots::Pattern::kCircle);
  ASSERT_GT(honest.rec.command_count, 20u);
  EXPECT_TRUE(replay::resimulate(honest.rec, arena_world(), {}).ok);
  // The same session with one teleport, at tick 120, moved by 1/1024 m in the file.
  const uint32_t altered_tick = 120;
  uint32_t altered_id = 0;
  const RecordedGame altered = record_game(dir, "altered", std::make_unique<MovingGame>(), 3, bots::Pattern::kCircle,
                                           move_a_teleport_at_120(&altered_id));
  ASSERT_NE(altered_id, 0u) << "no teleport at tick 120 to alter (character 1 is teleported at ticks 40k)";
  const auto result = replay::resimulate(altered.rec, arena_world(), {});
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.first.tick, altered_tick);
  EXPECT_EQ(result.first.id, altered_id);
  const auto verified = run_command(std::string(FOOTHOLD_REPLAY_BIN) + " verify " + altered.path);
  EXPECT_EQ(verified.exit_code, 1) << verified.output;
  EXPECT_NE(verified.output.find("MISMATCH: tick " + std::to_string(altered_tick) + ", character " + std::to_string(altered_id)), std::string::npos) << verified.output;
  EXPECT_NE(verified.output.find("cause: the same simulation version re-simulated otherwise: a desync"), std::string::npos)
      << verified.output;
  EXPECT_NE(verified.output.find(" same_simulation=1\n"), std::string::npos) << verified.output;
}

// The compatibility policy (docs/compatibility.md): a recording keeps the simulation version that
// made it, and verify names it. Under another step a mismatch is said to be the step's change, not a
// desync; one that still matches says so too.
TEST(RecordingCompatibility, VerifyNamesTheStepThatMadeARecordingWhenItIsNotThisBuilds) {
  TempDir dir;
  const auto older_step = [](replay::RecordingHeader& h) {
    h.simulation_version = kSimulationVersion + 1;
    h.recorded_by = "foothold-server 9.9.9 (protocol 99, recording 99, git \x1b[31mred)";
  };
  const RecordedGame other = record_game(dir, "other", std::make_unique<MovingGame>(), 3, bots::Pattern::kCircle,
                                         {}, older_step);
  EXPECT_EQ(other.rec.header.simulation_version, kSimulationVersion + 1);
  EXPECT_EQ(other.rec.header.recorded_by, "foothold-server 9.9.9 (protocol 99, recording 99, git ?[31mred)")
      << "read as printable text";
  const auto matches = run_command(std::string(FOOTHOLD_REPLAY_BIN) + " verify " + other.path);
  EXPECT_EQ(matches.exit_code, 0) << matches.output;
  const std::string named = "recorded with simulation version " + std::to_string(kSimulationVersion + 1) +
                            " (foothold-server 9.9.9 (protocol 99, recording 99, git ?[31mred)); this build's "
                            "simulation version is " + std::to_string(kSimulationVersion);
  EXPECT_NE(matches.output.find(named), std::string::npos) << matches.output;
  EXPECT_NE(matches.output.find(" same_simulation=0\n"), std::string::npos) << matches.output;

  // The same file with one teleport moved by 1/1024 m: a mismatch, said to be the step's change.
  const RecordedGame altered = record_game(dir, "altered", std::make_unique<MovingGame>(), 3, bots::Pattern::kCircle,
                                           move_a_teleport_at_120(), older_step);
  const auto differs = run_command(std::string(FOOTHOLD_REPLAY_BIN) + " verify " + altered.path);
  EXPECT_EQ(differs.exit_code, 1) << differs.output;
  EXPECT_NE(differs.output.find("MISMATCH: tick 120"), std::string::npos) << differs.output;
  EXPECT_NE(differs.output.find("not this build's step (version " + std::to_string(kSimulationVersion) +
                                "): the step changed between them, so its results may differ; this is not a desync"),
            std::string::npos)
      << differs.output;
  EXPECT_EQ(differs.output.find("a desync (a determinism bug"), std::string::npos) << differs.output;
  // A recording of a format before 7 names no simulation version: said as unknown.
  replay::RecordingWriter writer;
  auto header = server::server_recording_header("arena", arena_world(), MoveSettings{}, 1, 60);
  header.format_version = 6;
  ASSERT_TRUE(writer.open(dir.file("v6.rec"), header));
  writer.close(0);
  const auto v6 = run_command(std::string(FOOTHOLD_REPLAY_BIN) + " verify " + dir.file("v6.rec"));
  EXPECT_NE(v6.output.find("recorded with an unknown simulation version (recording format 6)"), std::string::npos)
      << v6.output;
}

// A client that never heard of a game's command (the same recording re-simulated without them)
// parts from the server at the command's tick: the diff names the server as the cause, and the
// report's timeline marks the tick as a server correction.
TEST(RecordingCommands, TheDiffAndTheReportNameTheServerAsTheCauseOfACommandsCorrection) {
  TempDir dir;
  const RecordedGame r = record_game(dir, "moving", std::make_unique<MovingGame>(), 2, bots::Pattern::kCircle);
  ASSERT_GT(r.rec.command_count, 0u);
  replay::ResimOptions keep;
  keep.keep_states = true;
  replay::LoadedRecording unheard = r.rec;
  unheard.commands.clear();
  std::ostringstream server_csv, client_csv;
  replay::write_trace(r.rec, replay::resimulate(r.rec, arena_world(), keep), server_csv);
  replay::write_trace(unheard, replay::resimulate(unheard, arena_world(), keep), client_csv);
  std::ofstream(dir.file("server.csv")) << server_csv.str();
  std::ofstream(dir.file("client.csv")) << client_csv.str();
  replay::Trace a, b;
  std::string err;
  ASSERT_TRUE(replay::read_trace(dir.file("server.csv"), a, err)) << err;
  ASSERT_TRUE(replay::read_trace(dir.file("client.csv"), b, err)) << err;
  auto diff = replay::diff_traces(a, b, 0);
  replay::explain_divergences(diff, r.rec, r.rec);
  std::size_t diverged = 0;
  for (const auto& d : diff.characters) {
    if (!d.diverged) continue;
    ++diverged;
    // The first tick a state-changing command reached this character.
    const replay::Timeline* tl = nullptr;
    for (const auto& t : r.rec.characters)
      if (t.id == d.id) tl = &t;
    ASSERT_NE(tl, nullptr);
    uint32_t first = 0;
    for (std::size_t i = 0; i < tl->commanded.size() && first == 0; ++i)
      if (tl->commanded[i]) first = tl->first_tick + uint32_t(i);
    EXPECT_EQ(d.first_divergent_tick, first) << "character " << d.id;
    EXPECT_EQ(d.cause, replay::CharacterDiff::Cause::kServer) << d.explanation;
    EXPECT_NE(d.explanation.find("server at tick " + std::to_string(first)), std::string::npos) << d.explanation;
    std::vector<TraceRow> ra, rb;
    for (const auto& row : a.rows)
      if (row.id == d.id) ra.push_back(row);
    for (const auto& row : b.rows)
      if (row.id == d.id) rb.push_back(row);
    const auto statuses = replay::tick_statuses(ra, rb, &r.rec, &r.rec);
    const auto at = std::find_if(statuses.begin(), statuses.end(), [&](const auto& st) { return st.first == first; });
    ASSERT_NE(at, statuses.end());
    EXPECT_EQ(at->second, replay::TickStatus::kCorrectedServer);
  }
  EXPECT_EQ(diverged, r.rec.characters.size()) << "every character was moved by the game";
  const auto cli = run_command(std::string(FOOTHOLD_REPLAY_BIN) + " diff " + dir.file("server.csv") + " " +
                               dir.file("client.csv") + " --inputs-a " + r.path);
  EXPECT_NE(cli.output.find("by_server=" + std::to_string(diverged) + "\n"), std::string::npos) << cli.output;
}

}  // namespace
}  // namespace foothold::test
