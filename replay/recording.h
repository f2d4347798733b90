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

/// The file's first 8 bytes.
inline constexpr char kRecordingMagic[8] = {'F', 'T', 'H', 'D', 'R', 'E', 'C', '1'};
/// The format version written and the only one read.
inline constexpr uint16_t kRecordingFormat = 3;  ///< 2: states carry the jump state; 3: posture, platform, every setting
/// The largest record accepted (a tick of 4096 characters is well below it).
inline constexpr uint32_t kMaxRecordSize = 16u << 20;

/// What a recording is of: the first record of every file.
struct RecordingHeader {
  /// kRecordingFormat.
  uint16_t format_version = kRecordingFormat;
  std::string source;         ///< "server" or "bot"
  std::string world;          ///< "arena" or an OBJ path
  /// World::hash() of the world recorded: re-simulation needs the same one.
  uint64_t world_hash = 0;
  /// The movement settings (tick_rate included); a reader checks them against settings_hash.
  MoveSettings settings;
  /// MoveSettings::hash() of `settings`.
  uint64_t settings_hash = 0;
  /// The first tick the recording was to hold (server ticks).
  uint32_t start_tick = 0;
  /// Keyframes follow ticks that are multiples of it (0: none; a bot's recording has none).
  uint32_t keyframe_interval = 0;
  uint32_t character_id = 0;  ///< a bot's own character
};

/// A character and its state (a join going into a tick, or a keyframe's state after one).
struct JoinEntry {
  /// The character's id (the server's).
  uint32_t id = 0;
  CharacterState state;  ///< going into the tick
};
/// The input a character consumed in a tick.
struct InputEntry {
  /// The character's id.
  uint32_t id = 0;
  InputCmd input;         ///< its tick field is the record's tick
  /// The server repeated an earlier input: the client's had not arrived.
  bool repeated = false;
  /// Its step met another character: its result depended on where the others were (movement.md §16).
  bool met = false;
};
/// A character's state checksum after a tick.
struct ChecksumEntry {
  /// The character's id.
  uint32_t id = 0;
  uint32_t hash = 0;      ///< low 32 bits of CharacterState::hash() after the tick
};
/// One tick's record. Every list is in ascending id order.
struct TickData {
  /// The server tick.
  uint32_t tick = 0;
  /// Characters that joined before this tick, with their state going into it.
  std::vector<JoinEntry> joins;
  /// Characters that left before this tick.
  std::vector<uint32_t> leaves;
  /// One per character simulated in this tick.
  std::vector<InputEntry> inputs;
  /// One per character simulated, after this tick.
  std::vector<ChecksumEntry> checksums;
};
/// Every character's full state after a tick: where re-simulation may start.
struct KeyframeData {
  /// The tick the states are after.
  uint32_t tick = 0;
  std::vector<JoinEntry> states;  ///< every character's state after `tick`
};

/// The checksum recorded for a state: the low 32 bits of CharacterState::hash().
inline uint32_t state_checksum(const CharacterState& s) { return uint32_t(s.hash()); }

/// Writes a recording. Errors (a full disk) are reported through ok()/error(), never thrown: a
/// failing recorder must not take a server down. After an error every write does nothing. Not
/// thread-safe.
class RecordingWriter {
 public:
  /// A writer with no file yet (open() makes one).
  RecordingWriter();
  /// Closes a file still open without writing a footer: it reads as cut short, not clean.
  ~RecordingWriter();
  RecordingWriter(const RecordingWriter&) = delete;
  RecordingWriter& operator=(const RecordingWriter&) = delete;

  /// Creates (or truncates) `path` and writes the magic and the header. Call once. From then on the
  /// writer flushes every header.settings.tick_rate ticks (a second of ticks) and after each keyframe.
  bool open(const std::string& path, const RecordingHeader& header);
  /// Appends a Tick record (ticks in order, one after the other).
  void write_tick(const TickData& tick);
  /// Appends a Keyframe record and flushes.
  void write_keyframe(const KeyframeData& keyframe);
  /// Writes the footer (with `last_tick` and the ticks written) and closes the file; nothing when not
  /// open.
  void close(uint32_t last_tick);
  /// Pushes buffered records to the operating system (they survive the process from then on).
  void flush();

  /// True from open() creating the file until close().
  bool is_open() const { return file_ != nullptr; }
  /// False after any error; error() says what.
  bool ok() const { return error_.empty(); }
  /// What went wrong, naming the path; empty while ok().
  const std::string& error() const { return error_; }
  /// Bytes written so far, magic included.
  uint64_t bytes_written() const { return bytes_; }
  /// Tick records written so far.
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
/// checked and its FlatBuffer verified before it is read. The whole file is held in memory.
class RecordingReader {
 public:
  /// Reads the whole file and its header. On failure returns false; error() says why.
  bool open(const std::string& path);
  /// The same from bytes in memory (tests, fuzzing); `name` appears in messages.
  bool open_bytes(std::vector<uint8_t> bytes, const std::string& name);

  /// The header (valid after open() succeeded; its settings match their hash).
  const RecordingHeader& header() const { return header_; }

  /// What next() found.
  enum class Next : uint8_t {
    /// A tick record: tick() holds it.
    kTick,
    /// A keyframe: keyframe() holds it.
    kKeyframe,
    /// The footer: the file was closed cleanly. next() returns kEnd from now on.
    kFooter,
    kEnd,        ///< no more records: the file ended at a record boundary
    kTruncated,  ///< the file ends inside a record (a crash while writing): everything before is good
    kCorrupt,    ///< a record failed its CRC or its verification: error() names the byte offset
  };
  /// Reads the next record. After kTruncated or kCorrupt (or kFooter) it returns kEnd.
  Next next();
  /// The tick last read (overwritten by the next one).
  const TickData& tick() const { return tick_; }
  /// The keyframe last read (overwritten by the next one).
  const KeyframeData& keyframe() const { return keyframe_; }
  /// Byte offset of the record last read (or of the one that failed).
  uint64_t offset() const { return record_offset_; }
  /// The file's size in bytes.
  uint64_t size() const { return bytes_.size(); }
  /// Why open() failed or reading stopped early, naming the file (and the byte offset).
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
