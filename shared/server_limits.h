#pragma once
// The ranges of a server's configuration that more than the server must know. A recording is held to
// them when it is read (replay/recording.h): it can hold nothing a server could not have done, so a
// file that claims more is refused before anything is sized by it. server/server_config.cpp's
// validate() holds the configuration's keys to the same constants, so the two cannot drift apart.
// Here, not in server/, because replay/ (below the server) reads them.

#include <cstdint>

namespace foothold {

/// Sessions at once (max_clients, [1, kMaxServerClients]); also the most one address may hold
/// (max_clients_per_address). A server never simulates more players' characters at once.
inline constexpr int kMaxServerClients = 4096;
/// Characters a game drives (NPCs, GameControl::spawn) at once, beside the players; also the most
/// NPCs an operator may ask a game for (npcs, [0, kMaxNpcs]).
inline constexpr int kMaxNpcs = 1024;
/// Milliseconds of the past a game's lag-compensated queries may rewind to (rewind_window,
/// [0, kMaxRewindWindowMs]); in ticks, kMaxRewindWindowMs * tick_rate / 1000 (rewind_window_ticks()).
inline constexpr int kMaxRewindWindowMs = 1000;
/// Ticks between snapshots (snapshot_interval, [1, kMaxSnapshotInterval]). snapshot_rate, at least
/// one a second, may make it up to a second of ticks instead (max_snapshot_ticks()).
inline constexpr int kMaxSnapshotInterval = 60;
/// Bytes of reliable messages one session may have queued each way (message_queue,
/// [kMinMessageQueue, kMaxMessageQueue]): a receiver that would hold more cuts the peer off, and the
/// server takes all it holds every tick, so no client hands the game more in one tick.
inline constexpr int kMinMessageQueue = 64 << 10;
inline constexpr int kMaxMessageQueue = 16 << 20;

/// The most ticks a rewind window may hold at `tick_rate` ticks per second (the server's own
/// arithmetic: rewind_window ms * tick_rate / 1000, rounded down).
constexpr uint32_t max_rewind_ticks(int tick_rate) { return uint32_t(int64_t(kMaxRewindWindowMs) * tick_rate / 1000); }
/// The most ticks between snapshots at `tick_rate`: snapshot_interval's most, or a second of ticks
/// (snapshot_rate = 1), whichever is more.
constexpr uint32_t max_snapshot_ticks(int tick_rate) {
  return uint32_t(tick_rate > kMaxSnapshotInterval ? tick_rate : kMaxSnapshotInterval);
}

}  // namespace foothold
