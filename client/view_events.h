#pragma once
// Who came into this client's view and who left it: the players it sees, named by their client ids
// (and the characters the server's game drives, NPCs, which have none),
// as events a game polls (a model to spawn, a name tag, "Ana left"). The view is the server's
// choice of the characters of interest to this client (the nearest, at most proto::kMaxRemotes),
// so a character comes and goes as players join and leave the match and as they come within or go
// out of range; the server says which of the two a leave is.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "proto/compact.h"

namespace foothold::client {

/// One change to the view.
struct ViewEvent {
  enum class Kind : uint8_t {
    kNone = 0,
    kAppeared = 1,   ///< came into view: a player who joined, or one now within range
    kLeftView = 2,   ///< went out of range (still in the match), or left unseen between two snapshots
    kLeftMatch = 3,  ///< left the match (disconnected, timed out, removed by the game)
  };
  Kind kind = Kind::kNone;
  uint32_t character_id = 0;
  uint64_t client_id = 0;  ///< the player's, from their connect token (0 for an NPC)
  uint32_t tick = 0;       ///< the snapshot that showed it
  bool npc = false;        ///< a character the server's game drives (an NPC), not a player's
};

/// The events between the views of consecutive snapshots, queued until taken. Holds at most
/// kCapacity (the oldest are dropped, and counted, when a game never takes them); allocates nothing.
class ViewEvents {
 public:
  static constexpr std::size_t kCapacity = 1024;

  /// Queues what changed from `before` (the previous newest view) to `now` (the newest, of snapshot
  /// `tick`), both sorted by id: an appearance for each id only `now` has, a leave for each only
  /// `before` has, of the match when `gone` (ascending: the ids the server said left it) has it.
  void update(const proto::RemoteView& before, const proto::RemoteView& now, std::span<const uint32_t> gone,
              uint32_t tick);
  /// The oldest event not taken yet, into `out`; false when there is none.
  bool take(ViewEvent& out);
  /// Events queued and not taken.
  std::size_t size() const { return size_; }
  /// Events dropped because kCapacity were waiting.
  uint64_t dropped() const { return dropped_; }

 private:
  void push(const ViewEvent& e);

  std::array<ViewEvent, kCapacity> ring_{};
  std::size_t head_ = 0, size_ = 0;
  uint64_t dropped_ = 0;
};

}  // namespace foothold::client
