#include "server/server_core.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>

#include "server/spawn.h"
#include "shared/sort_presorted.h"

namespace foothold::server {

namespace {

constexpr Counter kDecodeCounter[] = {Counter::kPacketsIn,       Counter::kDropTooLarge,    Counter::kDropMalformed,
                                      Counter::kDropBadProtocol, Counter::kDropUnknownType, Counter::kDropWrongDirection};
static_assert(std::size(kDecodeCounter) == static_cast<size_t>(proto::DropReason::kCount));

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

uint32_t micros(proto::Nanos t) { return uint32_t(uint64_t(t / 1000)); }

// Loopback, also as a dual-stack socket reports an IPv4 peer (::ffff:127.x.y.z).
bool is_loopback(const proto::Endpoint& e) {
  const auto a = e.address();
  if (a.is_v6() && a.to_v6().is_v4_mapped()) return asio::ip::make_address_v4(asio::ip::v4_mapped, a.to_v6()).is_loopback();
  return a.is_loopback();
}

// Interest grid: 4 m cells in X and Z; a client looks at rings of cells around its own until they
// hold enough characters, at most kMaxRings rings (32 m) out.
constexpr double kCell = 4.0;
constexpr int64_t kMaxRings = 8;
int64_t cell_key(int64_t cx, int64_t cz) { return (cx << 32) ^ (cz & 0xffffffff); }
int64_t cell_of(double v) { return int64_t(std::floor(v / kCell)); }

}  // namespace

ServerCore::ServerCore(const CoreConfig& config, const World& world, const MoveSettings& settings, proto::DatagramSink& sink,
                       proto::Nanos now, std::unique_ptr<CookieJar> cookies)
    : config_(config),
      world_(world),
      settings_(settings),
      derived_(derive(settings)),
      spawns_(world, settings),
      sink_(sink),
      cookies_(cookies ? std::move(cookies) : std::make_unique<CookieJar>()),
      started_(now),
      handshake_bucket_(config.handshake_rate, std::max(1.0, config.handshake_rate / 10.0), now),
      status_bucket_(config.status_rate, std::max(1.0, config.status_rate / 10.0), now),
      version_hint_bucket_(config.version_hint_rate, std::max(1.0, config.version_hint_rate / 10.0), now),
      spent_cookies_(SpentCookies::capacity_for(config.handshake_rate, std::max(1.0, config.handshake_rate / 10.0),
                                                CookieJar::kLifetime)),
      source_limiter_(config.source_limits, now),
      token_limiter_(config.token_rate, 2 * config.token_rate, 4096, now),
      pool_(config.threads) {
  clients_.reserve(size_t(config.max_clients));
  by_endpoint_.reserve(size_t(config.max_clients) * 2);
  tick_characters_.reserve(size_t(config.max_clients));
  grid_.reserve(size_t(config.max_clients));
  published_.reserve(size_t(config.max_clients));
  outgoing_.reserve(size_t(config.max_clients));
  rx_inputs_.reserve(proto::kMaxCompactInputs);
  config_.snapshot_budget = std::clamp(config_.snapshot_budget, kMinSnapshotBudget, int(proto::kMaxDatagram));
  for (int i = 0; i < pool_.threads(); ++i) {
    auto w = std::make_unique<Worker>();
    w->candidates.reserve(size_t(config.max_clients));
    w->choices.reserve(2 * kMaxOthers);
    w->fresh.reserve(kMaxOthers);
    w->view.reserve(kMaxOthers);
    w->out.reserve(size_t(config.max_clients));
    w->out_bytes.reserve(size_t(config.max_clients) * 512);
    workers_.push_back(std::move(w));
  }
}

UnixClock virtual_unix_clock(uint64_t unix_at, proto::Nanos at) {
  return [unix_at, at](proto::Nanos now) { return unix_at + uint64_t(std::max<proto::Nanos>(0, now - at) / proto::kSecond); };
}

uint64_t ServerCore::unix_time(proto::Nanos now) const {
  if (config_.unix_clock) return config_.unix_clock(now);
  const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
  return uint64_t(std::max<int64_t>(0, std::chrono::duration_cast<std::chrono::seconds>(since_epoch).count()));
}

void ServerCore::send(const proto::Endpoint& to, std::span<const uint8_t> bytes, Traffic kind) {
  counters_.add(Counter::kPacketsOut);
  counters_.add(Counter::kBytesOut, bytes.size());
  constexpr Counter kByKind[] = {Counter::kBytesOutSnapshots, Counter::kBytesOutHandshake, Counter::kBytesOutControl};
  counters_.add(kByKind[size_t(kind)], bytes.size());
  sink_.send(to, bytes);
}

void ServerCore::send_session(Client& c, std::span<const uint8_t> packet) {
  send(c.endpoint, proto::seal_session(c.keys.send, ++c.send_sequence, packet, tx_), Traffic::kControl);
}

bool ServerCore::send_reply(const proto::Endpoint& to, const proto::TokenContents& token, uint64_t client_salt,
                            const proto::RequestTag& answers, std::span<const uint8_t> packet, std::size_t limit) {
  const auto bytes = proto::seal_reply(token.server_to_client, client_salt, answers, packet, tx_);
  // Never answer an unverified address with more than it sent.
  if (bytes.empty() || bytes.size() > limit) return false;
  send(to, bytes, Traffic::kHandshake);
  return true;
}

ServerCore::Client* ServerCore::find(const proto::Endpoint& from) {
  const auto it = by_endpoint_.find(from);
  return it == by_endpoint_.end() ? nullptr : it->second;
}

const CharacterState* ServerCore::character(uint32_t id) const {
  for (const auto& c : clients_)
    if (c->id == id) return &c->state;
  return nullptr;
}

uint32_t ServerCore::character_at(const proto::Endpoint& endpoint) const {
  const auto it = by_endpoint_.find(endpoint);
  return it == by_endpoint_.end() ? 0 : it->second->id;
}

void ServerCore::reject(const proto::Endpoint& to, const proto::TokenContents& token, uint64_t client_salt,
                        const proto::RequestTag& answers, proto::fb::RejectReason reason, const std::string& message,
                        std::size_t limit) {
  send_reply(to, token, client_salt, answers, writer_.reject(reason, message), limit);
}

void ServerCore::on_datagram(proto::Nanos now, const proto::Endpoint& from, std::span<const uint8_t> bytes) {
  counters_.add(Counter::kPacketsIn);
  counters_.add(Counter::kBytesIn, bytes.size());
  if (bytes.size() > proto::kMaxDatagram) {
    counters_.add(Counter::kDropTooLarge);
    return;
  }
  switch (proto::layer_of(bytes)) {
    case proto::Layer::kSession: on_session_datagram(now, from, bytes); return;
    case proto::Layer::kClear: on_clear_datagram(now, from, bytes); return;
    case proto::Layer::kSealed: counters_.add(Counter::kDropWrongDirection); return;  // only servers send these
    case proto::Layer::kInvalid: counters_.add(Counter::kDropBadProtocol); return;
  }
}

void ServerCore::on_session_datagram(proto::Nanos now, const proto::Endpoint& from, std::span<const uint8_t> bytes) {
  // Sessions are found by address: a datagram from anywhere else, even one that would open, is dropped.
  Client* c = find(from);
  if (!c) {
    counters_.add(Counter::kDropNoSession);
    return;
  }
  uint64_t sequence = 0;
  std::span<const uint8_t> packet;
  switch (proto::open_session(c->keys.receive, c->window, bytes, rx_, sequence, packet)) {
    case proto::OpenError::kNone: break;
    case proto::OpenError::kMalformed: counters_.add(Counter::kDropMalformed); return;
    case proto::OpenError::kReplayed: counters_.add(Counter::kDropReplayed); return;
    case proto::OpenError::kBadSeal: counters_.add(Counter::kDropBadSeal); return;
  }
  // Authentic from here: only the client holds its sending key. It sends compact inputs messages
  // and, in a Packet, only a Disconnect (decode() refuses anything else).
  const bool compact = proto::session_payload(bytes) == proto::Payload::kCompact;
  if (!compact) {
    const proto::DecodeResult d = proto::decode(packet, proto::Direction::kToServer, proto::Layer::kSession);
    if (!d.ok()) {
      counters_.add(kDecodeCounter[static_cast<size_t>(d.error)]);
      return;
    }
  }
  const bool newest = sequence > c->window.newest();
  c->window.mark(sequence);
  if (!c->rate.take(now)) {
    counters_.add(Counter::kDropRateLimited);
    return;
  }
  if (compact) {
    counters_.add(Counter::kBytesInInputs, bytes.size());
    handle_inputs(now, *c, packet, newest);
    return;
  }
  counters_.add(Counter::kDisconnectsReceived);
  remove_client(c->id);
}

void ServerCore::on_clear_datagram(proto::Nanos now, const proto::Endpoint& from, std::span<const uint8_t> bytes) {
  counters_.add(Counter::kBytesInHandshake, bytes.size());
  const proto::DecodeResult d =
      proto::decode(proto::unframe_clear(bytes, rx_), proto::Direction::kToServer, proto::Layer::kClear);
  if (!d.ok()) {
    counters_.add(kDecodeCounter[static_cast<size_t>(d.error)]);
    return;
  }
  const proto::Decoded& m = d.message;
  // Sizes are judged on the whole datagram, prefix included: that is what a reply is compared with.
  if (bytes.size() < proto::kMinHandshakeDatagram) {
    counters_.add(Counter::kDropTooSmall);
    return;
  }
  // A Connect whose cookie is valid comes from an address that has shown it receives our datagrams,
  // so a spoofer cannot send one: it is checked first and spends nothing of the per-source budgets,
  // which a spoofed flood may have drained (the cookie's MAC costs about what the buckets' hashes do).
  uint64_t server_salt = 0;
  const proto::fb::Connect* connect = m.version == proto::kProtocolVersion ? m.packet->body_as_Connect() : nullptr;
  const bool proven = connect && cookies_->valid(proto::bytes_of(connect->cookie()), from, connect->client_salt(),
                                                 proto::bytes_of(connect->token()), now, server_salt);
  // Per-address budgets are for the internet: loopback senders are this host's own (a load test's
  // thousand bots share 127.0.0.1), which no remote host can pose as. The global budgets still hold.
  if (!proven && !is_loopback(from) && !source_limiter_.take(from, now)) {
    counters_.add(Counter::kSourceLimited);
    return;
  }
  if (m.version != proto::kProtocolVersion) {
    // A client of another version cannot read our seals: tell it in clear. It takes this as a hint
    // only (anyone could send it), so it needs no authentication; and since it needs no token
    // either, it has its own small budget, not the one joining clients' replies come from.
    counters_.add(Counter::kDropVersion);
    if (!version_hint_bucket_.take(now)) {
      counters_.add(Counter::kVersionHintRateLimited);
      return;
    }
    counters_.add(Counter::kRejectedVersion);
    const auto reply = proto::frame_clear(
        writer_.reject(proto::fb::RejectReason::VersionMismatch, "protocol version " + std::to_string(m.version) +
                                                                " is not the server's " +
                                                                std::to_string(proto::kProtocolVersion)),
        tx_);
    if (reply.size() <= bytes.size()) send(from, reply, Traffic::kHandshake);
    return;
  }
  switch (m.type) {
    case proto::fb::Body::ConnectRequest: handle_connect_request(now, from, m); return;
    case proto::fb::Body::StatusRequest: handle_status_request(now, from, m); return;
    case proto::fb::Body::Connect: handle_connect(now, from, m, proven ? &server_salt : nullptr); return;
    default: counters_.add(Counter::kDropWrongDirection); return;  // unreachable: decode() checked
  }
}

bool ServerCore::open_token(proto::Nanos now, const proto::Endpoint& from, const flatbuffers::Vector<uint8_t>* token,
                            proto::TokenContents& out, bool& names_us) {
  const auto sealed = proto::bytes_of(token);
  const proto::TokenTimeRules rules{unix_time(now), config_.token_max_ahead, config_.clock_skew};
  switch (proto::open_token(config_.key, sealed, rules, out)) {
    case proto::TokenError::kNone: break;
    case proto::TokenError::kExpired: counters_.add(Counter::kDropExpiredToken); return false;
    case proto::TokenError::kNotYetValid: counters_.add(Counter::kDropEarlyToken); return false;
    case proto::TokenError::kTooFarAhead: counters_.add(Counter::kDropFarToken); return false;
    default: counters_.add(Counter::kDropBadToken); return false;
  }
  // A valid token replayed from many spoofed addresses: no more answers than its owner would need.
  // (Its nonce is random per token and authenticated by the seal.)
  if (!token_limiter_.take(sealed.subspan(proto::kTokenNonceOffset, 24), 't', now)) {
    counters_.add(Counter::kTokenRateLimited);
    return false;
  }
  names_us = false;
  const bool from_loopback = is_loopback(from);
  for (const auto& a : config_.addresses)
    if (out.servers.contains(a) && (from_loopback || !proto::from_token_address(a).address().is_loopback())) names_us = true;
  return true;
}

bool ServerCore::admit_request(proto::Nanos now, const proto::Endpoint& from, const flatbuffers::Vector<uint8_t>* sealed,
                               uint64_t client_salt, TokenBucket& budget, Counter over_budget, std::size_t limit,
                               proto::TokenContents& token) {
  bool names_us = false;
  if (!open_token(now, from, sealed, token, names_us)) return false;
  if (!budget.take(now)) {
    counters_.add(over_budget);
    return false;
  }
  if (!names_us) {
    counters_.add(Counter::kRejectedWrongServer);
    reject(from, token, client_salt, proto::kNoRequestTag, proto::fb::RejectReason::WrongServer,
           "the token does not name this server's address", limit);
    return false;
  }
  return true;
}

void ServerCore::handle_connect_request(proto::Nanos now, const proto::Endpoint& from, const proto::Decoded& m) {
  const auto* req = m.packet->body_as_ConnectRequest();
  proto::TokenContents token;
  if (!admit_request(now, from, req->token(), req->client_salt(), handshake_bucket_, Counter::kHandshakeRateLimited,
                     m.size + 1, token))
    return;
  const auto cookie = cookies_->issue(from, req->client_salt(), proto::bytes_of(req->token()), proto::random_u64(), now);
  if (send_reply(from, token, req->client_salt(), proto::kNoRequestTag, writer_.challenge(cookie), m.size + 1))
    counters_.add(Counter::kChallengesSent);
}

void ServerCore::handle_status_request(proto::Nanos now, const proto::Endpoint& from, const proto::Decoded& m) {
  const auto* req = m.packet->body_as_StatusRequest();
  proto::TokenContents token;
  // Status has its own budget: a flood of connection attempts cannot starve the health check.
  if (!admit_request(now, from, req->token(), req->client_salt(), status_bucket_, Counter::kStatusRateLimited,
                     m.size + 1, token))
    return;
  if (send_reply(from, token, req->client_salt(), proto::kNoRequestTag,
                 writer_.status(tick_, uint32_t(clients_.size()), uint32_t(config_.max_clients),
                                uint64_t((now - started_) / proto::kMillisecond), world_.hash(), settings_.hash()),
                 m.size + 1))
    counters_.add(Counter::kStatusSent);
}

bool ServerCore::answer_spent_cookie(const proto::Endpoint& from, const proto::Decoded& m, uint64_t server_salt,
                                     const proto::RequestTag& attempt, proto::Nanos now) {
  const auto* req = m.packet->body_as_Connect();
  const SpentCookies::Spent* spent = spent_cookies_.find(SpentCookies::mac_of(proto::bytes_of(req->cookie())), now);
  if (!spent) return false;
  // The same attempt again while its session lives (its Accept was lost, or a replay of it): the same
  // Accept, byte for byte, which changes nothing and uses no key again.
  if (Client* existing = find(from); existing && existing->client_salt == req->client_salt() &&
                                     existing->server_salt == server_salt && existing->attempt == attempt) {
    counters_.add(Counter::kAcceptsResent);
    send(from, existing->accept_datagram, Traffic::kHandshake);
    return true;
  }
  // The same attempt refused (its Reject was lost): the verdict again, no larger than the request.
  if (!spent->accepted && spent->attempt == attempt) {
    proto::TokenContents token;
    bool names_us = false;
    if (open_token(now, from, req->token(), token, names_us))
      reject(from, token, req->client_salt(), attempt, spent->refusal,
             "this attempt was refused before: " + std::string(proto::to_string(spent->refusal)), m.size + 1);
    return true;
  }
  // Anything else with a spent cookie is a replay: the session it opened has ended, or another
  // proof was sealed for the same cookie. Nothing is answered and nothing changes.
  counters_.add(Counter::kDropCookieSpent);
  return true;
}

void ServerCore::refuse_connect(const proto::Endpoint& to, const proto::TokenContents& token, uint64_t client_salt,
                                const proto::RequestTag& attempt, std::span<const uint8_t> cookie,
                                proto::fb::RejectReason reason, const std::string& message, proto::Nanos now) {
  // Remembered so that a replay of this Connect, later, cannot get another verdict (say, a session
  // once the server has room): a cookie is judged once.
  if (!spent_cookies_.remember(SpentCookies::mac_of(cookie), {attempt, false, reason}, now + CookieJar::kLifetime,
                               now)) {
    counters_.add(Counter::kDropCookieSpent);
    return;
  }
  reject(to, token, client_salt, attempt, reason, message, proto::kMaxDatagram);
}

void ServerCore::handle_connect(proto::Nanos now, const proto::Endpoint& from, const proto::Decoded& m,
                                const uint64_t* cookie_salt) {
  const auto* req = m.packet->body_as_Connect();
  const uint64_t salt = req->client_salt();
  // Every reply to this Connect is bound to its proof, which only the token's holder can make, so a
  // reply to an attacker's Connect (the victim's token and salt, a junk proof) never opens at the victim.
  const proto::RequestTag attempt = proto::request_tag(proto::bytes_of(req->proof()));
  const uint64_t server_salt = cookie_salt ? *cookie_salt : 0;
  if (cookie_salt && answer_spent_cookie(from, m, server_salt, attempt, now)) return;
  proto::TokenContents token;
  bool names_us = false;
  if (!open_token(now, from, req->token(), token, names_us)) return;
  if (!cookie_salt) {
    // Most likely a cookie that aged out while the client waited; the token opened, so say so.
    counters_.add(Counter::kDropBadCookie);
    if (!handshake_bucket_.take(now)) {
      counters_.add(Counter::kHandshakeRateLimited);
      return;
    }
    counters_.add(Counter::kRejectedBadCookie);
    reject(from, token, salt, attempt, proto::fb::RejectReason::BadCookie, "bad or expired cookie", m.size + 1);
    return;
  }
  if (!names_us) {
    counters_.add(Counter::kRejectedWrongServer);
    reject(from, token, salt, attempt, proto::fb::RejectReason::WrongServer, "the token does not name this server's address",
           m.size + 1);
    return;
  }
  // The proof: the hashes sealed under the token's client key. Opening it shows the client holds the
  // token's keys (a sniffed token and cookie are not enough).
  const auto cookie = proto::bytes_of(req->cookie());
  uint64_t world_hash = 0, settings_hash = 0;
  if (!proto::open_proof(token.client_to_server, cookie, proto::bytes_of(req->proof()), world_hash, settings_hash)) {
    counters_.add(Counter::kDropBadCookie);
    return;
  }
  // From here the address is proven and the client holds the token: replies may be as large as they
  // need to be, and whatever is decided is remembered with the cookie.
  const auto refuse = [&](proto::fb::RejectReason reason, const std::string& message) {
    refuse_connect(from, token, salt, attempt, cookie, reason, message, now);
  };
  if (shutting_down_) {
    counters_.add(Counter::kRejectedShuttingDown);
    refuse(proto::fb::RejectReason::ShuttingDown, "the server is shutting down");
    return;
  }
  if (world_hash != world_.hash()) {
    counters_.add(Counter::kRejectedMismatch);
    refuse(proto::fb::RejectReason::WorldMismatch, "world hash " + hex(world_hash) + " differs from the server's " +
                                                  hex(world_.hash()) + " (" + world_.name() + ")");
    return;
  }
  if (settings_hash != settings_.hash()) {
    counters_.add(Counter::kRejectedMismatch);
    refuse(proto::fb::RejectReason::SettingsMismatch,
           "movement settings hash " + hex(settings_hash) + " differs from the server's " + hex(settings_.hash()));
    return;
  }
  // A new attempt from an endpoint that has a session: the client restarted there. A client id
  // already playing: the same player again if it comes from the same address (a restarted process
  // on a new port), which replaces its old session; from another address it is refused until that
  // session ends (a token may not be shared).
  Client* same_endpoint = find(from);
  Client* same_player = nullptr;
  for (const auto& c : clients_)
    if (c->client_id == token.client_id) same_player = c.get();
  if (same_player && same_player != same_endpoint && same_player->endpoint.address() != from.address()) {
    counters_.add(Counter::kRejectedClientIdInUse);
    refuse(proto::fb::RejectReason::ClientIdInUse,
           "client id " + std::to_string(token.client_id) + " is already playing from another address");
    return;
  }
  // The cap is for the internet: loopback senders are this host's own (bots, tools), which no
  // remote attacker can pose as. (The sessions this attempt replaces do not count.)
  int from_address = 0;
  for (const auto& c : clients_)
    from_address += c->endpoint.address() == from.address() && c.get() != same_endpoint && c.get() != same_player;
  if (from_address >= config_.max_clients_per_address && !is_loopback(from)) {
    counters_.add(Counter::kRejectedAddressFull);
    refuse(proto::fb::RejectReason::AddressFull, "this address holds " + std::to_string(from_address) +
                                                " sessions, the most the server allows one address");
    return;
  }
  const std::size_t replaced = (same_endpoint != nullptr) + (same_player && same_player != same_endpoint);
  if (clients_.size() - replaced >= size_t(config_.max_clients)) {
    counters_.add(Counter::kRejectedFull);
    refuse(proto::fb::RejectReason::ServerFull, "the server is full (" + std::to_string(config_.max_clients) + " clients)");
    return;
  }
  if (!spent_cookies_.remember(SpentCookies::mac_of(cookie), {attempt, true, proto::fb::RejectReason::Unknown},
                               now + CookieJar::kLifetime, now)) {
    counters_.add(Counter::kDropCookieSpent);
    return;
  }
  for (Client* old : {same_endpoint, same_player != same_endpoint ? same_player : nullptr}) {
    if (!old) continue;
    counters_.add(Counter::kReplaced);
    send_session(*old, writer_.disconnect(proto::fb::DisconnectReason::Replaced));
    remove_client(old->id);
  }
  auto c = std::make_unique<Client>();
  c->id = next_id_++;
  c->endpoint = from;
  c->client_id = token.client_id;
  c->client_salt = salt;
  c->server_salt = server_salt;
  c->attempt = attempt;
  // The server's fresh share of the keys: new for every session, so no replay of anything, nor a
  // restart, can bring back a key used before (WIRE_FORMAT.md, "Why no key and nonce repeat").
  const proto::ServerRandom server_random = proto::random_server_contribution();
  c->keys = proto::server_session_keys(token.client_to_server, token.server_to_client,
                                       {salt, server_salt, attempt, server_random});
  occupied_.clear();
  for (const auto& other : clients_) occupied_.push_back(other->state.position);
  c->state = spawns_.choose(c->id, occupied_);
  c->last_heard = now;
  c->rate = TokenBucket(config_.client_packet_rate, std::max(4.0, config_.client_packet_rate / 4.0), now);
  c->sent.resize(kSentHistory);
  c->interest.reserve(kMaxOthers);
  for (auto& s : c->sent) {
    s.view.reserve(kMaxOthers);
    s.fresh.reserve(kMaxOthers);
  }
  counters_.add(Counter::kAccepted);
  pending_joins_.push_back({c->id, c->state});
  // Sealed under the token's key (the client needs the server's random to derive the session keys)
  // and bound to this Connect.
  const auto accept = proto::seal_reply(token.server_to_client, salt, attempt,
                                        writer_.accept(c->id, tick_, uint16_t(settings_.tick_rate),
                                                       uint16_t(config_.snapshot_interval), c->state, server_random),
                                        tx_);
  c->accept_datagram.assign(accept.begin(), accept.end());
  send(from, accept, Traffic::kHandshake);
  by_endpoint_[from] = c.get();
  clients_.push_back(std::move(c));
  ++roster_;
}

void ServerCore::handle_inputs(proto::Nanos now, Client& c, std::span<const uint8_t> message, bool newest) {
  proto::InputsHeader h;
  if (!proto::read_inputs(message, tick_ + 1, h, rx_inputs_)) {
    counters_.add(Counter::kDropMalformed);
    return;
  }
  c.last_heard = now;
  // A message that arrives after a newer one still brings its inputs (the buffer drops what it has),
  // but the acknowledgement and the request for the state come from the newest only.
  if (newest) {
    c.wants_state = h.want_state;
    // A snapshot ack from the future is a lie; from the past it is merely late.
    if (h.ack_snapshot != 0) {
      if (int32_t(h.ack_snapshot - tick_) > 0) {
        counters_.add(Counter::kDropBadValue);
      } else if (int32_t(h.ack_snapshot - c.acked_snapshot) > 0) {
        c.acked_snapshot = h.ack_snapshot;
      }
    }
  }
  const uint32_t newest_before = c.inputs.newest_received();
  for (const InputCmd& in : rx_inputs_) {
    switch (c.inputs.offer(in, tick_ + 1)) {
      case InputBuffer::Offer::kAccepted: counters_.add(Counter::kInputsAccepted); break;
      case InputBuffer::Offer::kDuplicate: counters_.add(Counter::kInputsDuplicate); break;
      case InputBuffer::Offer::kLate: counters_.add(Counter::kInputsLate); break;
      case InputBuffer::Offer::kTooFarAhead: counters_.add(Counter::kInputsTooFarAhead); break;
    }
  }
  // The round trip is measured on the newest input tick: the client knows when it sent it, and the
  // snapshot says how long it waited here (echo delay).
  if (c.inputs.newest_received() != newest_before) c.echo_received = now;
}

void ServerCore::remove_client(uint32_t id) {
  const auto it = std::find_if(clients_.begin(), clients_.end(), [&](const auto& c) { return c->id == id; });
  if (it == clients_.end()) return;
  by_endpoint_.erase((*it)->endpoint);
  // A client that joins and leaves between two ticks never existed for the simulation.
  const auto join = std::find_if(pending_joins_.begin(), pending_joins_.end(), [&](const auto& j) { return j.id == id; });
  if (join != pending_joins_.end()) {
    pending_joins_.erase(join);
  } else {
    pending_leaves_.push_back(id);
  }
  clients_.erase(it);
  ++roster_;
}

void ServerCore::tick(proto::Nanos now) {
  // Silent clients go before the tick.
  for (size_t i = 0; i < clients_.size();) {
    Client& c = *clients_[i];
    if (now - c.last_heard > config_.client_timeout) {
      counters_.add(Counter::kTimeouts);
      send_session(c, writer_.disconnect(proto::fb::DisconnectReason::TimedOut));
      remove_client(c.id);
    } else {
      ++i;
    }
  }
  ++tick_;
  tick_joins_.swap(pending_joins_);
  tick_leaves_.swap(pending_leaves_);
  pending_joins_.clear();
  pending_leaves_.clear();
  std::sort(tick_leaves_.begin(), tick_leaves_.end());

  // Every character steps through the shared tick (shared/tick.h), on the worker pool; clients_ is in
  // ascending id, so the tick's results come back in clients_ order.
  tick_entrants_.resize(clients_.size());
  tick_characters_.resize(clients_.size());
  for (std::size_t i = 0; i < clients_.size(); ++i) {
    Client& c = *clients_[i];
    const InputBuffer::Consumed in = c.inputs.consume(tick_);
    c.repeated_bits = (c.repeated_bits << 1) | (in.repeated ? 1u : 0u);
    counters_.add(in.repeated ? Counter::kInputsRepeated : Counter::kInputsConsumed);
    tick_entrants_[i] = {c.id, c.state, in.input, &c.candidates};
    tick_characters_[i] = {c.id, in.input, in.repeated, {}, false};
  }
  runner_.run(tick_, tick_entrants_, world_, derived_, &pool_);
  for (std::size_t i = 0; i < clients_.size(); ++i) {
    Client& c = *clients_[i];
    CharacterTick& out = tick_characters_[i];
    c.state = runner_.results()[i].state;
    const bool met = runner_.results()[i].diagnostics.characters_near > 0;
    c.interaction_bits = (c.interaction_bits << 1) | (met ? 1u : 0u);
    // A repeated input or a meeting may part the client's prediction from this state: until it
    // acknowledges a snapshot of this tick or later, its snapshots carry the state in full.
    if (out.repeated || met) c.owed_tick = tick_;
    out.state = c.state;
    out.met_character = met;
  }
  if (observer_) observer_->on_tick({tick_, tick_joins_, tick_leaves_, tick_characters_});
  tick_joins_.clear();
  tick_leaves_.clear();

  if (tick_ % uint32_t(config_.snapshot_interval) == 0) send_snapshots(now);
}

void ServerCore::select_others(const Client& self, std::vector<uint32_t>& out,
                               std::vector<std::pair<int64_t, uint32_t>>& candidates) const {
  out.clear();
  const size_t n = clients_.size();
  if (n - 1 <= kMaxOthers) {
    for (uint32_t i = 0; i < n; ++i)
      if (clients_[i].get() != &self) out.push_back(i);
    return;
  }
  // Area of interest: about the nearest kMaxOthers, gathered ring by ring of 4 m cells (so in a crowd
  // only the nearest cells are looked at); the ring that fills the list gives its nearest, ties by index.
  const Vec3 p = to_position(self.state.position);
  const int64_t cx = cell_of(p.x), cz = cell_of(p.z);
  const int64_t px = self.state.position.x, pz = self.state.position.z;
  candidates.clear();
  for (int64_t ring = 0; ring <= kMaxRings && out.size() < kMaxOthers; ++ring) {
    candidates.clear();
    for (int64_t dx = -ring; dx <= ring; ++dx) {
      // Only the cells on the ring's border: all of them on its top and bottom rows, the two ends elsewhere.
      const int64_t step = (dx == -ring || dx == ring) ? 1 : 2 * ring;
      for (int64_t dz = -ring; dz <= ring; dz += std::max<int64_t>(1, step)) {
        const int64_t key = cell_key(cx + dx, cz + dz);
        auto it = std::lower_bound(grid_.begin(), grid_.end(), GridEntry{key, 0, 0, 0});
        for (; it != grid_.end() && it->key == key; ++it) {
          if (clients_[it->index].get() == &self) continue;
          // Horizontal distance in grid units squared: exact integers, so ties are exact too.
          const int64_t ex = it->x - px, ez = it->z - pz;
          candidates.push_back({ex * ex + ez * ez, it->index});
        }
      }
    }
    // Rings nearer in take precedence as a whole; within the ring that fills the list, the nearest.
    const size_t room = kMaxOthers - out.size();
    if (candidates.size() > room) std::nth_element(candidates.begin(), candidates.begin() + long(room), candidates.end());
    for (size_t i = 0; i < std::min(room, candidates.size()); ++i) out.push_back(candidates[i].second);
  }
  std::sort(out.begin(), out.end());  // ascending index is ascending id
}

void ServerCore::merge_worker_counters() {
  for (auto& w : workers_) {
    counters_.merge(w->counters);
    w->counters = Counters();
  }
}

namespace {

// Another character as a snapshot carries it (1/256 m: the positions the steps see, movement.md §16).
proto::RemoteState remote_state(uint32_t id, const CharacterState& s) {
  return {id,
          s.position.x >> proto::kRemoteShift,
          s.position.y >> proto::kRemoteShift,
          s.position.z >> proto::kRemoteShift,
          uint8_t(s.ground),
          s.crouched,
          s.platform};
}

}  // namespace

void ServerCore::send_snapshots(proto::Nanos now) {
  published_.clear();
  for (const auto& c : clients_) published_.push_back({remote_state(c->id, c->state), c->state.position});
  // The interest grid is read by every worker: built first, here, when anyone may need it.
  if (clients_.size() > kMaxOthers + 1) {
    // In the last tick's order when it held as many clients: only the few that changed cell are out
    // of place, and the sorted grid is the same whatever order it is sorted from.
    if (grid_.size() != clients_.size()) {
      grid_.resize(clients_.size());
      for (uint32_t i = 0; i < clients_.size(); ++i) grid_[i].index = i;
    }
    for (GridEntry& g : grid_) {
      const FixedVec3& q = clients_[g.index]->state.position;
      g = {cell_key(cell_of(q.x * kPositionQuantum), cell_of(q.z * kPositionQuantum)), g.index, q.x, q.z};
    }
    sort_presorted(grid_, std::less<GridEntry>());
  }
  // Each worker builds and seals the snapshots of a contiguous run of clients into its own buffer;
  // they go to the sink afterwards, in client order, from this thread (the sink is not shared).
  for (auto& w : workers_) {
    w->out.clear();
    w->out_bytes.clear();
  }
  pool_.run(clients_.size(), kMinSnapshotsPerThread, [&](std::size_t begin, std::size_t end, int w) {
    Worker& ws = *workers_[size_t(w)];
    for (std::size_t i = begin; i < end; ++i) {
      if (i + 1 < end) prefetch_snapshot(i + 1);
      build_snapshot(i, now, ws);
    }
  });
  merge_worker_counters();
  // Sent in client order whichever thread built them, so the datagrams leave in the same order for
  // any number of threads.
  outgoing_.assign(clients_.size(), Outgoing{});
  for (uint32_t w = 0; w < workers_.size(); ++w)
    for (uint32_t k = 0; k < workers_[w]->out.size(); ++k) outgoing_[workers_[w]->out[k].client] = {w, k, true};
  for (const Outgoing& g : outgoing_) {
    if (!g.built) continue;
    const Worker& w = *workers_[g.worker];
    const Worker::Out& o = w.out[g.index];
    send(clients_[o.client]->endpoint, {w.out_bytes.data() + o.offset, o.size}, Traffic::kSnapshot);
  }
  for (auto& w : workers_) w->out.clear();
}

namespace {

// How much a character that changed adds to its priority for one viewer for each tick the viewer
// lacks it: 257 beside the viewer, 129 at 4 m, 16 at 16 m, 4 at 32 m (horizontal distance, integers).
uint64_t priority_weight(const FixedVec3& viewer, const FixedVec3& other) {
  constexpr int64_t kLimit = int64_t(1) << 30;
  constexpr int64_t kNear = int64_t(4 * 1024) * (4 * 1024);  // (4 m)^2 in (1/1024 m)^2
  const int64_t dx = std::clamp<int64_t>(int64_t(other.x) - viewer.x, -kLimit, kLimit);
  const int64_t dz = std::clamp<int64_t>(int64_t(other.z) - viewer.z, -kLimit, kLimit);
  return 1 + uint64_t(256 * kNear / (kNear + dx * dx + dz * dz));
}

}  // namespace

const ServerCore::SentSnapshot* ServerCore::delta_base(const Client& c) const {
  // The view of the newest snapshot the client acknowledged, if we still hold it; else none (an
  // empty view: every character is then new to the client).
  const uint32_t interval = uint32_t(config_.snapshot_interval);
  if (c.acked_snapshot == 0 || tick_ - c.acked_snapshot >= kSentHistory * interval) return nullptr;
  const SentSnapshot& s = c.sent[(c.acked_snapshot / interval) % kSentHistory];
  return s.tick == c.acked_snapshot ? &s : nullptr;
}

namespace {
void prefetch_bytes(const void* p, std::size_t bytes) {
  const char* b = static_cast<const char*>(p);
  for (std::size_t k = 0; k < bytes; k += 64) __builtin_prefetch(b + k);
}
}  // namespace

void ServerCore::prefetch_snapshot(std::size_t index) const {
  // A client's history of views is cold by the time its next snapshot is built (64 of them per
  // client); asking for the base and the slot the new view goes to one client ahead hides the wait.
  const Client& c = *clients_[index];
  prefetch_bytes(c.interest.data(), c.interest.size() * sizeof(uint32_t));
  if (const SentSnapshot* base = delta_base(c)) {
    prefetch_bytes(base->view.data(), base->view.size() * sizeof(proto::RemoteState));
    prefetch_bytes(base->fresh.data(), base->fresh.size() * sizeof(uint32_t));
  }
  const SentSnapshot& slot = c.sent[(tick_ / uint32_t(config_.snapshot_interval)) % kSentHistory];
  prefetch_bytes(slot.view.data(), slot.view.capacity() * sizeof(proto::RemoteState));
}

void ServerCore::build_snapshot(std::size_t index, proto::Nanos now, Worker& ws) {
  Client& c = *clients_[index];
  // Interest changes slowly: each client's choice is kept for kInterestRefresh ticks (refreshed on
  // its own phase, so the work spreads evenly) unless someone joined or left.
  if (c.interest_roster != roster_ || (tick_ + c.id) % kInterestRefresh == 0) {
    select_others(c, c.interest, ws.candidates);
    c.interest_roster = roster_;
  }
  const uint32_t interval = uint32_t(config_.snapshot_interval);
  const SentSnapshot* base = delta_base(c);
  const proto::RemoteView& base_view = base ? base->view : empty_view_;

  proto::SnapshotHeader h;
  h.tick = tick_;
  h.repeated_mask = c.repeated_bits;
  h.interaction_mask = c.interaction_bits;
  h.received_through = c.inputs.received_through(tick_);
  h.input_lead = int16_t(std::clamp<int64_t>(int64_t(int32_t(c.inputs.newest_received() - tick_)), -32768, 32767));
  h.echo_delay_us = c.echo_received ? micros(now - c.echo_received) : 0;
  // The full state only when a correction may be owed (a repeated input or a meeting since the
  // snapshot the client acknowledged), or when the client asks; a digest otherwise.
  h.has_own_state = c.wants_state || int32_t(c.owed_tick - c.acked_snapshot) > 0;
  h.own = c.state;
  h.own_digest = proto::state_digest(c.state);
  h.base_tick = base ? base->tick : 0;

  // Choices: a change for each character of the base view that moved (or a removal for one no
  // longer of interest), an addition for each one of interest the view lacks. The priority
  // accumulates with the base view, not per snapshot: a character's priority is its weight times
  // the ticks since the view the client acknowledged last had it fresh. So it grows while the client
  // lacks it, and drops only once the client has acknowledged a snapshot that carried it (snapshots
  // built on different bases before that all still see it owed).
  const uint32_t stale_ticks = uint32_t(std::max<int64_t>(1, kMaxStaleness * settings_.tick_rate / proto::kSecond));
  ws.choices.clear();
  ws.fresh.assign(base_view.size(), tick_);
  std::size_t b = 0;
  auto remove_through = [&](uint32_t id) {  // base entries before `id` are no longer of interest
    for (; b < base_view.size() && base_view[b].id < id; ++b) {
      Worker::Choice ch;
      ch.removal = true;
      ch.id = base_view[b].id;
      ch.base_index = int32_t(b);
      ch.bits = uint32_t(proto::change_bits(base_view[b], nullptr));
      ws.choices.push_back(ch);
    }
  };
  for (uint32_t idx : c.interest) {
    const proto::RemoteState& now_state = published_[idx].remote;
    remove_through(now_state.id);
    Worker::Choice ch;
    ch.now = now_state;
    ch.id = now_state.id;
    ch.other = idx;
    if (b < base_view.size() && base_view[b].id == now_state.id) {
      const proto::RemoteState& was = base_view[b];
      const uint32_t as_of = base->fresh[b];
      ch.base_index = int32_t(b++);
      if (ch.now.same_as(was)) continue;  // the client holds it exactly: fresh now (ws.fresh)
      ws.fresh[size_t(ch.base_index)] = as_of;
      ch.age = tick_ - as_of;
      ch.bits = uint32_t(proto::change_bits(was, &ch.now));
      ch.forced = ch.age >= stale_ticks;
    } else {
      // New to the client: as stale as a character can be.
      ch.age = stale_ticks;
      ch.bits = uint32_t(proto::addition_bits(ch.now));
      ch.forced = true;
    }
    ws.choices.push_back(ch);
  }
  remove_through(~0u);

  // Fill the budget: whatever fits, removals first (a character shown where it no longer is), then
  // the overdue, then by priority; the rest wait, their priority still growing. When everything
  // fits (the view then holds the interest, at most 48), the order does not matter.
  const uint64_t sequence = c.send_sequence + 1;
  const std::size_t budget_bytes = size_t(config_.snapshot_budget) - proto::session_overhead(sequence);
  const std::size_t header_bits = proto::snapshot_header_bits(h, interval, base_view.size());
  std::size_t room = budget_bytes * 8 > header_bits ? budget_bytes * 8 - header_bits : 0;
  std::size_t wanted = 0;
  for (const Worker::Choice& ch : ws.choices) wanted += ch.bits;
  ws.ranked.resize(ws.choices.size());
  for (uint32_t k = 0; k < ws.choices.size(); ++k) ws.ranked[k] = {0, ws.choices[k].id, k};
  if (wanted > room) {
    // Removals first, then the overdue, then the higher priority (below 2^41: a weight of at most
    // 257 times an age of at most 2^32 ticks), then the lower id.
    for (Worker::Ranked& r : ws.ranked) {
      const Worker::Choice& ch = ws.choices[r.choice];
      if (ch.removal) continue;
      const uint64_t priority = priority_weight(c.state.position, published_[ch.other].position) * ch.age;
      r.rank = (uint64_t(1) << 63) | (ch.forced ? 0 : uint64_t(1) << 62) | ((uint64_t(1) << 62) - 1 - priority);
    }
    std::sort(ws.ranked.begin(), ws.ranked.end(), [](const Worker::Ranked& x, const Worker::Ranked& y) {
      return x.rank < y.rank || (x.rank == y.rank && x.id < y.id);
    });
  }
  std::size_t view_size = base_view.size();
  ws.snapshot.begin(h, base_view, interval);
  for (const Worker::Ranked& r : ws.ranked) {
    const Worker::Choice& ch = ws.choices[r.choice];
    if (ch.bits > room) continue;
    if (ch.base_index < 0 && view_size >= proto::kMaxViewSize) continue;  // the view is full until removals land
    room -= ch.bits;
    if (ch.removal) {
      ws.snapshot.change(size_t(ch.base_index), nullptr);
      --view_size;
      continue;
    }
    if (ch.base_index >= 0) {
      ws.snapshot.change(size_t(ch.base_index), &ch.now);
      ws.fresh[size_t(ch.base_index)] = tick_;
    } else {
      ws.snapshot.add(ch.now);
      ++view_size;
    }
  }
  const auto message = ws.snapshot.finish(ws.payload, ws.view);
  if (message.empty()) return;  // cannot happen: the budget is within the buffer
  SentSnapshot& record = c.sent[(tick_ / interval) % kSentHistory];
  record.tick = tick_;
  record.view.assign(ws.view.begin(), ws.view.end());
  // Each entry's freshness: its base entry's, or now for a character added now (both lists by id).
  record.fresh.clear();
  for (std::size_t v = 0, k = 0; v < ws.view.size(); ++v) {
    while (k < base_view.size() && base_view[k].id < ws.view[v].id) ++k;
    record.fresh.push_back(k < base_view.size() && base_view[k].id == ws.view[v].id ? ws.fresh[k] : tick_);
  }
  ws.counters.add(Counter::kSnapshotsSent);
  if (h.has_own_state) ws.counters.add(Counter::kSnapshotsWithState);
  const auto sealed = proto::seal_session(c.keys.send, ++c.send_sequence, message, ws.tx, proto::Payload::kCompact);
  ws.out.push_back({uint32_t(index), ws.out_bytes.size(), sealed.size()});
  ws.out_bytes.insert(ws.out_bytes.end(), sealed.begin(), sealed.end());
}

void ServerCore::shutdown(proto::Nanos) {
  shutting_down_ = true;
  for (const auto& c : clients_) send_session(*c, writer_.disconnect(proto::fb::DisconnectReason::ServerShutdown));
  while (!clients_.empty()) remove_client(clients_.back()->id);
}

}  // namespace foothold::server
