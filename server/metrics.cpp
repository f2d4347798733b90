#include "server/metrics.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string_view>

namespace foothold::server {

void TickHistogram::add(double seconds) {
  std::size_t b = 0;
  while (b < kBounds.size() && seconds > kBounds[b]) ++b;
  ++counts[b];
  sum_seconds += seconds;
  ++count;
}

namespace {

// Appends printf-formatted text (every line here is short).
template <typename... A>
void put(std::string& out, const char* format, A... args) {
  char line[256];
  const int n = std::snprintf(line, sizeof line, format, args...);
  if (n > 0) out.append(line, std::size_t(std::min<int>(n, int(sizeof line) - 1)));
}

void family(std::string& out, const char* name, const char* type, const char* help) {
  put(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

// The counters that are a drop of a datagram (the stats line's "dropped"), by reason.
bool is_drop(Counter c) { return c >= Counter::kDropTooLarge && c <= Counter::kDropRateLimited; }

// The counters that are a handshake's outcome.
constexpr Counter kOutcomes[] = {Counter::kAccepted,           Counter::kAcceptsResent,         Counter::kReplaced,
                                 Counter::kRejectedBadCookie,  Counter::kRejectedFull,          Counter::kRejectedMismatch,
                                 Counter::kRejectedVersion,    Counter::kRejectedShuttingDown,  Counter::kRejectedWrongServer,
                                 Counter::kRejectedClientIdInUse, Counter::kRejectedAddressFull};

}  // namespace

std::string prometheus_text(const MetricsSnapshot& m) {
  std::string out;
  out.reserve(16 << 10);
  family(out, "foothold_clients", "gauge", "Clients connected now.");
  put(out, "foothold_clients %zu\n", m.clients);
  family(out, "foothold_max_clients", "gauge", "Clients the server admits at most.");
  put(out, "foothold_max_clients %zu\n", m.max_clients);
  family(out, "foothold_npcs", "gauge", "Characters the game drives now (NPCs: not clients).");
  put(out, "foothold_npcs %zu\n", m.npcs);
  family(out, "foothold_tick", "gauge", "The last tick simulated.");
  put(out, "foothold_tick %" PRIu32 "\n", m.tick);
  family(out, "foothold_tick_rate_hz", "gauge", "Ticks per second.");
  put(out, "foothold_tick_rate_hz %d\n", m.tick_rate);
  family(out, "foothold_ready", "gauge", "1 while ready for players (what /readyz answers).");
  put(out, "foothold_ready %d\n", m.ready && !m.draining ? 1 : 0);
  family(out, "foothold_draining", "gauge", "1 while stopping: clients told, the recording closing.");
  put(out, "foothold_draining %d\n", m.draining ? 1 : 0);
  if (!m.agones_state.empty()) {
    family(out, "foothold_agones_state", "gauge", "The GameServer's state as the Agones SDK sidecar says it (1 for the current one).");
    put(out, "foothold_agones_state{state=\"%s\"} 1\n", m.agones_state.c_str());
  }

  family(out, "foothold_tick_duration_seconds", "histogram", "Wall-clock time of each tick.");
  uint64_t cumulative = 0;
  for (std::size_t b = 0; b < TickHistogram::kBounds.size(); ++b) {
    cumulative += m.tick_duration.counts[b];
    put(out, "foothold_tick_duration_seconds_bucket{le=\"%g\"} %" PRIu64 "\n", TickHistogram::kBounds[b], cumulative);
  }
  cumulative += m.tick_duration.counts.back();
  put(out, "foothold_tick_duration_seconds_bucket{le=\"+Inf\"} %" PRIu64 "\n", cumulative);
  put(out, "foothold_tick_duration_seconds_sum %.9g\n", m.tick_duration.sum_seconds);
  put(out, "foothold_tick_duration_seconds_count %" PRIu64 "\n", m.tick_duration.count);

  family(out, "foothold_datagrams_dropped_total", "counter", "Datagrams refused, by reason (every one also in its foothold_<reason>_total).");
  for (std::size_t i = 0; i < std::size_t(Counter::kCount); ++i) {
    const Counter c = Counter(i);
    if (!is_drop(c)) continue;
    const std::string_view name = to_string(c).substr(5);  // "drop_bad_seal" -> "bad_seal"
    put(out, "foothold_datagrams_dropped_total{reason=\"%.*s\"} %" PRIu64 "\n", int(name.size()), name.data(), m.counters.get(c));
  }
  family(out, "foothold_handshakes_total", "counter", "Handshakes by outcome: accepted, accepted again, replaced, or rejected and why.");
  for (const Counter c : kOutcomes) {
    const std::string_view name = to_string(c);
    put(out, "foothold_handshakes_total{outcome=\"%.*s\"} %" PRIu64 "\n", int(name.size()), name.data(), m.counters.get(c));
  }
  family(out, "foothold_send_errors_total", "counter", "Datagrams the kernel refused to send.");
  put(out, "foothold_send_errors_total %" PRIu64 "\n", m.send_errors);
  family(out, "foothold_gso_sends_total", "counter",
         "Segmented sends (UDP GSO): runs of datagrams to one address handed to the kernel as one.");
  put(out, "foothold_gso_sends_total %" PRIu64 "\n", m.gso_sends);
  family(out, "foothold_gso_datagrams_total", "counter", "Datagrams sent in segmented sends.");
  put(out, "foothold_gso_datagrams_total %" PRIu64 "\n", m.gso_datagrams);
  // Every counter by its own name too (datagrams and bytes in and out among them).
  for (std::size_t i = 0; i < std::size_t(Counter::kCount); ++i) {
    const Counter c = Counter(i);
    if (c == Counter::kSendErrors) continue;  // reserved; the sink's count is above
    const std::string name = "foothold_" + std::string(to_string(c)) + "_total";
    family(out, name.c_str(), "counter", "See server/counters.h.");
    put(out, "%s %" PRIu64 "\n", name.c_str(), m.counters.get(c));
  }
  return out;
}

}  // namespace foothold::server
