#include "server/admission.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "proto/handshake.h"
#include "server/game_host.h"

namespace foothold::server {

namespace {

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// The burst of the global handshake budgets: a tenth of a second's worth of `rate`, at least 1.
double tenth_second(double rate) { return std::max(1.0, rate / 10.0); }
TokenBucket tenth_second_burst(double rate, proto::Nanos now) { return TokenBucket(rate, tenth_second(rate), now); }

}  // namespace

Admission::Admission(const CoreConfig& config, Roster& roster, Simulation& simulation, const Replication& replication,
                     Outbox& outbox, Counters& counters, proto::Nanos now, std::unique_ptr<CookieJar> cookies)
    : config_(config),
      roster_(roster),
      simulation_(simulation),
      replication_(replication),
      outbox_(outbox),
      counters_(counters),
      cookies_(cookies ? std::move(cookies) : std::make_unique<CookieJar>()),
      started_(now),
      handshake_bucket_(tenth_second_burst(config.handshake_rate, now)),
      status_bucket_(tenth_second_burst(config.status_rate, now)),
      version_hint_bucket_(tenth_second_burst(config.version_hint_rate, now)),
      spent_cookies_(SpentCookies::capacity_for(config.handshake_rate, tenth_second(config.handshake_rate), CookieJar::kLifetime)),
      source_limiter_(config.source_limits, now),
      token_limiter_(config.token_rate, 2 * config.token_rate, 4096, now) {}

uint64_t Admission::unix_time(proto::Nanos now) const {
  if (config_.unix_clock) return config_.unix_clock(now);
  const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
  return uint64_t(std::max<int64_t>(0, std::chrono::duration_cast<std::chrono::seconds>(since_epoch).count()));
}

bool Admission::send_reply(const proto::Endpoint& to, const proto::TokenContents& token, uint64_t client_salt,
                           const proto::RequestTag& answers, std::span<const uint8_t> packet, std::size_t limit) {
  const auto bytes = proto::seal_reply(token.server_to_client, client_salt, answers, packet, tx_);
  // Never answer an unverified address with more than it sent.
  if (bytes.empty() || bytes.size() > limit) return false;
  outbox_.send(to, bytes, Traffic::kHandshake);
  return true;
}

void Admission::reject(const proto::Endpoint& to, const proto::TokenContents& token, uint64_t client_salt,
                       const proto::RequestTag& answers, proto::fb::RejectReason reason, const std::string& message,
                       std::size_t limit) {
  send_reply(to, token, client_salt, answers, writer_.reject(reason, message), limit);
}

void Admission::on_clear_datagram(proto::Nanos now, const proto::Endpoint& from, std::span<const uint8_t> bytes) {
  counters_.add(Counter::kBytesInHandshake, bytes.size());
  // Decoded, and no smaller than kMinHandshakeDatagram (whole, prefix included: that is what a reply
  // is compared with).
  const proto::PacketDatagram d = reader_.clear(bytes);
  if (!d.ok()) {
    counters_.add(drop_counter(d.drop));
    return;
  }
  const proto::Decoded& m = d.message;
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
    hint_version(now, from, m.version, bytes.size());
    return;
  }
  switch (m.type) {
    case proto::fb::Body::ConnectRequest: handle_connect_request(now, from, m); return;
    case proto::fb::Body::StatusRequest: handle_status_request(now, from, m); return;
    case proto::fb::Body::Connect: handle_connect(now, from, m, proven ? &server_salt : nullptr); return;
    default: counters_.add(Counter::kDropWrongDirection); return;  // unreachable: decode() checked
  }
}

void Admission::hint_version(proto::Nanos now, const proto::Endpoint& from, uint32_t version, std::size_t limit) {
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
      writer_.reject(proto::fb::RejectReason::VersionMismatch, "protocol version " + std::to_string(version) +
                                                                   " is not the server's " +
                                                                   std::to_string(proto::kProtocolVersion)),
      tx_);
  if (reply.size() <= limit) outbox_.send(from, reply, Traffic::kHandshake);
}

bool Admission::open_token(proto::Nanos now, const proto::Endpoint& from, const flatbuffers::Vector<uint8_t>* token,
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
  for (const std::vector<proto::TokenAddress>* list : std::initializer_list<const std::vector<proto::TokenAddress>*>{&config_.addresses, &learnt_addresses_})
    for (const auto& a : *list)
      if (out.servers.contains(a) && (from_loopback || !proto::from_token_address(a).address().is_loopback())) names_us = true;
  return true;
}

void Admission::add_address(const proto::TokenAddress& address) {
  if (std::find(config_.addresses.begin(), config_.addresses.end(), address) != config_.addresses.end()) return;
  if (std::find(learnt_addresses_.begin(), learnt_addresses_.end(), address) != learnt_addresses_.end()) return;
  learnt_addresses_.push_back(address);
}

bool Admission::admit_request(proto::Nanos now, const proto::Endpoint& from, const flatbuffers::Vector<uint8_t>* sealed,
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

void Admission::handle_connect_request(proto::Nanos now, const proto::Endpoint& from, const proto::Decoded& m) {
  const auto* req = m.packet->body_as_ConnectRequest();
  proto::TokenContents token;
  if (!admit_request(now, from, req->token(), req->client_salt(), handshake_bucket_, Counter::kHandshakeRateLimited,
                     m.size + 1, token))
    return;
  const auto cookie = cookies_->issue(from, req->client_salt(), proto::bytes_of(req->token()), proto::random_u64(), now);
  if (send_reply(from, token, req->client_salt(), proto::kNoRequestTag, writer_.challenge(cookie), m.size + 1))
    counters_.add(Counter::kChallengesSent);
}

void Admission::handle_status_request(proto::Nanos now, const proto::Endpoint& from, const proto::Decoded& m) {
  const auto* req = m.packet->body_as_StatusRequest();
  proto::TokenContents token;
  // Status has its own budget: a flood of connection attempts cannot starve the health check.
  if (!admit_request(now, from, req->token(), req->client_salt(), status_bucket_, Counter::kStatusRateLimited,
                     m.size + 1, token))
    return;
  const auto status = writer_.status(simulation_.tick(), uint32_t(roster_.players()), uint32_t(config_.max_clients),
                                     uint64_t((now - started_) / proto::kMillisecond), simulation_.world().hash(),
                                     simulation_.settings().hash());
  if (send_reply(from, token, req->client_salt(), proto::kNoRequestTag, status, m.size + 1))
    counters_.add(Counter::kStatusSent);
}

bool Admission::answer_spent_cookie(const proto::Endpoint& from, const proto::Decoded& m, uint64_t server_salt,
                                    const proto::RequestTag& attempt, proto::Nanos now) {
  const auto* req = m.packet->body_as_Connect();
  const SpentCookies::Spent* spent = spent_cookies_.find(SpentCookies::mac_of(proto::bytes_of(req->cookie())), now);
  if (!spent) return false;
  // The same attempt again while its session lives (its Accept was lost, or a replay of it): the same
  // Accept, byte for byte, which changes nothing and uses no key again.
  if (const Client* existing = roster_.at(from);
      existing && existing->session.client_salt == req->client_salt() && existing->session.server_salt == server_salt &&
      existing->session.attempt == attempt) {
    counters_.add(Counter::kAcceptsResent);
    outbox_.send(from, existing->session.accept_datagram, Traffic::kHandshake);
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

void Admission::refuse_connect(const proto::Endpoint& to, const proto::TokenContents& token, uint64_t client_salt,
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

void Admission::handle_connect(proto::Nanos now, const proto::Endpoint& from, const proto::Decoded& m,
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
  std::string message;
  Client* replacing[2] = {nullptr, nullptr};
  const proto::fb::RejectReason refusal = judge_room(from, token, world_hash, settings_hash, message, replacing);
  if (refusal != proto::fb::RejectReason::Unknown) {
    refuse_connect(from, token, salt, attempt, cookie, refusal, message, now);
    return;
  }
  if (!spent_cookies_.remember(SpentCookies::mac_of(cookie), {attempt, true, proto::fb::RejectReason::Unknown},
                               now + CookieJar::kLifetime, now)) {
    counters_.add(Counter::kDropCookieSpent);
    return;
  }
  for (Client* old : replacing) {
    if (!old) continue;
    counters_.add(Counter::kReplaced);
    outbox_.send_session(old->session, writer_.disconnect(proto::fb::DisconnectReason::Replaced));
    roster_.remove(old->id);
  }
  admit(now, from, token, salt, server_salt, attempt);
}

proto::fb::RejectReason Admission::judge_room(const proto::Endpoint& from, const proto::TokenContents& token,
                                              uint64_t world_hash, uint64_t settings_hash, std::string& message,
                                              Client* (&replacing)[2]) {
  using Reason = proto::fb::RejectReason;
  const World& world = simulation_.world();
  const MoveSettings& settings = simulation_.settings();
  if (shutting_down_) {
    counters_.add(Counter::kRejectedShuttingDown);
    message = "the server is shutting down";
    return Reason::ShuttingDown;
  }
  if (world_hash != world.hash()) {
    counters_.add(Counter::kRejectedMismatch);
    message = "world hash " + hex(world_hash) + " differs from the server's " + hex(world.hash()) + " (" + world.name() + ")";
    return Reason::WorldMismatch;
  }
  if (settings_hash != settings.hash()) {
    counters_.add(Counter::kRejectedMismatch);
    message = "movement settings hash " + hex(settings_hash) + " differs from the server's " + hex(settings.hash());
    return Reason::SettingsMismatch;
  }
  // A new attempt from an endpoint that has a session: the client restarted there. A client id
  // already playing: the same player again if it comes from the same address (a restarted process
  // on a new port), which replaces its old session; from another address it is refused until that
  // session ends (a token may not be shared).
  Client* same_endpoint = roster_.at(from);
  Client* same_player = roster_.playing(token.client_id);
  if (same_player && same_player != same_endpoint && same_player->session.endpoint.address() != from.address()) {
    counters_.add(Counter::kRejectedClientIdInUse);
    message = "client id " + std::to_string(token.client_id) + " is already playing from another address";
    return Reason::ClientIdInUse;
  }
  // The cap is for the internet: loopback senders are this host's own (bots, tools), which no
  // remote attacker can pose as. (The sessions this attempt replaces do not count.)
  const int from_address = roster_.sessions_at_address(from, same_endpoint, same_player);
  if (from_address >= config_.max_clients_per_address && !is_loopback(from)) {
    counters_.add(Counter::kRejectedAddressFull);
    message = "this address holds " + std::to_string(from_address) + " sessions, the most the server allows one address";
    return Reason::AddressFull;
  }
  const std::size_t replaced = (same_endpoint != nullptr) + (same_player && same_player != same_endpoint);
  if (roster_.players() - replaced >= std::size_t(config_.max_clients)) {  // the game's NPCs take no player's place
    counters_.add(Counter::kRejectedFull);
    message = "the server is full (" + std::to_string(config_.max_clients) + " clients)";
    return Reason::ServerFull;
  }
  replacing[0] = same_endpoint;
  replacing[1] = same_player != same_endpoint ? same_player : nullptr;
  return Reason::Unknown;
}

void Admission::admit(proto::Nanos now, const proto::Endpoint& from, const proto::TokenContents& token, uint64_t salt,
                      uint64_t server_salt, const proto::RequestTag& attempt) {
  auto c = std::make_unique<Client>();
  const uint32_t id = roster_.next_id();
  Session& s = c->session;
  s.endpoint = from;
  s.client_id = token.client_id;
  s.user_data = token.user_data;
  s.user_data_size = token.user_data_size;
  s.client_salt = salt;
  s.server_salt = server_salt;
  s.attempt = attempt;
  // The server's fresh share of the keys: new for every session, so no replay of anything, nor a
  // restart, can bring back a key used before (WIRE_FORMAT.md, "Why no key and nonce repeat").
  const proto::ServerRandom server_random = proto::random_server_contribution();
  s.keys = proto::server_session_keys(token.client_to_server, token.server_to_client,
                                      {salt, server_salt, attempt, server_random});
  s.last_heard = now;
  s.rate = TokenBucket(config_.client_packet_rate, std::max(4.0, config_.client_packet_rate / 4.0), now);
  s.challenges = TokenBucket(kPathChallengeRate, kPathChallengeBurst, now);
  s.route = roster_.new_route();
  c->id = id;
  c->character.state = simulation_.spawn(id, roster_);
  if (join_hook_) join_hook_(*c);
  replication_.welcome(*c);
  counters_.add(Counter::kAccepted);
  // Sealed under the token's key (the client needs the server's random to derive the session keys)
  // and bound to this Connect.
  const auto accept = proto::seal_reply(
      token.server_to_client, salt, attempt,
      writer_.accept(id, simulation_.tick(), uint16_t(simulation_.settings().tick_rate),
                     uint16_t(config_.snapshot_interval), c->character.state, server_random, s.route,
                     attribute_names_.character_attributes, attribute_names_.match_attributes, c->session.client_id,
                     seen_by_all_mask(attribute_names_)),
      tx_);
  s.accept_datagram.assign(accept.begin(), accept.end());
  outbox_.send(from, accept, Traffic::kHandshake);
  roster_.add(std::move(c));
}

}  // namespace foothold::server
