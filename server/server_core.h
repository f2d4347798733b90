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

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "proto/codec.h"
#include "proto/secure.h"
#include "proto/token.h"
#include "server/cookie.h"
#include "server/source_limiter.h"
#include "server/spent_cookies.h"
#include "server/spawn.h"
#include "server/counters.h"
#include "server/input_buffer.h"
#include "proto/endpoint.h"
#include "server/tick_observer.h"
#include "server/token_bucket.h"
#include "shared/character_contacts.h"
#include "shared/settings.h"
#include "shared/step.h"
#include "shared/tick.h"
#include "shared/workers/worker_pool.h"
#include "shared/world.h"

namespace foothold::server {

/// UNIX seconds at the server's clock reading `now` (nanoseconds of the clock every call is given).
using UnixClock = std::function<uint64_t(proto::Nanos now)>;
/// A clock for tests and benchmarks: `unix_at` at `at`, advancing with `now` (never before `unix_at`).
UnixClock virtual_unix_clock(uint64_t unix_at, proto::Nanos at);

/// What ServerCore needs to know; foothold-server fills it from ServerConfig. Rates are per second.
struct CoreConfig {
  /// Sessions at once; a Connect beyond them gets Reject(ServerFull).
  int max_clients = 1024;
  int max_clients_per_address = 8;      ///< sessions one IP address may hold at once (loopback: no cap)
  int snapshot_interval = 1;            ///< ticks between snapshots
  /// Bytes a snapshot datagram never exceeds (encryption included), [kMinSnapshotBudget, kMaxDatagram].
  /// The nearest characters that changed go first; each one in view at least every 500 ms.
  int snapshot_budget = proto::kDefaultSnapshotBudget;
  /// Silence after which a client is sent Disconnect(TimedOut) and forgotten.
  proto::Nanos client_timeout = 10 * proto::kSecond;
  /// Burst: a quarter of a second's worth, at least 4. Datagrams over it are dropped after they authenticate.
  int client_packet_rate = 240;         ///< packets per second per client
  /// Burst: a tenth of a second's worth, at least 1 (the same for status_rate).
  int handshake_rate = 2000;            ///< handshake replies per second, all unverified addresses together
  int status_rate = 100;                ///< status replies per second, all senders together
  /// Clear VersionMismatch hints per second, all senders together: their own budget, since they need
  /// no token, so a flood of them spends nothing that joining clients need.
  int version_hint_rate = 20;
  SourceLimits source_limits;           ///< handshake datagrams per second per address and per prefix
  double token_rate = 10;               ///< handshake replies per second to one connect token (burst: twice that)
  proto::Key key{};                     ///< the private key connect tokens are sealed with
  /// The addresses clients reach the server at: a token must name one of them. Loopback addresses
  /// here are honoured only for senders on loopback (tools on the server's own host).
  std::vector<proto::TokenAddress> addresses;
  /// UNIX time, in seconds, as token times are judged; null: the system's wall clock, read at every
  /// check, so a clock corrected while the server runs (NTP) is followed at once. Tests and
  /// benchmarks give virtual_unix_clock().
  UnixClock unix_clock;
  /// Seconds a token's expiry may lie ahead of unix_clock (plus clock_skew): a token minted for longer
  /// is refused (drop_far_token).
  uint64_t token_max_ahead = 86400;
  /// Seconds the minter's clock may run ahead of ours: a not-before time that far ahead is honoured.
  uint64_t clock_skew = 30;
  /// Threads that run the characters' steps and build the snapshots (the calling one included).
  /// Results are the same for any number.
  int threads = 1;
};

/// Not thread-safe: call it from one thread (the io thread); tick() spreads its own work over its
/// WorkerPool (shared/workers/). Times (`now`) are the server's clock in nanoseconds, one clock for every call.
class ServerCore {
 public:
  /// Remote characters in one snapshot at most (the wire's limit).
  static constexpr std::size_t kMaxOthers = proto::kMaxRemotes;
  /// Remote positions are sent in 1/256 m (the wire's unit).
  static constexpr int kRemoteShift = proto::kRemoteShift;
  /// The smallest snapshot budget (the wire's).
  static constexpr int kMinSnapshotBudget = proto::kMinSnapshotBudget;
  /// Every character in a client's view that changed goes into its snapshots at least this often.
  static constexpr proto::Nanos kMaxStaleness = proto::kMaxStalenessMs * proto::kMillisecond;

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

  /// Tells every client the server is going away (Disconnect(ServerShutdown)) and forgets them.
  /// Later connects are refused with Reject(ShuttingDown). `now` is unused.
  void shutdown(proto::Nanos now);

  /// The last tick simulated (0 before the first; the first is 1).
  uint32_t current_tick() const { return tick_; }
  /// Sessions now.
  std::size_t client_count() const { return clients_.size(); }
  /// Every counter since construction.
  const Counters& counters() const { return counters_; }
  /// The movement settings (the core's copy).
  const MoveSettings& settings() const { return settings_; }
  /// The world (the caller's, referenced).
  const World& world() const { return world_; }

  /// The recorder, if any (not owned: it must outlive the core, or be unset with nullptr). It is
  /// called from tick().
  void set_observer(TickObserver* observer) { observer_ = observer; }

  /// A client's character state, for tests (nullptr when there is no such character). The pointer
  /// stays valid while that client stays connected; the state changes at each tick.
  const CharacterState* character(uint32_t id) const;
  /// The character id of the session at `endpoint` (0 when there is none), for tests.
  uint32_t character_at(const proto::Endpoint& endpoint) const;
  /// UNIX time at `now`, in seconds, as token expiry is judged.
  uint64_t unix_time(proto::Nanos now) const;

 private:
  struct SentSnapshot {
    uint32_t tick = 0;
    proto::RemoteView view;  // the view the client reconstructs from it (sorted by id)
    // Per view entry: the last tick at which its value was the character's own (sent, or unchanged).
    std::vector<uint32_t> fresh;
  };
  struct Client {
    uint32_t id = 0;
    proto::Endpoint endpoint;
    uint64_t client_id = 0;                  // the token's
    uint64_t client_salt = 0, server_salt = 0;  // the connection attempt (a repeated Connect has both...
    proto::RequestTag attempt{};                // ...and the same proof)
    proto::SessionKeys keys;
    proto::ReplayWindow window;
    uint64_t send_sequence = 0;
    std::vector<uint8_t> accept_datagram;    // sent again, byte for byte, if the Connect is repeated
    CharacterState state;
    CandidateCache candidates;   // the character's triangles from step to step (speed only)
    InputBuffer inputs;
    uint32_t repeated_bits = 0;  // bit i: tick (current - i) was simulated with a repeated input
    uint32_t interaction_bits = 0;  // bit i: in tick (current - i) its step met another character
    proto::Nanos last_heard = 0;
    uint32_t acked_snapshot = 0;
    proto::Nanos echo_received = 0;  // when the newest input tick (InputBuffer::newest_received) arrived
    uint32_t owed_tick = 0;        // the newest tick whose state may differ from the client's prediction
    bool wants_state = false;      // the newest inputs message asked for the full own state
    TokenBucket rate;
    std::vector<SentSnapshot> sent;  // ring of the last kSentHistory snapshots, for deltas
    std::vector<uint32_t> interest;  // clients_ indices of the characters in its snapshots, ascending
    uint64_t interest_roster = ~0ull;  // roster_ when `interest` was chosen
  };
  /// Ticks an area-of-interest choice is kept (each client refreshes on its own phase).
  static constexpr uint32_t kInterestRefresh = 8;
  static constexpr std::size_t kSentHistory = proto::kBaseHistory;

  /// What a datagram is, for the bytes-by-kind counters.
  enum class Traffic : uint8_t { kSnapshot, kHandshake, kControl };
  void send(const proto::Endpoint& to, std::span<const uint8_t> bytes, Traffic kind);
  /// Seals a Packet into the client's session and sends it.
  void send_session(Client& c, std::span<const uint8_t> packet);
  /// Seals a Packet as a reply to an attempt whose token opened, bound to the request `answers`
  /// names, if it is no larger than `limit`.
  bool send_reply(const proto::Endpoint& to, const proto::TokenContents& token, uint64_t client_salt,
                  const proto::RequestTag& answers, std::span<const uint8_t> packet, std::size_t limit);
  void on_session_datagram(proto::Nanos now, const proto::Endpoint& from, std::span<const uint8_t> bytes);
  void on_clear_datagram(proto::Nanos now, const proto::Endpoint& from, std::span<const uint8_t> bytes);
  /// Opens a token and counts why it does not; `names_us` says whether it names an address of ours
  /// (a loopback one only counts for a sender on loopback, which no remote host can forge).
  bool open_token(proto::Nanos now, const proto::Endpoint& from, const flatbuffers::Vector<uint8_t>* token,
                  proto::TokenContents& out, bool& names_us);
  /// What a connect request and a status request both pass before any answer: a token that opens,
  /// a place in the request kind's own `budget` (else `over_budget` is counted), and an address of
  /// ours among those it names (else a reject, no larger than `limit`, that only its holder reads).
  bool admit_request(proto::Nanos now, const proto::Endpoint& from, const flatbuffers::Vector<uint8_t>* sealed,
                     uint64_t client_salt, TokenBucket& budget, Counter over_budget, std::size_t limit,
                     proto::TokenContents& token);
  void handle_connect_request(proto::Nanos now, const proto::Endpoint& from, const proto::Decoded& m);
  void handle_status_request(proto::Nanos now, const proto::Endpoint& from, const proto::Decoded& m);
  /// A Connect; `server_salt` is the one its cookie carries when the cookie is valid (checked before
  /// the per-source budgets), else null.
  void handle_connect(proto::Nanos now, const proto::Endpoint& from, const proto::Decoded& m, const uint64_t* server_salt);
  /// A valid cookie that was spent before: the same attempt repeated gets its answer again, anything
  /// else nothing. True when the cookie was spent (the Connect is handled).
  bool answer_spent_cookie(const proto::Endpoint& from, const proto::Decoded& m, uint64_t server_salt,
                           const proto::RequestTag& attempt, proto::Nanos now);
  /// Refuses a Connect whose proof opened: the verdict is remembered with its cookie.
  void refuse_connect(const proto::Endpoint& to, const proto::TokenContents& token, uint64_t client_salt,
                      const proto::RequestTag& attempt, std::span<const uint8_t> cookie, proto::fb::RejectReason reason,
                      const std::string& message, proto::Nanos now);
  void handle_inputs(proto::Nanos now, Client& c, std::span<const uint8_t> message, bool newest);
  void reject(const proto::Endpoint& to, const proto::TokenContents& token, uint64_t client_salt,
              const proto::RequestTag& answers, proto::fb::RejectReason reason, const std::string& message,
              std::size_t limit);
  void remove_client(uint32_t id);
  Client* find(const proto::Endpoint& from);
  // One worker thread's working memory (index 0 is the calling thread's).
  struct Worker {
    proto::PacketWriter writer;
    proto::DatagramBuffer tx;
    std::vector<std::pair<int64_t, uint32_t>> candidates;
    // A snapshot's choices: each change to the base view or addition, with its cost and rank.
    struct Choice {
      bool forced = false;       // overdue (kMaxStaleness since the base had it fresh), or new to the client
      uint32_t age = 0;          // ticks since the base had it fresh
      uint32_t other = 0;        // clients_ index of the character (not for a removal)
      uint32_t id = 0;
      int32_t base_index = -1;   // in the base view; -1 for an addition
      bool removal = false;
      uint32_t bits = 0;
      proto::RemoteState now;
    };
    std::vector<Choice> choices;
    // The order choices are taken in when not all fit: a rank (removals, then the overdue, then by
    // priority) and the id for ties; sorting these 16 bytes rather than the choices is what makes it cheap.
    struct Ranked {
      uint64_t rank = 0;
      uint32_t id = 0;
      uint32_t choice = 0;
    };
    std::vector<Ranked> ranked;
    std::vector<uint32_t> fresh;  // per base entry, the freshness the new view inherits
    proto::SnapshotWriter snapshot;
    proto::RemoteView view;
    std::array<uint8_t, proto::kMaxDatagram> payload{};
    Counters counters;  // merged into the server's after each parallel part
    struct Out {
      uint32_t client;  // index into clients_
      std::size_t offset, size;
    };
    std::vector<Out> out;  // sealed snapshots, in the order built, sent in client order by the calling thread
    std::vector<uint8_t> out_bytes;
  };
  /// Below this count per thread, fewer threads are woken (waking one costs microseconds).
  static constexpr std::size_t kMinSnapshotsPerThread = 32;

  void send_snapshots(proto::Nanos now);
  void build_snapshot(std::size_t index, proto::Nanos now, Worker& ws);
  const SentSnapshot* delta_base(const Client& c) const;
  void prefetch_snapshot(std::size_t index) const;
  void merge_worker_counters();
  void select_others(const Client& c, std::vector<uint32_t>& out, std::vector<std::pair<int64_t, uint32_t>>& candidates) const;

  CoreConfig config_;
  const World& world_;
  MoveSettings settings_;
  DerivedSettings derived_;
  SpawnSpots spawns_;
  std::vector<FixedVec3> occupied_;  // scratch: where every character is, for choosing a spawn spot
  proto::DatagramSink& sink_;
  std::unique_ptr<CookieJar> cookies_;
  proto::Nanos started_;
  TokenBucket handshake_bucket_;
  TokenBucket status_bucket_;
  TokenBucket version_hint_bucket_;
  SpentCookies spent_cookies_;
  SourceLimiter source_limiter_;
  HashedBuckets token_limiter_;  // by the token's nonce
  proto::PacketWriter writer_;
  proto::DatagramBuffer rx_;  // the Packet of the datagram being handled, aligned
  std::vector<InputCmd> rx_inputs_;  // the inputs of the message being handled
  const proto::RemoteView empty_view_;  // the delta base when the client holds none
  proto::DatagramBuffer tx_;  // the datagram being sent
  Counters counters_;
  TickObserver* observer_ = nullptr;
  bool shutting_down_ = false;

  uint32_t tick_ = 0;
  uint32_t next_id_ = 1;
  uint64_t roster_ = 0;  // changes whenever a client joins or leaves (indices into clients_ move)
  std::vector<std::unique_ptr<Client>> clients_;  // ascending id
  std::unordered_map<proto::Endpoint, Client*, proto::EndpointHash> by_endpoint_;

  // Per-tick working memory (kept to avoid allocating each tick).
  std::vector<JoinRecord> pending_joins_;
  std::vector<uint32_t> pending_leaves_;
  std::vector<JoinRecord> tick_joins_;
  std::vector<uint32_t> tick_leaves_;
  std::vector<CharacterTick> tick_characters_;
  std::vector<TickCharacter> tick_entrants_;  // every character entering the tick, by index
  TickRunner runner_;
  struct GridEntry {
    int64_t key = 0;     // cell
    uint32_t index = 0;  // into clients_
    int32_t x = 0, z = 0;  // position, 1/1024 m
    bool operator<(const GridEntry& o) const { return key != o.key ? key < o.key : index < o.index; }
  };
  std::vector<GridEntry> grid_;  // sorted by (cell, index), for interest
  struct Published {
    proto::RemoteState remote;  // as snapshots carry it
    FixedVec3 position;         // exact, for priorities
  };
  struct Outgoing {
    uint32_t worker = 0, index = 0;  // the Worker and the entry of its `out` that holds the snapshot
    bool built = false;
  };
  std::vector<Outgoing> outgoing_;  // by client index: each snapshot built this tick, whoever built it
  std::vector<Published> published_;  // every character after this tick's step, by index: snapshots read
                                      // 48 others each, so from one array rather than 48 Client objects
  WorkerPool pool_;
  std::vector<std::unique_ptr<Worker>> workers_;  // one per thread of pool_
};

}  // namespace foothold::server
