#pragma once
// Recordings: what a server (or a bot) consumed, tick by tick, so that a run can be re-simulated.
//
// File: the 8-byte magic "FTHDREC1", then records. A record is
//   uint32 size (little-endian, a multiple of 8) | uint32 CRC-32C of the payload | payload
// and the payload is one FlatBuffers `Record` (replay/recording.fbs). The first record is the
// Header; then Tick records in tick order, a Keyframe every keyframe_interval ticks, and a Footer
// when the file was closed cleanly. Records are only ever appended, and the writer flushes at
// least once a second of ticks, so a file cut short by a crash holds every record completed before.

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <flatbuffers/flatbuffers.h>

#include "shared/character_state.h"
#include "shared/input.h"
#include "shared/settings.h"

namespace foothold::replay {

inline constexpr char kRecordingMagic[8] = {'F', 'T', 'H', 'D', 'R', 'E', 'C', '1'};
inline constexpr uint16_t kRecordingFormat = 1;
/// The largest record accepted (a tick of 4096 characters is well below it).
inline constexpr uint32_t kMaxRecordSize = 16u << 20;

struct RecordingHeader {
  uint16_t format_version = kRecordingFormat;
  std::string source;         ///< "server" or "bot"
  std::string world;          ///< "arena" or an OBJ path
  uint64_t world_hash = 0;
  MoveSettings settings;
  uint64_t settings_hash = 0;
  uint32_t start_tick = 0;
  uint32_t keyframe_interval = 0;
  uint32_t character_id = 0;  ///< a bot's own character
};

struct JoinEntry {
  uint32_t id = 0;
  CharacterState state;  ///< going into the tick
};
struct InputEntry {
  uint32_t id = 0;
  InputCmd input;         ///< its tick field is the record's tick
  bool repeated = false;
};
struct ChecksumEntry {
  uint32_t id = 0;
  uint32_t hash = 0;      ///< low 32 bits of CharacterState::hash() after the tick
};
/// One tick's record. Every list is in ascending id order.
struct TickData {
  uint32_t tick = 0;
  std::vector<JoinEntry> joins;
  std::vector<uint32_t> leaves;
  std::vector<InputEntry> inputs;
  std::vector<ChecksumEntry> checksums;
};
struct KeyframeData {
  uint32_t tick = 0;
  std::vector<JoinEntry> states;  ///< every character's state after `tick`
};

inline uint32_t state_checksum(const CharacterState& s) { return uint32_t(s.hash()); }

/// Writes a recording. Errors (a full disk) are reported through ok()/error(), never thrown: a
/// failing recorder must not take a server down.
class RecordingWriter {
 public:
  RecordingWriter();
  ~RecordingWriter();
  RecordingWriter(const RecordingWriter&) = delete;
  RecordingWriter& operator=(const RecordingWriter&) = delete;

  /// Creates (or truncates) `path` and writes the magic and the header.
  bool open(const std::string& path, const RecordingHeader& header);
  void write_tick(const TickData& tick);
  void write_keyframe(const KeyframeData& keyframe);
  /// Writes the footer and closes the file.
  void close(uint32_t last_tick);
  /// Pushes buffered records to the operating system (they survive the process from then on).
  void flush();

  bool is_open() const { return file_ != nullptr; }
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  uint64_t bytes_written() const { return bytes_; }
  uint32_t ticks_written() const { return ticks_; }

 private:
  void write_record(flatbuffers::FlatBufferBuilder& fbb);
  std::FILE* file_ = nullptr;
  std::string path_;
  std::string error_;
  uint64_t bytes_ = 0;
  uint32_t ticks_ = 0;
  uint32_t unflushed_ticks_ = 0;
  uint32_t flush_every_ = 60;
  std::unique_ptr<flatbuffers::FlatBufferBuilder> fbb_;
};

/// Reads a recording record by record. Nothing in the file is trusted: every record's CRC is
/// checked and its FlatBuffer verified before it is read.
class RecordingReader {
 public:
  /// Reads the whole file and its header. On failure returns false; error() says why.
  bool open(const std::string& path);
  /// The same from bytes in memory (tests, fuzzing); `name` appears in messages.
  bool open_bytes(std::vector<uint8_t> bytes, const std::string& name);

  const RecordingHeader& header() const { return header_; }

  enum class Next : uint8_t {
    kTick,
    kKeyframe,
    kFooter,
    kEnd,        ///< no more records: the file ended at a record boundary
    kTruncated,  ///< the file ends inside a record (a crash while writing): everything before is good
    kCorrupt,    ///< a record failed its CRC or its verification: error() names the byte offset
  };
  Next next();
  const TickData& tick() const { return tick_; }
  const KeyframeData& keyframe() const { return keyframe_; }
  /// Byte offset of the record last read (or of the one that failed).
  uint64_t offset() const { return record_offset_; }
  uint64_t size() const { return bytes_.size(); }
  const std::string& error() const { return error_; }

 private:
  bool read_header();
  std::vector<uint8_t> bytes_;
  std::string name_;
  std::size_t pos_ = 0;
  uint64_t record_offset_ = 0;
  std::string error_;
  RecordingHeader header_;
  TickData tick_;
  KeyframeData keyframe_;
  bool finished_ = false;
};

}  // namespace foothold::replay
