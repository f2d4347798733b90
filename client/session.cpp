#include "client/session.h"

#include "proto/network_tuning.h"
#include "proto/untrusted_text.h"
#include "shared/animation.h"
#include "shared/mover_frame.h"

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
      steering_(options.target_lead),
      messages_(options.messages) {
  // Everything a connected session touches per tick is sized here, so that running it allocates
  // nothing (the C API promises it).
  others_.reserve(proto::kMaxRemotes);
  for (auto& r : received_) r.view.reserve(proto::kMaxRemotes);
  view_.reserve(proto::kMaxRemotes);
  seen_.reserve(proto::kMaxRemotes);
  wire_seen_.reserve(proto::kMaxRemotes);
  seen_next_.reserve(proto::kMaxRemotes);
  changed_.reserve(proto::kMaxRemotes);
  view_ids_.reserve(proto::kMaxRemotes);
  motion_.reserve(proto::kMaxRemotes);
  wire_neighbours_.reserve(proto::kMaxSnapshotNeighbours);
  neighbours_.reserve(proto::kMaxSnapshotNeighbours);
  predictor_.reserve(proto::kMaxRemotes, proto::kMaxSnapshotNeighbours);
  clocks_.reset(world);
  clocks_.reserve(kClockSegments);
  predictor_.set_clocks(&clocks_);
  remote_drawing_.set_clocks(&clocks_);
  drawing_.set_options(options.draw);
  remote_drawing_.set_options(options.draw);
}

void ClientSession::send(std::span<const uint8_t> bytes) {
  ++stats_.packets_out;
  stats_.bytes_out += bytes.size();
  sink_.send(bytes);
}

void ClientSession::refuse(proto::DatagramDrop why) {
  ++stats_.dropped;
  if (proto::unauthenticated(why)) ++stats_.unauthenticated;
}

void ClientSession::send_session(std::span<const uint8_t> packet) {
  send(proto::seal_session(keys_.send, ++send_sequence_, packet, tx_, proto::Payload::kPacket, route_));
}

void ClientSession::prepare_connect() {
  const auto proof = proto::seal_proof(token_.client_to_server, cookie_, world_.hash(), settings_.hash());
  attempt_ = proto::connect_attempt(salt_, cookie_, proof);
  const auto datagram = proto::frame_clear(writer_.connect(token_.sealed, salt_, cookie_, proof), tx_);
  connect_.assign(datagram.begin(), datagram.end());
}

void ClientSession::begin_attempt(proto::Nanos now) {
  ++attempts_;
  phase_ = Phase::kRequesting;
  last_send_ = now;
  salt_ = proto::random_u64();
  send(proto::frame_clear(writer_.connect_request(token_.sealed, salt_), tx_));
}

void ClientSession::start(proto::Nanos now) {
  phase_started_ = now;
  begin_attempt(now);
}

void ClientSession::disconnect() {
  if (phase_ == Phase::kConnected) send_session(writer_.disconnect(proto::fb::DisconnectReason::ClientQuit));
  if (!finished()) {
    phase_ = Phase::kDisconnected;
    reason_text_ = "client quit";
    end_reason_ = EndReason::kClientQuit;
  }
}

void ClientSession::on_datagram(proto::Nanos now, std::span<const uint8_t> bytes) {
  ++stats_.packets_in;
  stats_.bytes_in += bytes.size();
  const proto::Screened screened = reader_.screen(bytes);
  if (!screened.ok()) {
    refuse(screened.drop);
    return;
  }
  switch (screened.layer) {
    case proto::Layer::kSealed: on_sealed(now, bytes); return;
    case proto::Layer::kSession: on_session(now, bytes); return;
    case proto::Layer::kClear: on_clear(bytes); return;
    case proto::Layer::kInvalid: return;  // screened out above
  }
}

void ClientSession::on_clear(std::span<const uint8_t> bytes) {
  // The only clear message a server sends is a version hint. Anyone could forge it, so it changes
  // nothing: it only explains a handshake that later fails.
  ++stats_.dropped;
  const proto::PacketDatagram d = reader_.clear(bytes);
  if (!d.ok() || (phase_ != Phase::kRequesting && phase_ != Phase::kConnecting)) return;
  const auto* r = d.message.packet->body_as_Reject();
  if (r->reason() == proto::fb::RejectReason::VersionMismatch && r->message())
    hint_ = "the server said (unauthenticated): " + proto::printable(r->message()->string_view(), proto::kMaxRejectMessage);
}

void ClientSession::on_sealed(proto::Nanos now, std::span<const uint8_t> bytes) {
  // Replies before the session come sealed under the token's key, to this attempt's salt, bound to
  // the request they answer: while connecting, only replies to our own Connect open (a Reject that
  // an attacker's Connect earned, with our token and salt, does not).
  if (phase_ != Phase::kRequesting && phase_ != Phase::kConnecting) {
    refuse(proto::DatagramDrop::kBadSeal);  // no attempt of ours for it to answer: nothing it could open under
    return;
  }
  const proto::RequestTag& answers = phase_ == Phase::kConnecting ? attempt_.connect : proto::kNoRequestTag;
  const proto::PacketDatagram d = reader_.reply(token_.server_to_client, salt_, answers, bytes);
  if (!d.ok()) {
    refuse(d.drop);
    return;
  }
  const proto::fb::Packet& p = *d.message.packet;
  if (d.message.type == proto::fb::Body::Challenge) {
    const auto cookie = proto::bytes_of(p.body_as_Challenge()->cookie());
    if (phase_ != Phase::kRequesting || cookie.size() != proto::kCookieSize) {
      ++stats_.dropped;
      return;
    }
    cookie_.assign(cookie.begin(), cookie.end());
    phase_ = Phase::kConnecting;
    last_send_ = now;
    last_heard_ = now;
    prepare_connect();
    send(connect_);
    return;
  }
  if (d.message.type == proto::fb::Body::Accept) {
    if (phase_ != Phase::kConnecting) {
      ++stats_.dropped;
      return;
    }
    on_accept(now, *p.body_as_Accept());
    return;
  }
  if (d.message.type == proto::fb::Body::Reject) {
    const auto* r = p.body_as_Reject();
    const auto reason = r->reason() <= proto::fb::RejectReason::MAX ? r->reason() : proto::fb::RejectReason::Unknown;
    // A cookie the server no longer takes (it aged out on a slow path, or the server restarted):
    // a new attempt, with a fresh salt, rather than giving up.
    if (reason == proto::fb::RejectReason::BadCookie && phase_ == Phase::kConnecting && attempts_ < kMaxAttempts) {
      begin_attempt(now);
      return;
    }
    phase_ = Phase::kRejected;
    reject_reason_ = reason;
    end_reason_ = end_reason_for(reason);
    reason_text_ = r->message() ? proto::printable(r->message()->string_view(), proto::kMaxRejectMessage) : "";
    return;
  }
  ++stats_.dropped;  // a Status: not for a session
}

void ClientSession::on_session(proto::Nanos now, std::span<const uint8_t> bytes) {
  // The session's keys exist from the Accept on.
  if (phase_ != Phase::kConnected) {
    ++stats_.dropped;
    return;
  }
  // Read, it is authentic and marked in our window.
  const proto::SessionDatagram d = reader_.session(keys_.receive, window_, bytes);
  if (!d.ok()) {
    refuse(d.drop);
    return;
  }
  if (d.kind == proto::Payload::kCompact) {
    // Snapshots, the only compact message a server sends, and messages.
    last_heard_ = now;
    if (!d.compact.empty()) handle_snapshot(now, d.compact);
    if (!d.messages.empty() && phase_ == Phase::kConnected)
      if (const proto::Violation v = messages_.on_section(now, d.messages); v != proto::Violation::kNone) end_for_messages(v);
    return;
  }
  const proto::fb::Packet& p = *d.message.packet;
  switch (d.message.type) {
    case proto::fb::Body::PathChallenge:
      // The server saw our datagrams come from a new address (a NAT rebound us): answering from
      // the socket we send from now proves we are there, and moves the session.
      ++stats_.path_challenges;
      send_session(writer_.path_response(p.body_as_PathChallenge()->data()));
      return;
    case proto::fb::Body::Disconnect: {
      phase_ = Phase::kDisconnected;
      end_reason_ = end_reason_for(p.body_as_Disconnect()->reason());
      const char* name = proto::fb::EnumNameDisconnectReason(p.body_as_Disconnect()->reason());
      reason_text_ = std::string("server: ") + (name && *name ? name : "unknown reason");
      return;
    }
    default:
      ++stats_.dropped;
      return;
  }
}

void ClientSession::on_accept(proto::Nanos now, const proto::fb::Accept& a) {
  // The session keys: the token's keys, both salts, our proof and the server's fresh random.
  if (!a.state() || a.tick_rate() != settings_.tick_rate || a.snapshot_interval() == 0 ||
      !proto::accept_keys(token_, attempt_, a, keys_)) {
    ++stats_.dropped;
    return;
  }
  window_ = proto::ReplayWindow();
  send_sequence_ = 0;
  route_ = a.route();
  server_has_ = a.tick();
  character_id_ = a.character_id();
  client_id_ = a.client_id();
  phase_ = Phase::kConnected;
  stats_.connect_ms = double(now - phase_started_) / 1e6;
  last_heard_ = now;
  last_snapshot_ = a.tick();
  snapshot_interval_ = a.snapshot_interval();
  predictor_.reset(a.tick(), proto::from_wire(*a.state()));
  attributes_ = {};
  auto names = [](const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>* list, std::vector<std::string>& out) {
    out.clear();
    if (list)
      for (const flatbuffers::String* n : *list) out.push_back(n->str());
  };
  names(a.character_attributes(), attribute_names_);
  names(a.match_attributes(), match_attribute_names_);
  // Only attributes the game declared can be seen by all: other bits are no server's, and ignored.
  seen_by_all_ = a.seen_by_all() & ((uint32_t(1) << std::min<std::size_t>(attribute_names_.size(), 31)) - 1);
  seen_.clear();
  period_ = proto::kSecond / settings_.tick_rate;
  // Start ahead of the server's tick in the Accept by the whole round trip the handshake
  // suggests (the server is half of it past that tick by now, and our inputs take the other half
  // to reach it), plus the target lead; the ticks skipped are filled with neutral input, which is
  // also what the server repeats for a client it has not heard from yet.
  const proto::Nanos rtt = std::max<proto::Nanos>(0, now - last_send_);
  const int lead = int((rtt + period_ - 1) / period_) + options_.target_lead + 1;
  if (on_connected) on_connected(character_id_);
  drawing_.reset();
  remote_drawing_.reset();
  view_clock_.reset(period_, snapshot_interval_);
  for (int i = 0; i < lead; ++i) run_tick(nullptr);
  send_inputs(now);
  next_tick_ = now + period_;
  // The ticks run at once are drawn as one moment: the first frame shows the newest.
  drawing_.on_tick(predictor_.latest_tick(), now - period_, now);
}

void ClientSession::handle_snapshot(proto::Nanos now, std::span<const uint8_t> message) {
  const std::optional<proto::SnapshotHeader> h = take_snapshot(message);
  if (!h) return;
  view_clock_.on_snapshot(h->tick, now, stats_.loss);
  show_others(h->tick);
  check_own_state(now, *h);
  forget_inputs_through(h->received_through);
  measure_round_trip(now, *h);
  // Clock steering: keep the slowest recent input `target_lead` ticks early.
  stats_.input_lead = h->input_lead;
  stats_.server_tick = h->tick;
  steering_.report(h->input_lead);
}

std::optional<proto::SnapshotHeader> ClientSession::take_snapshot(std::span<const uint8_t> message) {
  proto::SnapshotHeader h;
  if (proto::read_snapshot_header(message, last_snapshot_, snapshot_interval_, h) != proto::SnapshotError::kNone) {
    ++stats_.dropped;
    return std::nullopt;
  }
  // Older snapshots are stale, and a straggler is never a delta base: the server only builds on
  // snapshots we acknowledged, which are the newest we had.
  if (int32_t(h.tick - last_snapshot_) <= 0) {
    ++stats_.stale_snapshots;
    return std::nullopt;
  }
  const proto::RemoteView* base = &no_base_;
  if (h.base_tick != 0) {
    const Received& r = received_[(h.base_tick / snapshot_interval_) % received_.size()];
    if (r.tick != h.base_tick || acked_snapshot_ == 0) {
      ++stats_.missing_delta_base;
      ++stats_.dropped;
      return std::nullopt;
    }
    base = &r.view;
  }
  base_ids_.clear();
  for (const proto::RemoteState& b : *base) base_ids_.push_back(b.id);
  if (proto::read_snapshot(message, last_snapshot_, snapshot_interval_, *base, h, view_, changed_, &gone_, &wire_neighbours_,
                           &wire_seen_) != proto::SnapshotError::kNone) {
    ++stats_.dropped;
    return std::nullopt;
  }
  // Snapshots missed since the last one: the loss that sizes our inputs' redundancy.
  const uint32_t gap = (h.tick - last_snapshot_) / snapshot_interval_;
  if (acked_snapshot_ != 0 && gap >= 1) {
    const double missed = double(gap - 1) / double(gap);
    stats_.loss += (missed - stats_.loss) / proto::kLossSmoothing;
  }
  // Every snapshot taken is the newest yet: what it carries is the latest word on each attribute.
  for (int slot = 0; slot < proto::kAttributeSlots; ++slot)
    if (h.attribute_mask & (uint32_t(1) << slot)) attributes_[std::size_t(slot)] = h.attribute_values[std::size_t(slot)];
  take_seen_attributes();
  take_movers(h);
  Received& rec = received_[(h.tick / snapshot_interval_) % received_.size()];
  rec.tick = h.tick;
  rec.view.assign(view_.begin(), view_.end());
  last_snapshot_ = h.tick;
  acked_snapshot_ = h.tick;
  ++stats_.snapshots;
  return h;
}

void ClientSession::take_movers(const proto::SnapshotHeader& h) {
  bool changed = false;
  for (std::size_t i = 0; i < h.mover_count; ++i) {
    const proto::MoverUpdate& u = h.movers[i];
    if (u.index >= clocks_.size()) continue;  // not a mover of our world
    // Carried again until acknowledged: only a segment we lack changes anything.
    if (clocks_.own(u.index) && clocks_.newest(u.index) == u.segment) continue;
    if (clocks_.receive(u.index, u.segment)) {
      ++stats_.mover_segments;
      changed = true;
    }
  }
  // What no drawing or prediction reaches back to any more (kClockHistoryTicks: a few seconds).
  if (h.tick > kClockHistoryTicks) clocks_.forget_before(h.tick - kClockHistoryTicks);
  // The predictions since the last confirmed tick ran the movers on what we knew then; from the tick
  // the new segment starts, the server ran them on it: step them again, so that they match.
  if (changed) stats_.mover_replayed_ticks += predictor_.movers_changed();
}

void ClientSession::keep_unsaid(uint32_t tick, uint32_t stale) {
  // The characters shown: the snapshot's view, and those shown before that it says nothing of. A
  // snapshot built on an older base than the one that added a character (its acknowledgement was
  // on the way, or the budget had no room for it again) lacks it without removing it: the server
  // removes only what the base holds. Such a one stays as last seen, for at most the staleness time
  // (a server that could, would have sent it by then).
  merged_.clear();
  merged_seen_.clear();
  std::size_t s = 0;
  for (const proto::RemoteState& r : view_) {
    for (; s < shown_.size() && shown_[s].id < r.id; ++s) keep_if_unsaid(s, tick, stale);
    if (s < shown_.size() && shown_[s].id == r.id) ++s;
    merged_.push_back(r);
    merged_seen_.push_back(tick);
  }
  for (; s < shown_.size(); ++s) keep_if_unsaid(s, tick, stale);
  view_events_.update(shown_, merged_, gone_, tick);
  shown_.swap(merged_);
  shown_seen_.swap(merged_seen_);
}

void ClientSession::keep_if_unsaid(std::size_t s, uint32_t tick, uint32_t stale) {
  if (std::binary_search(base_ids_.begin(), base_ids_.end(), shown_[s].id)) return;  // the base held it: removed
  if (tick - shown_seen_[s] > stale) return;
  merged_.push_back(shown_[s]);
  merged_seen_.push_back(shown_seen_[s]);
}

uint64_t ClientSession::client_id_of(uint32_t character_id) const {
  const auto it = std::lower_bound(shown_.begin(), shown_.end(), character_id,
                                   [](const proto::RemoteState& r, uint32_t id) { return r.id < id; });
  return it != shown_.end() && it->id == character_id ? it->client_id : 0;
}

double ClientSession::view_tick(proto::Nanos now) const {
  if (acked_snapshot_ == 0) return 0;
  return view_clock_.at(now);
}

uint32_t ClientSession::stale_ticks() const {
  return std::max<uint32_t>(1, proto::kMaxStalenessMs * uint32_t(settings_.tick_rate) / 1000);
}

RemoteFrame ClientSession::remote_frame(proto::Nanos now) const {
  return RemoteFrame{remotes_, others_, last_snapshot_, stale_ticks(), view_tick(now), now, view_clock_.jumps()};
}

std::size_t ClientSession::draw_remotes(proto::Nanos now, std::span<DrawnRemote> out) {
  if (acked_snapshot_ == 0) return 0;
  return remote_drawing_.draw(remote_frame(now), out);
}

int32_t ClientSession::attribute(int index) const {
  return index >= 0 && index < proto::kCharacterAttributes ? attributes_[std::size_t(index)] : 0;
}

void ClientSession::take_seen_attributes() {
  // The characters of the new view keep what was known of them, updated by what this snapshot
  // carries; those not in it are forgotten (the server forgets, for them, what we hold: it sends
  // their values again when they come back). Both lists and the view ascend by id.
  seen_next_.clear();
  std::size_t old = 0, wire = 0;
  for (const proto::RemoteState& v : view_) {
    while (old < seen_.size() && seen_[old].id < v.id) ++old;
    while (wire < wire_seen_.size() && wire_seen_[wire].id < v.id) ++wire;
    proto::SeenAttributes next = old < seen_.size() && seen_[old].id == v.id ? seen_[old] : proto::SeenAttributes{v.id, 0, {}};
    if (wire < wire_seen_.size() && wire_seen_[wire].id == v.id) {
      const proto::SeenAttributes& w = wire_seen_[wire];
      const uint32_t mask = w.mask & seen_by_all_;
      for (int i = 0; i < proto::kCharacterAttributes; ++i)
        if ((mask >> i) & 1) next.values[std::size_t(i)] = w.values[std::size_t(i)];
      next.mask = uint16_t(next.mask | mask);
    }
    if (next.mask != 0) seen_next_.push_back(next);
  }
  seen_.swap(seen_next_);
}

int32_t ClientSession::attribute_of(uint32_t character, int index) const {
  if (index < 0 || index >= proto::kCharacterAttributes) return 0;
  if (character == character_id_ && character != 0) return attribute(index);
  const auto it = std::lower_bound(seen_.begin(), seen_.end(), character,
                                   [](const proto::SeenAttributes& s, uint32_t id) { return s.id < id; });
  return it != seen_.end() && it->id == character && ((it->mask >> index) & 1) ? it->values[std::size_t(index)] : 0;
}

int32_t ClientSession::match_attribute(int index) const {
  return index >= 0 && index < proto::kMatchAttributes ? attributes_[std::size_t(proto::kCharacterAttributes + index)] : 0;
}

namespace {
int index_of(const std::vector<std::string>& names, std::string_view name) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return int(i);
  return -1;
}
}  // namespace

int ClientSession::attribute_index(std::string_view name) const { return index_of(attribute_names_, name); }
int ClientSession::match_attribute_index(std::string_view name) const { return index_of(match_attribute_names_, name); }

void ClientSession::show_others(uint32_t tick) {
  // A sample for each one this snapshot sent. One left out for longer than the server ever leaves
  // out a character that moves stood still until then.
  const uint32_t stale = stale_ticks();
  keep_unsaid(tick, stale);
  view_ids_.clear();
  others_.clear();
  for (const proto::RemoteState& r : shown_) {
    view_ids_.push_back(r.id);
    const int shift = proto::kRemoteShift;
    const FixedVec3 p{int32_t(uint32_t(r.x) << shift), int32_t(uint32_t(r.y) << shift), int32_t(uint32_t(r.z) << shift)};
    others_.push_back({r.id, p, r.crouched, r.platform});
    if (std::binary_search(changed_.begin(), changed_.end(), r.id)) {
      remotes_.hold_until(r.id, tick - stale);
      remotes_.add(r.id, tick, p, GroundKind(r.ground), r.crouched);
    }
  }
  remotes_.retain(view_ids_);
  // Our predictions step against the others as this snapshot shows them (movement.md §16), each
  // carried on by the motion its last two samples show while we step ahead of the snapshot: we meet
  // them where they will be, not where they were a round trip ago.
  motion_.clear();
  const auto& movers = world_.movers();
  for (const OtherCharacter& o : others_) {
    FixedVec3 m = remotes_.motion(o.id, tick, stale);
    if (o.platform != 0 && o.platform <= movers.size() && (m.x != 0 || m.z != 0)) {
      // One on a mover: its own steps across the deck, less what the mover moved it in the last tick
      // (the predictor carries it by the mover).
      const Vec3 p = to_position(o.position);
      const Vec3 before = clocks_.carry(world_, o.platform - 1u, tick, tick - 1, settings_.tick_rate, p);
      const FixedVec3 carried = quantize_position(p - before);
      m = {m.x - carried.x, 0, m.z - carried.z};
    }
    motion_.push_back(m);
  }
  take_neighbours(tick);
  predictor_.set_others(others_, character_id_, tick, motion_, neighbours_);
}

void ClientSession::take_neighbours(uint32_t tick) {
  // The characters the snapshot gave in full: our predictions step them as the server does, with
  // their inputs (the last one held), rather than carry them (Predictor::set_others). One on a mover has its
  // platform offset back from what its position says and the residual the wire carried.
  neighbours_.clear();
  const auto& movers = world_.movers();
  for (const proto::SnapshotNeighbour& n : wire_neighbours_) {
    PredictedNeighbour p{n.id, n.state, n.input, n.ahead, n.ahead_count};
    const uint16_t platform = p.state.platform;
    if (platform != 0) {
      if (platform > movers.size()) continue;  // no such mover here: carried like the rest
      const Pose to_local = inverse(clocks_.pose(world_, platform - 1u, tick, settings_.tick_rate));
      const FixedVec3 guess = platform_offset_guess(to_local, p.state.position);
      const int64_t x = int64_t(guess.x) + n.offset_residual.x, y = int64_t(guess.y) + n.offset_residual.y,
                    z = int64_t(guess.z) + n.offset_residual.z;
      constexpr int64_t lo = INT32_MIN, hi = INT32_MAX;
      if (x < lo || x > hi || y < lo || y > hi || z < lo || z > hi) continue;
      p.state.platform_offset = {int32_t(x), int32_t(y), int32_t(z)};
    }
    neighbours_.push_back(p);
  }
}

void ClientSession::check_own_state(proto::Nanos now, const proto::SnapshotHeader& h) {
  // The server's word, or its digest when it expects our prediction to match.
  if (h.has_own_state) {
    ++stats_.snapshots_with_state;
    want_state_ = false;
    // The drawn pose keeps what was drawn: the correction is taken in over the smoothing time. It is
    // measured at the last frame's moment: that is what a player saw, and what the next frame's
    // pose moves on from (measured now, a correction that also turned the character would show the
    // turn since that frame as a jump).
    const proto::Nanos seen = drawing_.drawn_at() != 0 ? drawing_.drawn_at() : now;
    const std::optional<DrawnPose> before = drawing_.predicted(predictor_, seen);
    const auto r = predictor_.reconcile(h.tick, h.own, h.repeated_mask, h.interaction_mask, h.server_mask);
    // Restarted from the server's state past every tick predicted: its tick is drawn from now on.
    if (r.outcome == Predictor::Outcome::kAhead) drawing_.on_tick(predictor_.latest_tick(), now - period_, next_tick_);
    if ((r.outcome == Predictor::Outcome::kCorrected || r.outcome == Predictor::Outcome::kAhead) && before)
      if (const std::optional<DrawnPose> after = drawing_.predicted(predictor_, seen))
        drawing_.corrected(after->position - before->position, r.interaction ? kCauseNeighbourRestep : kCauseCorrection);
    if (r.outcome == Predictor::Outcome::kMatched || r.outcome == Predictor::Outcome::kCorrected) ++stats_.compared;
    return;
  }
  switch (predictor_.confirm(h.tick, h.own_digest)) {
    case Predictor::Outcome::kMatched:
      ++stats_.compared;
      want_state_ = false;
      break;
    case Predictor::Outcome::kMismatch:
      if (!want_state_) ++stats_.state_requests;
      want_state_ = true;
      break;
    default:
      break;
  }
}

void ClientSession::forget_inputs_through(uint32_t received_through) {
  // Inputs the server has (every one up to received_through), or no longer needs (up to the tick it
  // confirmed), are done with; the newest bound only moves forward. Never past our newest input: an
  // input not yet made cannot have been had, whatever the snapshot says.
  const uint32_t confirmed = predictor_.acknowledged_tick();
  uint32_t done = int32_t(received_through - confirmed) > 0 ? received_through : confirmed;
  if (int32_t(done - predictor_.latest_tick()) > 0) done = predictor_.latest_tick();
  if (int32_t(done - server_has_) > 0) server_has_ = done;
}

void ClientSession::measure_round_trip(proto::Nanos now, const proto::SnapshotHeader& h) {
  // The newest input the server had (tick + input_lead), from when we sent it, less the time the
  // server held it.
  const uint32_t echoed = h.tick + uint32_t(int32_t(h.input_lead));
  const Sent& sent = sent_at_[echoed % sent_at_.size()];
  if (sent.tick != echoed || sent.at == 0) return;
  const proto::Nanos rtt = now - sent.at - proto::Nanos(h.echo_delay_us) * 1000;
  if (rtt < 0 || rtt >= 60 * proto::kSecond) return;
  const double ms = double(rtt) / 1e6;
  stats_.rtt_ms = ms;
  stats_.rtt_smoothed_ms = stats_.rtt_smoothed_ms < 0 ? ms : stats_.rtt_smoothed_ms + (ms - stats_.rtt_smoothed_ms) / 8;
  if (on_rtt) on_rtt(ms);
}

void ClientSession::run_tick(InputSource* source) {
  const uint32_t tick = predictor_.latest_tick() + 1;
  InputCmd input = source ? source->next(tick, predictor_.latest_state()) : InputCmd{};
  input.tick = tick;
  const CharacterState& predicted = predictor_.predict(input);
  if (on_input) on_input(input);
  if (on_predicted) on_predicted(tick, predicted);
}

uint32_t ClientSession::oldest_unacknowledged() const {
  const uint32_t held = predictor_.oldest_input_tick();
  return int32_t(held - (server_has_ + 1)) > 0 ? held : server_has_ + 1;
}

std::size_t ClientSession::redundancy() const {
  // Enough copies that all of them being lost is rare (proto/network_tuning.h).
  for (const proto::RedundancyRung& rung : proto::kRedundancyLadder)
    if (stats_.loss < rung.loss) return rung.copies;
  return proto::kMaxRedundancy;
}

void ClientSession::send_inputs(proto::Nanos now) {
  // Every input not sent yet; the newest, a few times each; and every unacknowledged one again once
  // it is overdue (sent longer ago than a round trip and two ticks, and still not had): plausibly lost.
  // The unacknowledged inputs are consecutive ticks, oldest to newest.
  const uint32_t newest = predictor_.latest_tick();
  const uint32_t oldest = oldest_unacknowledged();
  const std::size_t unacked = int32_t(newest - oldest) >= 0 ? std::size_t(newest - oldest) + 1 : 0;
  const std::size_t unsent = std::min(unacked, std::size_t(std::max(0, int32_t(newest - newest_sent_))));
  std::size_t n = std::min(unacked, std::max(unsent, redundancy()));
  if (unacked != 0) {
    const Sent& first = sent_at_[oldest % sent_at_.size()];
    const proto::Nanos rtt = stats_.rtt_smoothed_ms >= 0 ? proto::Nanos(stats_.rtt_smoothed_ms * 1e6) : proto::kAssumedRoundTrip;
    if (first.tick == oldest && now - first.at > rtt + 2 * period_) n = unacked;
  }
  n = std::min(n, proto::kMaxCompactInputs);
  // The newest n, from the predictor's history (write_inputs wants them side by side).
  for (std::size_t i = 0; i < n; ++i) outgoing_[i] = predictor_.input(newest - uint32_t(n - 1 - i));
  const std::span<const InputCmd> inputs(outgoing_.data(), n);
  proto::InputsHeader h;
  h.ack_snapshot = acked_snapshot_;
  h.newest_tick = newest;
  h.want_state = want_state_;
  for (const InputCmd& in : inputs) {
    if (int32_t(in.tick - newest_sent_) <= 0) continue;
    sent_at_[in.tick % sent_at_.size()] = {in.tick, now};
    newest_sent_ = in.tick;
  }
  const auto message = proto::write_inputs(h, inputs, payload_);
  stats_.inputs_sent += n;
  ++stats_.input_messages;
  // Messages ride in the room the inputs leave in their datagram.
  std::span<const uint8_t> payload = message;
  const std::size_t room = proto::kMaxDatagram - proto::session_overhead(send_sequence_ + 1, route_ != 0);
  if (messages_.can_ride(now))
    if (const std::size_t carried = proto::write_carrier(messages_, now, message, std::span<uint8_t>(carrier_).first(room)); carried > 0)
      payload = {carrier_.data(), carried};
  send(proto::seal_session(keys_.send, ++send_sequence_, payload, tx_, proto::Payload::kCompact, route_));
}

void ClientSession::send_messages(proto::Nanos now) {
  // One datagram of messages alone per tick at most, beside the inputs': the server's packet rate
  // per client (240 a second by default) leaves room for that at 60 Hz, and the byte rate bounds it.
  if (!messages_.wants_to_send(now)) return;
  const std::size_t room = proto::kMaxDatagram - proto::session_overhead(send_sequence_ + 1, route_ != 0);
  const std::size_t bytes = proto::write_carrier(messages_, now, {}, std::span<uint8_t>(carrier_).first(room));
  if (bytes == 0) return;
  send(proto::seal_session(keys_.send, ++send_sequence_, {carrier_.data(), bytes}, tx_, proto::Payload::kCompact, route_));
}

proto::SendError ClientSession::send_message(proto::Channel channel, std::span<const uint8_t> bytes) {
  if (phase_ != Phase::kConnected) return proto::SendError::kNotConnected;
  return messages_.send(channel, bytes);
}

void ClientSession::end_for_messages(proto::Violation v) {
  const bool timeout = v == proto::Violation::kNoProgress || v == proto::Violation::kIncomplete;
  send_session(writer_.disconnect(timeout ? proto::fb::DisconnectReason::MessageTimeout
                                          : proto::fb::DisconnectReason::MessageViolation));
  phase_ = Phase::kDisconnected;
  end_reason_ = EndReason::kMessages;
  reason_text_ = std::string("messages: the server's ") + (timeout ? "stood still (" : "broke the rules (") +
                 std::string(proto::to_string(v)) + ")";
}

proto::Nanos ClientSession::update(proto::Nanos now, InputSource& source) {
  switch (phase_) {
    case Phase::kRequesting:
    case Phase::kConnecting:
      if (now - phase_started_ > options_.connect_timeout) {
        // The server stays silent to tokens it cannot open or that have expired: say what to check.
        if (phase_ == Phase::kRequesting && unreachable_ > 0) {
          end_reason_ = EndReason::kNoServer;
          reason_text_ = "nothing listens at " + server_name_ +
                         " (its port refused the connect request): is the server running, at that address?";
        } else if (phase_ == Phase::kRequesting) {
          end_reason_ = EndReason::kNoAnswer;
          reason_text_ = "no answer from " + server_name_ +
                         " to the connect request: is a server running there and reachable, and is the token "
                         "neither expired nor sealed with another key?";
        } else {
          end_reason_ = EndReason::kHandshakeTimeout;
          reason_text_ = "no answer from " + server_name_ + " to connect (it answered the request, then went silent)";
        }
        if (!hint_.empty()) reason_text_ += "; " + hint_;
        // A version hint is anyone's to forge, so it ended nothing; but a server that then never
        // answered what we could authenticate most likely speaks another protocol, as it said.
        if (phase_ == Phase::kRequesting && !hint_.empty()) end_reason_ = EndReason::kVersionMismatch;
        phase_ = Phase::kFailed;
        return now + proto::kSecond;
      }
      if (now - last_send_ >= options_.handshake_retry) {
        last_send_ = now;
        if (phase_ == Phase::kRequesting) {
          send(proto::frame_clear(writer_.connect_request(token_.sealed, salt_), tx_));
        } else {
          send(connect_);
        }
      }
      return last_send_ + options_.handshake_retry;
    case Phase::kConnected: {
      if (now - last_heard_ > options_.server_timeout) {
        phase_ = Phase::kTimedOut;
        end_reason_ = EndReason::kTimedOut;
        reason_text_ = "no word from " + server_name_ + " for " +
                       std::to_string((now - last_heard_) / proto::kSecond) + " s";
        return now + proto::kSecond;
      }
      if (const proto::Violation v = messages_.check(now); v != proto::Violation::kNone) {
        end_for_messages(v);
        return now + proto::kSecond;
      }
      view_clock_.advance(now);
      // Run the ticks that are due, catching up at most a few at once.
      for (int i = 0; i < 4 && now >= next_tick_; ++i) {
        run_tick(&source);
        send_inputs(now);
        send_messages(now);
        const proto::Nanos due = next_tick_;
        next_tick_ += proto::Nanos(double(period_) * steering_.period_scale());
        drawing_.on_tick(predictor_.latest_tick(), due, next_tick_);
      }
      if (now - next_tick_ > 4 * period_) {
        next_tick_ = now;  // too far behind: resume from now
        drawing_.on_next(next_tick_, true);
      }
      return next_tick_;
    }
    default:
      return now + proto::kSecond;
  }
}

}  // namespace foothold::client
