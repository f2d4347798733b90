#pragma once
// Which ticks a client is sent its snapshots on. With snapshots every `interval` ticks, client `id`
// has them on the ticks t with t % interval == id % interval: ids are handed out in order, so each
// tick builds, seals and sends the snapshots of about 1/interval of the clients, where sending
// everyone's on the same tick made that tick cost the whole lot and the ones between it almost
// nothing (4,000 clients every second tick on 2 threads: 25 ms against 7 ms). The tick's cost,
// and its burst of datagrams, is then the same every tick. Recordings of format 9 on are of
// servers that stagger; older ones replay with every client's snapshots on the multiples of the
// interval, as they were sent.

#include <cstdint>

namespace foothold::server {

/// The ticks between snapshots (0: none at all, for benchmarks of the simulation alone) and whether
/// clients take turns (false: every client on the multiples of the interval, as servers before
/// recording format 9 sent them).
struct SnapshotSchedule {
  uint32_t interval = 1;
  bool staggered = true;

  /// Client `id`'s snapshot ticks are those congruent to this, modulo the interval.
  uint32_t phase(uint32_t id) const { return staggered && interval > 1 ? id % interval : 0; }
  /// Whether client `id` is sent a snapshot of tick `tick`.
  bool due(uint32_t id, uint32_t tick) const { return interval == 1 || (interval > 1 && tick % interval == phase(id)); }
  /// The newest of client `id`'s snapshot ticks at or before `tick` (0 when there is none).
  uint32_t latest(uint32_t id, uint32_t tick) const {
    if (interval == 0) return 0;
    if (interval == 1) return tick;
    const uint32_t back = (tick % interval + interval - phase(id)) % interval;
    return back <= tick ? tick - back : 0;
  }
};

}  // namespace foothold::server
