#include "server/server_core.h"

#include <algorithm>

#include "proto/secure.h"
#include "shared/server_limits.h"

namespace foothold::server {

namespace {

// The config as the core keeps it: the snapshot budget within what the wire allows.
CoreConfig checked(CoreConfig config) {
  config.snapshot_budget = std::clamp(config.snapshot_budget, proto::kMinSnapshotBudget, int(proto::kMaxDatagram));
  config.neighbours = std::clamp(config.neighbours, 0, int(proto::kMaxSnapshotNeighbours));
  config.neighbour_inputs_ahead = std::clamp(config.neighbour_inputs_ahead, 0, int(kMaxInputsAhead));
  config.rewind_window_ms = std::clamp(config.rewind_window_ms, 0, kMaxRewindWindowMs);
  return config;
}

}  // namespace

UnixClock virtual_unix_clock(uint64_t unix_at, proto::Nanos at) {
  return [unix_at, at](proto::Nanos now) { return unix_at + uint64_t(std::max<proto::Nanos>(0, now - at) / proto::kSecond); };
}

ServerCore::ServerCore(const CoreConfig& config, const World& world, const MoveSettings& settings, proto::DatagramSink& sink,
                       proto::Nanos now, std::unique_ptr<CookieJar> cookies)
    : config_(checked(config)),
      outbox_(sink, counters_),
      pool_(config.threads),
      roster_(std::size_t(config.max_clients)),
      simulation_(world, settings, pool_, std::size_t(config.max_clients)),
      replication_(config_, settings.tick_rate, pool_),
      admission_(config_, roster_, simulation_, replication_, outbox_, counters_, now, std::move(cookies)),
      rewind_(uint32_t(config_.rewind_window_ms * settings.tick_rate / 1000), SnapshotSchedule{uint32_t(config_.snapshot_interval)},
              derive(settings)),
      game_(roster_, simulation_, counters_,
            [this](uint32_t id, proto::Channel ch, std::span<const uint8_t> b) { return send_message(id, ch, b); }, rewind_) {
  rx_inputs_.reserve(proto::kMaxCompactInputs);
  // A match's random source starts from the system's randomness; the recording keeps the seed.
  game_.set_seed(proto::random_u64());
  admission_.set_join_hook([this](Client& c) {
    const std::optional<Vec3> at = game_.join({c.id, c.session.client_id, {c.session.user_data.data(), c.session.user_data_size}});
    if (at) c.character.state = spawn_state(*at);
  });
}

uint64_t ServerCore::unix_time(proto::Nanos now) const { return admission_.unix_time(now); }

const CharacterState* ServerCore::character(uint32_t id) const {
  const Client* c = roster_.by_id(id);
  return c ? &c->character.state : nullptr;
}

std::span<const uint8_t> ServerCore::user_data(uint32_t id) const {
  const Client* c = roster_.by_id(id);
  return c ? std::span<const uint8_t>(c->session.user_data.data(), c->session.user_data_size) : std::span<const uint8_t>();
}

uint32_t ServerCore::character_at(const proto::Endpoint& endpoint) const {
  const Client* c = roster_.at(endpoint);
  return c ? c->id : 0;
}

void ServerCore::on_datagram(proto::Nanos now, const proto::Endpoint& from, std::span<const uint8_t> bytes) {
  now_ = now;
  counters_.add(Counter::kPacketsIn);
  counters_.add(Counter::kBytesIn, bytes.size());
  // Too large, no Foothold prefix, or a sealed reply (only servers send those): refused unread.
  const proto::Screened screened = reader_.screen(bytes);
  if (!screened.ok()) {
    counters_.add(drop_counter(screened.drop));
    return;
  }
  if (screened.layer == proto::Layer::kSession) {
    on_session_datagram(now, from, bytes);
  } else {
    admission_.on_clear_datagram(now, from, bytes);
  }
}

void ServerCore::on_session_datagram(proto::Nanos now, const proto::Endpoint& from, std::span<const uint8_t> bytes) {
  // Sessions are found by address; from an address no session has, by the route the datagram
  // carries (a NAT rebound the client), which only says whose key to try.
  Client* c = roster_.at(from);
  bool known = c != nullptr;
  Client* const routed = roster_.by_route(proto::session_route(bytes));
  if (!c) c = routed;
  if (!c) {
    counters_.add(Counter::kDropNoSession);
    return;
  }
  // Opened, new to the window, decoded and marked; or refused, the window untouched.
  proto::SessionDatagram d = reader_.session(c->session.keys.receive, c->session.window, bytes);
  // Not the session at its address: a NAT may have given that address's port to another client
  // while the old session waits to time out (issue #63: it blocked the new one until then). The
  // route says whose key to try; only that key can open it.
  if (!d.ok() && known && routed && routed != c) {
    const proto::SessionDatagram by_route = reader_.session(routed->session.keys.receive, routed->session.window, bytes);
    if (by_route.ok()) {
      c = routed;
      known = false;
      d = by_route;
    }
  }
  if (!d.ok()) {
    counters_.add(drop_counter(d.drop));
    return;
  }
  Session& s = c->session;
  // Authentic from here: only the client holds its sending key. It sends compact inputs messages
  // and carriers (inputs and messages), and, in a Packet, only a Disconnect or a PathResponse
  // (decode() refuses anything else).
  if (!s.rate.take(now)) {
    counters_.add(Counter::kDropRateLimited);
    return;
  }
  if (d.kind == proto::Payload::kPacket && d.message.type == proto::fb::Body::PathResponse) {
    validate_path(*c, from, d.message.packet->body_as_PathResponse()->data());
    return;
  }
  // Its content is used wherever it came from (it is authentic and new to the window); only the
  // address the session answers at waits for the new one to answer a challenge.
  if (!known) challenge_path(now, *c, from);
  if (d.kind == proto::Payload::kCompact) {
    if (!d.compact.empty()) {
      counters_.add(Counter::kBytesInInputs, bytes.size());
      handle_inputs(now, *c, d.compact, d.newest);
    }
    if (!d.messages.empty()) handle_messages(now, *c, d.messages);
    return;
  }
  counters_.add(Counter::kDisconnectsReceived);
  roster_.remove(c->id);
}

void ServerCore::handle_inputs(proto::Nanos now, Client& c, std::span<const uint8_t> message, bool newest) {
  proto::InputsHeader h;
  if (!proto::read_inputs(message, simulation_.tick() + 1, h, rx_inputs_)) {
    counters_.add(Counter::kDropMalformed);
    return;
  }
  c.session.last_heard = now;
  // A message that arrives after a newer one still brings its inputs (the buffer drops what it has),
  // but the acknowledgement and the request for the state come from the newest only.
  if (newest) replication_.acknowledge(c, h, simulation_.tick(), counters_);
  simulation_.offer_inputs(c, rx_inputs_, now, counters_);
}

void ServerCore::challenge_path(proto::Nanos now, Client& c, const proto::Endpoint& to) {
  Session& s = c.session;
  // One challenge at a time, sent again only after kPathRetry: a stream of datagrams from the new
  // address (or an attacker racing copies of them there) makes at most a few small replies a second.
  if (s.path_challenge != 0 && s.path_to == to && now - s.path_sent_at < kPathRetry) return;
  if (!s.challenges.take(now)) {
    counters_.add(Counter::kPathChallengesLimited);
    return;
  }
  if (s.path_to != to || s.path_challenge == 0) s.path_challenge = proto::random_u64() | 1;
  s.path_to = to;
  s.path_sent_at = now;
  counters_.add(Counter::kPathChallenges);
  // Sent to the new address only: the answer must come from there, which proves the client is there.
  outbox_.send(to, proto::seal_session(s.keys.send, ++s.send_sequence, writer_.path_challenge(s.path_challenge), tx_),
               Traffic::kControl);
}

void ServerCore::validate_path(Client& c, const proto::Endpoint& from, uint64_t data) {
  Session& s = c.session;
  // The answer to the outstanding challenge, from the address it went to; anything else moves nothing.
  if (s.path_challenge == 0 || data != s.path_challenge || from != s.path_to) {
    counters_.add(Counter::kPathRefused);
    return;
  }
  // The cap on sessions per address holds for a session that moves there as for one that connects
  // there (issue #63: moves ignored it).
  // A session still at that address has lost it: the NAT gave its port to this client, which has
  // just proven it receives there. It would only time out; it goes now.
  Client* const stale = roster_.at(from);
  if (!is_loopback(from) && roster_.sessions_at_address(from, &c, stale) >= config_.max_clients_per_address) {
    counters_.add(Counter::kPathRefused);
    counters_.add(Counter::kPathMovesAddressFull);
    return;
  }
  if (stale && stale != &c) {
    counters_.add(Counter::kPathDisplaced);
    roster_.remove(stale->id);
  }
  if (!roster_.move(c, from)) {
    counters_.add(Counter::kPathRefused);
    return;
  }
  s.path_challenge = 0;
  counters_.add(Counter::kPathMigrations);
}

proto::MessageEndpoint& ServerCore::messages_of(Client& c) {
  if (!c.messages) c.messages = std::make_unique<proto::MessageEndpoint>(config_.messages, now_);
  return *c.messages;
}

void ServerCore::handle_messages(proto::Nanos now, Client& c, std::span<const uint8_t> section) {
  // Authentic, and only its sender could have sealed it: whatever it says, its sender said.
  c.session.last_heard = now;
  counters_.add(Counter::kBytesInMessages, section.size());
  if (messages_of(c).on_section(now, section) != proto::Violation::kNone) {
    counters_.add(Counter::kMessageViolations);
    end_session(c, proto::fb::DisconnectReason::MessageViolation);
  }
}

proto::SendError ServerCore::send_message(uint32_t id, proto::Channel channel, std::span<const uint8_t> bytes) {
  Client* c = roster_.by_id(id);
  const proto::SendError e = c && !c->npc ? messages_of(*c).send(channel, bytes) : proto::SendError::kNotConnected;
  counters_.add(e == proto::SendError::kNone ? Counter::kMessagesSent : Counter::kMessagesRefused);
  return e;
}

void ServerCore::deliver_messages(proto::Nanos now) {
  for (std::size_t i = 0; i < roster_.size();) {
    Client& c = roster_[i];
    if (c.messages && c.messages->check(now) != proto::Violation::kNone) {
      counters_.add(Counter::kMessageTimeouts);
      end_session(c, proto::fb::DisconnectReason::MessageTimeout);
      continue;
    }
    ++i;
    if (!c.messages) continue;
    const uint32_t id = c.id;
    while (c.messages->receive(rx_message_)) {
      if (!game_.game()) {
        counters_.add(Counter::kMessagesUndelivered);
        continue;
      }
      counters_.add(Counter::kMessagesReceived);
      const MessageTiming timing = GameHost::timing_of(c);
      if (observer_) {
        // The spans are made once the arena stops growing (below): its offset for now.
        delivered_.push_back({id, rx_message_.channel == proto::Channel::kReliable, {}, timing});
        delivered_offsets_.push_back(delivered_bytes_.size());
        delivered_bytes_.insert(delivered_bytes_.end(), rx_message_.bytes.begin(), rx_message_.bytes.end());
      }
      game_.message(id, rx_message_.channel, rx_message_.bytes, timing);
    }
  }
  for (std::size_t k = 0; k < delivered_.size(); ++k) {
    const std::size_t end = k + 1 < delivered_.size() ? delivered_offsets_[k + 1] : delivered_bytes_.size();
    delivered_[k].bytes = std::span<const uint8_t>(delivered_bytes_).subspan(delivered_offsets_[k], end - delivered_offsets_[k]);
  }
}

void ServerCore::flush_messages(proto::Nanos now) {
  // A few datagrams per client per tick at most: the byte rate is the real bound, this keeps one
  // client's backlog from making a long tick.
  constexpr int kMaxDatagramsPerTick = 4;
  for (std::size_t i = 0; i < roster_.size(); ++i) {
    Client& c = roster_[i];
    if (!c.messages) continue;
    for (int n = 0; n < kMaxDatagramsPerTick && c.messages->wants_to_send(now); ++n) {
      const uint64_t sequence = c.session.send_sequence + 1;
      const std::size_t room = proto::kMaxDatagram - proto::session_overhead(sequence);
      const std::size_t bytes = proto::write_carrier(*c.messages, now, {}, std::span<uint8_t>(tx_carrier_).first(room));
      if (bytes == 0) break;
      const auto d = proto::seal_session(c.session.keys.send, ++c.session.send_sequence, {tx_carrier_.data(), bytes}, tx_,
                                         proto::Payload::kCompact);
      outbox_.send(c.session.endpoint, d, Traffic::kMessages, bytes - proto::kCarrierOverhead);
    }
    counters_.add(Counter::kMessageRetransmissions, c.messages->take_retransmissions());
  }
}

void ServerCore::end_session(Client& c, proto::fb::DisconnectReason reason) {
  if (!c.npc) outbox_.send_session(c.session, writer_.disconnect(reason));  // an NPC has no one to tell
  roster_.remove(c.id);
}

void ServerCore::tick(proto::Nanos now) {
  now_ = now;
  // Silent clients go before the tick.
  for (std::size_t i = 0; i < roster_.size();) {
    Client& c = roster_[i];
    if (!c.npc && now - c.session.last_heard > config_.client_timeout) {  // an NPC is never heard from
      counters_.add(Counter::kTimeouts);
      end_session(c, proto::fb::DisconnectReason::TimedOut);
    } else {
      ++i;
    }
  }
  delivered_.clear();
  delivered_offsets_.clear();
  delivered_bytes_.clear();
  // The game's part of the boundary (server/game.h has the order): leaves, messages, commands.
  game_.allocated();
  game_.leaves();
  deliver_messages(now);
  game_.apply_commands(simulation_.tick() + 1, [this](Client& c) { end_session(c, proto::fb::DisconnectReason::Removed); });
  simulation_.advance(roster_, counters_, observer_, delivered_, game_.applied(), game_.sent(), game_.delivered_allocation());
  game_.clear_sent();
  rewind_.record(simulation_.tick(), roster_);
  game_.after_tick(simulation_);
  const uint32_t tick = simulation_.tick();
  replication_.send_snapshots(roster_, game_.match(), simulation_.movers(), tick, now, outbox_, counters_,
                              &simulation_.clocks());  // to the clients due one
  flush_messages(now);
}

void ServerCore::shutdown(proto::Nanos) {
  admission_.shut();
  // Several copies, each sealed anew, as netcode.io sends its disconnects: one lost datagram must not
  // leave a client waiting out its timeout for a server that is gone.
  for (int copy = 0; copy < kShutdownCopies; ++copy)
    for (std::size_t i = 0; i < roster_.size(); ++i)
      if (!roster_[i].npc) outbox_.send_session(roster_[i].session, writer_.disconnect(proto::fb::DisconnectReason::ServerShutdown));
  while (roster_.size() > 0) roster_.remove(roster_[roster_.size() - 1].id);
}

}  // namespace foothold::server
