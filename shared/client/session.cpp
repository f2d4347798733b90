#include "shared/client/session.h"

#include <algorithm>
#include <cmath>


namespace foothold::client {

std::string_view to_string(ClientSession::Phase p) {
  switch (p) {
    case ClientSession::Phase::kIdle: return "idle";
    case ClientSession::Phase::kRequesting: return "requesting";
    case ClientSession::Phase::kConnecting: return "connecting";
    case ClientSession::Phase::kConnected: return "connected";
    case ClientSession::Phase::kRejected: return "rejected";
    case ClientSession::Phase::kFailed: return "failed";
    case ClientSession::Phase::kTimedOut: return "timed_out";
    case ClientSession::Phase::kDisconnected: return "disconnected";
  }
  return "invalid";
}

ClientSession::ClientSession(const World& world, const MoveSettings& settings, ServerSink& sink,
                             const proto::ConnectToken& token, const SessionOptions& options)
    : world_(world),
      settings_(settings),
      derived_(derive(settings)),
      sink_(sink),
      token_(token),
      options_(options),
      predictor_(world, derived_),
      steering_(options.target_lead) {
  // Everything a connected session touches per tick is sized here, so that running it allocates
  // nothing (the C API promises it).
  unacked_.reserve(Predictor::kHistory);
  others_.reserve(proto::kMaxRemotes);
  for (auto& r : received_) r.remotes.reserve(proto::kMaxRemotes);
}

void ClientSession::send(std::span<const uint8_t> bytes) {
  ++stats_.packets_out;
  stats_.bytes_out += bytes.size();
  sink_.send(bytes);
}

void ClientSession::send_session(std::span<const uint8_t> packet) {
  send(proto::seal_session(keys_.send, ++send_sequence_, packet, tx_));
}

void ClientSession::send_connect() {
  const auto proof = proto::seal_proof(token_.client_to_server, cookie_, world_.hash(), settings_.hash());
  send(proto::frame_clear(writer_.connect(token_.sealed, salt_, cookie_, proof), tx_));
}

void ClientSession::start(net::Nanos now) {
  phase_ = Phase::kRequesting;
  phase_started_ = now;
  last_send_ = now;
  salt_ = proto::random_u64();
  send(proto::frame_clear(writer_.connect_request(token_.sealed, salt_), tx_));
}

void ClientSession::disconnect() {
  if (phase_ == Phase::kConnected) send_session(writer_.disconnect(wire::DisconnectReason::ClientQuit));
  if (!finished()) {
    phase_ = Phase::kDisconnected;
    reason_text_ = "client quit";
  }
}

void ClientSession::on_datagram(net::Nanos now, std::span<const uint8_t> bytes) {
  ++stats_.packets_in;
  stats_.bytes_in += bytes.size();
  if (bytes.size() > proto::kMaxDatagram) {
    ++stats_.dropped;
    return;
  }
  switch (proto::layer_of(bytes)) {
    case proto::Layer::kSealed: on_sealed(now, bytes); return;
    case proto::Layer::kSession: on_session(now, bytes); return;
    case proto::Layer::kClear: on_clear(bytes); return;
    case proto::Layer::kInvalid: ++stats_.dropped; return;
  }
}

void ClientSession::on_clear(std::span<const uint8_t> bytes) {
  // The only clear message a server sends is a version hint. Anyone could forge it, so it changes
  // nothing: it only explains a handshake that later fails.
  ++stats_.dropped;
  const auto d = proto::decode(proto::unframe_clear(bytes, rx_), proto::Direction::kToClient, proto::Layer::kClear);
  if (!d.ok() || (phase_ != Phase::kRequesting && phase_ != Phase::kConnecting)) return;
  const auto* r = d.message.packet->body_as_Reject();
  if (r->reason() == wire::RejectReason::VersionMismatch && r->message())
    hint_ = "the server said (unauthenticated): " + r->message()->str().substr(0, proto::kMaxRejectMessage);
}

void ClientSession::on_sealed(net::Nanos now, std::span<const uint8_t> bytes) {
  // Replies before the session come sealed under the token's key, to this attempt's salt.
  std::span<const uint8_t> packet;
  if ((phase_ != Phase::kRequesting && phase_ != Phase::kConnecting) || proto::sealed_reply_salt(bytes) != salt_ ||
      proto::open_reply(token_.server_to_client, bytes, rx_, packet) != proto::OpenError::kNone) {
    ++stats_.dropped;
    ++stats_.unauthenticated;
    return;
  }
  const auto d = proto::decode(packet, proto::Direction::kToClient, proto::Layer::kSealed);
  if (!d.ok() || d.message.version != proto::kProtocolVersion) {
    ++stats_.dropped;
    return;
  }
  const wire::Packet& p = *d.message.packet;
  if (d.message.type == wire::Body::Challenge) {
    const auto cookie = proto::bytes_of(p.body_as_Challenge()->cookie());
    if (phase_ != Phase::kRequesting || cookie.size() != proto::kCookieSize) {
      ++stats_.dropped;
      return;
    }
    cookie_.assign(cookie.begin(), cookie.end());
    // The cookie carries the server's salt for the session keys (bytes 8 to 15; WIRE_FORMAT.md).
    const uint64_t server_salt = proto::get_u64(cookie_.data() + 8);
    keys_ = proto::client_session_keys(token_.client_to_server, token_.server_to_client, salt_, server_salt);
    window_ = proto::ReplayWindow();
    send_sequence_ = 0;
    phase_ = Phase::kConnecting;
    last_send_ = now;
    last_heard_ = now;
    send_connect();
    return;
  }
  if (d.message.type == wire::Body::Reject) {
    const auto* r = p.body_as_Reject();
    phase_ = Phase::kRejected;
    const auto reason = r->reason();
    reject_reason_ = reason <= wire::RejectReason::MAX ? reason : wire::RejectReason::Unknown;
    reason_text_ = r->message() ? r->message()->str().substr(0, proto::kMaxRejectMessage) : "";
    return;
  }
  ++stats_.dropped;  // a Status: not for a session
}

void ClientSession::on_session(net::Nanos now, std::span<const uint8_t> bytes) {
  if (phase_ != Phase::kConnecting && phase_ != Phase::kConnected) {
    ++stats_.dropped;
    return;
  }
  uint64_t sequence = 0;
  std::span<const uint8_t> packet;
  if (proto::open_session(keys_.receive, window_, bytes, rx_, sequence, packet) != proto::OpenError::kNone) {
    ++stats_.dropped;
    ++stats_.unauthenticated;
    return;
  }
  const auto d = proto::decode(packet, proto::Direction::kToClient, proto::Layer::kSession);
  if (!d.ok()) {
    ++stats_.dropped;
    return;
  }
  window_.mark(sequence);
  const wire::Packet& p = *d.message.packet;
  switch (d.message.type) {
    case wire::Body::Accept: {
      const auto* a = p.body_as_Accept();
      if (phase_ != Phase::kConnecting || !a->state() || a->tick_rate() != settings_.tick_rate) {
        ++stats_.dropped;
        return;
      }
      character_id_ = a->character_id();
      phase_ = Phase::kConnected;
      stats_.connect_ms = double(now - phase_started_) / 1e6;
      last_heard_ = now;
      last_snapshot_ = a->tick();
      predictor_.reset(a->tick(), proto::from_wire(*a->state()));
      period_ = net::kSecond / settings_.tick_rate;
      // Start ahead of the server by the one-way delay the handshake suggests, plus the target
      // lead; the ticks skipped are filled with neutral input, which is also what the server repeats
      // for a client it has not heard from yet.
      const net::Nanos rtt = std::max<net::Nanos>(0, now - last_send_);
      const int lead = int((rtt / 2 + period_ - 1) / period_) + options_.target_lead + 1;
      if (on_connected) on_connected(character_id_);
      for (int i = 0; i < lead; ++i) run_tick(nullptr);
      send_inputs(now);
      next_tick_ = now + period_;
      return;
    }
    case wire::Body::Snapshot:
      if (phase_ != Phase::kConnected || !p.body_as_Snapshot()->own()) {
        ++stats_.dropped;
        return;
      }
      last_heard_ = now;
      handle_snapshot(now, *p.body_as_Snapshot());
      return;
    case wire::Body::Disconnect: {
      if (phase_ != Phase::kConnected) {
        ++stats_.dropped;
        return;
      }
      phase_ = Phase::kDisconnected;
      const char* name = wire::EnumNameDisconnectReason(p.body_as_Disconnect()->reason());
      reason_text_ = std::string("server: ") + (name && *name ? name : "unknown reason");
      return;
    }
    default:
      ++stats_.dropped;
      return;
  }
}

void ClientSession::handle_snapshot(net::Nanos now, const wire::Snapshot& s) {
  if (int32_t(s.tick() - last_snapshot_) <= 0) {
    ++stats_.stale_snapshots;
    return;
  }
  last_snapshot_ = s.tick();
  ++stats_.snapshots;

  // Remote characters: absolute ones, and deltas against a snapshot we acknowledged.
  Received& rec = received_[s.tick() % received_.size()];
  rec.tick = s.tick();
  rec.remotes.clear();
  if (s.full())
    for (const wire::RemoteFull* r : *s.full()) rec.remotes.push_back(*r);
  if (s.delta() && s.delta()->size() > 0) {
    const Received& base = received_[s.base_tick() % received_.size()];
    if (base.tick != s.base_tick() || s.base_tick() == 0) {
      ++stats_.missing_delta_base;
    } else {
      for (const wire::RemoteDelta* d : *s.delta()) {
        const auto it = std::lower_bound(base.remotes.begin(), base.remotes.end(), d->id(),
                                         [](const wire::RemoteFull& r, uint32_t id) { return r.id() < id; });
        if (it == base.remotes.end() || it->id() != d->id()) {
          ++stats_.missing_delta_base;
          continue;
        }
        rec.remotes.push_back(wire::RemoteFull(d->id(), it->x() + d->dx(), it->y() + d->dy(), it->z() + d->dz(), d->ground(),
                                               d->crouched(), d->platform()));
      }
    }
  }
  std::sort(rec.remotes.begin(), rec.remotes.end(), [](const auto& a, const auto& b) { return a.id() < b.id(); });
  others_.clear();
  for (const auto& r : rec.remotes) {
    const int shift = proto::kRemoteShift;
    const GroundKind g = r.ground() < kGroundKindCount ? GroundKind(r.ground()) : GroundKind::kNone;
    const FixedVec3 p{int32_t(uint32_t(r.x()) << shift), int32_t(uint32_t(r.y()) << shift), int32_t(uint32_t(r.z()) << shift)};
    remotes_.add(r.id(), s.tick(), p, g);
    others_.push_back({r.id(), p, r.crouched() != 0, r.platform()});
  }
  // Our predictions step against the others as this snapshot shows them (movement.md §16).
  predictor_.set_others(others_, character_id_);
  if (s.tick() > 120) remotes_.forget_before(s.tick() - 120);

  // Our own character: the server's word.
  const auto rec_outcome =
      predictor_.reconcile(s.tick(), proto::from_wire(*s.own()), s.repeated_mask(), s.interaction_mask());
  if (rec_outcome.outcome == Predictor::Outcome::kMatched || rec_outcome.outcome == Predictor::Outcome::kCorrected)
    ++stats_.compared;
  // Inputs up to the acknowledged tick are done with.
  const uint32_t acked = predictor_.acknowledged_tick();
  unacked_.erase(std::remove_if(unacked_.begin(), unacked_.end(), [&](const InputCmd& in) { return int32_t(in.tick - acked) <= 0; }),
                 unacked_.end());

  // Round trip: the server echoes our newest send time and how long it held it.
  const uint32_t now_us = uint32_t(uint64_t(now / 1000));
  if (s.echo_time_us() != 0) {
    const uint32_t rtt_us = now_us - s.echo_time_us() - s.echo_delay_us();
    if (rtt_us < 60'000'000u) {
      const double ms = rtt_us / 1000.0;
      stats_.rtt_ms = ms;
      stats_.rtt_smoothed_ms = stats_.rtt_smoothed_ms < 0 ? ms : stats_.rtt_smoothed_ms + (ms - stats_.rtt_smoothed_ms) / 8;
      if (on_rtt) on_rtt(ms);
    }
  }

  // Clock steering: keep the slowest recent input `target_lead` ticks early.
  stats_.input_lead = s.input_lead();
  stats_.server_tick = s.tick();
  steering_.report(s.input_lead());
}

void ClientSession::run_tick(InputSource* source) {
  const uint32_t tick = predictor_.latest_tick() + 1;
  InputCmd input = source ? source->next(tick, predictor_.latest_state()) : InputCmd{};
  input.tick = tick;
  const CharacterState& predicted = predictor_.predict(input);
  if (unacked_.size() >= Predictor::kHistory) unacked_.erase(unacked_.begin());
  unacked_.push_back(input);
  if (on_input) on_input(input);
  if (on_predicted) on_predicted(tick, predicted);
}

void ClientSession::send_inputs(net::Nanos now) {
  const std::size_t n = std::min(unacked_.size(), proto::kMaxInputsPerPacket);
  send_session(writer_.input_batch(last_snapshot_, uint32_t(uint64_t(now / 1000)),
                                   std::span<const InputCmd>(unacked_.data() + unacked_.size() - n, n)));
}

net::Nanos ClientSession::update(net::Nanos now, InputSource& source) {
  switch (phase_) {
    case Phase::kRequesting:
    case Phase::kConnecting:
      if (now - phase_started_ > options_.connect_timeout) {
        // The server stays silent to tokens it cannot open or that have expired: say what to check.
        reason_text_ = phase_ == Phase::kRequesting
                           ? "no answer to the connect request (is the token expired, or sealed with another key?)"
                           : "no answer to connect";
        if (!hint_.empty()) reason_text_ += "; " + hint_;
        phase_ = Phase::kFailed;
        return now + net::kSecond;
      }
      if (now - last_send_ >= options_.handshake_retry) {
        last_send_ = now;
        if (phase_ == Phase::kRequesting) {
          send(proto::frame_clear(writer_.connect_request(token_.sealed, salt_), tx_));
        } else {
          send_connect();
        }
      }
      return last_send_ + options_.handshake_retry;
    case Phase::kConnected: {
      if (now - last_heard_ > options_.server_timeout) {
        phase_ = Phase::kTimedOut;
        reason_text_ = "no word from the server";
        return now + net::kSecond;
      }
      // Run the ticks that are due, catching up at most a few at once.
      for (int i = 0; i < 4 && now >= next_tick_; ++i) {
        run_tick(&source);
        send_inputs(now);
        next_tick_ += net::Nanos(double(period_) * steering_.period_scale());
      }
      if (now - next_tick_ > 4 * period_) next_tick_ = now;  // too far behind: resume from now
      return next_tick_;
    }
    default:
      return now + net::kSecond;
  }
}

}  // namespace foothold::client
