#pragma once
// One client's connection to a Foothold server, without sockets or clocks: the handshake, sending
// inputs with redundancy, prediction and reconciliation of its own character, interpolation of the
// others, and steering of its tick clock so that its inputs arrive just ahead of the server's need.
// A driver feeds it datagrams and time: UdpClient (udp_client.h) on a real socket, the tests on a
// simulated network. Games link it through the C API (foothold/client.h) or directly; bots run it too.

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "proto/clock.h"
#include "proto/codec.h"
#include "proto/datagram_reader.h"
#include "proto/network_tuning.h"
#include "proto/handshake.h"
#include "proto/message_endpoint.h"
#include "proto/secure.h"
#include "proto/token.h"
#include "client/clock_steering.h"
#include "client/drawing.h"
#include "client/end_reason.h"
#include "client/remote_drawing.h"
#include "client/view_clock.h"
#include "client/view_events.h"
#include "shared/interpolation.h"
#include "shared/predictor.h"
#include "shared/settings.h"
#include "shared/world.h"

namespace foothold::client {

/// Where a session's datagrams go: to its one server (a socket connected to it, or a test's network).
class ServerSink {
 public:
  virtual ~ServerSink() = default;
  /// Sends one datagram to the server (fire and forget). `bytes` need only stay valid during the call.
  virtual void send(std::span<const uint8_t> bytes) = 0;
};

/// Produces a client's input, one tick at a time (the game, or a bot's brain).
class InputSource {
 public:
  virtual ~InputSource() = default;
  /// The input for `tick`, given the state predicted after the previous tick. `tick` is in the
  /// server's numbering (the client runs ahead of the server); the returned tick field is ignored.
  virtual InputCmd next(uint32_t tick, const CharacterState& current) = 0;
};

/// Timing of a client session; times on the session's clock (proto::Nanos).
struct SessionOptions {
  proto::Nanos handshake_retry = proto::kHandshakeRetry;  ///< resend ConnectRequest/Connect this often
  proto::Nanos connect_timeout = proto::kConnectTimeout;  ///< give up connecting after this
  proto::Nanos server_timeout = 10 * proto::kSecond;         ///< silence from a connected server
  int target_lead = ClockSteering::kDefaultTargetLead;  ///< ticks by which the slowest recent input should still be early at the server
  /// Messages: the send queue (limits.queue_bytes), the byte rate to the server, the no-progress time-out.
  proto::MessageConfig messages;
  /// How the own character is drawn (draw_local).
  DrawOptions draw;
};

/// Single-threaded; every call takes `now` from one clock (nanoseconds). Not to be copied or moved:
/// its predictor refers to the session's own derived settings.
class ClientSession {
 public:
  /// Where the session is: kIdle before start(); kRequesting (ConnectRequest sent) and kConnecting
  /// (Connect sent) during the handshake; kConnected in a session; then, once finished, kRejected
  /// (reject_reason()), kFailed (no answer within connect_timeout), kTimedOut (the server went silent
  /// for server_timeout) or kDisconnected (either side said goodbye).
  enum class Phase : uint8_t { kIdle, kRequesting, kConnecting, kConnected, kRejected, kFailed, kTimedOut, kDisconnected };

  /// Connection attempts at most: a Reject(BadCookie) starts another with a fresh salt, up to this
  /// many in all (within connect_timeout).
  static constexpr int kMaxAttempts = 4;

  /// `world` and `sink` must outlive the session (they are referenced, not copied; a temporary world
  /// is refused at compile time); `sink` sends to one of the token's server addresses. The token,
  /// `settings` and `options` are copied.
  ClientSession(const World& world, const MoveSettings& settings, ServerSink& sink, const proto::ConnectToken& token,
                const SessionOptions& options = {});
  /// A temporary world would not outlive the session: refused.
  ClientSession(World&&, const MoveSettings&, ServerSink&, const proto::ConnectToken&, const SessionOptions& = {}) = delete;
  /// Not copyable or movable: its predictor keeps a reference to the session's own derived settings.
  ClientSession(const ClientSession&) = delete;
  ClientSession& operator=(const ClientSession&) = delete;

  /// Sends the first ConnectRequest, with a fresh salt for this attempt. Call once.
  void start(proto::Nanos now);
  /// A datagram from the server's endpoint (the driver drops anything else).
  void on_datagram(proto::Nanos now, std::span<const uint8_t> bytes);
  /// Runs what is due (handshake resends, client ticks); returns when it next wants to run. Each due
  /// tick asks `source` for its input and sends the unacknowledged ones; at most 4 ticks per call,
  /// and a clock more than 4 ticks behind resumes from `now`.
  proto::Nanos update(proto::Nanos now, InputSource& source);
  /// When the session next wants update() (a datagram can make it sooner than update() said).
  proto::Nanos next_update() const { return phase_ == Phase::kConnected ? next_tick_ : last_send_ + options_.handshake_retry; }
  /// Says goodbye to the server (when connected) and ends the session (kDisconnected) unless it had
  /// already finished.
  void disconnect();

  /// Queues a message to the server; it goes with the next ticks' inputs (in their datagram's room,
  /// then in datagrams of its own, within SessionOptions::messages' rate). kNotConnected before the
  /// Accept and once finished; kQueueFull when the queue has no room now (try again after an update);
  /// kEmpty, kTooLarge as the channel says (64 KiB reliable, 1 KiB unreliable).
  proto::SendError send_message(proto::Channel channel, std::span<const uint8_t> bytes);
  /// Moves the next message the server sent into `out` (its buffer is reused); false when none.
  bool receive_message(proto::ReceivedMessage& out) { return messages_.receive(out); }
  /// The session's messages, for their counts and round trip.
  const proto::MessageEndpoint& messages() const { return messages_; }

  /// The game's replicated attributes (server/game.h): this client's own character's (`index` below
  /// proto::kCharacterAttributes) and the match's (below proto::kMatchAttributes), as the newest
  /// snapshot that carried each left it; 0 until then, and for an index out of range.
  int32_t attribute(int index) const;
  int32_t match_attribute(int index) const;
  /// Their names, as the game declared them (from the Accept; empty before it, or without a game).
  std::span<const std::string> attribute_names() const { return attribute_names_; }
  std::span<const std::string> match_attribute_names() const { return match_attribute_names_; }
  /// Character `character`'s attribute `index` (below proto::kCharacterAttributes): for another
  /// character, the last value a snapshot carried of one the game lets every client see (visibility
  /// `all`) while the character stayed in this client's view; for this client's own, attribute().
  /// 0 when unknown: never carried, of visibility `self`, out of range, or the character not in the
  /// view (its values are forgotten when it leaves the view).
  int32_t attribute_of(uint32_t character, int index) const;
  /// The index of the attribute called `name`, or -1.
  int attribute_index(std::string_view name) const;
  int match_attribute_index(std::string_view name) const;

  /// The current phase.
  Phase phase() const { return phase_; }
  /// The movement settings it predicts with.
  const MoveSettings& settings() const { return settings_; }
  /// The same as the step reads them (derive()).
  const DerivedSettings& derived_settings() const { return derived_; }
  /// True once the session has ended: rejected, failed, timed out or disconnected.
  bool finished() const { return phase_ >= Phase::kRejected; }
  /// The server's id for this client's character (0 before the Accept).
  uint32_t character_id() const { return character_id_; }
  /// The client id of this client's token, as the server's Accept says it (0 before it).
  uint64_t client_id() const { return client_id_; }
  /// The client id of the player whose character `character_id` the newest snapshot shows (0 for one
  /// it does not show).
  uint64_t client_id_of(uint32_t character_id) const;
  /// The oldest change to the view (client/view_events.h) not taken yet, into `out`; false when none.
  bool take_view_event(ViewEvent& out) { return view_events_.take(out); }
  /// View events dropped because a game did not take them (ViewEvents::kCapacity were waiting).
  uint64_t view_events_dropped() const { return view_events_.dropped(); }
  /// Why the server refused (meaningful in kRejected).
  proto::fb::RejectReason reject_reason() const { return reject_reason_; }
  /// Why the session ended, for people (the server's message when rejected); empty while it runs.
  const std::string& reason_text() const { return reason_text_; }
  /// Why the session ended, for code (client/end_reason.h); kNone while it runs.
  EndReason end_reason() const { return end_reason_; }
  /// The address the session talks to, as people write it: named in the reasons it gives.
  void set_server_name(std::string name) { server_name_ = std::move(name); }
  /// The driver saw the server's address refuse a datagram (an ICMP port unreachable: nothing
  /// listens there). Said in the reason if the handshake then times out; nothing else changes
  /// (anyone can send such a message).
  void on_unreachable() { ++unreachable_; }
  /// The prediction of this client's own character; its ticks are the server's.
  const Predictor& predictor() const { return predictor_; }
  /// The movers' clocks as the server's snapshots told them (shared/mover_clock.h): pose the movers
  /// with these (MoverFrame::build, MoverClocks::pose) to draw them where the prediction has them.
  const MoverClocks& mover_clocks() const { return clocks_; }
  /// The other characters, by snapshot tick; positions in 1/1024 m (received at 1/256 m).
  const RemoteInterpolator& remotes() const { return remotes_; }
  /// The other characters shown, sorted by id, as the step sees them: the newest snapshot's, and
  /// those it says nothing of for now (built on a base older than the one that added them).
  std::span<const OtherCharacter> others() const { return others_; }
  /// Ticks between the server's snapshots (from the Accept; 1 before it).
  uint32_t snapshot_interval() const { return snapshot_interval_; }
  /// How far behind the newest tick the fastest path brings the others are shown, in ticks: what
  /// the view clock is steered to (client/view_clock.h), from the jitter and loss measured. Two
  /// snapshot intervals before the first snapshot.
  double interpolation_delay_ticks() const { return view_clock_.delay_ticks(); }
  /// The moment, in fractional server ticks, at which the other characters are drawn at `now`: the
  /// view clock, which runs with real time that far behind (continuous; it runs up to 10% fast or
  /// slow to follow the delay). What a game attaches to a shot, for the server's lag compensation
  /// (GameControl::ray); 0 before the first snapshot.
  double view_tick(proto::Nanos now) const;
  /// The others as a game draws them at `now` (client/remote_drawing.h): at the view tick, carried on
  /// for a while past their newest snapshot when the next is late, wrong guesses taken in smoothly.
  /// The first out.size() into `out`, in id order; returns how many there are. Frames in time order;
  /// allocates nothing once as many characters have been seen.
  std::size_t draw_remotes(proto::Nanos now, std::span<DrawnRemote> out);
  /// What draw_remotes draws from at `now` (for measuring, with remote_drawing().raw()).
  RemoteFrame remote_frame(proto::Nanos now) const;
  const RemoteDrawing& remote_drawing() const { return remote_drawing_; }
  /// The own character as a game draws it at `now` (client/drawing.h): between predicted ticks,
  /// corrections smoothed; nothing before the first tick. Frames in time order; allocates nothing.
  std::optional<DrawnPose> draw_local(proto::Nanos now) { return drawing_.draw(predictor_, now); }
  /// The same without smoothing: where the prediction alone has it at `now`.
  std::optional<DrawnPose> predicted_local(proto::Nanos now) const { return drawing_.predicted(predictor_, now); }
  /// How it draws (SessionOptions::draw to begin with).
  void set_draw_options(const DrawOptions& o) {
    drawing_.set_options(o);
    remote_drawing_.set_options(o);
  }
  const LocalDrawing& drawing() const { return drawing_; }
  /// This session's keys (valid from the Accept on), for tools that speak the protocol by hand
  /// (the fuzz targets). Secret: never log them.
  const proto::SessionKeys& session_keys() const { return keys_; }

  /// Called for every tick the client predicts, with the state its player sees (from update(), and
  /// from on_datagram() for the ticks run at once on Accept).
  std::function<void(uint32_t tick, const CharacterState& predicted)> on_predicted;
  /// Called once connected, on the Accept, before its first tick runs.
  std::function<void(uint32_t character_id)> on_connected;
  /// Called for every input the client sends for the first time (its own input stream).
  std::function<void(const InputCmd& input)> on_input;
  /// Called for every round trip measured (a snapshot that echoed a send time), in milliseconds.
  std::function<void(double rtt_ms)> on_rtt;

  /// What the session saw.
  struct Stats {
    /// Datagrams and bytes received (every one, before any check) and sent.
    uint64_t packets_in = 0, bytes_in = 0, packets_out = 0, bytes_out = 0;
    /// Snapshots used; snapshots no newer than one already used; datagrams refused or ignored, for
    /// any reason; snapshots whose delta base this client no longer holds (also dropped).
    uint64_t snapshots = 0, stale_snapshots = 0, dropped = 0, missing_delta_base = 0;
    /// Snapshots that carried the own state in full, and how often this client asked for it (its
    /// prediction did not match a digest).
    uint64_t snapshots_with_state = 0, state_requests = 0;
    /// Snapshots missed, as a fraction, smoothed (it sizes the inputs' redundancy).
    double loss = 0;
    /// Inputs sent, counting every copy (the redundancy), and messages they went in.
    uint64_t inputs_sent = 0, input_messages = 0;
    uint64_t unauthenticated = 0;  ///< datagrams that did not open under our keys, or repeated (also in dropped)
    double connect_ms = -1;        ///< from start() to the Accept; -1 until connected
    uint64_t compared = 0;     ///< snapshots whose tick the client had predicted (matched or corrected)
    double rtt_ms = -1;           ///< the latest round trip, milliseconds; -1 before the first
    double rtt_smoothed_ms = -1;  ///< the round trip smoothed by 1/8 per sample (as TCP's SRTT); -1 before the first
    int16_t input_lead = 0;       ///< the newest snapshot's word on how many ticks early our input arrived
    uint32_t server_tick = 0;     ///< the newest snapshot's tick
    uint64_t path_challenges = 0; ///< path challenges answered (the server saw us at a new address)
    /// Movers' clock segments taken from snapshots (a game drove a mover), and the ticks predicted
    /// again for them, so that the prediction ran the mover as the server did from its tick on.
    uint64_t mover_segments = 0, mover_replayed_ticks = 0;
  };
  /// What the session saw so far.
  const Stats& stats() const { return stats_; }

 private:
  void send(std::span<const uint8_t> bytes);
  // Counts a datagram refused: dropped, and unauthenticated when it did not open or repeated.
  void refuse(proto::DatagramDrop why);
  void send_session(std::span<const uint8_t> packet);
  /// Starts a connection attempt: a fresh salt, and its ConnectRequest.
  void begin_attempt(proto::Nanos now);
  /// The Connect for the cookie just received: sealed once per attempt (its proof names the attempt,
  /// and every reply to it is bound to that), then sent again as it is.
  void prepare_connect();
  /// The Accept, opened: derives the session keys and starts ticking.
  void on_accept(proto::Nanos now, const proto::fb::Accept& a);
  void on_sealed(proto::Nanos now, std::span<const uint8_t> bytes);
  void on_session(proto::Nanos now, std::span<const uint8_t> bytes);
  void on_clear(std::span<const uint8_t> bytes);
  void send_inputs(proto::Nanos now);
  // Sends what the messages have due that did not ride with the inputs, in datagrams of their own.
  void send_messages(proto::Nanos now);
  // The server broke the message layer's rules, or let it stand still: the session ends, and the
  // server is told why.
  void end_for_messages(proto::Violation v);
  // The oldest tick whose input the server may not have: the one after server_has_, or the oldest
  // the predictor still holds.
  uint32_t oldest_unacknowledged() const;
  void handle_snapshot(proto::Nanos now, std::span<const uint8_t> message);
  void take_seen_attributes();
  // A snapshot newer than the last, read against its base, its view kept as a later one's base and
  // its gap counted as loss; nothing (and a count) when it is stale or cannot be read.
  std::optional<proto::SnapshotHeader> take_snapshot(std::span<const uint8_t> message);
  // Snapshots further apart than this say nothing of a character's motion: the server leaves out a
  // character that moves for no longer (proto::kMaxStalenessMs).
  uint32_t stale_ticks() const;
  // The others as snapshot `tick` shows them: to the interpolator and to the predictor.
  void show_others(uint32_t tick);
  void take_neighbours(uint32_t tick);
  // shown_ becomes the newest view with what it leaves unsaid (keep_if_unsaid); the events said.
  void keep_unsaid(uint32_t tick, uint32_t stale);
  void keep_if_unsaid(std::size_t s, uint32_t tick, uint32_t stale);
  // Our own character: the server's state reconciled with our prediction (the drawing told of a
  // correction at `now`), or its digest compared.
  void check_own_state(proto::Nanos now, const proto::SnapshotHeader& h);
  // The server has every input up to `received_through`: those are not sent again.
  void forget_inputs_through(uint32_t received_through);
  // Takes the movers' clocks a snapshot of tick `tick` carries; predicts again if one changed.
  void take_movers(const proto::SnapshotHeader& h);
  // The round trip of the newest input the snapshot says the server had.
  void measure_round_trip(proto::Nanos now, const proto::SnapshotHeader& h);
  // How many of the newest inputs every message repeats, from the loss seen.
  std::size_t redundancy() const;
  void run_tick(InputSource* source);  // nullptr: a neutral input

  const World& world_;
  MoveSettings settings_;
  DerivedSettings derived_;
  ServerSink& sink_;
  proto::ConnectToken token_;
  SessionOptions options_;
  proto::PacketWriter writer_;
  proto::DatagramReader reader_{proto::Direction::kToClient};
  proto::DatagramBuffer tx_;
  uint64_t salt_ = 0;               // this connection attempt's
  proto::ConnectAttempt attempt_;   // this attempt's Connect (its salts and proof), once sent
  std::vector<uint8_t> connect_;    // this attempt's Connect datagram, resent as it is
  int attempts_ = 0;                // connection attempts so far (a BadCookie starts another)
  proto::SessionKeys keys_;
  proto::ReplayWindow window_;
  uint64_t send_sequence_ = 0;
  uint32_t route_ = 0;              // the Accept's: written in every datagram we seal
  std::string hint_;                // an unauthenticated reason from the server (printable), reported only if we fail

  Phase phase_ = Phase::kIdle;
  proto::Nanos phase_started_ = 0;
  proto::Nanos last_send_ = 0;
  proto::Nanos last_heard_ = 0;
  std::vector<uint8_t> cookie_;
  proto::fb::RejectReason reject_reason_ = proto::fb::RejectReason::Unknown;
  std::string reason_text_;
  EndReason end_reason_ = EndReason::kNone;
  std::string server_name_ = "the server";
  uint64_t unreachable_ = 0;  // refusals seen (on_unreachable)

  uint32_t character_id_ = 0;
  uint64_t client_id_ = 0;
  // Clock segments reserved per mover (a connected session allocates nothing), and the ticks of
  // them kept (interpolation and prediction reach back far less).
  static constexpr std::size_t kClockSegments = 8;
  static constexpr uint32_t kClockHistoryTicks = 256;
  MoverClocks clocks_;  // before predictor_, which holds it
  Predictor predictor_;
  RemoteInterpolator remotes_;
  std::vector<OtherCharacter> others_;  // the newest snapshot's remote characters, as the step sees them
  LocalDrawing drawing_{world_, derived_};
  RemoteDrawing remote_drawing_{world_, derived_};
  ViewClock view_clock_;
  std::vector<FixedVec3> motion_;       // per other: its motion per tick, as the predictor carries it on
  proto::Nanos period_ = 0;
  proto::Nanos next_tick_ = 0;
  ClockSteering steering_;
  uint32_t last_snapshot_ = 0;     // the newest snapshot's tick (the Accept's before any)
  uint32_t acked_snapshot_ = 0;    // the newest snapshot decoded, whose view we hold (0: none)
  uint32_t snapshot_interval_ = 1;
  bool want_state_ = false;        // a digest did not match: ask for the full state
  // The replicated attributes: own character's slots, then the match's (proto::kAttributeSlots).
  std::array<int32_t, proto::kAttributeSlots> attributes_{};
  std::vector<std::string> attribute_names_, match_attribute_names_;
  uint32_t seen_by_all_ = 0;  // bit i: character attribute i is seen by all (the Accept's seen_by_all)
  // The attributes others see of the characters of the newest view (ascending id; mask: those
  // known), the ones a snapshot carries as decoded, and the scratch the next list is merged in.
  std::vector<proto::SeenAttributes> seen_, wire_seen_, seen_next_;
  // The views of the snapshots received, the delta bases: a ring by snapshot number.
  struct Received {
    uint32_t tick = 0;
    proto::RemoteView view;
  };
  std::array<Received, proto::kBaseHistory> received_{};
  const proto::RemoteView no_base_;     // the base of a snapshot that names none
  proto::RemoteView view_;              // decoding scratch
  // The characters shown (keep_unsaid): the newest snapshot's view and those it left unsaid, with
  // their players' client ids, and the tick of the snapshot that last had each.
  proto::RemoteView shown_, merged_;
  std::vector<uint32_t> shown_seen_, merged_seen_;
  std::vector<uint32_t> changed_, view_ids_;
  std::vector<uint32_t> gone_;          // the ids the snapshot being decoded says left the match
  std::vector<proto::SnapshotNeighbour> wire_neighbours_;  // the ones it gives in full, as decoded
  std::vector<PredictedNeighbour> neighbours_;             // the same for the predictor
  std::vector<uint32_t> base_ids_;      // the ids its base held (ascending)
  ViewEvents view_events_;
  // When each input was first sent, by tick: its round trip when the server echoes it, and whether
  // it is overdue (plausibly lost) while unacknowledged.
  struct Sent {
    uint32_t tick = 0;
    proto::Nanos at = 0;
  };
  std::array<Sent, 64> sent_at_{};
  uint32_t newest_sent_ = 0;
  std::array<uint8_t, proto::kMaxDatagram> payload_{};
  std::array<uint8_t, proto::kMaxDatagram> carrier_{};  // inputs with messages in their room, or messages alone
  proto::MessageEndpoint messages_;
  // The inputs are the predictor's (one history: Predictor::input()). Those after this tick that it
  // still holds are the ones the server may not have, and go again in every message (as the loss
  // asks, or all once overdue) until a snapshot says it has them.
  uint32_t server_has_ = 0;  // every input up to this tick has reached the server, or it needs it no more
  std::array<InputCmd, proto::kMaxCompactInputs> outgoing_{};  // the inputs of the message being written
  Stats stats_;
};

/// "idle", "requesting", ..., "timed_out", "disconnected".
std::string_view to_string(ClientSession::Phase p);

}  // namespace foothold::client
