#pragma once
// N bot clients in one process, each with its own UDP socket (or all on one: FleetOptions::one_socket)
// and ClientSession, on one Asio thread: a user of the client library, like any game (it drives many
// sessions, so it has its own loop).

#include <cstdint>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include "proto/asio.h"

#include "proto/endpoint.h"
#include "proto/token.h"
#include "bots/bot_brain.h"
#include "bots/frame_watch.h"
#include "bots/shared_socket.h"
#include "bots/shooter.h"
#include "client/session.h"
#include "client/impairment.h"
#include "bots/message_checker.h"
#include "bots/tag_brain.h"
#include "bots/tag_messages.h"

namespace foothold::bots {

/// What foothold-bot runs.
struct FleetOptions {
  /// The server's address, as the bots reach it (the tokens name it).
  proto::Endpoint server;
  /// The server's private key: the fleet plays the game backend's part and mints each bot a connect
  /// token for `server` (the public development key reaches loopback servers without a key file).
  proto::Key key = proto::development_key();
  /// How many bots, each with its own socket, token and session.
  int bots = 1;
  double duration = 10;         ///< seconds from the start until the bots disconnect
  /// How the bots move.
  PatternSpec pattern;
  /// --pattern shoot: metres beside the target each shot is aimed, across the line of fire.
  double aim_offset = 0;
  /// Seeds the bots' brains and impairment generators (with each bot's index).
  uint64_t seed = 1;
  std::string trace_dir;        ///< write DIR/bot-<character id>.csv when not empty
  std::string record_dir;       ///< write DIR/bot-<character id>.rec (its input stream) when not empty
  std::string recorded_by;      ///< the recordings' recorded_by: the program's version line
  std::string world_name = "arena";  ///< as given on the command line (goes into recordings)
  /// Every bot's session options.
  client::SessionOptions session;
  client::Impairment impairment;  ///< applied to every bot's traffic, both directions
  /// Every bot's message load (none by default): numbered reliable messages, their echoes checked.
  MessageLoad messages;
  /// Frames a second at which each bot draws its own character and the others, as a game would, and
  /// measures their pops and stalls (bots/frame_watch.h); 0: none.
  double frame_rate = 60;
  /// Every bot on one socket, each from an address of its own, with batched system calls
  /// (bots/shared_socket.h): for IPv4 loopback servers only.
  bool one_socket = false;
};

/// One bot's outcome.
struct BotResult {
  /// The bot's index in the fleet, from 0.
  uint32_t index = 0;
  /// Its character id on the server (0 if it never connected).
  uint32_t character_id = 0;
  client::ClientSession::Phase phase = client::ClientSession::Phase::kIdle;  ///< at the end (before the final disconnect)
  bool connected = false;                                    ///< reached kConnected at some point
  /// Why its session ended (ClientSession::reason_text(): "client quit" when it ran to the end).
  std::string reason;
  /// The same as a code (client_quit when it ran to the end; server_shutdown when the server said
  /// it was going away).
  client::EndReason end = client::EndReason::kNone;
  /// Its prediction's matches and corrections.
  Predictor::Counters prediction;
  /// Its session's traffic figures.
  client::ClientSession::Stats stats;
  /// Every round trip it measured, milliseconds.
  std::vector<double> rtt_ms;
  /// Its messages sent and echoes checked (all zero without FleetOptions::messages).
  MessageCounts messages;
  /// Its session's message layer: the section bytes both ways.
  proto::MessageStats message_stats;
  /// What it heard of the tag game (nothing unless the server plays it): passes of "it", scores.
  TagTally tag;
  /// Its shots (--pattern shoot) and their verdicts.
  ShotCounts shots;
  /// What its frames showed (FleetOptions::frame_rate).
  FrameCounts frames;
  /// Its standing in the tag game at the end, from its session's attributes (kept after the goodbye).
  TagStanding standing;
};

/// What a run did.
struct FleetResult {
  /// Every bot, in index order.
  std::vector<BotResult> bots;
  double seconds = 0;  ///< wall time the fleet ran
  std::string error;   ///< set when the fleet could not run at all (e.g. a trace file)
};

/// Runs the fleet until its duration is over, every session has ended, or stop() is called; then
/// disconnects every bot. With a message load, a bot stops sending messages when the duration is
/// over and disconnects once every echo is back or 2 s later (kMessageDrain), whichever is first. Under impairment the goodbyes are held back like any datagram, and are
/// lost when the run stops. Keeps a reference to `world`: it must outlive the fleet; `settings`
/// and `options` are copied. Plays the backend: it mints each bot a token with options.key.
class BotFleet {
 public:
  /// How long after the duration the bots wait for their messages' echoes at most.
  static constexpr proto::Nanos kMessageDrain = 2 * proto::kSecond;
  /// Keeps a reference to `world`; copies `settings` and `options`. Nothing runs until run().
  BotFleet(const World& world, const MoveSettings& settings, const FleetOptions& options);
  BotFleet(World&&, const MoveSettings&, const FleetOptions&) = delete;  // a temporary world would dangle
  /// Closes the bots' sockets.
  ~BotFleet();
  /// Runs the fleet on the calling thread (one Asio io_context for every bot) and returns when it is
  /// over. Call it once.
  FleetResult run();
  /// Ends the run early (posts to the fleet's io_context): any thread may call it. It is not
  /// async-signal-safe (asio::post allocates and locks).
  void stop();

 private:
  struct Bot;
  class ImpairedSink;
  /// A datagram held back by the impairment: to the server (outgoing) or to the bot.
  struct Flight {
    proto::Nanos due;
    uint64_t order;
    uint32_t bot;
    bool outgoing;
    std::vector<uint8_t> bytes;
    bool operator>(const Flight& o) const { return due != o.due ? due > o.due : order > o.order; }
  };
  // The parts of run(), in order; those that can fail return the error, empty when all went well.
  std::string create_output_dirs() const;
  std::string add_bots(proto::Nanos start);  // each with its socket, token, session and brain
  void hook_session(Bot& bot);
  void open_outputs(Bot& bot, uint32_t id);  // its trace and recording, once it has a character id
  void play();                               // until on_timer() stops the io_context
  BotResult result_of(Bot& bot);
  std::string close_outputs(Bot& bot);
  void impair(uint32_t bot, bool outgoing, std::span<const uint8_t> bytes, client::Impairer& impairer);
  void deliver_due(proto::Nanos now);
  void arm_receive(Bot& bot);
  void arm_shared_receive();                         // --one-socket: every bot's datagrams
  void receive_shared(int max_batches);              // what waits on the shared socket, to its bots
  static constexpr uint32_t kUpdatesPerReceive = 32;  // --one-socket: bots updated between receives
  void take(Bot& bot, std::span<const uint8_t> bytes);  // a datagram for `bot`: impaired or delivered
  void after_receive(Bot& bot, proto::Nanos before);    // its messages taken, its update brought forward
  void send(Bot& bot, std::span<const uint8_t> bytes);  // on its socket or the shared one
  void on_timer();
  bool finish_if_over(proto::Nanos now);  // the run is over: every bot disconnected, the loop stopped
  void finish(Bot& bot);                  // one bot's end: its phase kept, its goodbye said
  void exchange_messages(Bot& bot, proto::Nanos now);  // echoes taken, messages due sent
  void wake_at(proto::Nanos when);

  const World& world_;
  MoveSettings settings_;
  FleetOptions options_;
  asio::io_context io_;
  std::unique_ptr<SharedSocket> shared_;  // --one-socket
  std::vector<std::unique_ptr<Bot>> bots_;
  std::unique_ptr<asio::steady_timer> timer_;
  using Due = std::pair<proto::Nanos, uint32_t>;  // (time, bot index)
  std::priority_queue<Due, std::vector<Due>, std::greater<Due>> queue_;
  std::priority_queue<Flight, std::vector<Flight>, std::greater<Flight>> flights_;
  uint64_t flight_order_ = 0;
  proto::Nanos end_ = 0;
  proto::Nanos drain_end_ = 0;  // end_, plus kMessageDrain with a message load
  proto::Nanos armed_ = 0;  // when the timer is set to fire
  std::string error_;
};

}  // namespace foothold::bots
