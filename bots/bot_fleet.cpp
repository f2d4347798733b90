#include "bots/bot_fleet.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <queue>

#include "proto/asio.h"

#include "client/input_latch.h"
#include "replay/recording.h"
#include "shared/formats/trace.h"

namespace foothold::bots {

using client::ClientSession;

namespace {
// Sends on a bot's own non-blocking socket, connected to the server. A datagram the kernel refuses
// (a full send buffer) is lost, as the network may lose it.
void send_on(asio::ip::udp::socket& socket, std::span<const uint8_t> bytes) {
  asio::error_code ec;
  socket.send(asio::buffer(bytes.data(), bytes.size()), 0, ec);
}
}  // namespace

// The sink a bot's session sends through: straight to the socket, or held back by the impairment.
class BotFleet::ImpairedSink final : public client::ServerSink {
 public:
  ImpairedSink(BotFleet& fleet, Bot& bot, const client::Impairment& imp, uint64_t seed)
      : fleet_(fleet), bot_(bot), impairer_(imp, seed) {}
  void send(std::span<const uint8_t> bytes) override;

 private:
  BotFleet& fleet_;
  Bot& bot_;
  client::Impairer impairer_;
};

struct BotFleet::Bot {
  /// With a socket of its own unless `shared`.
  Bot(asio::io_context& io, const proto::Endpoint& server, bool shared) : socket(io) {
    if (shared) return;
    socket.open(server.protocol());
    socket.set_option(asio::socket_base::receive_buffer_size(1 << 20));
    socket.bind(proto::Endpoint(server.protocol(), 0));
    // Connected: the kernel delivers only the server's datagrams to this socket.
    socket.connect(server);
    socket.non_blocking(true);
  }
  // Each predicted tick: a row of its trace, and a tick of its recording (the input it sent, whether
  // its step met another character, the state's checksum; the join with the first).
  void write_predicted(uint32_t tick, const CharacterState& s) {
    const uint32_t id = session->character_id();
    if (trace) trace->write({tick, id, s});
    if (recording && recording->ok()) {
      replay::TickData& t = record_tick;
      t.tick = tick;
      t.joins.clear();
      if (first_record) t.joins.push_back({id, joined_state});
      first_record = false;
      t.inputs.assign(1, {id, last_input, false, session->predictor().met(tick)});
      t.checksums.assign(1, {id, replay::state_checksum(s)});
      recording->write_tick(t);
    }
  }
  uint32_t index = 0;
  asio::ip::udp::socket socket;  // not opened with --one-socket
  std::unique_ptr<ImpairedSink> impaired;          // what the session sends through
  std::unique_ptr<client::Impairer> incoming;             // what happens to datagrams on their way in
  std::unique_ptr<ClientSession> session;
  std::unique_ptr<client::InputSource> brain;
  std::unique_ptr<std::ofstream> trace_file;
  std::unique_ptr<TraceWriter> trace;
  std::unique_ptr<std::ofstream> drawn_file;  // the others as drawn, a row a frame each (--trace-dir)
  std::unique_ptr<replay::RecordingWriter> recording;
  replay::TickData record_tick;
  InputCmd last_input;
  bool first_record = true;
  CharacterState joined_state;
  proto::Nanos next = 0;
  bool ever_connected = false;
  ClientSession::Phase final_phase = ClientSession::Phase::kIdle;
  std::vector<double> rtt_ms;
  std::unique_ptr<MessageChecker> messages;  // with a message load
  TagTally tag;                              // the tag game's announcements, taken before the checker sees them
  std::unique_ptr<Shooter> shooter;          // --pattern shoot
  FrameWatch frames;                         // what it draws (FleetOptions::frame_rate)
  proto::Nanos next_frame = 0;
  proto::ReceivedMessage received;           // every message taken goes through it (its buffer reused)
  bool finished = false;                     // said goodbye (its phase before that in final_phase)
};

void BotFleet::ImpairedSink::send(std::span<const uint8_t> bytes) {
  if (!impairer_.impairment().active()) {
    fleet_.send(bot_, bytes);
    return;
  }
  fleet_.impair(bot_.index, true, bytes, impairer_);
}

void BotFleet::send(Bot& bot, std::span<const uint8_t> bytes) {
  if (shared_) {
    shared_->queue(bot.index, bytes);
  } else {
    send_on(bot.socket, bytes);
  }
}

BotFleet::BotFleet(const World& world, const MoveSettings& settings, const FleetOptions& options)
    : world_(world), settings_(settings), options_(options) {}

BotFleet::~BotFleet() = default;

void BotFleet::stop() {
  asio::post(io_, [this] {  // no waiting for echoes either: stopped means now
    end_ = 0;
    drain_end_ = 0;
  });
}

void BotFleet::wake_at(proto::Nanos when) {
  if (armed_ != 0 && armed_ <= when) return;  // already set to fire in time
  armed_ = when;
  timer_->expires_at(std::chrono::steady_clock::time_point(std::chrono::nanoseconds(when)));
  timer_->async_wait([this](const asio::error_code& ec) {
    if (!ec) on_timer();
  });
}

void BotFleet::finish(Bot& b) {
  b.final_phase = b.session->phase();
  b.session->disconnect();
  b.finished = true;
}

bool BotFleet::finish_if_over(proto::Nanos now) {
  const bool all_finished = std::all_of(bots_.begin(), bots_.end(), [](const auto& b) { return b->session->finished(); });
  if (now < drain_end_ && error_.empty() && !all_finished) return false;
  for (const auto& b : bots_)
    if (!b->finished) finish(*b);
  if (shared_) shared_->flush();  // the goodbyes
  io_.stop();
  return true;
}

void BotFleet::on_timer() {
  armed_ = 0;
  const proto::Nanos now = proto::steady_now();
  if (finish_if_over(now)) return;
  deliver_due(now);
  // After the duration (only with a message load; otherwise the run is over): each bot plays on
  // until its last echo is back, then says goodbye.
  const bool draining = now >= end_;
  uint32_t updated = 0;
  while (!queue_.empty() && queue_.top().first <= now) {
    // A busy turn (hundreds of bots due) takes milliseconds: on one socket, what arrived meanwhile
    // is taken in between, as each bot's own socket's handler would be, or the snapshots and their
    // acknowledgements wait for the whole turn.
    if (shared_ && ++updated % kUpdatesPerReceive == 0) receive_shared(1);
    Bot& b = *bots_[queue_.top().second];
    queue_.pop();
    if (b.finished) continue;
    if (draining && (!b.messages || b.messages->outstanding() == 0 || b.session->finished())) {
      finish(b);
      continue;
    }
    if (b.session->phase() == ClientSession::Phase::kIdle) b.session->start(now);
    exchange_messages(b, now);  // before the update, so that the messages due go in its datagrams
    proto::Nanos next = b.session->update(proto::steady_now(), *b.brain);
    b.ever_connected |= b.session->phase() == ClientSession::Phase::kConnected;
    if (options_.frame_rate > 0) {
      // A frame drawn when one is due, at the moment it is drawn (as a game's loop would).
      const proto::Nanos frame_period = proto::Nanos(double(proto::kSecond) / options_.frame_rate);
      if (now >= b.next_frame) {
        b.frames.frame(*b.session, proto::steady_now());
        b.next_frame = std::max(b.next_frame + frame_period, now - frame_period);
      }
      next = std::min(next, b.next_frame);
    }
    queue_.push({std::max(next, now + 100'000), b.index});
  }
  if (draining && finish_if_over(now)) return;  // the last echo is back: no need to wait for drain_end_
  const proto::Nanos limit = draining ? drain_end_ : end_;
  proto::Nanos wake = std::min(queue_.empty() ? limit : queue_.top().first, limit);
  if (!flights_.empty()) wake = std::min(wake, flights_.top().due);
  wake_at(wake);
  if (shared_) shared_->flush();
}

// Takes every message the server sent: the tag game's announcements are counted; any other is
// checked as an echo with a message load, and dropped otherwise (so that none piles up in the
// session). Then sends the messages due. Those go at the session's next tick, in its datagrams: the
// session sends nothing between ticks, so sending at the bot's updates spreads them as evenly as the
// wire carries them.
void BotFleet::exchange_messages(Bot& b, proto::Nanos now) {
  while (b.session->receive_message(b.received)) {
    // The game's own words are not echoes: they must not count as corrupt ones.
    if (b.tag.take(b.received.channel, b.received.bytes)) continue;
    if (b.shooter && b.shooter->take(b.received.channel, b.received.bytes)) continue;
    if (b.messages) b.messages->on_echo(now, b.received.channel, b.received.bytes);
  }
  // No shot in the last second: every one fired gets its verdict before the bots leave.
  if (b.shooter && now < end_ - proto::kSecond) b.shooter->maybe_fire(*b.session, now);
  if (!b.messages || b.session->phase() != ClientSession::Phase::kConnected) return;
  if (now >= end_) b.messages->stop_sending();
  b.messages->send_due(now, [&b](std::span<const uint8_t> bytes) {
    return b.session->send_message(proto::Channel::kReliable, bytes);
  });
}

void BotFleet::impair(uint32_t bot, bool outgoing, std::span<const uint8_t> bytes, client::Impairer& impairer) {
  proto::Nanos delays[2];
  const int copies = impairer.decide(delays);
  const proto::Nanos now = proto::steady_now();
  for (int i = 0; i < copies; ++i) {
    flights_.push({now + delays[i], flight_order_++, bot, outgoing, std::vector<uint8_t>(bytes.begin(), bytes.end())});
    wake_at(now + delays[i]);
  }
}

void BotFleet::deliver_due(proto::Nanos now) {
  alignas(8) static thread_local uint8_t buffer[2048];
  while (!flights_.empty() && flights_.top().due <= now) {
    Flight f = flights_.top();
    flights_.pop();
    Bot& b = *bots_[f.bot];
    if (f.outgoing) {
      send(b, f.bytes);
    } else {
      const std::size_t n = std::min(f.bytes.size(), sizeof buffer);
      if (n > 0) std::memcpy(buffer, f.bytes.data(), n);
      const auto before = b.session->next_update();
      b.session->on_datagram(now, std::span<const uint8_t>(buffer, n));
      exchange_messages(b, now);
      if (b.session->next_update() < before) queue_.push({b.session->next_update(), b.index});
    }
  }
}

void BotFleet::take(Bot& bot, std::span<const uint8_t> bytes) {
  if (options_.impairment.active()) {
    impair(bot.index, false, bytes, *bot.incoming);
  } else {
    bot.session->on_datagram(proto::steady_now(), bytes);
  }
}

void BotFleet::after_receive(Bot& bot, proto::Nanos before) {
  exchange_messages(bot, proto::steady_now());
  // A Challenge or an Accept wants the session to act sooner than it planned.
  if (bot.session->next_update() < before) {
    queue_.push({bot.session->next_update(), bot.index});
    wake_at(bot.session->next_update());
  }
}

void BotFleet::arm_receive(Bot& bot) {
  bot.socket.async_wait(asio::ip::udp::socket::wait_read, [this, &bot](const asio::error_code& ec) {
    if (ec) return;
    const auto before = bot.session->next_update();
    // The socket is connected: only the server's datagrams arrive. At most 256 at a time, so that one
    // busy bot does not starve the others.
    alignas(8) static thread_local uint8_t buffer[2048];
    for (int i = 0; i < 256; ++i) {
      asio::error_code error;
      const std::size_t n = bot.socket.receive(asio::buffer(buffer, sizeof buffer), 0, error);
      if (error == asio::error::would_block || error == asio::error::try_again) break;
      if (error) continue;  // e.g. an ICMP error reported on this receive: not a datagram
      take(bot, std::span<const uint8_t>(buffer, n));
    }
    after_receive(bot, before);
    arm_receive(bot);
  });
}

void BotFleet::receive_shared(int max_batches) {
  shared_->receive(
      [this](uint32_t index, std::span<const uint8_t> bytes) {
        Bot& bot = *bots_[index];
        const auto before = bot.session->next_update();
        take(bot, bytes);
        after_receive(bot, before);
      },
      max_batches);
  shared_->flush();  // what the sessions answered at once (a handshake's next step)
}

void BotFleet::arm_shared_receive() {
  shared_->socket().async_wait(asio::ip::udp::socket::wait_read, [this](const asio::error_code& ec) {
    if (ec) return;
    // Everything waiting: with a socket each, every bot's handler runs once per turn of the loop; this
    // one handler stands for them all, and a backlog left here grows until the kernel drops
    // datagrams (an Accept among them, and a bot never connects).
    receive_shared(SharedSocket::kDrain);
    arm_shared_receive();
  });
}

std::string BotFleet::create_output_dirs() const {
  for (const std::string& dir : {options_.trace_dir, options_.record_dir}) {
    if (dir.empty()) continue;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return "cannot create directory '" + dir + "': " + ec.message();
  }
  return {};
}

std::string BotFleet::add_bots(proto::Nanos start) {
  // Tokens live as long as a bot may keep trying to connect, and a minute more.
  const uint64_t unix_now =
      uint64_t(std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
  const uint64_t lifetime =
      std::min<uint64_t>(proto::kMaxTokenLifetime, uint64_t(options_.session.connect_timeout / proto::kSecond) + 60);
  const proto::TokenAddress server_address = proto::to_token_address(options_.server);
  if (options_.one_socket) {
    shared_ = std::make_unique<SharedSocket>(io_, options_.server, std::size_t(options_.bots));
    if (!shared_->ok()) return shared_->error();
  }
  for (int i = 0; i < options_.bots; ++i) {
    auto bot = std::make_unique<Bot>(io_, options_.server, options_.one_socket);
    bot->index = uint32_t(i);
    // Each bot's two directions get their own reproducible generators.
    const uint64_t imp_seed = options_.seed * 0x9e3779b97f4a7c15ull + uint64_t(i) * 2;
    bot->impaired = std::make_unique<ImpairedSink>(*this, *bot, options_.impairment, imp_seed);
    bot->incoming = std::make_unique<client::Impairer>(options_.impairment, imp_seed + 1);
    proto::ConnectToken token;
    std::string token_error;
    if (!proto::mint_token(options_.key, proto::random_u64(), std::span(&server_address, 1), unix_now, lifetime, token,
                           token_error))
      return "cannot mint a token: " + token_error;
    client::SessionOptions session_options = options_.session;
    // A shot is worth something only inside the server's rewind window (a quarter second by
    // default), about a round trip and a retransmission time: it goes three times, a tick apart.
    if (options_.pattern.pattern == Pattern::kShoot) session_options.messages.limits.copies = 3;
    bot->session = std::make_unique<ClientSession>(world_, settings_, *bot->impaired, token, session_options);
    bot->session->set_server_name(proto::to_string(options_.server));
    // Through the latch a game's frames go through (every press kept until a tick uses it).
    bot->brain = std::make_unique<client::LatchedSource>(
        make_brain(options_.pattern, options_.seed, uint32_t(i), settings_.tick_rate, &world_, bot->session.get()));
    // Shots spread over the half second, bot by bot.
    if (options_.pattern.pattern == Pattern::kShoot)
      bot->shooter = std::make_unique<Shooter>(world_, settings_, options_.aim_offset, start + proto::kSecond + proto::Nanos(i) * proto::kSecond / 2 /
                                                                                           std::max(1, options_.bots));
    if (options_.messages.active()) bot->messages = std::make_unique<MessageChecker>(options_.messages, options_.seed, uint32_t(i));
    hook_session(*bot);
    // Spread the handshakes over the first few milliseconds rather than one burst.
    bot->next = start + proto::Nanos(i) * 200'000;
    bots_.push_back(std::move(bot));
  }
  return {};
}

void BotFleet::hook_session(Bot& bot) {
  Bot* b = &bot;
  b->session->on_connected = [this, b](uint32_t id) { open_outputs(*b, id); };
  b->session->on_input = [b](const InputCmd& in) { b->last_input = in; };
  b->session->on_rtt = [b](double ms) { b->rtt_ms.push_back(ms); };
  b->session->on_predicted = [b](uint32_t tick, const CharacterState& s) { b->write_predicted(tick, s); };
}

// Opened when the bot joins: the files are named after its character id, and the recording starts
// with the state it joined with.
void BotFleet::open_outputs(Bot& b, uint32_t id) {
  if (!options_.trace_dir.empty()) {
    const std::string path = options_.trace_dir + "/bot-" + std::to_string(id) + ".csv";
    b.trace_file = std::make_unique<std::ofstream>(path, std::ios::binary | std::ios::trunc);
    if (!*b.trace_file) {
      error_ = "cannot write trace file '" + path + "'";
      return;
    }
    b.trace = std::make_unique<TraceWriter>(*b.trace_file);
    // Not bot-*.csv: scripts take every bot-*.csv for a predicted trace.
    const std::string drawn = options_.trace_dir + "/drawn-" + std::to_string(id) + ".csv";
    b.drawn_file = std::make_unique<std::ofstream>(drawn, std::ios::binary | std::ios::trunc);
    if (!*b.drawn_file) {
      error_ = "cannot write trace file '" + drawn + "'";
      return;
    }
    b.frames.trace_to(b.drawn_file.get());
  }
  if (!options_.record_dir.empty()) {
    // The bot's own input stream, in the server's recording format.
    replay::RecordingHeader h;
    h.source = "bot";
    h.world = options_.world_name;
    h.world_hash = world_.hash();
    h.settings = settings_;
    h.settings_hash = settings_.hash();
    h.start_tick = b.session->predictor().latest_tick() + 1;
    h.character_id = id;
    h.recorded_by = options_.recorded_by;
    b.joined_state = b.session->predictor().latest_state();
    b.recording = std::make_unique<replay::RecordingWriter>();
    if (!b.recording->open(options_.record_dir + "/bot-" + std::to_string(id) + ".rec", h)) error_ = b.recording->error();
  }
}

void BotFleet::play() {
  for (const auto& b : bots_) {
    queue_.push({b->next, b->index});
    if (!shared_) arm_receive(*b);
  }
  if (shared_) arm_shared_receive();
  timer_ = std::make_unique<asio::steady_timer>(io_);
  armed_ = 0;
  asio::post(io_, [this] { on_timer(); });
  io_.run();
}

BotResult BotFleet::result_of(Bot& b) {
  BotResult r;
  r.index = b.index;
  r.character_id = b.session->character_id();
  r.phase = b.final_phase;
  r.connected = b.ever_connected;
  r.reason = b.session->reason_text();
  r.end = b.session->end_reason();
  r.prediction = b.session->predictor().counters();
  r.stats = b.session->stats();
  r.rtt_ms = std::move(b.rtt_ms);
  if (b.messages) r.messages = b.messages->counts();
  r.message_stats = b.session->messages().stats();
  r.tag = b.tag;
  if (b.shooter) r.shots = b.shooter->counts();
  r.frames = b.frames.counts();
  r.standing = tag_standing(*b.session);
  return r;
}

std::string BotFleet::close_outputs(Bot& b) {
  if (b.trace_file) b.trace_file->flush();
  if (b.drawn_file) b.drawn_file->flush();
  if (!b.recording) return {};
  b.recording->close(b.session->predictor().latest_tick());
  return b.recording->ok() ? std::string() : b.recording->error();
}

FleetResult BotFleet::run() {
  FleetResult result;
  result.error = create_output_dirs();
  if (!result.error.empty()) return result;
  const proto::Nanos start = proto::steady_now();
  end_ = start + proto::Nanos(options_.duration * 1e9);
  drain_end_ = end_ + (options_.messages.active() ? kMessageDrain : 0);
  result.error = add_bots(start);
  if (!result.error.empty()) return result;
  play();
  result.seconds = double(proto::steady_now() - start) / 1e9;
  result.error = error_;
  for (const auto& b : bots_) {
    result.bots.push_back(result_of(*b));
    // The first error wins: a run that failed early says why, not what its last recording did.
    const std::string closed = close_outputs(*b);
    if (!closed.empty() && result.error.empty()) result.error = closed;
  }
  return result;
}

}  // namespace foothold::bots
