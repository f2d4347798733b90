/*
 * Prints the C compiler's layout of every struct in client.h, one line each:
 *
 *   STRUCT size N          (sizeof)
 *   STRUCT FIELD N         (offsetof; an array's first element)
 *
 * The C# layout test (Tests.cs layout) reads this and compares Marshal.SizeOf/OffsetOf of the
 * binding's structs, field by field, so the binding cannot drift from the header.
 */
#include <foothold/client.h>

#include <stddef.h>
#include <stdio.h>

#define SIZE(s) printf("%s size %zu\n", #s, sizeof(s))
#define FIELD(s, f) printf("%s %s %zu\n", #s, #f, offsetof(s, f))

int main(void) {
  SIZE(foothold_client_config);
  FIELD(foothold_client_config, struct_size);
  FIELD(foothold_client_config, world);
  FIELD(foothold_client_config, settings_file);
  FIELD(foothold_client_config, server);
  FIELD(foothold_client_config, connect_timeout_s);
  FIELD(foothold_client_config, server_timeout_s);
  FIELD(foothold_client_config, message_queue_bytes);
  FIELD(foothold_client_config, message_rate);
  FIELD(foothold_client_config, message_copies);
  FIELD(foothold_client_config, draw_extrapolate);
  FIELD(foothold_client_config, draw_smoothing_s);
  FIELD(foothold_client_config, draw_snap_m);
  FIELD(foothold_client_config, draw_remote_extrapolate_s);
  FIELD(foothold_client_config, condition_loss);
  FIELD(foothold_client_config, condition_duplicate);
  FIELD(foothold_client_config, condition_reorder);
  FIELD(foothold_client_config, condition_latency_ms);
  FIELD(foothold_client_config, condition_jitter_ms);

  SIZE(foothold_client_character);
  FIELD(foothold_client_character, id);
  FIELD(foothold_client_character, position);
  FIELD(foothold_client_character, velocity);
  FIELD(foothold_client_character, ground);
  FIELD(foothold_client_character, crouched);
  FIELD(foothold_client_character, platform);
  FIELD(foothold_client_character, tick);
  FIELD(foothold_client_character, client_id);

  SIZE(foothold_client_event);
  FIELD(foothold_client_event, kind);
  FIELD(foothold_client_event, character_id);
  FIELD(foothold_client_event, client_id);
  FIELD(foothold_client_event, tick);
  FIELD(foothold_client_event, npc);

  SIZE(foothold_client_stats);
  FIELD(foothold_client_stats, struct_size);
  FIELD(foothold_client_stats, rtt_ms);
  FIELD(foothold_client_stats, rtt_ms_smoothed);
  FIELD(foothold_client_stats, connect_ms);
  FIELD(foothold_client_stats, ticks);
  FIELD(foothold_client_stats, snapshots);
  FIELD(foothold_client_stats, corrections);
  FIELD(foothold_client_stats, corrections_input);
  FIELD(foothold_client_stats, corrections_interaction);
  FIELD(foothold_client_stats, corrections_unexplained);
  FIELD(foothold_client_stats, packets_in);
  FIELD(foothold_client_stats, packets_out);
  FIELD(foothold_client_stats, bytes_in);
  FIELD(foothold_client_stats, bytes_out);
  FIELD(foothold_client_stats, input_lead_ticks);
  FIELD(foothold_client_stats, server_tick);
  FIELD(foothold_client_stats, remote_count);
  FIELD(foothold_client_stats, messages_sent);
  FIELD(foothold_client_stats, messages_received);
  FIELD(foothold_client_stats, message_bytes_out);
  FIELD(foothold_client_stats, message_bytes_in);
  FIELD(foothold_client_stats, message_retransmissions);
  FIELD(foothold_client_stats, message_rtt_ms);
  FIELD(foothold_client_stats, corrections_server);
  return 0;
}
