#include "server/counters.h"

namespace foothold::server {

std::string_view to_string(Counter c) {
  static constexpr std::string_view kNames[] = {
      "packets_in", "bytes_in", "packets_out", "bytes_out", "send_errors",
      "drop_too_large", "drop_malformed", "drop_bad_protocol", "drop_unknown_type", "drop_wrong_direction",
      "drop_version", "drop_too_small", "drop_no_session", "drop_bad_seal", "drop_replayed", "drop_bad_token",
      "drop_expired_token", "drop_bad_cookie", "drop_cookie_spent", "drop_early_token", "drop_far_token", "drop_bad_value", "drop_rate_limited", "source_limited",
      "handshake_rate_limited", "status_rate_limited", "version_hint_rate_limited", "token_rate_limited",
      "challenges_sent", "status_sent", "accepted", "accepts_resent", "replaced", "rejected_bad_cookie",
      "rejected_full", "rejected_mismatch", "rejected_version", "rejected_shutting_down", "rejected_wrong_server",
      "rejected_client_id_in_use", "rejected_address_full", "disconnects_received", "timeouts",
      "inputs_accepted", "inputs_duplicate", "inputs_late", "inputs_too_far_ahead", "inputs_repeated",
      "inputs_consumed", "snapshots_sent", "snapshots_with_state", "bytes_out_snapshots", "bytes_out_handshake",
      "bytes_out_control", "bytes_in_inputs", "bytes_in_handshake", "bytes_out_messages", "bytes_in_messages",
      "messages_received", "messages_sent", "messages_refused", "messages_undelivered", "message_retransmissions",
      "message_violations", "message_timeouts", "path_challenges", "path_migrations", "path_refused",
      "path_challenges_limited", "path_moves_refused_address_full", "path_displaced",
      "game_commands", "game_commands_dropped", "game_removals", "game_spawns", "rewind_queries", "rewind_clamped",
      "rewind_view_raised", "rewind_fire_refused", "rewind_origin_refused"};
  static_assert(std::size(kNames) == static_cast<size_t>(Counter::kCount));
  const auto i = static_cast<size_t>(c);
  return i < std::size(kNames) ? kNames[i] : "invalid";
}

uint64_t Counters::dropped() const {
  uint64_t n = 0;
  for (auto c = Counter::kDropTooLarge; c <= Counter::kDropRateLimited; c = Counter(uint8_t(c) + 1)) n += get(c);
  return n;
}

namespace {

// For each reason the reader refuses a datagram, the counter it goes in.
constexpr Counter kDropCounter[] = {
    Counter::kPacketsIn,           // kNone: not a drop, never looked up
    Counter::kDropTooLarge,        // kTooLarge
    Counter::kDropBadProtocol,     // kBadProtocol
    Counter::kDropWrongDirection,  // kWrongDirection
    Counter::kDropMalformed,       // kTruncated: a session datagram too short to open
    Counter::kDropReplayed,        // kReplayed
    Counter::kDropBadSeal,         // kBadSeal
    Counter::kDropMalformed,       // kMalformed
    Counter::kDropUnknownType,     // kUnknownType
    Counter::kDropTooSmall,        // kTooSmall
    Counter::kDropVersion,         // kVersion: sealed replies only, never at a server
};
static_assert(std::size(kDropCounter) == std::size_t(proto::DatagramDrop::kCount));

}  // namespace

Counter drop_counter(proto::DatagramDrop d) { return kDropCounter[std::size_t(d)]; }

double remainder_pct(uint64_t whole, uint64_t a, uint64_t b) {
  if (whole == 0) return 0.0;
  const uint64_t taken = a + b;
  return taken >= whole ? 0.0 : 100.0 * double(whole - taken) / double(whole);
}

double per_client(double total, std::size_t clients) { return clients == 0 ? 0.0 : total / double(clients); }

}  // namespace foothold::server
