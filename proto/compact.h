#pragma once
// The hot messages of a session, bit-packed (WIRE_FORMAT.md, "Compact messages"): the server's
// snapshots and the client's inputs, sent 60 times a second each way. They travel sealed in the
// session layer like every Packet, under their own prefix (kCompactPrefix), and carry no
// FlatBuffers framing.
//
// Snapshots are deltas against a baseline the client is known to hold: the view of the other
// characters that the client reconstructed from the snapshot it acknowledged. A snapshot names the
// characters of that view that changed (or left), adds the ones that are new, and leaves the rest
// as they were; the encoder never writes more than its byte budget. The client's own state is a
// 32-bit digest unless a correction may be owed (the server repeated an input, its step met another
// character, or a game's command changed the state, since the snapshot the client acknowledged), or
// the client asked for it. A snapshot may also carry replicated attributes: the game's integers for
// the client's own character and for the match, only those the server chose to send; and, at its
// end, the attributes other clients see (visibility `all`) of characters in the view it describes.
//
// Every reader here treats its bytes as untrusted: any field out of range, a count beyond the
// limits, a reference to a character the baseline does not hold, a read past the end or trailing
// bits refuse the whole message.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "shared/character_state.h"
#include "shared/mover_clock.h"
#include "shared/input.h"

namespace foothold::proto {

class BitWriter;

/// Another character where it stands: the capsule centre in 1/256 m (the published position,
/// movement.md §16), ground kind, posture and the mover it stands on (index + 1, 0: none). This is
/// what a delta changes, and all a server keeps of a view entry for its deltas (20 bytes: the views a
/// server keeps are most of its memory per client).
struct RemotePose {
  uint32_t id = 0;
  int32_t x = 0, y = 0, z = 0;
  uint8_t ground = 0;
  bool crouched = false;
  uint16_t platform = 0;
  bool operator==(const RemotePose&) const = default;
  /// The same position, posture, ground and platform (the ids aside: they never change).
  bool same_as(const RemotePose& o) const {
    return x == o.x && y == o.y && z == o.z && ground == o.ground && crouched == o.crouched && platform == o.platform;
  }
};
/// Another character as a client knows it: where it stands, and which player it is.
struct RemoteState : RemotePose {
  /// The client id of the player it is (from their connect token): sent when the character enters a
  /// view, kept with it while it stays. No delta reads it.
  uint64_t client_id = 0;
  /// A character the server's game drives (an NPC), not a player's (protocol 13): it has no client
  /// id (0). Sent with client_id, when the character enters a view.
  bool npc = false;
  bool operator==(const RemoteState&) const = default;
};
/// `s` without its client id.
inline RemotePose pose_of(const RemoteState& s) { return s; }
/// A view as the server keeps it (RemotePose), sorted by ascending id.
using PoseView = std::vector<RemotePose>;

/// Remote coordinates lie in [-kRemoteCoordLimit, kRemoteCoordLimit): a 1/1024 m int32 shifted right by 2.
inline constexpr int32_t kRemoteCoordLimit = int32_t(1) << 29;

/// The characters one client knows of, sorted by ascending id (at most kMaxViewSize).
using RemoteView = std::vector<RemoteState>;
/// Most characters in a view (the wire's kMaxRemotes; checked again here so the codec stands alone).
inline constexpr std::size_t kMaxViewSize = 48;
/// Snapshots a server keeps as delta bases, and a client keeps the views of: 64, over a second at
/// 60 Hz, so that a round trip that long still finds its base (beyond it the base is empty, and a
/// snapshot carries only the characters that fit the budget).
inline constexpr std::size_t kBaseHistory = 64;

/// What a compact message is (its first two bits).
enum class CompactKind : uint8_t { kSnapshot = 1, kInputs = 2 };

/// The kind of a compact message, or 0 when it is empty.
CompactKind compact_kind(std::span<const uint8_t> message);

/// Replicated attributes a game declares for each character: slots 0 to kCharacterAttributes - 1.
inline constexpr int kCharacterAttributes = 16;
/// Replicated attributes a game declares for the match: slots kCharacterAttributes and up.
inline constexpr int kMatchAttributes = 16;
/// Attribute slots a snapshot may carry: the receiving client's own character's, then the match's.
inline constexpr int kAttributeSlots = 32;
static_assert(kCharacterAttributes + kMatchAttributes == kAttributeSlots);

/// Most movers' clocks a snapshot carries (its movers section); more changed ones take turns.
inline constexpr std::size_t kMaxSnapshotMovers = 4;
/// A mover's clock as a snapshot carries it: the newest segment the game's commands gave it
/// (shared/mover_clock.h). Its from_tick is never after the snapshot's tick.
struct MoverUpdate {
  uint16_t index = 0;    ///< the mover's (World::movers())
  MoverSegment segment;  ///< from its from_tick on
  bool operator==(const MoverUpdate&) const = default;
};

/// A snapshot's fields besides the other characters.
struct SnapshotHeader {
  uint32_t tick = 0;              ///< the server tick just simulated (the client's input for it is acknowledged)
  uint32_t repeated_mask = 0;     ///< bit i: tick `tick - i` was simulated with a repeated input
  uint32_t interaction_mask = 0;  ///< bit i: in tick `tick - i` the character's step met another character
  /// Bit i: at the start of tick `tick - i` a game command changed the character's state (teleport,
  /// velocity, freeze, profile): the third cause of a correction, beside the other two masks.
  uint32_t server_mask = 0;
  uint32_t received_through = 0;  ///< every input up to this tick has arrived (at least `tick`)
  int16_t input_lead = 0;         ///< newest input tick received minus `tick` (the clock steering's measure)
  uint32_t echo_delay_us = 0;     ///< held since that newest input arrived, microseconds (sent in 100 us units)
  bool has_own_state = false;     ///< `own` is sent in full; else only `own_digest`
  CharacterState own;             ///< the client's exact state after `tick` (when has_own_state)
  uint32_t own_digest = 0;        ///< state_digest(own), always
  uint32_t base_tick = 0;         ///< the snapshot whose view this one is a delta against (0: none, an empty view)
  /// Bit s: attribute_values[s] is carried. Slots 0 to 15 are the receiving client's own character's
  /// attributes, 16 to 31 the match's. What is not carried, the client keeps as it had it.
  uint32_t attribute_mask = 0;
  /// The carried attributes' values (the others are ignored by the writer and read as 0).
  std::array<int32_t, kAttributeSlots> attribute_values{};
  /// The movers' clocks carried, the first mover_count of `movers`, ascending index: each until the
  /// client acknowledges a snapshot that carried it.
  uint8_t mover_count = 0;
  std::array<MoverUpdate, kMaxSnapshotMovers> movers{};
};

/// A 32-bit digest of a character's exact state (CharacterState::digest(): every field).
inline uint32_t state_digest(const CharacterState& s) { return s.digest(); }
/// Every character in a client's view that changed is in one of its snapshots at least this often
/// (unless the budget is taken by others as overdue): a receiver may take a longer silence as rest.
inline constexpr uint32_t kMaxStalenessMs = 500;
/// Bytes a snapshot datagram never exceeds (encryption included), by default: the one place the
/// default of the server's `snapshot_budget` is written (its config, the core and --help read it).
inline constexpr int kDefaultSnapshotBudget = 200;
/// The smallest snapshot budget: room for the largest header and a full own state, with some left.
inline constexpr int kMinSnapshotBudget = 128;

/// Bits of a snapshot's fixed part for this header and a base view of `base_size` characters,
/// the attributes of h.attribute_mask included.
std::size_t snapshot_header_bits(const SnapshotHeader& h, uint32_t snapshot_interval, std::size_t base_size);
/// Bits one carried mover clock costs in a snapshot of tick `tick` (besides the section's fixed 3).
std::size_t mover_bits(const MoverUpdate& m, uint32_t tick);
/// Bits one carried attribute of this value costs (its slot and the value; 11 for -8 to 7, 15 for
/// -128 to 127, 23 for -32768 to 32767, 39 beyond), besides the section's fixed 6 (WIRE_FORMAT.md):
/// what a server weighs when it chooses which changed attributes fit its budget.
std::size_t attribute_bits(int32_t value);
/// Bits of one change to a character of the base view: an update to `now` or (now == nullptr) its
/// removal (with its reason: out of view or gone from the match).
std::size_t change_bits(const RemotePose& base, const RemoteState* now);
/// Bits of a character new to the view, at most (its id costs less after another new one).
std::size_t addition_bits(const RemoteState& now);

/// The attributes of one character of a snapshot's view that every client seeing it receives (a
/// game's visibility `all`, server/game.h GameSchema::seen_by_all), those the server chose to carry.
struct SeenAttributes {
  uint32_t id = 0;    ///< the character's
  uint16_t mask = 0;  ///< bit i: values[i] (character attribute i) is carried
  std::array<int32_t, kCharacterAttributes> values{};  ///< the carried ones' values (the others ignored; read as 0)
};
/// Bits the seen attributes' section costs once when it holds any (its count), besides its
/// presence bit (which snapshot_header_bits() counts).
inline constexpr std::size_t kSeenSectionBits = 6;
/// Bits each character of the section costs (its entry in the view and its count), besides its attributes.
inline constexpr std::size_t kSeenCharacterBits = 6 + 4;
/// Bits one attribute of this value costs within a character's entry of the section (its index and
/// the value: 10 for -8 to 7, 14 for -128 to 127, 22 for -32768 to 32767, 38 beyond).
std::size_t seen_attribute_bits(int32_t value);

/// Most characters a snapshot gives in full for the receiver's prediction (its neighbours section).
inline constexpr std::size_t kMaxSnapshotNeighbours = 8;

/// A character near the receiving client's own, given in full: its exact state after the snapshot's
/// tick and the input the server stepped it with for that tick, so that the client can step it itself
/// while it predicts (shared/predictor.h, PredictedNeighbour). On the wire it leans on its entry in the
/// view the snapshot describes, which must show it as it is (its published position, ground, posture
/// and platform: a neighbour whose entry is older is left out), and it costs about 14 bytes.
struct SnapshotNeighbour {
  uint32_t id = 0;
  /// Exact, but for platform_offset, which is not sent: on a platform the wire carries
  /// `offset_residual` instead, and read_snapshot() leaves platform_offset zero.
  CharacterState state;
  /// On a platform: platform_offset less the offset both sides derive from the position
  /// (platform_offset_guess(), shared/mover_frame.h), which this layer knows nothing of. A few
  /// 1/1024 m at most; zero off a platform.
  FixedVec3 offset_residual;
  InputCmd input;  ///< the tick field is not sent (read as 0)
  /// The inputs the server already holds for the ticks right after (the first ahead_count; tick
  /// fields not sent): each costs a bit when it repeats the one before, 19 when it does not.
  std::array<InputCmd, kMaxInputsAhead> ahead{};
  uint8_t ahead_count = 0;
};
/// Bits of one neighbour on the wire; the section adds kNeighboursSectionBits once when it holds any
/// (snapshot_header_bits() counts the bit that says whether it does).
std::size_t neighbour_bits(const SnapshotNeighbour& n);
inline constexpr std::size_t kNeighboursSectionBits = 3;

/// Builds one snapshot. Call begin(), then change() for characters of the base view (any order),
/// add() for new ones (any order), neighbours() if any, then finish().
class SnapshotWriter {
 public:
  /// `base` is the view the client reconstructed from snapshot `h.base_tick` (empty when 0), as the
  /// server keeps it (it must outlive finish()); `snapshot_interval` is the session's (ticks between
  /// snapshots; base offsets are counted in it).
  void begin(const SnapshotHeader& h, std::span<const RemotePose> base, uint32_t snapshot_interval);
  /// Marks base entry `index` as changed to `now`, or removed (nullptr): `gone` when its character
  /// left the match, not only the view. `now` is kept by address: it must outlive finish().
  void change(std::size_t index, const RemoteState* now, bool gone = false);
  /// A character not in the base view.
  void add(const RemoteState& now);
  /// Characters to give in full (ascending id, at most kMaxSnapshotNeighbours: the rest are left
  /// out), each written only if the view this snapshot describes shows it as it is. Kept by address:
  /// `neighbours` must outlive finish().
  void neighbours(std::span<const SnapshotNeighbour> neighbours) { neighbours_ = neighbours; }
  /// Attributes others see of characters of the view this snapshot describes (ascending id, each
  /// with a non-zero mask, at most kMaxViewSize; one not in that view is left out). Kept by address:
  /// `seen` must outlive finish().
  void seen(std::span<const SeenAttributes> seen) { seen_ = seen; }
  /// Writes the message into `out`; returns its bytes (empty when it does not fit), and the view the
  /// client will reconstruct from it in `view` (less the client ids).
  std::span<const uint8_t> finish(std::span<uint8_t> out, PoseView& view);

 private:
  const SnapshotHeader* header_ = nullptr;
  std::span<const RemotePose> base_;
  uint32_t interval_ = 1;
  // 16 bytes, the new state by address: copied in, it was a 32-byte store per change to read back
  // once in finish().
  struct Change {
    bool touched = false;
    bool removed = false;
    bool gone = false;
    const RemoteState* now = nullptr;
  };
  std::vector<Change> changes_;  // one per base entry
  std::vector<RemoteState> added_;
  std::span<const SnapshotNeighbour> neighbours_;
  std::span<const SeenAttributes> seen_;
  void put_neighbours(BitWriter& w, const PoseView& view) const;
  void put_seen(BitWriter& w, const PoseView& view) const;
};

/// Why read_snapshot refused a message.
enum class SnapshotError : uint8_t { kNone, kMalformed, kBadValue, kUnknownBase, kTooMany };

/// Reads a snapshot's header only (to find its base before reading the rest). `reference_tick` is
/// a tick the receiver knows to be within 32768 ticks of it (its newest snapshot's, or the Accept's).
SnapshotError read_snapshot_header(std::span<const uint8_t> message, uint32_t reference_tick, uint32_t snapshot_interval,
                                   SnapshotHeader& h);
/// Reads a whole snapshot against `base` (the view of snapshot h.base_tick; ignored when it is 0) and
/// writes the view it describes into `view`. `changed` receives the ids sent in this snapshot (updated
/// or added), ascending, for the interpolation's samples; `gone` (when given) the ids of the base
/// removed because they left the match, ascending. Nothing is trusted: see the header comment.
/// `neighbours` (when given) receives the characters the snapshot gives in full, ascending id;
/// `seen` (when given) the attributes others see that it carries, ascending id.
SnapshotError read_snapshot(std::span<const uint8_t> message, uint32_t reference_tick, uint32_t snapshot_interval,
                            const RemoteView& base, SnapshotHeader& h, RemoteView& view, std::vector<uint32_t>& changed,
                            std::vector<uint32_t>* gone = nullptr, std::vector<SnapshotNeighbour>* neighbours = nullptr,
                            std::vector<SeenAttributes>* seen = nullptr);

/// The client's inputs for a run of consecutive ticks ending at `newest_tick`, oldest first.
struct InputsHeader {
  uint32_t ack_snapshot = 0;  ///< the newest snapshot the client decoded (0: none yet)
  uint32_t newest_tick = 0;   ///< the tick of the last input
  bool want_state = false;    ///< the client's prediction disagrees with a digest: send the full state
};
/// Most inputs in one message.
inline constexpr std::size_t kMaxCompactInputs = 32;
/// Writes `inputs` (consecutive ticks, the last one h.newest_tick; their tick fields are ignored;
/// at most kMaxCompactInputs, the newest kept). Returns the bytes in `out` (empty when it does not fit).
std::span<const uint8_t> write_inputs(const InputsHeader& h, std::span<const InputCmd> inputs, std::span<uint8_t> out);
/// Reads inputs. `reference_tick` is within 32768 ticks of both the ack and the inputs' ticks (the
/// server's current tick). Inputs are cleaned as from_wire() does; false when malformed.
bool read_inputs(std::span<const uint8_t> message, uint32_t reference_tick, InputsHeader& h, std::vector<InputCmd>& inputs);

/// A 32-bit tick from its low 16 bits, the one nearest `reference` (ticks within 32768 of it).
uint32_t widen_tick(uint16_t low, uint32_t reference);

}  // namespace foothold::proto
