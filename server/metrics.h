#pragma once
// What the server tells Prometheus (#38): a snapshot of its counters and state that the tick thread
// publishes, and the text exposition format made from it. Plain data and a pure function: the HTTP
// side is server/metrics_server.h.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "server/counters.h"

namespace foothold::server {

/// Tick durations (wall clock), as a Prometheus histogram: counts per bucket, not cumulative.
struct TickHistogram {
  /// Upper bounds, seconds: a 60 Hz tick has 16.7 ms; the server's own target is under 8 ms.
  static constexpr std::array<double, 10> kBounds = {0.00025, 0.0005, 0.001, 0.002, 0.004,
                                                     0.008,   0.0167, 0.0333, 0.1,   1.0};
  std::array<uint64_t, kBounds.size() + 1> counts{};  ///< the last one: above every bound
  double sum_seconds = 0;
  uint64_t count = 0;
  void add(double seconds);
};

/// Everything /metrics says, as of one tick.
struct MetricsSnapshot {
  Counters counters;
  uint64_t send_errors = 0;     ///< datagrams the kernel refused (the sink's count)
  uint64_t gso_sends = 0;       ///< segmented sends: runs of datagrams to one address given to the kernel as one
  uint64_t gso_datagrams = 0;   ///< the datagrams those runs held
  std::size_t clients = 0;
  std::size_t max_clients = 0;
  std::size_t npcs = 0;  ///< characters the game drives (not clients)
  uint32_t tick = 0;            ///< the last tick simulated
  int tick_rate = 0;
  TickHistogram tick_duration;
  bool ready = false;           ///< serving players: world loaded, socket bound, not stopping
  bool draining = false;        ///< stopping: telling clients, closing the recording
  std::string agones_state;     ///< the GameServer's state as the Agones sidecar says it ("" without Agones)
};

/// The snapshot in Prometheus's text exposition format (version 0.0.4): every counter as
/// foothold_<name>_total, drops by reason and handshake outcomes also as labelled families, the
/// tick duration as a histogram, and gauges for clients, readiness and the Agones state.
std::string prometheus_text(const MetricsSnapshot& m);

}  // namespace foothold::server
