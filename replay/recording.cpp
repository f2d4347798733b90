#include "replay/recording.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "replay/crc32c.h"
#include "replay/recording_generated.h"

namespace foothold::replay {

namespace {

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

void put_u32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (8 * i));
}
uint32_t get_u32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

}  // namespace

RecordingWriter::RecordingWriter() : fbb_(std::make_unique<flatbuffers::FlatBufferBuilder>(1 << 16)) {}

RecordingWriter::~RecordingWriter() {
  if (file_) std::fclose(file_);
}

bool RecordingWriter::open(const std::string& path, const RecordingHeader& h) {
  path_ = path;
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
                                            m.jump_buffer, m.crouch_height, m.crouch_speed);
  const auto header = rec::CreateHeader(fbb, h.format_version, fbb.CreateString(h.source), fbb.CreateString(h.world),
                                        h.world_hash, settings, h.settings_hash, h.start_tick, h.keyframe_interval, h.character_id);
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

void RecordingWriter::write_tick(const TickData& t) {
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
  const auto tick = rec::CreateTick(fbb, t.tick, fbb.CreateVectorOfStructs(joins), fbb.CreateVector(t.leaves), in_vec, sum_vec);
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
  const auto kf = rec::CreateKeyframe(fbb, k.tick, fbb.CreateVectorOfStructs(states));
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
  opts.max_depth = 4;
  opts.max_tables = 16;
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
  if (header_.format_version != kRecordingFormat) {
    error_ = name_ + ": recording format " + std::to_string(header_.format_version) + " is not the supported " +
             std::to_string(kRecordingFormat);
    return false;
  }
  header_.source = h->source() ? h->source()->str() : "";
  header_.world = h->world() ? h->world()->str() : "";
  header_.world_hash = h->world_hash();
  header_.settings_hash = h->settings_hash();
  header_.start_tick = h->start_tick();
  header_.keyframe_interval = h->keyframe_interval();
  header_.character_id = h->character_id();
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
  pos_ += 8 + size;
  return true;
}

RecordingReader::Next RecordingReader::next() {
  if (finished_) return Next::kEnd;
  const uint8_t* payload = nullptr;
  uint32_t size = 0;
  std::string why;
  record_offset_ = pos_;
  switch (frame(bytes_, pos_, payload, size, why)) {
    case Frame::kEnd:
      return Next::kEnd;
    case Frame::kTruncated:
      error_ = name_ + ": the file ends inside the record at byte " + std::to_string(pos_) + " (" +
               std::to_string(bytes_.size() - pos_) + " bytes of it)";
      finished_ = true;
      return Next::kTruncated;
    case Frame::kCorrupt:
      error_ = name_ + ": corrupt record at byte " + std::to_string(pos_) + ": " + why;
      finished_ = true;
      return Next::kCorrupt;
    case Frame::kOk:
      break;
  }
  const rec::Record* r = verify(payload, size);
  if (!r) {
    error_ = name_ + ": corrupt record at byte " + std::to_string(pos_) + ": it fails verification";
    finished_ = true;
    return Next::kCorrupt;
  }
  pos_ += 8 + size;
  switch (r->body_type()) {
    case rec::Body::Tick: {
      const rec::Tick* t = r->body_as_Tick();
      tick_.tick = t->tick();
      tick_.joins.clear();
      tick_.leaves.clear();
      tick_.inputs.clear();
      tick_.checksums.clear();
      if (t->joins())
        for (const rec::Join* j : *t->joins()) tick_.joins.push_back({j->id(), from_rec(j->state())});
      if (t->leaves())
        for (uint32_t id : *t->leaves()) tick_.leaves.push_back(id);
      if (t->inputs())
        for (const rec::Input* in : *t->inputs()) {
          InputCmd cmd;
          cmd.tick = tick_.tick;
          cmd.move_x = in->move_x() == -128 ? int8_t(-127) : in->move_x();
          cmd.move_z = in->move_z() == -128 ? int8_t(-127) : in->move_z();
          cmd.buttons = uint8_t(in->buttons() & kKnownButtons);
          tick_.inputs.push_back({in->id(), cmd, in->repeated(), in->met()});
        }
      if (t->checksums())
        for (const rec::Checksum* c : *t->checksums()) tick_.checksums.push_back({c->id(), c->hash()});
      return Next::kTick;
    }
    case rec::Body::Keyframe: {
      const rec::Keyframe* k = r->body_as_Keyframe();
      keyframe_.tick = k->tick();
      keyframe_.states.clear();
      if (k->states())
        for (const rec::KeyState* s : *k->states()) keyframe_.states.push_back({s->id(), from_rec(s->state())});
      return Next::kKeyframe;
    }
    case rec::Body::Footer:
      finished_ = true;
      return Next::kFooter;
    default:
      error_ = name_ + ": unexpected record at byte " + std::to_string(record_offset_) + " (a second header)";
      finished_ = true;
      return Next::kCorrupt;
  }
}

}  // namespace foothold::replay
