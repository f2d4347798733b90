#pragma once
// Recordings: what a server (or a bot) consumed, tick by tick, so that a run can be re-simulated.
//
// File: the 8-byte magic "FTHDREC1", then records. A record is
//   uint32 size (little-endian, a multiple of 8) | uint32 CRC-32C of the payload | payload
// and the payload is one FlatBuffers `Record` (replay/recording.fbs). The first record is the
// Header; then Tick records in tick order, a Keyframe every keyframe_interval ticks, and a Footer
// when the file was closed cleanly. A tick's messages (what the game was handed at its start) come
// in Messages records just before its Tick record: none when there were none, several when one
// record would hold too many (format 4; format 3 has none). Records are only ever appended, and the
// writer flushes at least once a second of ticks, so a file cut short by a crash holds every record
// completed before.

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <flatbuffers/flatbuffers.h>

#include "shared/character_state.h"
#include "shared/game_command.h"
#include "shared/input.h"
#include "shared/server_limits.h"
#include "shared/settings.h"
#include "shared/simulation_version.h"

namespace foothold::rec {  // recording.fbs's tables (recording_generated.h), for the reader's private parts
struct Record;
struct Tick;
struct Messages;
}  // namespace foothold::rec

namespace foothold::replay {

/// The file's first 8 bytes.
inline constexpr char kRecordingMagic[8] = {'F', 'T', 'H', 'D', 'R', 'E', 'C', '1'};
/// The format version written.
inline constexpr uint16_t kRecordingFormat = 13;  ///< 2: states carry the jump state; 3: posture, platform, every setting; 4: messages; 5: the game's commands, frozen states, movement profiles; 6: what the game was told and sent (players, sent messages, the game's name, snapshot interval, rewind window); 7: the simulation version and the build that recorded it; 8: the fleet's allocation the game was handed; 9: a server's clients take turns at their snapshots (server/snapshot_phase.h: the same records, a game's rewinds and newest snapshots differ); 10: each handed-over message's timing (what the server had measured of its sender); 11: the seed of the game's random source; 12: the game's mover commands (GameCommandKind::kMover); 13: characters the game drives (GameCommandKind::kSpawn: NPCs, their joins and inputs as a client's) and the NPCs asked for (--npcs)
/// The oldest format read. Format 3 is format 4 without Messages records (a server of format 3 did
/// not record the messages it handed over), so its ticks read with none; format 4 is format 5
/// without commands, profiles or frozen states, so it reads with none; 2 and older are refused.
inline constexpr uint16_t kOldestRecordingFormat = 3;
/// The largest record accepted (a tick of 4096 characters is well below it).
inline constexpr uint32_t kMaxRecordSize = 16u << 20;
/// A recorded message's bytes at most: the largest message the message layer delivers
/// (proto::MessageLimits::max_message, which replay/ cannot include; server/recorder.cpp checks it).
inline constexpr uint32_t kMaxRecordedMessage = 64u << 10;
/// Messages in one Messages record at most. The server does not bound how many it hands over in a
/// tick (every client's, up to 4096 clients), so a tick with more is written in several records:
/// the cap bounds a record, never what a tick may hold.
inline constexpr uint32_t kMaxMessagesPerRecord = 4096;
/// Unreliable message bytes a session holds at most (proto::MessageConfig::unreliable_queue, which
/// replay/ cannot include; server/recorder.cpp checks it).
inline constexpr uint32_t kMaxRecordedUnreliableQueue = 16u << 10;
/// Message bytes one client hands the game in one tick at most, and bytes the game's sends to one
/// client that are taken (verdict 0) in one tick: a session's reliable queue at its most
/// (kMaxMessageQueue; over it a receiver cuts the peer off, a sender refuses) and its unreliable
/// one. The server takes everything each session holds every tick, so a tick cannot hold more. The
/// reader refuses a tick over it: a tick's messages gather across any number of records.
inline constexpr uint64_t kMaxMessageBytesPerClientTick = uint64_t(kMaxMessageQueue) + kMaxRecordedUnreliableQueue;
/// Message bytes the writer puts in one record at most (half of kMaxRecordSize: the heads fit in the
/// rest); a tick with more goes on in the next record.
inline constexpr uint32_t kMessageBytesPerRecord = kMaxRecordSize / 2;

/// What a recording is of: the first record of every file.
struct RecordingHeader {
  /// kRecordingFormat when written; read: kOldestRecordingFormat .. kRecordingFormat.
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
  /// Format 6 (empty or 0 before): the game the server ran (empty: none), the ticks between its
  /// snapshots and its rewind window in ticks: what replaying the game's decisions needs.
  std::string game;
  uint32_t snapshot_interval = 0;
  uint32_t rewind_window = 0;
  /// Format 7 (0 and empty before: unknown): the simulation version of the build that recorded it
  /// (shared/simulation_version.h) and that build's version line.
  uint32_t simulation_version = kSimulationVersion;
  std::string recorded_by;
  /// Format 11 (0 before: no game could draw random numbers then): the seed of the game's random
  /// source (GameControl::random()), which a replay of the game must use again.
  uint64_t game_seed = 0;
  /// Format 13 (0 before): the NPCs the operator asked the game for (--npcs, GameControl::npcs_wanted()),
  /// which a replay of the game asks it for again.
  uint32_t npcs = 0;
};

/// Why `header` claims more than the server it came from could have had: a rewind window or a
/// snapshot interval over the server's most at the header's tick rate (shared/server_limits.h),
/// naming the field and the limit; empty when within. RecordingReader::open() refuses such a header
/// (a replay of the game sizes its rewind memory by them).
std::string header_limit_problem(const RecordingHeader& header);

/// A connect token's user data, at most (proto::kMaxUserData, which replay/ cannot include;
/// server/recorder.cpp checks it).
inline constexpr std::size_t kMaxRecordedUserData = 256;

/// A character and its state (a join going into a tick, or a keyframe's state after one).
struct JoinEntry {
  /// The character's id (the server's).
  uint32_t id = 0;
  CharacterState state;  ///< going into the tick
};
/// What the game was told of a character that joined (format 6): its connect token's client id and
/// user data.
struct PlayerEntry {
  uint64_t client_id = 0;
  std::vector<uint8_t> user_data;  ///< at most kMaxRecordedUserData bytes
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
/// A message the game was handed at the start of a tick (ServerCore's message handler).
struct MessageEntry {
  /// The sender's character id (TickData::sent: the recipient's).
  uint32_t client = 0;
  bool reliable = true;        ///< its channel: reliable, else unreliable
  std::vector<uint8_t> bytes;  ///< 1 .. kMaxRecordedMessage bytes
  uint8_t result = 0;          ///< TickData::sent: the send's verdict (proto::SendError)
  /// TickData::messages, format 10 (0 before: unknown): the newest input tick that had arrived from
  /// the sender and the newest snapshot tick it had acknowledged when it was handed over.
  uint32_t newest_input = 0, acked_snapshot = 0;
};
/// A character's state checksum after a tick.
struct ChecksumEntry {
  /// The character's id.
  uint32_t id = 0;
  uint32_t hash = 0;      ///< low 32 bits of CharacterState::hash() after the tick
};
/// The fleet's allocation as the game was handed it (server/game.h's Allocation): its GameServer's
/// labels and annotations, each sorted by key. At most kMaxAllocationEntries of each, each key and
/// value at most kMaxAllocationText bytes (the server hands the game no more than it can record).
struct AllocationEntry {
  std::vector<std::pair<std::string, std::string>> labels;
  std::vector<std::pair<std::string, std::string>> annotations;
};
inline constexpr std::size_t kMaxAllocationEntries = 64;
inline constexpr std::size_t kMaxAllocationText = 4096;
/// Why `allocation` cannot be recorded (too many entries, an entry too long, keys unsorted or
/// repeated), or empty when it can.
std::string allocation_problem(const AllocationEntry& allocation);

/// One tick's record. Every list but `messages` is in ascending id order.
struct TickData {
  /// The server tick.
  uint32_t tick = 0;
  /// Characters that joined before this tick, with their state going into it.
  std::vector<JoinEntry> joins;
  /// Characters that left before this tick.
  std::vector<uint32_t> leaves;
  /// Format 6: one per join, in its order, when a game was told of them; else empty.
  std::vector<PlayerEntry> players;
  /// One per character simulated in this tick.
  std::vector<InputEntry> inputs;
  /// One per character simulated, after this tick.
  std::vector<ChecksumEntry> checksums;
  /// Handed to the game at the start of this tick, before the steps, in the order handed over (each
  /// from a character simulated in this tick). Empty in a format 3 recording.
  std::vector<MessageEntry> messages;
  /// The game's commands applied before this tick's steps, in the order applied (after the joins and
  /// leaves: a command may name a character that left, and then does nothing). Empty before format 5.
  std::vector<GameCommand> commands;
  /// What the game sent since the steps of the tick before (its after_tick, then this tick's joins,
  /// leaves and messages), in the order sent, each to one client. Empty before format 6.
  std::vector<MessageEntry> sent;
  /// Format 8: the fleet's allocation, handed to the game at the start of this tick, before the
  /// leaves; none in every other tick.
  std::optional<AllocationEntry> allocation;
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
  /// Appends the tick's messages (Messages records, if it has any) and its Tick record (ticks in
  /// order, one after the other). A message of 0 or over kMaxRecordedMessage bytes, or any message
  /// in a header of format 3, is an error: nothing of the tick is written.
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
  bool check_messages(const TickData& tick);
  void write_messages(uint32_t tick, std::span<const MessageEntry> messages, bool sent);
  std::FILE* file_ = nullptr;
  uint16_t format_ = kRecordingFormat;  // the header's: format 3 carries no messages
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
    /// A tick record: tick() holds it, with the messages of the Messages records before it.
    kTick,
    /// A keyframe: keyframe() holds it.
    kKeyframe,
    /// The footer: the file was closed cleanly. next() returns kEnd from now on.
    kFooter,
    kEnd,        ///< no more records: the file ended at a record boundary
    /// The file ends inside a record, or after a tick's messages but before its Tick record (a crash
    /// while writing): everything before is good.
    kTruncated,
    /// A record failed its CRC, its verification or a bound (a message's size, messages per record),
    /// or came out of place: error() names the byte offset and what was wrong.
    kCorrupt,
    /// A record holds more than the server it came from could have handled (shared/server_limits.h):
    /// more characters in a tick, or at once, than max_clients; more message bytes of one client in a
    /// tick than kMaxMessageBytesPerClientTick. Not damage a crash leaves: error() names the field,
    /// the figure and the limit, and the recording is to be refused whole (exit 2), not read up to it.
    kRefused,
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
  // Frames and verifies the record at pos_ into `record`; what next() returns when there is none.
  std::optional<Next> read_record(const rec::Record*& record);
  // Ends reading with `kind`; error() becomes the name and `why`.
  Next stop(Next kind, const std::string& why);
  // Reads a Tick record into tick_ (after the messages taken before it); empty, or why it is corrupt.
  std::string read_tick(const rec::Tick& tick);
  // Appends a Messages record's messages to pending_; empty, or why it is corrupt.
  std::string take_messages(const rec::Messages& messages);
  // Checks the counts of a Tick record (and the characters at once after it) against the server's
  // most; empty, or why it is refused (refused_ set).
  std::string tick_limits(const rec::Tick& tick);
  // `why`, with refused_ set: what next() then returns kRefused for.
  std::string refuse(std::string why);
  bool refused_ = false;
  // The characters present after the last tick read (its leaves, then its joins), by id: at most
  // kMaxServerClients of them.
  std::set<uint32_t> live_;
  // Per client, the message bytes of the pending tick: handed over (pending_bytes_) and sent and
  // taken (pending_sent_bytes_).
  std::map<uint32_t, uint64_t> pending_bytes_, pending_sent_bytes_;
  std::vector<uint8_t> bytes_;
  std::string name_;
  std::size_t pos_ = 0;
  uint64_t record_offset_ = 0;
  std::string error_;
  RecordingHeader header_;
  TickData tick_;
  KeyframeData keyframe_;
  bool finished_ = false;
  // Messages (and sent ones) read for tick messages_tick_, whose Tick record has not come yet.
  std::vector<MessageEntry> pending_, pending_sent_;
  bool has_pending() const { return !pending_.empty() || !pending_sent_.empty(); }
  uint32_t messages_tick_ = 0;
  uint64_t messages_offset_ = 0;  // the byte offset of the first of them
  // "the messages of tick T (from byte B)", for errors about the pending ones.
  std::string pending_messages() const;
};

}  // namespace foothold::replay
