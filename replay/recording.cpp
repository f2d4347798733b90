#include "replay/recording.h"

#include <cerrno>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "replay/crc32c.h"
#include "replay/recording_generated.h"

namespace foothold::replay {

namespace {

// An allocation's key-value pairs as the record keeps them: key, value, key, value...
std::vector<std::string> flattened(const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::vector<std::string> out;
  for (const auto& [k, v] : pairs) {
    out.push_back(k);
    out.push_back(v);
  }
  return out;
}

// ...and back; empty, or why the record's list is not pairs.
std::string paired(const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>* list,
                   std::vector<std::pair<std::string, std::string>>& out) {
  if (!list) return {};
  if (list->size() % 2 != 0) return "a key without its value";
  if (list->size() / 2 > kMaxAllocationEntries) return std::to_string(list->size() / 2) + " entries (at most " + std::to_string(kMaxAllocationEntries) + ")";
  for (uint32_t i = 0; i < list->size(); i += 2) {
    const flatbuffers::String* k = list->Get(i);
    const flatbuffers::String* v = list->Get(i + 1);
    out.emplace_back(k ? k->str() : std::string(), v ? v->str() : std::string());
  }
  return {};
}

}  // namespace

// What makes an allocation unrecordable (empty: nothing): too many entries, a key or value too long,
// keys out of order or repeated.
std::string allocation_problem(const AllocationEntry& a) {
  for (const auto* list : {&a.labels, &a.annotations}) {
    const char* what = list == &a.labels ? "labels" : "annotations";
    if (list->size() > kMaxAllocationEntries)
      return std::to_string(list->size()) + " " + what + " (at most " + std::to_string(kMaxAllocationEntries) + ")";
    for (std::size_t i = 0; i < list->size(); ++i) {
      const auto& [k, v] = (*list)[i];
      if (k.size() > kMaxAllocationText || v.size() > kMaxAllocationText)
        return std::string(what) + ": an entry over " + std::to_string(kMaxAllocationText) + " bytes";
      if (i > 0 && !((*list)[i - 1].first < k)) return std::string(what) + " not sorted by key, or a key twice";
    }
  }
  return {};
}

namespace {

// A name from a file, as it may be printed: at most 200 characters, anything but printable ASCII
// as '?' (a file is untrusted: no terminal control sequences reach a reader's screen).
std::string printable(std::string text) {
  if (text.size() > 200) text.resize(200);
  for (char& c : text)
    if (c < 0x20 || c > 0x7e) c = '?';
  return text;
}


rec::State to_rec(const CharacterState& s) {
  return rec::State(rec::Vec3i(s.position.x, s.position.y, s.position.z), rec::Vec3i(s.velocity.x, s.velocity.y, s.velocity.z),
                    rec::Normal3s(s.floor_normal.x, s.floor_normal.y, s.floor_normal.z), static_cast<uint8_t>(s.ground),
                    s.air_ticks, s.jump_buffer, s.jump_held ? 1 : 0, s.crouched ? 1 : 0, s.platform,
                    rec::Vec3i(s.platform_offset.x, s.platform_offset.y, s.platform_offset.z));
}

CharacterState from_rec(const rec::State& r) {
  CharacterState s;
  s.position = {r.position().x(), r.position().y(), r.position().z()};
  s.velocity = {r.velocity().x(), r.velocity().y(), r.velocity().z()};
  s.floor_normal = {r.floor_normal().x(), r.floor_normal().y(), r.floor_normal().z()};
  s.ground = r.ground() < kGroundKindCount ? static_cast<GroundKind>(r.ground()) : GroundKind::kNone;
  s.air_ticks = r.air_ticks();
  s.jump_buffer = r.jump_buffer();
  s.jump_held = r.jump_held() != 0;
  s.crouched = r.crouched() != 0;
  s.platform = r.platform();
  s.platform_offset = {r.platform_offset().x(), r.platform_offset().y(), r.platform_offset().z()};
  return s;
}

rec::StateExtra extra_of(const CharacterState& s) { return rec::StateExtra(s.frozen ? 1 : 0, s.profile); }

// Format 5's extras, one per state when present: the states a format 4 file holds have none.
template <class Vector>
std::string apply_extras(const Vector* extras, std::size_t states, std::vector<JoinEntry>& out) {
  if (!extras) return {};
  if (extras->size() != states)
    return std::to_string(extras->size()) + " state extras for " + std::to_string(states) + " states";
  for (std::size_t i = 0; i < states; ++i) {
    const rec::StateExtra* e = extras->Get(flatbuffers::uoffset_t(i));
    if (e->frozen() > 1 || e->profile() > kMaxProfiles)
      return "a state extra out of range (frozen " + std::to_string(e->frozen()) + ", profile " + std::to_string(e->profile()) + ")";
    out[out.size() - states + i].state.frozen = e->frozen() != 0;
    out[out.size() - states + i].state.profile = e->profile();
  }
  return {};
}

// Format 11's pushes of a keyframe, one per state when present: horizontal, each axis within what a
// command may set (GameCommand's kMaxCommandSpeed), as apply_command() holds them.
std::string apply_pushes(const flatbuffers::Vector<const rec::Vec3i*>* pushes, std::vector<JoinEntry>& states) {
  if (!pushes) return {};
  if (pushes->size() != states.size())
    return std::to_string(pushes->size()) + " pushes for " + std::to_string(states.size()) + " states";
  const int64_t limit = int64_t(kMaxCommandSpeed * kVelocityScale);
  for (std::size_t i = 0; i < states.size(); ++i) {
    const rec::Vec3i* p = pushes->Get(flatbuffers::uoffset_t(i));
    if (p->y() != 0 || std::abs(int64_t(p->x())) > limit || std::abs(int64_t(p->z())) > limit)
      return "a push out of range (" + std::to_string(p->x()) + "," + std::to_string(p->y()) + "," + std::to_string(p->z()) + ")";
    states[i].state.push = {p->x(), 0, p->z()};
  }
  return {};
}

void put_u32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (8 * i));
}
uint32_t get_u32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

}  // namespace

namespace {

flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<rec::Profile>>> write_profiles(flatbuffers::FlatBufferBuilder& fbb,
                                                                                          const MoveSettings& m) {
  if (m.profiles.empty()) return 0;
  std::vector<flatbuffers::Offset<rec::Profile>> profiles;
  for (const MoveProfile& p : m.profiles)
    profiles.push_back(rec::CreateProfile(fbb, fbb.CreateString(p.name), p.walk_speed, p.crouch_speed, p.jump_speed, p.gravity,
                                          p.air_acceleration, p.max_fall_speed, p.coyote_time, p.jump_buffer));
  return fbb.CreateVector(profiles);
}

}  // namespace

RecordingWriter::RecordingWriter() : fbb_(std::make_unique<flatbuffers::FlatBufferBuilder>(1 << 16)) {}

RecordingWriter::~RecordingWriter() {
  if (file_) std::fclose(file_);
}

bool RecordingWriter::open(const std::string& path, const RecordingHeader& h) {
  path_ = path;
  format_ = h.format_version;
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_) {
    error_ = path + ": cannot create recording: " + std::strerror(errno);
    return false;
  }
  flush_every_ = uint32_t(std::max(1, h.settings.tick_rate));
  if (std::fwrite(kRecordingMagic, 1, sizeof kRecordingMagic, file_) != sizeof kRecordingMagic) {
    error_ = path + ": cannot write: " + std::strerror(errno);
    return false;
  }
  bytes_ = sizeof kRecordingMagic;
  auto& fbb = *fbb_;
  fbb.Clear();
  const MoveSettings& m = h.settings;
  const auto settings = rec::CreateSettings(fbb, m.tick_rate, m.radius, m.height, m.max_slope_deg, m.step_height, m.walk_speed,
                                            m.gravity, m.jump_speed, m.air_acceleration, m.max_fall_speed, m.contact_distance,
                                            m.safety_margin, m.max_iterations, m.max_pushout_iterations, m.coyote_time,
                                            m.jump_buffer, m.crouch_height, m.crouch_speed, write_profiles(fbb, m),
                                            m.push_friction, m.push_air_friction);
  const auto header = rec::CreateHeader(fbb, h.format_version, fbb.CreateString(h.source), fbb.CreateString(h.world),
                                        h.world_hash, settings, h.settings_hash, h.start_tick, h.keyframe_interval, h.character_id,
                                        h.format_version >= 6 ? fbb.CreateString(h.game) : 0, h.snapshot_interval,
                                        h.rewind_window, h.format_version >= 7 ? h.simulation_version : 0,
                                        h.format_version >= 7 ? fbb.CreateString(h.recorded_by) : 0,
                                        h.format_version >= 11 ? h.game_seed : 0, h.format_version >= 13 ? h.npcs : 0);
  fbb.Finish(rec::CreateRecord(fbb, rec::Body::Header, header.Union()), rec::RecordIdentifier());
  write_record(fbb);
  flush();
  return ok();
}

void RecordingWriter::write_record(flatbuffers::FlatBufferBuilder& fbb) {
  if (!file_ || !ok()) return;
  const uint32_t size = fbb.GetSize();
  const uint32_t padded = (size + 7u) & ~7u;
  static const uint8_t zeros[8] = {};
  // The CRC covers the padded payload, exactly the bytes a reader hands to the verifier.
  uint32_t crc = crc32c(fbb.GetBufferPointer(), size);
  crc = crc32c(zeros, padded - size, crc);
  uint8_t head[8];
  put_u32(head, padded);
  put_u32(head + 4, crc);
  const bool written = std::fwrite(head, 1, 8, file_) == 8 && std::fwrite(fbb.GetBufferPointer(), 1, size, file_) == size &&
                       std::fwrite(zeros, 1, padded - size, file_) == padded - size;
  if (!written) {
    error_ = path_ + ": writing the recording failed: " + std::strerror(errno);
    return;
  }
  bytes_ += 8 + padded;
}

bool RecordingWriter::check_messages(const TickData& t) {
  if (!t.commands.empty() && format_ < 5 && ok()) {
    error_ = path_ + ": tick " + std::to_string(t.tick) + " has the game's commands, which a format " + std::to_string(format_) +
             " recording cannot carry";
    return false;
  }
  if ((!t.sent.empty() || !t.players.empty()) && format_ < 6 && ok()) {
    error_ = path_ + ": tick " + std::to_string(t.tick) + " has what the game sent or was told of its players, which a format " +
             std::to_string(format_) + " recording cannot carry";
    return false;
  }
  if (!t.players.empty() && t.players.size() != t.joins.size() && ok()) {
    error_ = path_ + ": tick " + std::to_string(t.tick) + " has " + std::to_string(t.players.size()) + " players for " +
             std::to_string(t.joins.size()) + " joins";
    return false;
  }
  if (t.allocation && ok()) {
    std::string why = format_ < 8 ? "a format " + std::to_string(format_) + " recording cannot carry it" : allocation_problem(*t.allocation);
    if (!why.empty()) {
      error_ = path_ + ": tick " + std::to_string(t.tick) + " has an allocation: " + why;
      return false;
    }
  }
  for (const PlayerEntry& j : t.players)
    if (j.user_data.size() > kMaxRecordedUserData && ok()) {
      error_ = path_ + ": tick " + std::to_string(t.tick) + ": user data of " + std::to_string(j.user_data.size()) +
               " bytes cannot be recorded (at most " + std::to_string(kMaxRecordedUserData) + ")";
      return false;
    }
  if ((t.messages.empty() && t.sent.empty()) || !ok()) return true;
  if (format_ < 4) {
    error_ = path_ + ": tick " + std::to_string(t.tick) + " has messages, which a format " + std::to_string(format_) +
             " recording cannot carry";
    return false;
  }
  // The reader refuses these: writing one would make the rest of the file unreadable.
  for (const auto* list : {&t.messages, &t.sent})
   for (const MessageEntry& m : *list)
    if (m.bytes.empty() || m.bytes.size() > kMaxRecordedMessage) {
      error_ = path_ + ": tick " + std::to_string(t.tick) + ": a message of " + std::to_string(m.bytes.size()) +
               " bytes cannot be recorded (1 to " + std::to_string(kMaxRecordedMessage) + ")";
      return false;
    }
  return true;
}

void RecordingWriter::write_messages(uint32_t tick, std::span<const MessageEntry> messages, bool sent) {
  auto& fbb = *fbb_;
  std::size_t begin = 0;
  while (begin < messages.size()) {
    // As many as one record holds; one message always fits (kMaxRecordedMessage < kMessageBytesPerRecord).
    std::size_t end = begin;
    std::size_t bytes = 0;
    while (end < messages.size() && end - begin < kMaxMessagesPerRecord &&
           bytes + messages[end].bytes.size() <= kMessageBytesPerRecord)
      bytes += messages[end++].bytes.size();
    fbb.Clear();
    rec::MessageHead* heads = nullptr;
    const auto head_vec = fbb.CreateUninitializedVectorOfStructs(end - begin, &heads);
    for (std::size_t i = begin; i < end; ++i)
      heads[i - begin] = rec::MessageHead(messages[i].client, uint32_t(messages[i].bytes.size()), messages[i].reliable);
    uint8_t* out = nullptr;
    const auto byte_vec = fbb.CreateUninitializedVector(bytes, &out);
    for (std::size_t i = begin; i < end; ++i) {
      std::memcpy(out, messages[i].bytes.data(), messages[i].bytes.size());
      out += messages[i].bytes.size();
    }
    flatbuffers::Offset<flatbuffers::Vector<uint8_t>> result_vec = 0;
    if (sent) {
      uint8_t* results = nullptr;
      result_vec = fbb.CreateUninitializedVector(end - begin, &results);
      for (std::size_t i = begin; i < end; ++i) results[i - begin] = messages[i].result;
    }
    flatbuffers::Offset<flatbuffers::Vector<const rec::MessageTiming*>> timing_vec = 0;
    if (!sent) {
      rec::MessageTiming* timings = nullptr;
      timing_vec = fbb.CreateUninitializedVectorOfStructs(end - begin, &timings);
      for (std::size_t i = begin; i < end; ++i)
        timings[i - begin] = rec::MessageTiming(messages[i].newest_input, messages[i].acked_snapshot);
    }
    const auto body = rec::CreateMessages(fbb, tick, head_vec, byte_vec, sent, result_vec, timing_vec);
    fbb.Finish(rec::CreateRecord(fbb, rec::Body::Messages, body.Union()), rec::RecordIdentifier());
    write_record(fbb);
    begin = end;
  }
}

void RecordingWriter::write_tick(const TickData& t) {
  if (!check_messages(t)) return;
  write_messages(t.tick, t.messages, false);
  write_messages(t.tick, t.sent, true);
  auto& fbb = *fbb_;
  fbb.Clear();
  std::vector<rec::Join> joins;
  joins.reserve(t.joins.size());
  for (const auto& j : t.joins) joins.emplace_back(j.id, to_rec(j.state));
  rec::Input* inputs = nullptr;
  const auto in_vec = fbb.CreateUninitializedVectorOfStructs(t.inputs.size(), &inputs);
  for (std::size_t i = 0; i < t.inputs.size(); ++i) {
    const auto& e = t.inputs[i];
    inputs[i] = rec::Input(e.id, e.input.move_x, e.input.move_z, e.input.buttons, e.repeated, e.met);
  }
  rec::Checksum* sums = nullptr;
  const auto sum_vec = fbb.CreateUninitializedVectorOfStructs(t.checksums.size(), &sums);
  for (std::size_t i = 0; i < t.checksums.size(); ++i) sums[i] = rec::Checksum(t.checksums[i].id, t.checksums[i].hash);
  // Format 5's parts only where there is something: a tick of a game-less server is as it was.
  flatbuffers::Offset<flatbuffers::Vector<const rec::StateExtra*>> extra_vec = 0;
  if (std::any_of(t.joins.begin(), t.joins.end(), [](const JoinEntry& j) { return j.state.frozen || j.state.profile != 0; })) {
    std::vector<rec::StateExtra> extras;
    for (const auto& j : t.joins) extras.push_back(extra_of(j.state));
    extra_vec = fbb.CreateVectorOfStructs(extras);
  }
  flatbuffers::Offset<flatbuffers::Vector<const rec::Command*>> command_vec = 0;
  if (!t.commands.empty()) {
    rec::Command* commands = nullptr;
    command_vec = fbb.CreateUninitializedVectorOfStructs(t.commands.size(), &commands);
    for (std::size_t i = 0; i < t.commands.size(); ++i) {
      const GameCommand& c = t.commands[i];
      commands[i] = rec::Command(uint8_t(c.kind), c.slot, c.character, rec::Vec3i(c.vector.x, c.vector.y, c.vector.z), c.value);
    }
  }
  // Format 6's players only where a game was told of someone (a game-less server's joins carry none).
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<rec::Player>>> player_vec = 0;
  if (!t.players.empty()) {
    std::vector<flatbuffers::Offset<rec::Player>> players;
    for (const auto& j : t.players) players.push_back(rec::CreatePlayer(fbb, uint32_t(j.client_id), uint32_t(j.client_id >> 32), fbb.CreateVector(j.user_data)));
    player_vec = fbb.CreateVector(players);
  }
  // Format 8's allocation only in the tick that handed it over.
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>> label_vec = 0, annotation_vec = 0;
  if (t.allocation) {
    label_vec = fbb.CreateVectorOfStrings(flattened(t.allocation->labels));
    annotation_vec = fbb.CreateVectorOfStrings(flattened(t.allocation->annotations));
  }
  const auto tick = rec::CreateTick(fbb, t.tick, fbb.CreateVectorOfStructs(joins), fbb.CreateVector(t.leaves), in_vec, sum_vec,
                                    extra_vec, command_vec, player_vec, t.allocation.has_value(), label_vec, annotation_vec);
  fbb.Finish(rec::CreateRecord(fbb, rec::Body::Tick, tick.Union()), rec::RecordIdentifier());
  write_record(fbb);
  ++ticks_;
  if (++unflushed_ticks_ >= flush_every_) flush();
}

void RecordingWriter::write_keyframe(const KeyframeData& k) {
  auto& fbb = *fbb_;
  fbb.Clear();
  std::vector<rec::KeyState> states;
  states.reserve(k.states.size());
  for (const auto& s : k.states) states.emplace_back(s.id, to_rec(s.state));
  flatbuffers::Offset<flatbuffers::Vector<const rec::StateExtra*>> extra_vec = 0;
  if (std::any_of(k.states.begin(), k.states.end(), [](const JoinEntry& j) { return j.state.frozen || j.state.profile != 0; })) {
    std::vector<rec::StateExtra> extras;
    for (const auto& j : k.states) extras.push_back(extra_of(j.state));
    extra_vec = fbb.CreateVectorOfStructs(extras);
  }
  // Format 11's pushes only where a character has one.
  flatbuffers::Offset<flatbuffers::Vector<const rec::Vec3i*>> push_vec = 0;
  if (std::any_of(k.states.begin(), k.states.end(), [](const JoinEntry& j) { return j.state.push != FixedVec3{}; })) {
    std::vector<rec::Vec3i> pushes;
    for (const auto& j : k.states) pushes.emplace_back(j.state.push.x, 0, j.state.push.z);
    push_vec = fbb.CreateVectorOfStructs(pushes);
  }
  const auto kf = rec::CreateKeyframe(fbb, k.tick, fbb.CreateVectorOfStructs(states), extra_vec, push_vec);
  fbb.Finish(rec::CreateRecord(fbb, rec::Body::Keyframe, kf.Union()), rec::RecordIdentifier());
  write_record(fbb);
  flush();
}

void RecordingWriter::flush() {
  if (file_ && std::fflush(file_) != 0 && ok()) error_ = path_ + ": flushing the recording failed: " + std::strerror(errno);
  unflushed_ticks_ = 0;
}

void RecordingWriter::close(uint32_t last_tick) {
  if (!file_) return;
  auto& fbb = *fbb_;
  fbb.Clear();
  fbb.Finish(rec::CreateRecord(fbb, rec::Body::Footer, rec::CreateFooter(fbb, last_tick, ticks_).Union()), rec::RecordIdentifier());
  write_record(fbb);
  flush();
  if (std::fclose(file_) != 0 && ok()) error_ = path_ + ": closing the recording failed: " + std::strerror(errno);
  file_ = nullptr;
}

bool RecordingReader::open(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error_ = path + ": cannot open recording";
    return false;
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return open_bytes(std::move(bytes), path);
}

bool RecordingReader::open_bytes(std::vector<uint8_t> bytes, const std::string& name) {
  bytes_ = std::move(bytes);
  name_ = name;
  pos_ = 0;
  finished_ = false;
  pending_.clear();
  pending_sent_.clear();
  pending_bytes_.clear();
  pending_sent_bytes_.clear();
  live_.clear();
  refused_ = false;
  if (bytes_.size() < sizeof kRecordingMagic || std::memcmp(bytes_.data(), kRecordingMagic, sizeof kRecordingMagic) != 0) {
    error_ = name_ + ": not a Foothold recording (bad magic)";
    return false;
  }
  pos_ = sizeof kRecordingMagic;
  return read_header();
}

namespace {

// Frames the record at `pos`: its payload, or why there is none.
enum class Frame { kOk, kEnd, kTruncated, kCorrupt };
Frame frame(const std::vector<uint8_t>& b, std::size_t pos, const uint8_t*& payload, uint32_t& size, std::string& why) {
  if (pos == b.size()) return Frame::kEnd;
  if (b.size() - pos < 8) return Frame::kTruncated;
  size = get_u32(&b[pos]);
  const uint32_t crc = get_u32(&b[pos + 4]);
  if (size == 0 || size % 8 != 0 || size > kMaxRecordSize) {
    why = "bad record size " + std::to_string(size);
    return Frame::kCorrupt;
  }
  if (b.size() - pos - 8 < size) return Frame::kTruncated;
  payload = &b[pos + 8];
  if (crc32c(payload, size) != crc) {
    why = "CRC mismatch";
    return Frame::kCorrupt;
  }
  return Frame::kOk;
}

const rec::Record* verify(const uint8_t* payload, uint32_t size) {
  flatbuffers::Verifier::Options opts;
  opts.max_depth = 8;
  // A header's settings hold up to 15 profiles; a tick of a game's server one Player per join (up to
  // 4096 clients joining at once).
  opts.max_tables = 8192;
  flatbuffers::Verifier v(payload, size, opts);
  if (!rec::VerifyRecordBuffer(v)) return nullptr;
  const rec::Record* r = rec::GetRecord(payload);
  if (r->body_type() <= rec::Body::NONE || r->body_type() > rec::Body::MAX || !r->body()) return nullptr;
  return r;
}

}  // namespace

bool RecordingReader::read_header() {
  const uint8_t* payload = nullptr;
  uint32_t size = 0;
  std::string why;
  record_offset_ = pos_;
  const Frame f = frame(bytes_, pos_, payload, size, why);
  if (f != Frame::kOk) {
    error_ = name_ + ": the header record at byte " + std::to_string(pos_) + " is " +
             (f == Frame::kCorrupt ? "corrupt (" + why + ")" : std::string("missing or incomplete"));
    return false;
  }
  const rec::Record* r = verify(payload, size);
  if (!r || r->body_type() != rec::Body::Header) {
    error_ = name_ + ": the first record (byte " + std::to_string(pos_) + ") is not a valid header";
    return false;
  }
  const rec::Header* h = r->body_as_Header();
  header_.format_version = h->format_version();
  if (header_.format_version < kOldestRecordingFormat || header_.format_version > kRecordingFormat) {
    error_ = name_ + ": recording format " + std::to_string(header_.format_version) + " is not supported (" +
             std::to_string(kOldestRecordingFormat) + " to " + std::to_string(kRecordingFormat) + ")";
    return false;
  }
  header_.source = h->source() ? h->source()->str() : "";
  header_.world = h->world() ? h->world()->str() : "";
  header_.world_hash = h->world_hash();
  header_.settings_hash = h->settings_hash();
  header_.start_tick = h->start_tick();
  header_.keyframe_interval = h->keyframe_interval();
  header_.character_id = h->character_id();
  header_.game = h->game() ? h->game()->str() : "";
  header_.snapshot_interval = h->snapshot_interval();
  header_.rewind_window = h->rewind_window();
  header_.simulation_version = h->simulation_version();
  header_.recorded_by = h->recorded_by() ? printable(h->recorded_by()->str()) : "";
  header_.game_seed = h->game_seed();
  header_.npcs = h->npcs();
  if (const rec::Settings* s = h->settings()) {
    MoveSettings& m = header_.settings;
    m.tick_rate = s->tick_rate();
    m.radius = s->radius();
    m.height = s->height();
    m.max_slope_deg = s->max_slope_deg();
    m.step_height = s->step_height();
    m.walk_speed = s->walk_speed();
    m.gravity = s->gravity();
    m.jump_speed = s->jump_speed();
    m.air_acceleration = s->air_acceleration();
    m.max_fall_speed = s->max_fall_speed();
    m.contact_distance = s->contact_distance();
    m.safety_margin = s->safety_margin();
    m.max_iterations = s->max_iterations();
    m.max_pushout_iterations = s->max_pushout_iterations();
    m.coyote_time = s->coyote_time();
    m.jump_buffer = s->jump_buffer();
    m.crouch_height = s->crouch_height();
    m.crouch_speed = s->crouch_speed();
    if (h->format_version() >= 11) {  // before, there were no pushes: the defaults are as good as any
      m.push_friction = s->push_friction();
      m.push_air_friction = s->push_air_friction();
    }
    if (s->profiles())
      for (const rec::Profile* p : *s->profiles())
        m.profiles.push_back({p->name() ? p->name()->str() : "", p->walk_speed(), p->crouch_speed(), p->jump_speed(),
                              p->gravity(), p->air_acceleration(), p->max_fall_speed(), p->coyote_time(), p->jump_buffer()});
  } else {
    error_ = name_ + ": the header has no movement settings";
    return false;
  }
  if (auto problems = header_.settings.validate(); !problems.empty()) {
    error_ = name_ + ": the header's movement settings are invalid: " + problems[0];
    return false;
  }
  if (header_.settings.hash() != header_.settings_hash) {
    error_ = name_ + ": the header's settings do not match its settings hash";
    return false;
  }
  if (std::string over = header_limit_problem(header_); !over.empty()) {
    error_ = name_ + ": " + over;
    return false;
  }
  pos_ += 8 + size;
  return true;
}

std::string header_limit_problem(const RecordingHeader& h) {
  const int rate = h.settings.tick_rate;
  const std::string at = " at " + std::to_string(rate) + " Hz)";
  if (h.rewind_window > max_rewind_ticks(rate))
    return "rewind_window " + std::to_string(h.rewind_window) + " ticks is over the server's most, " +
           std::to_string(kMaxRewindWindowMs) + " ms (" + std::to_string(max_rewind_ticks(rate)) + " ticks" + at;
  if (h.snapshot_interval > max_snapshot_ticks(rate))
    return "snapshot_interval " + std::to_string(h.snapshot_interval) + " ticks is over the server's most, " +
           std::to_string(max_snapshot_ticks(rate)) + " ticks (snapshot_interval at most " + std::to_string(kMaxSnapshotInterval) +
           ", snapshot_rate at least 1 a second" + at;
  if (h.npcs > uint32_t(kMaxNpcs))
    return "npcs " + std::to_string(h.npcs) + " is over the most a game may be asked for, " + std::to_string(kMaxNpcs);
  return {};
}

std::string RecordingReader::refuse(std::string why) {
  refused_ = true;
  return why;
}

std::string RecordingReader::tick_limits(const rec::Tick& t) {
  const std::string tick = "tick " + std::to_string(t.tick()) + ": ";
  const std::string most = " is over the server's most, " + std::to_string(kMaxServerClients) + " (max_clients)";
  const std::pair<const char*, std::size_t> counts[] = {{"joins", t.joins() ? t.joins()->size() : 0},
                                                         {"leaves", t.leaves() ? t.leaves()->size() : 0},
                                                         {"inputs", t.inputs() ? t.inputs()->size() : 0},
                                                         {"checksums", t.checksums() ? t.checksums()->size() : 0}};
  for (const auto& [what, count] : counts)
    if (count > std::size_t(kMaxServerClients)) return refuse(tick + what + " " + std::to_string(count) + most);
  if (t.leaves())
    for (uint32_t id : *t.leaves()) live_.erase(id);
  if (t.joins())
    for (const rec::Join* j : *t.joins()) live_.insert(j->id());
  if (live_.size() > std::size_t(kMaxServerClients))
    return refuse(tick + "characters at once " + std::to_string(live_.size()) + most);
  return {};
}

std::string RecordingReader::pending_messages() const {
  return "the messages of tick " + std::to_string(messages_tick_) + " (from byte " + std::to_string(messages_offset_) + ")";
}

RecordingReader::Next RecordingReader::stop(Next kind, const std::string& why) {
  error_ = name_ + ": " + why;
  finished_ = true;
  return kind;
}

std::optional<RecordingReader::Next> RecordingReader::read_record(const rec::Record*& record) {
  const uint8_t* payload = nullptr;
  uint32_t size = 0;
  std::string why;
  record_offset_ = pos_;
  switch (frame(bytes_, pos_, payload, size, why)) {
    case Frame::kEnd:
      // Messages without their tick: the writer stopped between the two, as inside a record.
      if (has_pending())
        return stop(Next::kTruncated, "the file ends after " + pending_messages() + ", before its tick record");
      return Next::kEnd;
    case Frame::kTruncated:
      return stop(Next::kTruncated, "the file ends inside the record at byte " + std::to_string(pos_) + " (" +
                                        std::to_string(bytes_.size() - pos_) + " bytes of it)");
    case Frame::kCorrupt:
      return stop(Next::kCorrupt, "corrupt record at byte " + std::to_string(pos_) + ": " + why);
    case Frame::kOk:
      break;
  }
  record = verify(payload, size);
  if (!record) return stop(Next::kCorrupt, "corrupt record at byte " + std::to_string(pos_) + ": it fails verification");
  pos_ += 8 + size;
  return std::nullopt;
}

std::string RecordingReader::take_messages(const rec::Messages& m) {
  if (header_.format_version < 4)
    return "messages in a format " + std::to_string(header_.format_version) + " recording (format 4 added them)";
  if (has_pending() && m.tick() != messages_tick_)
    return "messages of tick " + std::to_string(m.tick()) + " follow " + pending_messages() + " without its tick record";
  if (m.sent() && header_.format_version < 6)
    return "the game's sent messages in a format " + std::to_string(header_.format_version) + " recording (format 6 added them)";
  std::vector<MessageEntry>& into = m.sent() ? pending_sent_ : pending_;
  const auto* heads = m.heads();
  const std::size_t count = heads ? heads->size() : 0;
  if (count == 0) return "a messages record with no message";
  if (count > kMaxMessagesPerRecord)
    return std::to_string(count) + " messages in one record (at most " + std::to_string(kMaxMessagesPerRecord) + ")";
  uint64_t total = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t size = heads->Get(i)->size();
    const std::string which = std::string(m.sent() ? "sent message " : "message ") + std::to_string(into.size() + i) +
                              " of tick " + std::to_string(m.tick());
    if (size == 0) return which + " is empty";
    if (size > kMaxRecordedMessage)
      return which + " is " + std::to_string(size) + " bytes (at most " + std::to_string(kMaxRecordedMessage) + ")";
    total += size;
  }
  const std::size_t held = m.bytes() ? m.bytes()->size() : 0;
  if (total != held)
    return "the messages' sizes add up to " + std::to_string(total) + " bytes, but the record holds " + std::to_string(held);
  if (m.sent() && (!m.results() || m.results()->size() != count))
    return "sent messages of tick " + std::to_string(m.tick()) + " without one result each";
  const auto* timings = m.sent() ? nullptr : m.timings();
  if (timings && timings->size() != count)
    return "messages of tick " + std::to_string(m.tick()) + " with " + std::to_string(timings->size()) + " timings for " +
           std::to_string(count) + " messages";
  if (!has_pending()) messages_offset_ = record_offset_;
  messages_tick_ = m.tick();
  // A tick's messages gather across any number of records: each client's bytes are held to what a
  // session could have handed over (or taken from the game) in one tick, and the clients to max_clients.
  std::map<uint32_t, uint64_t>& per_client = m.sent() ? pending_sent_bytes_ : pending_bytes_;
  for (uint32_t i = 0; i < count; ++i) {
    const rec::MessageHead* h = heads->Get(i);
    if (m.sent() && m.results()->Get(i) != 0) continue;  // refused by the send: nothing was queued
    uint64_t& bytes = per_client[h->client()];
    bytes += h->size();
    if (bytes <= kMaxMessageBytesPerClientTick && per_client.size() <= std::size_t(kMaxServerClients)) continue;
    const std::string tick = "tick " + std::to_string(m.tick()) + ": message bytes " + (m.sent() ? "sent to" : "from");
    if (bytes > kMaxMessageBytesPerClientTick)
      return refuse(tick + " character " + std::to_string(h->client()) + " " + std::to_string(bytes) +
                    " is over the server's most, " + std::to_string(kMaxMessageBytesPerClientTick) + " (message_queue at most " +
                    std::to_string(kMaxMessageQueue) + ", and " + std::to_string(kMaxRecordedUnreliableQueue) + " unreliable)");
    return refuse(tick + " " + std::to_string(per_client.size()) + " clients is over the server's most, " +
                  std::to_string(kMaxServerClients) + " (max_clients)");
  }
  const uint8_t* p = held ? m.bytes()->data() : nullptr;
  for (uint32_t i = 0; i < count; ++i) {
    const rec::MessageHead* h = heads->Get(i);
    into.push_back({h->client(), h->reliable(), std::vector<uint8_t>(p, p + h->size()), m.sent() ? m.results()->Get(i) : uint8_t(0)});
    if (timings) into.back().newest_input = timings->Get(i)->newest_input(), into.back().acked_snapshot = timings->Get(i)->acked_snapshot();
    p += h->size();
  }
  return {};
}

std::string RecordingReader::read_tick(const rec::Tick& t) {
  if (has_pending() && t.tick() != messages_tick_)
    return "the record of tick " + std::to_string(t.tick()) + " follows " + pending_messages();
  if (std::string why = tick_limits(t); !why.empty()) return why;
  tick_.tick = t.tick();
  tick_.joins.clear();
  tick_.players.clear();
  tick_.leaves.clear();
  tick_.inputs.clear();
  tick_.checksums.clear();
  tick_.commands.clear();
  tick_.allocation.reset();
  if (t.allocated()) {
    AllocationEntry a;
    std::string why = paired(t.labels(), a.labels);
    if (why.empty()) why = paired(t.annotations(), a.annotations);
    if (why.empty()) why = allocation_problem(a);
    if (!why.empty()) return "tick " + std::to_string(t.tick()) + ": its allocation: " + why;
    tick_.allocation = std::move(a);
  }
  if (t.joins())
    for (const rec::Join* j : *t.joins()) tick_.joins.push_back({j->id(), from_rec(j->state())});
  if (std::string why = apply_extras(t.join_extras(), tick_.joins.size(), tick_.joins); !why.empty())
    return "tick " + std::to_string(t.tick()) + ": " + why;
  if (const auto* players = t.players()) {
    if (players->size() != tick_.joins.size())
      return "tick " + std::to_string(t.tick()) + ": " + std::to_string(players->size()) + " players for " +
             std::to_string(tick_.joins.size()) + " joins";
    for (uint32_t i = 0; i < players->size(); ++i) {
      const rec::Player* p = players->Get(i);
      const std::size_t size = p->user_data() ? p->user_data()->size() : 0;
      if (size > kMaxRecordedUserData)
        return "tick " + std::to_string(t.tick()) + ": join " + std::to_string(i) + " has " + std::to_string(size) +
               " bytes of user data (at most " + std::to_string(kMaxRecordedUserData) + ")";
      PlayerEntry& e = tick_.players.emplace_back();
      e.client_id = uint64_t(p->client_id_high()) << 32 | p->client_id_low();
      if (size) e.user_data.assign(p->user_data()->begin(), p->user_data()->end());
    }
  }
  if (t.commands()) {
    for (const rec::Command* c : *t.commands()) {
      GameCommand g;
      const std::string which = "tick " + std::to_string(t.tick()) + ": command " + std::to_string(tick_.commands.size());
      if (c->kind() == 0 || c->kind() > kLastGameCommandKind || (c->kind() == uint8_t(GameCommandKind::kMover) && header_.format_version < 12) ||
          (c->kind() == uint8_t(GameCommandKind::kSpawn) && header_.format_version < 13))
        return which + " is of unknown kind " + std::to_string(c->kind());
      g.kind = GameCommandKind(c->kind());
      g.slot = c->slot();
      g.character = c->character();
      g.vector = {c->vector().x(), c->vector().y(), c->vector().z()};
      g.value = c->value();
      const bool attribute = g.kind == GameCommandKind::kAttribute || g.kind == GameCommandKind::kMatchAttribute;
      if (attribute && g.slot >= 16) return which + " names attribute " + std::to_string(g.slot) + " (0 to 15)";
      if (g.kind == GameCommandKind::kProfile && (g.value < 0 || g.value > kMaxProfiles))
        return which + " names profile " + std::to_string(g.value) + " (0 to " + std::to_string(kMaxProfiles) + ")";
      tick_.commands.push_back(g);
    }
  }
  if (t.leaves())
    for (uint32_t id : *t.leaves()) tick_.leaves.push_back(id);
  if (t.inputs())
    for (const rec::Input* in : *t.inputs()) {
      InputCmd cmd;
      cmd.tick = tick_.tick;
      cmd.move_x = in->move_x() == -128 ? int8_t(-127) : in->move_x();
      cmd.move_z = in->move_z() == -128 ? int8_t(-127) : in->move_z();
      cmd.buttons = uint8_t(in->buttons() & kKnownButtons);
      tick_.inputs.push_back({in->id(), cmd, in->repeated(), in->met()});
    }
  if (t.checksums())
    for (const rec::Checksum* c : *t.checksums()) tick_.checksums.push_back({c->id(), c->hash()});
  tick_.messages.swap(pending_);
  pending_.clear();
  tick_.sent.swap(pending_sent_);
  pending_sent_.clear();
  pending_bytes_.clear();
  pending_sent_bytes_.clear();
  return {};
}

RecordingReader::Next RecordingReader::next() {
  if (finished_) return Next::kEnd;
  // Messages records gather into pending_ until their tick's record takes them.
  while (true) {
    const rec::Record* r = nullptr;
    if (const auto stopped = read_record(r)) return *stopped;
    std::string why;
    switch (r->body_type()) {
      case rec::Body::Messages:
        why = take_messages(*r->body_as_Messages());
        if (why.empty()) continue;
        break;
      case rec::Body::Tick:
        why = read_tick(*r->body_as_Tick());
        if (why.empty()) return Next::kTick;
        break;
      case rec::Body::Keyframe: {
        if (has_pending()) {
          why = "a keyframe between " + pending_messages() + " and its tick record";
          break;
        }
        const rec::Keyframe* k = r->body_as_Keyframe();
        if (k->states() && k->states()->size() > uint32_t(kMaxServerClients)) {
          why = refuse("keyframe of tick " + std::to_string(k->tick()) + ": states " + std::to_string(k->states()->size()) +
                       " is over the server's most, " + std::to_string(kMaxServerClients) + " (max_clients)");
          break;
        }
        keyframe_.tick = k->tick();
        keyframe_.states.clear();
        if (k->states())
          for (const rec::KeyState* s : *k->states()) keyframe_.states.push_back({s->id(), from_rec(s->state())});
        why = apply_extras(k->extras(), keyframe_.states.size(), keyframe_.states);
        if (why.empty()) why = apply_pushes(k->pushes(), keyframe_.states);
        if (!why.empty()) break;
        return Next::kKeyframe;
      }
      case rec::Body::Footer:
        if (has_pending()) {
          why = "the footer follows " + pending_messages() + " without its tick record";
          break;
        }
        finished_ = true;
        return Next::kFooter;
      default:
        return stop(Next::kCorrupt, "unexpected record at byte " + std::to_string(record_offset_) + " (a second header)");
    }
    if (refused_) return stop(Next::kRefused, "refused: the record at byte " + std::to_string(record_offset_) + ": " + why);
    return stop(Next::kCorrupt, "corrupt record at byte " + std::to_string(record_offset_) + ": " + why);
  }
}

}  // namespace foothold::replay
