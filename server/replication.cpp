#include "server/replication.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "proto/network_tuning.h"
#include "proto/secure.h"
#include "shared/sort_presorted.h"

namespace foothold::server {

struct Replication::Worker {
  proto::DatagramBuffer tx;
  std::vector<std::pair<int64_t, uint32_t>> candidates;
  // A snapshot's choices: each change to the base view or addition, with its cost and rank.
  struct Choice {
    bool forced = false;      // overdue (kMaxStaleness since the base had it fresh), or new to the client
    uint32_t age = 0;         // ticks since the base had it fresh
    uint32_t other = 0;       // roster index of the character (not for a removal)
    uint32_t id = 0;
    int32_t base_index = -1;  // in the base view; -1 for an addition
    bool removal = false;
    bool gone = false;        // a removal of one that left the match
    uint32_t bits = 0;
    proto::RemoteState now;
  };
  std::vector<Choice> choices;
  // The choices a snapshot takes (take_choices()). When all fit, their indices; when not, their
  // rank keys: the class (removals, then the overdue, then the rest), the priority inverted, then
  // the index (choices are gathered in ascending id, so the index breaks ties as the id would).
  // With each choice's cost and what it does to the view, by index, for take_within_budget().
  std::vector<uint64_t> taken;
  std::vector<uint32_t> bits;
  std::vector<int8_t> view_change;
  std::vector<uint32_t> fresh;  // per base entry, the freshness the new view inherits
  std::vector<std::pair<int64_t, uint32_t>> near;    // the neighbours' candidates: distance squared, roster index
  std::vector<proto::SnapshotNeighbour> neighbours;  // those a snapshot gives in full, ascending id
  std::vector<uint32_t> next_ids;                      // the ids of the view a snapshot leaves the client with
  std::vector<uint8_t> removed;                        // per base entry: a removal was taken
  std::vector<ClientView::Seen> seen_records;          // swapped into the client's (carry_seen())
  std::vector<proto::SeenAttributes> seen;             // aligned with next_ids: what a snapshot carries
  proto::SnapshotWriter snapshot;
  proto::PoseView view;  // the view a snapshot leaves the client with; swapped into the client's history
  // Storage of released history slots (release_history()), for the next slots any of this worker's
  // clients write. Shared by the worker's clients, not kept per client: acknowledgements arrive in
  // bursts, so one client releases several slots at once and later needs several, and a per-client
  // spare either held memory for each client or freed and allocated again (4% of a loaded server).
  std::vector<SentSnapshot> spare;
  std::array<uint8_t, proto::kMaxDatagram> payload{};
  Counters counters;  // merged into the server's after each parallel part
  struct Out {
    uint32_t client;  // roster index
    std::size_t offset, size;
    std::size_t messages;  // bytes of a message section riding in it (counted as messages, not snapshot)
  };
  std::array<uint8_t, proto::kMaxDatagram> carrier;  // a snapshot with messages riding in its room
  std::vector<Out> out;  // sealed snapshots, in the order built, sent in client order by the calling thread
  std::vector<uint8_t> out_bytes;
};

namespace {

uint32_t micros(proto::Nanos t) { return uint32_t(uint64_t(t / 1000)); }

// The interest grid's cells, keyed by cell_key() (shared/cell_runs.h): a column's cells are one run.
int64_t cell_of(double v) { return int64_t(std::floor(v / proto::kInterestCell)); }

// Another character as a snapshot carries it (1/256 m: the positions the steps see, movement.md §16).
proto::RemoteState remote_state(const Client& c) {
  const CharacterState& s = c.character.state;
  return {{c.id, s.position.x >> proto::kRemoteShift, s.position.y >> proto::kRemoteShift, s.position.z >> proto::kRemoteShift,
           uint8_t(s.ground), s.crouched, s.platform},
          c.npc ? 0 : c.session.client_id,
          c.npc};
}

// Every cache line that [p, p + bytes) touches.
void prefetch_range(const void* p, std::size_t bytes) {
  const uintptr_t first = reinterpret_cast<uintptr_t>(p) & ~uintptr_t(63);
  const uintptr_t last = reinterpret_cast<uintptr_t>(p) + bytes;
  for (uintptr_t a = first; a < last; a += 64) __builtin_prefetch(reinterpret_cast<const void*>(a));
}

// Every cache line from `from` up to `end` (the end of the object that holds `from`).
void prefetch_between(const void* from, const void* end) {
  prefetch_range(from, std::size_t(static_cast<const char*>(end) - static_cast<const char*>(from)));
}

}  // namespace

Replication::Replication(const CoreConfig& config, int tick_rate, WorkerPool& pool)
    : config_(config),
      pool_(pool),
      schedule_{uint32_t(std::max(0, config.snapshot_interval)), true},
      stale_ticks_(uint32_t(std::max<int64_t>(1, kMaxStaleness * tick_rate / proto::kSecond))) {
  const std::size_t capacity = std::size_t(config.max_clients);
  grid_.reserve(capacity);
  published_.reserve(capacity);
  due_.reserve(capacity);
  outgoing_.reserve(capacity);
  for (int i = 0; i < pool_.threads(); ++i) {
    auto w = std::make_unique<Worker>();
    w->candidates.reserve(capacity);
    w->choices.reserve(2 * kMaxOthers);
    w->taken.reserve(2 * kMaxOthers);
    w->bits.reserve(2 * kMaxOthers);
    w->view_change.reserve(2 * kMaxOthers);
    w->fresh.reserve(kMaxOthers);
    w->view.reserve(kMaxOthers);
    w->next_ids.reserve(kMaxOthers);
    w->removed.reserve(kMaxOthers);
    w->seen_records.reserve(kMaxOthers);
    w->seen.reserve(kMaxOthers);
    w->out.reserve(capacity);
    w->out_bytes.reserve(capacity * 512);
    workers_.push_back(std::move(w));
  }
}

Replication::~Replication() = default;

void Replication::welcome(Client& c) const {
  // The ring's views grow to what the client's snapshots hold (a budget's worth, far fewer than
  // kMaxOthers in a crowd), and only the slots from the acknowledged snapshot on keep storage
  // (release_history()): reserving kMaxOthers in each of kSentHistory slots would hold about 110 KB
  // per client whatever it sees.
  c.view.sent.resize(kSentHistory);
  c.view.interest.reserve(kMaxOthers);
}

void Replication::acknowledge(Client& c, const proto::InputsHeader& h, uint32_t tick, Counters& counters) const {
  c.view.wants_state = h.want_state;
  // A snapshot ack from the future is a lie; from the past it is merely late.
  if (h.ack_snapshot == 0) return;
  if (int32_t(h.ack_snapshot - tick) > 0) {
    counters.add(Counter::kDropBadValue);
  } else if (int32_t(h.ack_snapshot - c.view.acked_snapshot) > 0) {
    c.view.acked_snapshot = h.ack_snapshot;
  }
}

void Replication::build_grid(const Roster& roster) {
  // In the last tick's order when it held as many clients: only the few that changed cell are out
  // of place, and the sorted grid is the same whatever order it is sorted from.
  if (grid_.size() != roster.size()) {
    grid_.resize(roster.size());
    for (uint32_t i = 0; i < roster.size(); ++i) grid_[i].index = i;
  }
  for (GridEntry& g : grid_) {
    const FixedVec3& q = roster[g.index].character.state.position;
    g = {cell_key(cell_of(q.x * kPositionQuantum), cell_of(q.z * kPositionQuantum)), g.index, q.x, q.z};
  }
  sort_presorted(grid_, std::less<GridEntry>());
  grid_runs_.build(std::span<const GridEntry>(grid_));
}

void Replication::select_others(const Roster& roster, std::size_t self, std::vector<uint32_t>& out,
                                std::vector<std::pair<int64_t, uint32_t>>& candidates) const {
  out.clear();
  const std::size_t n = roster.size();
  if (n - 1 <= kMaxOthers) {
    for (uint32_t i = 0; i < n; ++i)
      if (i != self) out.push_back(i);
    return;
  }
  // About the nearest kMaxOthers, gathered ring by ring of cells (so in a crowd only the nearest
  // cells are looked at); the ring that fills the list gives its nearest, ties by index.
  const FixedVec3& me = roster[self].character.state.position;
  const Vec3 p = to_position(me);
  const int64_t cx = cell_of(p.x), cz = cell_of(p.z);
  const int64_t px = me.x, pz = me.z;
  for (int64_t ring = 0; ring <= proto::kInterestMaxRings && out.size() < kMaxOthers; ++ring) {
    candidates.clear();
    auto gather = [&](std::pair<std::size_t, std::size_t> run) {
      for (std::size_t k = run.first; k < run.second; ++k) {
        const GridEntry& e = grid_[k];
        if (e.index == self) continue;
        // Horizontal distance in grid units squared: exact integers, so ties are exact too.
        const int64_t ex = e.x - px, ez = e.z - pz;
        candidates.push_back({ex * ex + ez * ez, e.index});
      }
    };
    const std::span<const GridEntry> grid(grid_);
    for (int64_t dx = -ring; dx <= ring; ++dx) {
      // Only the cells on the ring's border: a whole column at its two ends, the column's two end
      // cells elsewhere (the inner ones are an earlier ring's), in the grid's order as before (and
      // the order would not matter: the pairs are distinct, so the nearest `room` are one set).
      if (dx == -ring || dx == ring) {
        gather(grid_runs_.column(grid, cx + dx, cz - ring, cz + ring));
      } else {
        gather(grid_runs_.column(grid, cx + dx, cz - ring, cz - ring));
        gather(grid_runs_.column(grid, cx + dx, cz + ring, cz + ring));
      }
    }
    // Rings nearer in take precedence as a whole; within the ring that fills the list, the nearest.
    const std::size_t room = kMaxOthers - out.size();
    if (candidates.size() > room) std::nth_element(candidates.begin(), candidates.begin() + long(room), candidates.end());
    for (std::size_t i = 0; i < std::min(room, candidates.size()); ++i) out.push_back(candidates[i].second);
  }
  std::sort(out.begin(), out.end());  // ascending index is ascending id
}

void Replication::send_snapshots(Roster& roster, const GameMatch& match, const MoverFrame& movers, uint32_t tick,
                                 proto::Nanos now, Outbox& outbox, Counters& counters, const MoverClocks* clocks) {
  tick_ = tick;
  clocks_ = clocks;
  changed_movers_.clear();
  for (std::size_t m = 0; clocks && m < clocks->size(); ++m)
    if (clocks->changed(m) != 0) changed_movers_.push_back(uint16_t(m));
  to_local_.clear();
  for (std::size_t m = 0; m < movers.mover_count(); ++m) to_local_.push_back(inverse(movers.pose(m)));
  match_ = &match;
  roster_version_ = roster.version();
  due_.clear();
  if (schedule_.interval == 0) return;
  // Everyone as the snapshots describe them, and who is due one, in one pass over the clients.
  published_.clear();
  full_.clear();
  for (uint32_t i = 0; i < roster.size(); ++i) {
    const Client& c = roster[i];
    published_.push_back({remote_state(c), c.character.state.position});
    if (config_.neighbours > 0) {
      Full& f = full_.emplace_back();
      f.state = c.character.state;
      f.last_input = c.character.last_input;
      const std::size_t ahead = std::size_t(config_.neighbour_inputs_ahead);
      f.ahead_count = uint8_t(c.character.inputs.waiting_after(tick, std::span(f.ahead).first(ahead)));
    }
    if (!c.npc && schedule_.due(c.id, tick)) due_.push_back(i);  // an NPC is seen, and sent nothing
  }
  if (due_.empty()) return;
  // The interest grid is read by every worker: built first, here, when anyone may need it.
  if (roster.size() > kMaxOthers + 1) build_grid(roster);
  // Each worker builds and seals the snapshots of a contiguous run of clients into its own buffer;
  // they go to the sink afterwards, in client order, from this thread (the sink is not shared).
  for (auto& w : workers_) {
    w->out.clear();
    w->out_bytes.clear();
  }
  pool_.run(due_.size(), kMinSnapshotsPerThread, [&](std::size_t begin, std::size_t end, int w) {
    Worker& ws = *workers_[std::size_t(w)];
    for (std::size_t k = begin; k < end; ++k) {
      if (k + 3 < end) prefetch_client(roster[due_[k + 3]]);
      if (k + 2 < end) prefetch_history(roster[due_[k + 2]]);
      if (k + 1 < end) prefetch_snapshot(roster[due_[k + 1]]);
      build_snapshot(roster, due_[k], now, ws);
    }
  });
  for (auto& w : workers_) {
    counters.merge(w->counters);
    w->counters = Counters();
  }
  balance_spares();
  // Sent in client order whichever thread built them, so the datagrams leave in the same order for
  // any number of threads.
  outgoing_.assign(roster.size(), Outgoing{});
  for (uint32_t w = 0; w < workers_.size(); ++w)
    for (uint32_t k = 0; k < workers_[w]->out.size(); ++k) outgoing_[workers_[w]->out[k].client] = {w, k, true};
  for (const Outgoing& g : outgoing_) {
    if (!g.built) continue;
    const Worker& w = *workers_[g.worker];
    const Worker::Out& o = w.out[g.index];
    outbox.send(roster[o.client].session.endpoint, {w.out_bytes.data() + o.offset, o.size}, Traffic::kSnapshot, o.messages);
  }
  for (auto& w : workers_) w->out.clear();
}

void Replication::balance_spares() {
  // Workers take clients in whatever chunks come free, so the slots one worker releases are often
  // written by another: left alone, one worker's spares would pile up to kSpareViews and be freed
  // while the other's run out and it allocates. Evened out after each tick's snapshots.
  std::size_t total = 0;
  for (const auto& w : workers_) total += w->spare.size();
  const std::size_t share = total / workers_.size();
  std::vector<SentSnapshot>& moving = balance_;
  for (auto& w : workers_)
    while (w->spare.size() > share + 1) {
      moving.push_back(std::move(w->spare.back()));
      w->spare.pop_back();
    }
  for (auto& w : workers_)
    while (w->spare.size() < share && !moving.empty()) {
      w->spare.push_back(std::move(moving.back()));
      moving.pop_back();
    }
  for (auto& w : workers_)
    if (!moving.empty() && w->spare.size() <= share) {
      w->spare.push_back(std::move(moving.back()));
      moving.pop_back();
    }
}

const SentSnapshot* Replication::delta_base(const Client& c) const {
  // The view of the newest snapshot the client acknowledged, if we still hold it; else none (an
  // empty view: every character is then new to the client).
  const uint32_t interval = schedule_.interval;
  const uint32_t acked = c.view.acked_snapshot;
  if (acked == 0 || tick_ - acked >= kSentHistory * interval) return nullptr;
  const SentSnapshot& s = c.view.sent[(acked / interval) % kSentHistory];
  return s.tick == acked ? &s : nullptr;
}

void Replication::prefetch_client(const Client& c) const {
  // Three clients ahead, by address only: the parts of the client that a snapshot reads (each client
  // is an allocation of its own, about 4 KB, none of it in the cache by now): the session's keys and
  // sequence, the character's state and tallies, its attributes, its view and its messages.
  prefetch_range(&c.session.endpoint, sizeof(c.session.endpoint) + sizeof(c.session.client_id));
  prefetch_range(&c.session.keys, sizeof(c.session.keys));
  prefetch_range(&c.session.send_sequence, sizeof(c.session.send_sequence));
  prefetch_range(&c.character.state, sizeof(c.character.state));
  prefetch_between(&c.character.repeated_bits, &c.character + 1);
  prefetch_between(&c.game, &c + 1);
}

void Replication::prefetch_history(const Client& c) const {
  // Two clients ahead: the ring slots of its base and of the view about to be written (the client
  // itself asked for one iteration earlier), so that prefetch_snapshot's reads of them do not wait.
  const uint32_t interval = schedule_.interval;
  if (c.view.sent.size() == kSentHistory) {
    __builtin_prefetch(c.view.sent.data() + (c.view.acked_snapshot / interval) % kSentHistory);
    __builtin_prefetch(c.view.sent.data() + (tick_ / interval) % kSentHistory);
  }
  __builtin_prefetch(c.view.interest.data());
}

void Replication::prefetch_snapshot(const Client& c) const {
  // A client's history of views is cold by the time its next snapshot is built; asking for the base
  // and for the slot the new view goes to one client ahead hides the wait (the slot's old storage is
  // what the worker writes the snapshot after next in: record_sent() swaps them).
  prefetch_range(c.view.interest.data(), c.view.interest.size() * sizeof(uint32_t));
  if (const SentSnapshot* base = delta_base(c)) {
    prefetch_range(base->view.data(), base->view.size() * sizeof(proto::RemotePose));
    prefetch_range(base->fresh.data(), base->fresh.size() * sizeof(uint32_t));
  }
  const SentSnapshot& slot = c.view.sent[(tick_ / schedule_.interval) % kSentHistory];
  prefetch_range(slot.view.data(), slot.view.capacity() * sizeof(proto::RemotePose));
}

proto::SnapshotHeader Replication::snapshot_header(const Client& c, const SentSnapshot* base, proto::Nanos now) const {
  const SimulatedCharacter& ch = c.character;
  proto::SnapshotHeader h;
  h.tick = tick_;
  h.repeated_mask = ch.repeated_bits;
  h.interaction_mask = ch.interaction_bits;
  h.server_mask = ch.server_bits;
  h.received_through = ch.inputs.received_through(tick_);
  h.input_lead = int16_t(std::clamp<int64_t>(int64_t(int32_t(ch.inputs.newest_received() - tick_)), -32768, 32767));
  h.echo_delay_us = ch.echo_received ? micros(now - ch.echo_received) : 0;
  // The full state only when a correction may be owed (a repeated input, a meeting or a game's
  // command since the snapshot the client acknowledged), or when the client asks; a digest otherwise.
  h.has_own_state = c.view.wants_state || int32_t(ch.owed_tick - c.view.acked_snapshot) > 0;
  h.own = ch.state;
  h.own_digest = proto::state_digest(ch.state);
  h.base_tick = base ? base->tick : 0;
  return h;
}

void Replication::carry_attributes(Client& c, proto::SnapshotHeader& h, std::size_t budget_bits,
                                   std::size_t base_size) const {
  // An attribute the client may not hold goes in every snapshot until the client acknowledges one
  // that carried it, and the acknowledgement counts only for an unbroken run: `carried` is the first
  // snapshot of the run of snapshots that carried the current value, so any acknowledged snapshot
  // from it on carried it (acknowledgements name the newest snapshot decoded, not every one). One
  // left out for the budget starts its run again. Slots take turns at being first, so under a tight
  // budget none waits for ever.
  const uint32_t interval = schedule_.interval;
  const uint32_t acked = c.view.acked_snapshot;
  constexpr int kSlots = 2 * kMaxAttributes;
  const int first = int((tick_ / interval) % kSlots);
  for (int k = 0; k < kSlots; ++k) {
    const int s = (first + k) % kSlots;
    const bool own = s < kMaxAttributes;
    const int a = own ? s : s - kMaxAttributes;
    const uint32_t changed = own ? c.game.changed[std::size_t(a)] : match_->changed[std::size_t(a)];
    if (changed == 0) continue;  // never set: the client's 0 is right
    uint32_t& carried = c.view.attribute_carried[std::size_t(s)];
    if (carried != 0 && int32_t(carried - changed) < 0) carried = 0;  // a run of an older value
    if (carried != 0 && acked != 0 && int32_t(acked - carried) >= 0) continue;  // the client holds it
    const uint32_t bit = uint32_t(1) << s;
    h.attribute_mask |= bit;
    h.attribute_values[std::size_t(s)] = own ? c.game.attributes[std::size_t(a)] : match_->attributes[std::size_t(a)];
    if (proto::snapshot_header_bits(h, interval, base_size) > budget_bits) {
      h.attribute_mask &= ~bit;
      carried = 0;
      continue;
    }
    if (carried == 0) carried = tick_;
  }
}

void Replication::carry_movers(Client& c, proto::SnapshotHeader& h, std::size_t budget_bits,
                               std::size_t base_size) const {
  if (changed_movers_.empty()) return;
  auto& carried_at = c.view.mover_carried;
  if (carried_at.size() < clocks_->size()) carried_at.resize(clocks_->size(), 0);
  const uint32_t acked = c.view.acked_snapshot;
  const std::size_t n = changed_movers_.size();
  const std::size_t first = std::size_t(tick_ / schedule_.interval) % n;
  for (std::size_t k = 0; k < n; ++k) {
    const uint16_t m = changed_movers_[(first + k) % n];
    const uint32_t changed = clocks_->changed(m);
    uint32_t& carried = carried_at[m];
    if (carried != 0 && int32_t(carried - changed) < 0) carried = 0;  // a run of an older segment
    if (carried != 0 && acked != 0 && int32_t(acked - carried) >= 0) continue;  // the client holds it
    if (h.mover_count == proto::kMaxSnapshotMovers) {
      carried = 0;  // its turn comes
      continue;
    }
    proto::MoverUpdate& u = h.movers[h.mover_count++];
    u = {m, clocks_->newest(m)};
    if (proto::snapshot_header_bits(h, schedule_.interval, base_size) > budget_bits) {
      --h.mover_count;
      carried = 0;
      continue;
    }
    if (carried == 0) carried = tick_;
  }
  // The wire wants them by ascending index.
  std::sort(h.movers.begin(), h.movers.begin() + h.mover_count,
            [](const proto::MoverUpdate& a, const proto::MoverUpdate& b) { return a.index < b.index; });
}

namespace {

// Whether the client may lack a seen attribute's value (see carry_attributes() for the run rule);
// forgets a run of an older value first.
bool seen_owed(uint32_t& carried, uint32_t changed, uint32_t acked) {
  if (changed == 0) return false;  // never set: the client's 0 is right
  if (carried != 0 && int32_t(carried - changed) < 0) carried = 0;
  return !(carried != 0 && acked != 0 && int32_t(acked - carried) >= 0);
}

}  // namespace

std::size_t Replication::seen_reserve(const Client& c, const Roster& roster) const {
  // What the attributes others see would cost this snapshot if every character of interest were in
  // its view, up to their share of the budget: kept from the view's changes so that, in a crowd
  // whose changes fill every snapshot, they still go.
  const uint32_t mask = match_->seen_by_all;
  std::size_t wanted = 0;
  std::size_t r = 0;
  const std::vector<ClientView::Seen>& records = c.view.seen;
  for (const uint32_t idx : c.view.interest) {
    const Client& other = roster[idx];
    while (r < records.size() && records[r].id < other.id) ++r;
    const bool known = r < records.size() && records[r].id == other.id;
    std::size_t bits = 0;
    for (int a = 0; a < kMaxAttributes; ++a) {
      if (!((mask >> a) & 1)) continue;
      uint32_t carried = known ? records[r].carried[std::size_t(a)] : 0;
      if (seen_owed(carried, other.game.changed[std::size_t(a)], c.view.acked_snapshot))
        bits += proto::seen_attribute_bits(other.game.attributes[std::size_t(a)]);
    }
    if (bits > 0) wanted += proto::kSeenCharacterBits + bits;
  }
  if (wanted > 0) wanted += proto::kSeenSectionBits;
  return std::min(wanted, std::size_t(config_.snapshot_budget) * 8 * kSeenShareQuarters / 4);
}

void Replication::next_view_ids(std::span<const proto::RemotePose> base_view, Worker& ws) const {
  // The view this snapshot leaves the client with, as finish() will write it: the base's entries
  // but those removed, and the additions taken.
  ws.removed.assign(base_view.size(), 0);
  ws.next_ids.clear();
  for (const uint64_t key : ws.taken) {
    const Worker::Choice& ch = ws.choices[budget_index(key)];
    if (ch.removal) ws.removed[std::size_t(ch.base_index)] = 1;
    if (ch.base_index < 0) ws.next_ids.push_back(ch.id);
  }
  for (std::size_t i = 0; i < base_view.size(); ++i)
    if (!ws.removed[i]) ws.next_ids.push_back(base_view[i].id);
  std::sort(ws.next_ids.begin(), ws.next_ids.end());
}

std::size_t Replication::taken_bits(const Worker& ws) const {
  std::size_t bits = 0;
  for (const uint64_t key : ws.taken) bits += ws.choices[budget_index(key)].bits;
  return bits;
}

void Replication::carry_seen(Client& c, const Roster& roster, std::size_t room, Worker& ws) const {
  // Per character of the view this snapshot describes, per attribute seen by all, the rule of
  // carry_attributes(): carried until the client acknowledges a snapshot of an unbroken run that
  // carried it. A snapshot whose view lacks the character ends its runs (the client forgets the
  // values of a character that leaves its view), so its record goes. Runs under way go first, so
  // that a run is not broken while it waits for its acknowledgement; then the others, from a first
  // character that steps back one each snapshot (so one near the front stays near it for the next
  // few, while its run waits for its acknowledgement), so that under a tight budget none waits for ever.
  ws.seen_records.clear();
  std::size_t r = 0;
  for (const uint32_t id : ws.next_ids) {
    while (r < c.view.seen.size() && c.view.seen[r].id < id) ++r;
    ws.seen_records.push_back(r < c.view.seen.size() && c.view.seen[r].id == id ? c.view.seen[r] : ClientView::Seen{id, {}});
  }
  c.view.seen.swap(ws.seen_records);
  std::vector<ClientView::Seen>& records = c.view.seen;
  const std::size_t n = records.size();
  ws.seen.resize(n);
  for (std::size_t j = 0; j < n; ++j) ws.seen[j] = {records[j].id, 0, {}};
  if (n == 0) return;
  const uint32_t mask = match_->seen_by_all;
  const uint32_t acked = c.view.acked_snapshot;
  const std::size_t first = n - 1 - (tick_ / schedule_.interval) % n;
  std::size_t used = 0;
  for (const bool in_run : {true, false}) {
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t j = (first + k) % n;
      const auto it = std::lower_bound(published_.begin(), published_.end(), records[j].id,
                                       [](const Published& p, uint32_t v) { return p.remote.id < v; });
      if (it == published_.end() || it->remote.id != records[j].id) continue;  // gone from the match
      const GameCharacter& other = roster[std::size_t(it - published_.begin())].game;
      proto::SeenAttributes& out = ws.seen[j];
      for (int a = 0; a < kMaxAttributes; ++a) {
        uint32_t& carried = records[j].carried[std::size_t(a)];
        if (!((mask >> a) & 1) || !seen_owed(carried, other.changed[std::size_t(a)], acked)) continue;
        if ((carried != 0) != in_run || ((out.mask >> a) & 1)) continue;
        const int32_t value = other.attributes[std::size_t(a)];
        const std::size_t cost = proto::seen_attribute_bits(value) + (out.mask == 0 ? proto::kSeenCharacterBits : 0) +
                                 (used == 0 ? proto::kSeenSectionBits : 0);
        if (used + cost > room) {
          carried = 0;
          continue;
        }
        used += cost;
        out.mask = uint16_t(out.mask | (1u << a));
        out.values[std::size_t(a)] = value;
        if (carried == 0) carried = tick_;
      }
    }
  }
}

bool Replication::playing(uint32_t id) const {
  const auto it = std::lower_bound(published_.begin(), published_.end(), id,
                                   [](const Published& p, uint32_t v) { return p.remote.id < v; });
  return it != published_.end() && it->remote.id == id;
}

void Replication::gather_choices(const Client& c, const SentSnapshot* base, std::span<const proto::RemotePose> base_view,
                                 Worker& ws) const {
  // A change for each character of the base view that moved (or a removal for one no longer of
  // interest), an addition for each one of interest the view lacks. The priority accumulates with
  // the base view, not per snapshot: a character's priority is its weight times the ticks since the
  // view the client acknowledged last had it fresh. So it grows while the client lacks it, and drops
  // only once the client has acknowledged a snapshot that carried it (snapshots built on different
  // bases before that all still see it owed). On the way, the characters of interest within
  // kNeighbourReach: choose_neighbours()'s candidates.
  ws.choices.clear();
  ws.fresh.assign(base_view.size(), tick_);
  std::size_t b = 0;
  // Each choice is filled where it lies in the vector: one built on the stack and copied in was
  // stored a field at a time and read back 16 bytes at a time, which the store buffer cannot forward
  // (that copy was a quarter of this function's time).
  auto remove_through = [&](uint32_t id) {  // base entries before `id` are no longer of interest
    for (; b < base_view.size() && base_view[b].id < id; ++b) {
      Worker::Choice& ch = ws.choices.emplace_back();
      ch.removal = true;
      ch.id = base_view[b].id;
      ch.gone = !playing(ch.id);
      ch.base_index = int32_t(b);
      ch.bits = uint32_t(proto::change_bits(base_view[b], nullptr));
    }
  };
  // The published characters of interest lie scattered over the roster: each is asked for a few
  // entries ahead of its turn.
  constexpr std::size_t kAhead = 4;
  const std::span<const uint32_t> interest = c.view.interest;
  for (std::size_t k = 0; k < std::min(kAhead, interest.size()); ++k) __builtin_prefetch(&published_[interest[k]]);
  // The neighbours' candidates (ws.near) are found here too, while each published entry is at hand,
  // and their full rows asked for: choose_neighbours() reads them after the header's work, by when
  // they have arrived (it read both itself, the rows cold: 6% of a 2,000-client tick's samples).
  ws.near.clear();
  constexpr int64_t kReach = int64_t(kNeighbourReach * kPositionScale);
  const bool neighbours = config_.neighbours > 0;
  const FixedVec3& me = c.character.state.position;
  for (std::size_t k = 0; k < interest.size(); ++k) {
    if (k + kAhead < interest.size()) __builtin_prefetch(&published_[interest[k + kAhead]]);
    const uint32_t idx = interest[k];
    const Published& published = published_[idx];
    if (neighbours) {
      const FixedVec3& p = published.position;
      const int64_t dx = int64_t(p.x) - me.x, dy = int64_t(p.y) - me.y, dz = int64_t(p.z) - me.z;
      const bool in_box = std::abs(dx) <= kReach && std::abs(dy) <= kReach && std::abs(dz) <= kReach;
      const int64_t d2 = in_box ? dx * dx + dy * dy + dz * dz : kReach * kReach + 1;  // the box keeps it from overflowing
      if (d2 <= kReach * kReach) {
        ws.near.push_back({d2, idx});
        prefetch_range(&full_[idx], sizeof(Full));
      }
    }
    const proto::RemoteState& now_state = published.remote;
    remove_through(now_state.id);
    if (b < base_view.size() && base_view[b].id == now_state.id) {
      const proto::RemotePose& was = base_view[b];
      const int32_t base_index = int32_t(b++);
      if (was.same_as(now_state)) continue;  // the client holds it exactly: fresh now (ws.fresh)
      const uint32_t as_of = base->fresh[std::size_t(base_index)];
      ws.fresh[std::size_t(base_index)] = as_of;
      Worker::Choice& ch = ws.choices.emplace_back();
      ch.now = now_state;
      ch.id = now_state.id;
      ch.other = idx;
      ch.base_index = base_index;
      ch.age = tick_ - as_of;
      ch.bits = uint32_t(proto::change_bits(was, &now_state));
      ch.forced = ch.age >= stale_ticks_;
    } else {
      // New to the client: as stale as a character can be.
      Worker::Choice& ch = ws.choices.emplace_back();
      ch.now = now_state;
      ch.id = now_state.id;
      ch.other = idx;
      ch.age = stale_ticks_;
      ch.bits = uint32_t(proto::addition_bits(now_state));
      ch.forced = true;
    }
  }
  remove_through(~0u);
}

std::size_t Replication::choose_neighbours(std::size_t room, Worker& ws) const {
  // The nearest characters of interest within reach, nearest first (ties by index, as by id), as
  // many as fit a third of the budget, and, with their own changes in the view, the room the
  // removals and the overdue leave: the staleness bound (kMaxStaleness) comes first, the rest of the
  // view after. A share of the budget rather than of the room: the room shrinks by a byte when the
  // sequence number grows one, which must not change what a roomy snapshot holds
  // (Messages.MessagesNeverChangeASnapshotNorPushOnePastItsBudget).
  // The candidates within reach are gather_choices()'s (ws.near).
  ws.neighbours.clear();
  if (ws.near.empty() || config_.neighbours <= 0) return 0;
  std::size_t owed = 0;  // the removals' and the overdue's bits: taken before any neighbour
  for (const Worker::Choice& ch : ws.choices)
    if (ch.removal || ch.forced) owed += ch.bits;
  if (owed >= room) return 0;
  const std::size_t share = std::size_t(config_.snapshot_budget) * 8 / 3;
  std::sort(ws.near.begin(), ws.near.end());
  std::size_t bits = proto::kNeighboursSectionBits, spent = bits;
  for (const auto& [d2, idx] : ws.near) {
    if (ws.neighbours.size() >= std::size_t(config_.neighbours)) break;
    const Full& other = full_[idx];
    const uint32_t id = published_[idx].remote.id;
    proto::SnapshotNeighbour n{id, other.state, {}, other.last_input};
    const uint16_t platform = other.state.platform;
    if (platform != 0 && platform <= to_local_.size()) {
      const FixedVec3 guess = platform_offset_guess(to_local_[platform - 1u], other.state.position);
      const FixedVec3& offset = other.state.platform_offset;
      n.offset_residual = {offset.x - guess.x, offset.y - guess.y, offset.z - guess.z};
    }
    n.state.platform_offset = {};
    // Its own change in the view (which the neighbour leans on) is paid for too, unless already owed
    // (the choices are in ascending id, a removal among them by its own).
    Worker::Choice* change = nullptr;
    const auto at = std::lower_bound(ws.choices.begin(), ws.choices.end(), id,
                                     [](const Worker::Choice& ch, uint32_t v) { return ch.id < v; });
    for (auto it = at; it != ws.choices.end() && it->id == id; ++it)
      if (!it->removal) change = &*it;
    n.ahead = other.ahead;
    n.ahead_count = other.ahead_count;
    const std::size_t cost = proto::neighbour_bits(n);
    const std::size_t with_change = cost + (change && !change->forced ? change->bits : 0);
    if (bits + cost > share || owed + spent + with_change > room) break;
    spent += with_change;
    bits += cost;
    if (change) change->forced = true;
    ws.neighbours.push_back(n);
  }
  if (ws.neighbours.empty()) return 0;
  std::sort(ws.neighbours.begin(), ws.neighbours.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  return bits;
}

void Replication::take_choices(const Client& c, std::size_t room, std::size_t view_size, Worker& ws) const {
  static_assert(2 * proto::kMaxViewSize < (1u << kBudgetIndexBits), "a choice's index fits its field of the key");
  ws.taken.clear();
  std::size_t wanted = 0;
  for (const Worker::Choice& ch : ws.choices) wanted += ch.bits;
  if (wanted <= room) {
    // Everything fits (the view then holds the interest, at most 48): all of it, in the order
    // gathered (ascending id), an addition only while the view has room.
    for (uint32_t k = 0; k < ws.choices.size(); ++k) {
      const Worker::Choice& ch = ws.choices[k];
      if (ch.base_index < 0 && view_size >= proto::kMaxViewSize) continue;  // full until removals land
      if (ch.removal) --view_size;
      if (ch.base_index < 0) ++view_size;
      ws.taken.push_back(k);
    }
    return;
  }
  // Whatever fits, in rank order: removals first, then the overdue, then the higher priority (below
  // 2^41: a weight of at most 257 times an age of at most 2^32 ticks), then the lower id (the lower
  // index). The rest wait, their priority still growing.
  constexpr uint64_t kPriorityLimit = uint64_t(1) << 41;
  const std::size_t n = ws.choices.size();
  ws.taken.resize(n);
  ws.bits.resize(n);
  ws.view_change.resize(n);
  for (uint32_t k = 0; k < n; ++k) {
    const Worker::Choice& ch = ws.choices[k];
    ws.bits[k] = ch.bits;
    ws.view_change[k] = int8_t(ch.removal ? -1 : ch.base_index < 0 ? 1 : 0);
    ws.taken[k] = k;
    if (ch.removal) continue;
    const uint64_t priority = priority_weight(c.character.state.position, published_[ch.other].position) * ch.age;
    const uint64_t rank = (uint64_t(1) << 42) | (ch.forced ? 0 : uint64_t(1) << 41) | (kPriorityLimit - 1 - priority);
    ws.taken[k] |= rank << kBudgetIndexBits;
  }
  ws.taken.resize(take_within_budget(ws.taken, {ws.bits, ws.view_change}, room, view_size, proto::kMaxViewSize));
}

void Replication::write_choices(Worker& ws) const {
  // In whatever order take_choices() left them: each lands in its own place of the snapshot.
  for (const uint64_t key : ws.taken) {
    const Worker::Choice& ch = ws.choices[budget_index(key)];
    if (ch.removal) {
      ws.snapshot.change(std::size_t(ch.base_index), nullptr, ch.gone);
    } else if (ch.base_index >= 0) {
      ws.snapshot.change(std::size_t(ch.base_index), &ch.now);
      ws.fresh[std::size_t(ch.base_index)] = tick_;
    } else {
      ws.snapshot.add(ch.now);
    }
  }
}

void Replication::release_history(Client& c, Worker& ws) const {
  // A slot older than the acknowledged snapshot is never a delta base again (delta_base() takes the
  // acknowledged one, and acknowledgements only move forward): its storage goes to the worker's
  // spares, from the oldest slot the ring still holds, or the one after the last released, to the
  // acknowledged.
  ClientView& v = c.view;
  const uint32_t interval = schedule_.interval;
  const uint32_t acked = v.acked_snapshot;
  if (acked == 0) return;
  uint32_t t = acked - std::min<uint32_t>(acked, uint32_t(kSentHistory - 1) * interval);
  if (v.released_through != 0 && int32_t(v.released_through + interval - t) > 0) t = v.released_through + interval;
  // From the first of the client's own snapshot ticks there (rounded up: rounded down, a start
  // before its first snapshot tick would become tick 0, off its phase, and release nothing), even
  // after an acknowledgement of a tick that had none.
  t = schedule_.latest(c.id, t + interval - 1);
  for (; int32_t(t - acked) < 0; t += interval) {
    SentSnapshot& s = v.sent[(t / interval) % kSentHistory];
    if (s.tick != t || s.view.capacity() == 0) continue;
    // Beyond kSpareViews (many clients' acknowledgements that lagged for a while, then caught up)
    // the storage is freed.
    if (ws.spare.size() < kSpareViews) ws.spare.push_back(std::move(s));
    s = SentSnapshot{};
  }
  v.released_through = acked - interval;
}

void Replication::record_sent(Client& c, std::span<const proto::RemotePose> base_view, Worker& ws) const {
  release_history(c, ws);
  SentSnapshot& record = c.view.sent[(tick_ / schedule_.interval) % kSentHistory];
  if (record.view.capacity() == 0 && !ws.spare.empty()) {
    record = std::move(ws.spare.back());
    ws.spare.pop_back();
  }
  record.tick = tick_;
  // The view just written moves into the slot, whose old storage the worker writes the next one in.
  record.view.swap(ws.view);
  const proto::PoseView& view = record.view;
  // Each entry's freshness: its base entry's, or now for a character added now (both lists by id).
  if (record.fresh.capacity() < view.size()) record.fresh.reserve((view.size() + 7) / 8 * 8);  // as the view's
  record.fresh.resize(view.size());
  for (std::size_t v = 0, k = 0; v < view.size(); ++v) {
    while (k < base_view.size() && base_view[k].id < view[v].id) ++k;
    record.fresh[v] = k < base_view.size() && base_view[k].id == view[v].id ? ws.fresh[k] : tick_;
  }
}

void Replication::build_snapshot(Roster& roster, std::size_t index, proto::Nanos now, Worker& ws) {
  Client& c = roster[index];
  // Interest changes slowly: each client's choice is kept for about kInterestRefresh ticks (refreshed
  // on its own phase, so the work spreads evenly) unless someone joined or left. A client's snapshot
  // ticks step by the interval, so (tick + id) % kInterestRefresh steps by it too and lands below it
  // once each time round: asking for 0 exactly missed every refresh of a client whose steps never
  // meet 0 (an odd id, with snapshots every second tick), whose choice then aged for good.
  if (c.view.interest_roster != roster_version_ || (tick_ + c.id) % proto::kInterestRefresh < schedule_.interval) {
    select_others(roster, index, c.view.interest, ws.candidates);
    c.view.interest_roster = roster_version_;
  }
  const uint32_t interval = schedule_.interval;
  const SentSnapshot* base = delta_base(c);
  // The base as the client's history holds it (never the slot record_sent() writes: that one is a
  // whole ring older than any base delta_base() gives).
  const std::span<const proto::RemotePose> base_view =
      base ? std::span<const proto::RemotePose>(base->view) : std::span<const proto::RemotePose>();
  proto::SnapshotHeader h = snapshot_header(c, base, now);
  gather_choices(c, base, base_view, ws);
  // The budget: the snapshot datagram, sealed, within snapshot_budget bytes.
  const uint64_t sequence = c.session.send_sequence + 1;
  const std::size_t budget_bytes = std::size_t(config_.snapshot_budget) - proto::session_overhead(sequence);
  carry_movers(c, h, budget_bytes * 8, base_view.size());
  carry_attributes(c, h, budget_bytes * 8, base_view.size());
  const std::size_t header_bits = proto::snapshot_header_bits(h, interval, base_view.size());
  std::size_t room = budget_bytes * 8 > header_bits ? budget_bytes * 8 - header_bits : 0;
  room -= choose_neighbours(room, ws);
  const bool seen = match_->seen_by_all != 0;
  const std::size_t reserve = seen ? std::min(room, seen_reserve(c, roster)) : 0;
  take_choices(c, room - reserve, base_view.size(), ws);
  ws.snapshot.begin(h, base_view, interval);
  write_choices(ws);
  ws.snapshot.neighbours(ws.neighbours);
  ws.seen.clear();
  if (seen) {
    next_view_ids(base_view, ws);
    carry_seen(c, roster, room - std::min(room, taken_bits(ws)), ws);
  }
  ws.snapshot.seen(ws.seen);
  const auto message = ws.snapshot.finish(ws.payload, ws.view);
  if (message.empty()) return;  // cannot happen: the budget is within the buffer
  record_sent(c, base_view, ws);
  c.view.newest_sent = tick_;
  ws.counters.add(Counter::kSnapshotsSent);
  if (h.has_own_state) ws.counters.add(Counter::kSnapshotsWithState);
  // Messages ride in the room the snapshot left under its budget, never in the snapshot's own.
  std::span<const uint8_t> payload = message;
  std::size_t section = 0;
  if (c.messages && c.messages->can_ride(now)) {
    const std::size_t n = proto::write_carrier(*c.messages, now, message, std::span<uint8_t>(ws.carrier).first(budget_bytes));
    if (n > 0) {
      payload = {ws.carrier.data(), n};
      section = n - proto::kCarrierOverhead - message.size();
    }
  }
  const auto sealed = proto::seal_session(c.session.keys.send, ++c.session.send_sequence, payload, ws.tx, proto::Payload::kCompact);
  ws.out.push_back({uint32_t(index), ws.out_bytes.size(), sealed.size(), section});
  ws.out_bytes.insert(ws.out_bytes.end(), sealed.begin(), sealed.end());
}

}  // namespace foothold::server
