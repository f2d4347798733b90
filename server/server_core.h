#pragma once
// The authoritative server, without sockets or clocks: datagrams and time come in, datagrams go out.
// The UDP driver (udp_server.h) runs it on a real socket and clock; tests run it on a simulated
// network with virtual time.
//
// Who may play: only holders of a connect token sealed with the server's key (proto/token.h) that
// names one of the server's addresses. The handshake (WIRE_FORMAT.md) keeps no state before a
// client has proved, with a stateless cookie, that it receives at its address and, with the
// session keys, that it holds the token. Every session datagram is encrypted and authenticated
// (proto/secure.h); one that does not open, repeats or is out of the replay window changes nothing.
//
// Each tick: every client's input for that tick is consumed (exactly one, repeated when missing),
// every character steps, silent clients are dropped, and every client gets a snapshot of its own
// exact state and of the characters near it.

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "proto/codec.h"
#include "proto/datagram_reader.h"
#include "proto/endpoint.h"
#include "server/admission.h"
#include "server/cookie.h"
#include "server/core_config.h"
#include "server/counters.h"
#include "server/game.h"
#include "server/game_host.h"
#include "server/outbox.h"
#include "server/replication.h"
#include "server/rewind.h"
#include "server/roster.h"
#include "server/simulation.h"
#include "server/tick_observer.h"
#include "shared/settings.h"
#include "shared/workers/worker_pool.h"
#include "shared/world.h"

namespace foothold::server {

/// The server's parts, composed: admission (server/admission.h) takes the handshakes and creates
/// clients in the roster (server/roster.h), the simulation (server/simulation.h) runs their tick,
/// replication (server/replication.h) sends their snapshots; this class routes datagrams to them,
/// runs the tick's order and ends sessions.
/// Not thread-safe: call it from one thread (the io thread); tick() spreads its own work over its
/// WorkerPool (shared/workers/). Times (`now`) are the server's clock in nanoseconds, one clock for every call.
class ServerCore {
 public:
  /// `world` and `sink` must outlive the core (referenced, not copied; a temporary world is refused at
  /// compile time). `now` is the time origin for uptime.
  /// `cookies`: the jar to use (tests give a fixed key); null makes one with a random key.
  /// `config` and `settings` are copied. Starts config.threads - 1 worker threads.
  ServerCore(const CoreConfig& config, const World& world, const MoveSettings& settings, proto::DatagramSink& sink,
             proto::Nanos now, std::unique_ptr<CookieJar> cookies = nullptr);
  /// A temporary world would not outlive the core: refused.
  ServerCore(const CoreConfig&, World&&, const MoveSettings&, proto::DatagramSink&, proto::Nanos,
             std::unique_ptr<CookieJar> = nullptr) = delete;

  /// Handles one received datagram from `from` (sessions are found by it); `bytes` need only stay
  /// valid during the call. Whatever is refused is dropped and counted (counters()).
  void on_datagram(proto::Nanos now, const proto::Endpoint& from, std::span<const uint8_t> bytes);

  /// Drops the clients silent for client_timeout, then simulates tick current_tick() + 1 (one input
  /// per client, every step, the observer) and, every snapshot_interval ticks, sends snapshots.
  void tick(proto::Nanos now);

  /// Copies of the Disconnect shutdown() sends each client.
  static constexpr int kShutdownCopies = 3;
  /// Tells every client the server is going away (Disconnect(ServerShutdown), kShutdownCopies
  /// times) and forgets them.
  /// Later connects are refused with Reject(ShuttingDown). `now` is unused.
  void shutdown(proto::Nanos now);

  /// The fleet allocated the server (Agones): the game's on_allocated at the start of the next tick.
  void allocated(Allocation allocation) { game_.allocate(std::move(allocation)); }
  /// The game ended the match (GameControl::end_match): the program drains and exits.
  bool match_over() const { return game_.match_over(); }
  /// Tokens naming `address` are ours from now on (the fleet's word on where clients reach us).
  void add_token_address(const proto::TokenAddress& address) { admission_.add_address(address); }

  /// The last tick simulated (0 before the first; the first is 1).
  uint32_t current_tick() const { return simulation_.tick(); }
  /// Ticks of lag compensation's window (CoreConfig::rewind_window_ms at the tick rate).
  uint32_t rewind_window_ticks() const { return rewind_.window(); }
  /// Sessions now (players: the game's NPCs are not clients).
  std::size_t client_count() const { return roster_.players(); }
  /// Characters the game drives now (GameControl::spawn).
  std::size_t npc_count() const { return roster_.npcs(); }
  /// Every counter since construction.
  const Counters& counters() const { return counters_; }
  /// The movement settings (the core's copy).
  const MoveSettings& settings() const { return simulation_.settings(); }
  /// The world (the caller's, referenced).
  const World& world() const { return simulation_.world(); }

  /// Installs the game (server/game.h; null: none, and the clients' messages are counted as
  /// undelivered and dropped) and calls its on_start. Install it before the first client joins.
  /// Throws std::invalid_argument, naming the problem, when its schema is invalid.
  void set_game(std::unique_ptr<Game> game) {
    game_.install(std::move(game));
    admission_.set_attribute_names(game_.schema());
  }
  /// Seeds the game's random source (GameControl::random(); the core seeds it from the system's
  /// randomness when made). Give it before set_game(), whose on_start may draw.
  void set_game_seed(uint64_t seed) { game_.set_seed(seed); }
  /// How many NPCs the operator asked the game for (GameControl::npcs_wanted()); before set_game().
  void set_npcs_wanted(uint32_t n) { game_.set_npcs_wanted(n); }
  /// The seed of the game's random source: a recording's header keeps it (RecordingHeader::game_seed).
  uint64_t game_seed() const { return game_.seed(); }
  /// Where the game's log lines go (GameControl::log), each naming `game_name`; before set_game().
  void set_game_log(std::string game_name, GameLog log) { game_.set_log(std::move(game_name), std::move(log)); }
  /// The game's attribute names (empty without a game).
  const GameSchema& game_schema() const { return game_.schema(); }
  /// The world's navigation mesh (GameControl::path()), for the program to load or bake before the
  /// game starts.
  Navigation& navigation() { return game_.navigation(); }
  /// The game as it sees the server (its commands and what it may read), for tests and tools.
  GameControl& game_control() { return game_; }
  /// Queues a message to the client whose character is `id`, sent after the next tick's snapshots
  /// (in their room when there is some). kNotConnected when there is no such client; kQueueFull when
  /// its queue (CoreConfig::messages) has no room now; kEmpty and kTooLarge as the channel says.
  proto::SendError send_message(uint32_t id, proto::Channel channel, std::span<const uint8_t> bytes);

  /// The recorder, if any (not owned: it must outlive the core, or be unset with nullptr). It is
  /// called from tick().
  void set_observer(TickObserver* observer) {
    observer_ = observer;
    game_.keep_sent(observer != nullptr);
  }

  /// A client's character state, for tests (nullptr when there is no such character). The pointer
  /// stays valid while that client stays connected; the state changes at each tick.
  const CharacterState* character(uint32_t id) const;
  /// The user data of client `id`'s connect token (empty when there is no such client): what the
  /// backend said of the player (a name, a team), for the game.
  std::span<const uint8_t> user_data(uint32_t id) const;
  /// The character id of the session at `endpoint` (0 when there is none), for tests.
  uint32_t character_at(const proto::Endpoint& endpoint) const;
  /// UNIX time at `now`, in seconds, as token expiry is judged.
  uint64_t unix_time(proto::Nanos now) const;

 private:
  void on_session_datagram(proto::Nanos now, const proto::Endpoint& from, std::span<const uint8_t> bytes);
  void handle_inputs(proto::Nanos now, Client& c, std::span<const uint8_t> message, bool newest);
  // Path validation: a challenge to `to`, where client `c`'s authentic datagrams newly come from...
  void challenge_path(proto::Nanos now, Client& c, const proto::Endpoint& to);
  // ...and its answer from `from`: the session moves there when it is the one outstanding.
  void validate_path(Client& c, const proto::Endpoint& from, uint64_t data);
  /// How long a path challenge waits for its answer before another goes.
  static constexpr proto::Nanos kPathRetry = 250 * proto::kMillisecond;
  // The client's messages, made on first use.
  proto::MessageEndpoint& messages_of(Client& c);
  // A message section from client `c`: taken, or the session ended for what it broke.
  void handle_messages(proto::Nanos now, Client& c, std::span<const uint8_t> section);
  // Ends the sessions whose messages stood still; hands every message received to the game.
  void deliver_messages(proto::Nanos now);
  // Sends what each client's messages have due, in datagrams of their own (after the snapshots,
  // which took what fitted in their room).
  void flush_messages(proto::Nanos now);
  /// Sends client `c` a Disconnect for `reason` and removes it.
  void end_session(Client& c, proto::fb::DisconnectReason reason);

  CoreConfig config_;
  Counters counters_;
  Outbox outbox_;
  WorkerPool pool_;
  Roster roster_;
  Simulation simulation_;
  Replication replication_;
  Admission admission_;
  proto::PacketWriter writer_;
  proto::DatagramReader reader_{proto::Direction::kToServer};
  std::vector<InputCmd> rx_inputs_;  // the inputs of the message being handled
  RewindHistory rewind_;
  GameHost game_;
  // The messages handed to the game this tick, for the observer: records into one byte arena.
  std::vector<MessageRecord> delivered_;
  std::vector<std::size_t> delivered_offsets_;
  std::vector<uint8_t> delivered_bytes_;
  proto::ReceivedMessage rx_message_;                     // the message being handed over (reused)
  std::array<uint8_t, proto::kMaxDatagram> tx_carrier_{};  // a datagram of messages being written
  proto::DatagramBuffer tx_;                              // ...and sealed
  proto::Nanos now_ = 0;                                  // the latest time a call brought
  TickObserver* observer_ = nullptr;
};

}  // namespace foothold::server
