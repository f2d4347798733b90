#pragma once
// foothold-server's configuration: defaults, then a TOML file, then FOOTHOLD_* environment
// variables, then command-line flags (later ones win). Every value is checked; errors name the key.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "proto/codec.h"
#include "proto/compact.h"
#include "proto/token.h"
#include "server/core_config.h"
#include "shared/settings.h"

namespace foothold::server {

/// Every foothold-server setting, by its TOML key (FOOTHOLD_<KEY> in the environment). Times are in
/// seconds, rates per second. A setting the core also has takes its default from CoreConfig's, so
/// each default is written once (core_config.h).
struct ServerConfig {
  std::string bind;                  ///< address to listen on (IPv4 or IPv6); empty: 0.0.0.0 with a key file, else 127.0.0.1
  std::string key_file;              ///< the private key file tokens are sealed with; empty: the public development key, loopback only
  /// Refuse to start when key_file is readable by group or others (outside a secrets mount); without
  /// it that is a warning.
  bool strict_key_permissions = false;
  /// The addresses clients reach the server at, as tokens name them: "HOST:PORT[,HOST:PORT...]"; a
  /// host name is resolved once at start. Empty: the bound address (an unspecified bind needs it).
  std::string public_address;
  /// "HOST:PORT" to serve /metrics (Prometheus), /healthz and /readyz on over HTTP (port 0: a free one,
  /// logged); empty: off.
  std::string metrics_address;
  /// Run as an Agones game server (docs/fleet.md): Ready once listening, Health, the players Counter,
  /// the allocation for the game, Shutdown at the end. Also on whenever AGONES_SDK_HTTP_PORT is set.
  bool agones = false;
  /// Seconds between Agones Health pings [0.1, 60]; none while the tick loop stalls.
  double agones_health_interval = 2;
  /// Seconds an allocated server may go without a client before it ends the match [0, 86400]; 0: never.
  double idle_shutdown = 60;
  /// Seconds a drain (SIGTERM, the match's end) may take, Agones' Shutdown included [1, 600].
  double drain_seconds = 10;
  int max_clients_per_address = CoreConfig{}.max_clients_per_address;   ///< sessions one IP address may hold [1, 4096]; loopback senders have no cap
  int port = 7777;                   ///< UDP port [0, 65535]; 0 takes any free port (logged at start)
  /// Sessions at once.
  int max_clients = CoreConfig{}.max_clients;            ///< [1, 4096]
  std::string world = "arena";       ///< "arena", a glTF file (.gltf, .glb) or an OBJ file
  std::string settings;              ///< movement settings TOML file; empty: defaults
  /// The world's navigation mesh for GameControl::path(), baked ahead of time (foothold-nav bake) for
  /// this world and these settings: refused when either's hash differs. Empty: a game that asks for
  /// paths has the mesh baked at load.
  std::string navmesh;
  int tick_rate = 0;                 ///< ticks per second [10, 240]; 0: the movement settings' tick_rate
  int snapshot_interval = CoreConfig{}.snapshot_interval;         ///< send snapshots every N ticks [1, 60]
  /// Snapshots per second [1, 240], a divisor of the tick rate (e.g. 20, 30, 60 at 60 Hz); 0: every
  /// snapshot_interval ticks. Setting both is an error.
  int snapshot_rate = 0;
  /// Bytes a snapshot datagram never exceeds, encryption included [128, 1200].
  int snapshot_budget = CoreConfig{}.snapshot_budget;
  /// The nearest characters each snapshot gives in full for the client's prediction [0, 8].
  int neighbours = CoreConfig{}.neighbours;
  /// The inputs each of them has already sent for the next ticks, given with it [0, 7].
  int neighbour_inputs_ahead = CoreConfig{}.neighbour_inputs_ahead;
  double client_timeout = double(CoreConfig{}.client_timeout) / double(proto::kSecond);        ///< seconds of silence before a client is dropped [0.5, 600]
  std::string log_level = "info";    ///< trace, debug, info, warn, error, critical, off
  double stats_interval = 5;         ///< seconds between stats lines [0.5, 3600]
  int max_catchup_ticks = 5;         ///< ticks run back to back after an overrun before skipping [1, 120]
  int client_packet_rate = 0;        ///< packets per second accepted from one client; 0: 4 x tick rate
  int handshake_rate = CoreConfig{}.handshake_rate;         ///< handshake replies per second, for all unverified addresses [1, 1e6]
  int status_rate = CoreConfig{}.status_rate;             ///< status replies per second, all senders together [1, 1e6]
  int version_hint_rate = CoreConfig{}.version_hint_rate;        ///< clear wrong-version hints per second, all senders together [1, 1e6]
  /// Seconds a token's expiry may lie ahead of the server's clock (plus clock_skew) [60, 2592000]:
  /// tokens minted for longer are refused.
  int token_max_ahead = int(CoreConfig{}.token_max_ahead);
  /// Seconds the backend's clock may be ahead of the server's: a token's not-before time is honoured
  /// that early [0, 3600].
  int clock_skew = int(CoreConfig{}.clock_skew);
  double source_rate = SourceLimits{}.address_rate;           ///< handshake datagrams per second one address may send [0.1, 1e6]
  double prefix_rate = SourceLimits{}.prefix_rate;           ///< handshake datagrams per second one /24 (IPv4) or /64 (IPv6) may send [0.1, 1e6]
  std::string record;                ///< record the input stream to this file; empty: no recording
  int threads = 0;                   ///< threads for the steps and snapshots [1, 64]; 0: the machine's cores
  /// Once listening, write the bound address ("HOST:PORT" and a newline) to this file, atomically
  /// (the ready signal for scripts and tests, with port 0 in particular); empty: none.
  std::string ready_file;
  /// The game the server runs: "none" or one of the program's games (server_program.h; foothold-server's
  /// are games/builtin_games.h's), checked by the program, which knows them.
  std::string game = "none";
  /// Bytes of reliable messages one session may have queued and unacknowledged, each way [65536, 16777216].
  int message_queue = int(CoreConfig{}.messages.limits.queue_bytes);
  /// Bytes of messages per second to one client at most (acknowledgements aside) [1024, 10000000];
  /// from one client too: a client over it (with a burst of 0.6 s of it) is cut off, MessageViolation.
  int message_rate = int(CoreConfig{}.messages.rate);
  /// Seconds a session's messages may stand still (unacknowledged, or never completed) before it is cut off [1, 600].
  double message_timeout = double(CoreConfig{}.messages.timeout) / double(proto::kSecond);
  /// Milliseconds of the past the game's lag-compensated queries may rewind to [0, 1000].
  int rewind_window = CoreConfig{}.rewind_window_ms;
  /// The seed of the game's random source (GameControl::random), a decimal from 0 to 2^64 - 1: the
  /// same seed draws the same numbers (to replay a match's luck); empty: fresh from the system's
  /// randomness at every start. The recording keeps it either way.
  std::string game_seed;
  /// How many NPCs the game is asked to fill its match with [0, 1024] (GameControl::npcs_wanted();
  /// the built-in tag and patrol read it). Recorded, so that --verify-game asks for as many.
  int npcs = 0;
  /// game_seed as a number (nothing when it is empty or not a number in range: validate() says so).
  std::optional<uint64_t> game_seed_value() const;

  /// Problems with the values, one message each naming the key (empty: valid). Without a key file
  /// the bind address must be loopback: the development key is public.
  std::vector<std::string> validate() const;
  /// Ticks between snapshots at `tick_rate` ticks per second (from snapshot_rate or
  /// snapshot_interval); `ticks_per_second` is the tick rate; 0 with a message in `error` when snapshot_rate does not divide the tick rate
  /// or both are set.
  int snapshot_ticks(int ticks_per_second, std::string& error) const;
  /// The bind address in effect (resolving the empty default).
  std::string effective_bind() const { return !bind.empty() ? bind : key_file.empty() ? "127.0.0.1" : "0.0.0.0"; }
};

/// The core's configuration from a validated `config`, in one place: `settings` (its tick rate),
/// `snapshot_interval` (ServerConfig::snapshot_ticks()), the token key and the addresses tokens must
/// name are what foothold-server works out at start; threads 0 becomes `cores` (clamped to [1, 64]).
CoreConfig core_config(const ServerConfig& config, const MoveSettings& settings, int snapshot_interval,
                       const proto::Key& key, std::vector<proto::TokenAddress> addresses, unsigned cores);

/// Parses TOML text over `config` (keys not in the text keep their values); `source` names it in
/// messages. Unknown keys and values of the wrong type are errors; ranges are left to validate().
std::vector<std::string> parse_server_config(std::string_view toml_text, const std::string& source, ServerConfig& config);

/// Reads a TOML file over `config` (keys not in the file keep their values). Returns errors, each
/// naming the file, line and key.
std::vector<std::string> load_server_config_file(const std::string& path, ServerConfig& config);

/// Applies FOOTHOLD_<KEY> environment variables (e.g. FOOTHOLD_PORT, FOOTHOLD_MAX_CLIENTS); empty ones
/// are ignored. Returns errors, each naming the variable.
std::vector<std::string> apply_server_config_env(ServerConfig& config);

/// The environment variable that sets `key` (for --help): "max_clients" gives "FOOTHOLD_MAX_CLIENTS".
std::string env_name(const std::string& key);

}  // namespace foothold::server
