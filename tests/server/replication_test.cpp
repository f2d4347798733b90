// Replication (server/replication.h): acknowledgements believed only when possible, one snapshot per
// client in roster order within the budget, its view the client's nearest characters.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "proto/network_tuning.h"
#include "server/snapshot_phase.h"
#include "server_parts_support.h"

namespace foothold::test {
namespace {

// Client i at x = i / 2 m, with session keys of its own.
void add_clients(ServerParts& p, int n) {
  for (int i = 0; i < n; ++i) {
    auto c = std::make_unique<server::Client>();
    c->session.endpoint = {asio::ip::make_address("10.1.0.1"), uint16_t(1000 + i)};
    c->session.keys.send = proto::Key{uint8_t(i + 1)};
    c->session.client_id = 7000 + uint64_t(i);
    c->character.state = spawn_state({-30 + 0.5 * i, 1.5, -40});
    p.replication.welcome(*c);
    p.roster.add(std::move(c));
  }
}

TEST(Replication, AnAcknowledgementFromTheFutureIsCountedAndIgnoredAndOneFromThePastChangesNothing) {
  ServerParts p;
  add_clients(p, 1);
  server::Client& c = p.roster[0];
  p.replication.acknowledge(c, {10, 12, true}, 20, p.counters);
  EXPECT_EQ(c.view.acked_snapshot, 10u);
  EXPECT_TRUE(c.view.wants_state);
  p.replication.acknowledge(c, {25, 26, false}, 20, p.counters);
  EXPECT_EQ(c.view.acked_snapshot, 10u) << "tick 25 was never sent";
  EXPECT_EQ(p.counters.get(server::Counter::kDropBadValue), 1u);
  EXPECT_FALSE(c.view.wants_state);
  p.replication.acknowledge(c, {8, 26, false}, 20, p.counters);
  EXPECT_EQ(c.view.acked_snapshot, 10u) << "an older acknowledgement is merely late";
  EXPECT_EQ(p.counters.get(server::Counter::kDropBadValue), 1u);
}

TEST(Replication, EveryClientGetsOneSnapshotInRosterOrderWithinTheBudgetOfItsNearestCharacters) {
  server::CoreConfig config;
  config.snapshot_budget = 600;
  ServerParts p(config, 2);
  constexpr int kClients = 70;  // more than the 48 a view holds
  add_clients(p, kClients);
  p.replication.send_snapshots(p.roster, server::GameMatch{}, MoverFrame{}, 1, ServerParts::kStart, p.outbox, p.counters);
  ASSERT_EQ(p.sink.sent.size(), std::size_t(kClients));
  EXPECT_EQ(p.counters.get(server::Counter::kSnapshotsSent), uint64_t(kClients));
  proto::DatagramBuffer rx;
  for (int i = 0; i < kClients; ++i) {
    const server::Client& c = p.roster[std::size_t(i)];
    EXPECT_EQ(p.sink.sent[std::size_t(i)].first, c.session.endpoint) << "roster order";
    EXPECT_LE(p.sink.sent[std::size_t(i)].second.size(), 600u) << "client " << i;
    uint64_t sequence = 0;
    std::span<const uint8_t> message;
    ASSERT_EQ(proto::open_session(c.session.keys.send, proto::ReplayWindow(), p.sink.sent[std::size_t(i)].second, rx,
                                  sequence, message),
              proto::OpenError::kNone);
    proto::SnapshotHeader h;
    proto::RemoteView view;
    std::vector<uint32_t> changed;
    ASSERT_EQ(proto::read_snapshot(message, 1, 1, {}, h, view, changed), proto::SnapshotError::kNone);
    EXPECT_EQ(h.tick, 1u);
    EXPECT_TRUE(h.has_own_state || h.own_digest == proto::state_digest(c.character.state));
    // Its interest: 48 others, gathered by rings of cells, so about the nearest: none left out is
    // nearer than one taken by more than the two cells a ring's corner spans.
    ASSERT_EQ(c.view.interest.size(), server::Replication::kMaxOthers);
    EXPECT_TRUE(std::is_sorted(c.view.interest.begin(), c.view.interest.end()));
    double farthest_taken = 0, nearest_left = 1e9;
    for (int j = 0; j < kClients; ++j) {
      if (j == i) continue;
      const double d = std::fabs(0.5 * (j - i));
      const bool taken = std::binary_search(c.view.interest.begin(), c.view.interest.end(), uint32_t(j));
      (taken ? farthest_taken : nearest_left) = taken ? std::max(farthest_taken, d) : std::min(nearest_left, d);
    }
    EXPECT_FALSE(std::binary_search(c.view.interest.begin(), c.view.interest.end(), uint32_t(i))) << "never itself";
    EXPECT_LE(farthest_taken, nearest_left + 2 * proto::kInterestCell) << "client " << i;
    std::vector<uint32_t> nearest = c.view.interest;
    for (const auto& r : view) EXPECT_TRUE(std::binary_search(nearest.begin(), nearest.end(), r.id - 1)) << r.id;
  }
}

// Client `index`'s snapshot among those sent (roster order), opened and read against `base`.
proto::RemoteView read_view(ServerParts& p, std::size_t sent, std::size_t index, const proto::RemoteView& base,
                            uint32_t tick, std::vector<uint32_t>& gone, uint32_t interval = 1,
                            std::vector<proto::SnapshotNeighbour>* neighbours = nullptr) {
  const server::Client& c = p.roster[index];
  proto::DatagramBuffer rx;
  uint64_t sequence = 0;
  std::span<const uint8_t> message;
  EXPECT_EQ(proto::open_session(c.session.keys.send, proto::ReplayWindow(), p.sink.sent[sent].second, rx, sequence,
                                message),
            proto::OpenError::kNone);
  proto::SnapshotHeader h;
  proto::RemoteView view;
  std::vector<uint32_t> changed;
  EXPECT_EQ(proto::read_snapshot(message, tick, interval, base, h, view, changed, &gone, neighbours), proto::SnapshotError::kNone);
  EXPECT_EQ(h.tick, tick);
  return view;
}

TEST(Replication, AdditionsNameThePlayerAndARemovalSaysWhetherItLeftTheMatchOrTheView) {
  server::CoreConfig config;
  config.snapshot_budget = 1200;
  ServerParts p(config, 1);
  constexpr int kClients = 60;  // more than a view holds: interest decides
  add_clients(p, kClients);
  p.replication.send_snapshots(p.roster, server::GameMatch{}, MoverFrame{}, 1, ServerParts::kStart, p.outbox, p.counters);
  std::vector<uint32_t> gone;
  const proto::RemoteView first = read_view(p, 0, 0, {}, 1, gone);
  ASSERT_EQ(first.size(), server::Replication::kMaxOthers);
  for (const proto::RemoteState& r : first)
    EXPECT_EQ(r.client_id, p.roster.by_id(r.id)->session.client_id) << "character " << r.id;
  server::Client& viewer = p.roster[0];
  p.replication.acknowledge(viewer, {1, 1, false}, 1, p.counters);
  // Character 6 (in view) leaves the match; character 11 (in view) walks far away.
  const uint32_t leaver = 6, walker = 11;
  ASSERT_TRUE(std::any_of(first.begin(), first.end(), [&](const auto& r) { return r.id == leaver; }));
  ASSERT_TRUE(std::any_of(first.begin(), first.end(), [&](const auto& r) { return r.id == walker; }));
  p.roster.by_id(walker)->character.state = spawn_state({400, 1.5, -40});
  p.roster.remove(leaver);
  const std::size_t before = p.sink.sent.size();
  p.replication.send_snapshots(p.roster, server::GameMatch{}, MoverFrame{}, 2, ServerParts::kStart + proto::kSecond / 60, p.outbox,
                               p.counters);
  const proto::RemoteView second = read_view(p, before, 0, first, 2, gone);
  EXPECT_EQ(gone, (std::vector<uint32_t>{leaver})) << "only the leaver left the match";
  EXPECT_FALSE(std::any_of(second.begin(), second.end(), [&](const auto& r) { return r.id == walker; }))
      << "the walker is out of view";
  for (const proto::RemoteState& r : second)
    EXPECT_EQ(r.client_id, p.roster.by_id(r.id)->session.client_id) << "character " << r.id;
}

// The views a client's snapshots are built on are kept from its acknowledged snapshot on: older ones
// can never be a base again, so their storage is reused (a client holds about a round trip's worth
// of views, not the ring's 64), and every snapshot still reads exactly against the base it names.
TEST(Replication, OnlyViewsFromTheAcknowledgedSnapshotOnKeepStorageAndDeltasStillReadExactly) {
  server::CoreConfig config;
  config.snapshot_budget = 1200;
  ServerParts p(config, 1);
  constexpr int kClients = 20;  // all in every view, all fitting the budget
  constexpr uint32_t kLag = 5;  // client 0 acknowledges the snapshot 5 ticks old; client 1 never does
  add_clients(p, kClients);
  std::map<uint32_t, proto::RemoteView> held;  // client 0's views by tick, as its own client keeps them
  auto with_storage = [](const server::ClientView& v) {
    std::size_t n = 0;
    for (const server::SentSnapshot& s : v.sent) n += s.view.capacity() > 0;
    return n;
  };
  for (uint32_t tick = 1; tick <= 150; ++tick) {
    for (int i = 0; i < kClients; ++i) p.roster[std::size_t(i)].character.state.position.x += 64 * (i + 1);  // all move
    if (tick > kLag) p.replication.acknowledge(p.roster[0], {tick - kLag, tick, false}, tick - 1, p.counters);
    p.sink.sent.clear();
    p.replication.send_snapshots(p.roster, server::GameMatch{}, MoverFrame{}, tick, ServerParts::kStart, p.outbox, p.counters);
    ASSERT_EQ(p.sink.sent.size(), std::size_t(kClients));
    const uint32_t base = tick > kLag ? tick - kLag : 0;
    std::vector<uint32_t> gone;
    const proto::RemoteView view = read_view(p, 0, 0, base ? held.at(base) : proto::RemoteView{}, tick, gone);
    ASSERT_EQ(view.size(), std::size_t(kClients - 1)) << "tick " << tick;
    for (const proto::RemoteState& r : view)
      ASSERT_EQ(r.x, p.roster.by_id(r.id)->character.state.position.x >> proto::kRemoteShift) << "tick " << tick << " character " << r.id;
    held[tick] = view;
    // From the acknowledged view to this one: kLag + 1 views, and none older.
    EXPECT_LE(with_storage(p.roster[0].view), std::size_t(kLag + 1)) << "tick " << tick;
  }
  EXPECT_EQ(with_storage(p.roster[1].view), proto::kBaseHistory) << "no acknowledgement, no release";
}

// With snapshots every few ticks the clients take turns (snapshot_phase.h): on each tick only those
// whose id is the tick modulo the interval are sent one, and each of them still reads exactly
// against the base it acknowledged, releases the views older than it, and has its choice of
// characters made again every kInterestRefresh ticks or so, whatever its phase. (Client 1 at an
// interval of 4 has (tick + id) % 8 always 2 or 6: asked for 0 exactly, its choice was never made
// again, and a character that came up beside it stayed out of its view.)
TEST(Replication, ClientsTakeTurnsAtTheirSnapshotsAndEachKeepsExactDeltasFewViewsAndAFreshChoice) {
  for (const uint32_t interval : {2u, 3u, 4u}) {
    SCOPED_TRACE("interval " + std::to_string(interval));
    server::CoreConfig config;
    config.snapshot_budget = 1200;
    config.snapshot_interval = int(interval);
    ServerParts p(config, 2);
    constexpr int kClients = 60;  // more than a view holds: interest decides
    constexpr uint32_t kLag = 6;  // each client acknowledges its newest snapshot at least 6 ticks old
    constexpr uint32_t kArrival = 40, kNewcomer = 60;  // the tick character 60 comes up beside client 1
    add_clients(p, kClients);
    const server::SnapshotSchedule schedule{interval};
    std::map<std::pair<std::size_t, uint32_t>, proto::RemoteView> held;  // by (roster index, tick), as each client keeps them
    uint32_t newcomer_seen = 0;  // the first tick client 1's view holds character 60
    for (uint32_t tick = 1; tick <= 80; ++tick) {
      for (int i = 0; i < kClients; ++i) p.roster[std::size_t(i)].character.state.position.z += 32 * (i % 5);  // most move
      if (tick == kArrival) p.roster.by_id(kNewcomer)->character.state = spawn_state({-30, 1.5, -39});
      for (std::size_t i = 0; i < p.roster.size(); ++i) {
        const uint32_t acked = tick > kLag ? schedule.latest(p.roster[i].id, tick - kLag) : 0;
        if (acked != 0) p.replication.acknowledge(p.roster[i], {acked, tick, false}, tick - 1, p.counters);
      }
      p.sink.sent.clear();
      p.replication.send_snapshots(p.roster, server::GameMatch{}, MoverFrame{}, tick, ServerParts::kStart, p.outbox, p.counters);
      std::size_t sent = 0;
      for (std::size_t i = 0; i < p.roster.size(); ++i) {
        const server::Client& c = p.roster[i];
        if (c.id % interval != tick % interval) continue;
        ASSERT_LT(sent, p.sink.sent.size()) << "tick " << tick << ": client " << c.id << " is due one";
        ASSERT_EQ(p.sink.sent[sent].first, c.session.endpoint) << "tick " << tick << ": only the clients due, in roster order";
        const uint32_t base = c.view.acked_snapshot;
        std::vector<uint32_t> gone;
        const proto::RemoteView view =
            read_view(p, sent++, i, base ? held.at({i, base}) : proto::RemoteView{}, tick, gone, interval);
        for (const proto::RemoteState& r : view)
          ASSERT_EQ(r.z, p.roster.by_id(r.id)->character.state.position.z >> proto::kRemoteShift)
              << "tick " << tick << " client " << c.id << " character " << r.id;
        held[{i, tick}] = view;
        std::size_t with_storage = 0;
        for (const server::SentSnapshot& s : c.view.sent) with_storage += s.view.capacity() > 0;
        EXPECT_LE(with_storage, kLag / interval + 2) << "tick " << tick << " client " << c.id << ": views older than its base released";
        if (c.id == 1 && newcomer_seen == 0 &&
            std::any_of(view.begin(), view.end(), [](const proto::RemoteState& r) { return r.id == kNewcomer; }))
          newcomer_seen = tick;
      }
      EXPECT_EQ(sent, p.sink.sent.size()) << "tick " << tick << ": a snapshot for a client not due";
    }
    ASSERT_NE(newcomer_seen, 0u) << "character 60 came up beside client 1 and never entered its view";
    EXPECT_LE(newcomer_seen, kArrival + proto::kInterestRefresh + interval);
  }
}

// The nearest characters within reach go in full, nearest first: exact states, the input each last
// stepped with and those the server already holds for it, and on a mover the platform offset back
// from the residual and what both sides derive from the position.
TEST(Replication, TheNearestWithinReachGoInFullWithTheirInputsAndTheirPlatformOffsets) {
  server::CoreConfig config;
  config.snapshot_budget = 1200;
  ServerParts p(config, 1);
  constexpr int kClients = 12;  // 0.5 m apart in a row
  add_clients(p, kClients);
  MoverFrame movers;
  movers.build(arena_world(), 1, MoveSettings{}.tick_rate);
  ASSERT_GT(movers.mover_count(), 0u);
  for (int i = 0; i < kClients; ++i) {
    server::SimulatedCharacter& ch = p.roster[std::size_t(i)].character;
    ch.last_input = encode_move(0.1 * i, -0.5, 0, 1);
    // Client i's inputs for the next i % 3 ticks have arrived (then one is missing).
    for (int k = 0; k < i % 3; ++k) ch.inputs.offer(encode_move(-1, 0.1 * k, 0, uint32_t(2 + k)), 2);
    ch.inputs.offer(encode_move(1, 1, 0, 2 + uint32_t(i % 3) + 1), 2);
  }
  // Client 6 stands on the first mover, somewhere off its middle.
  CharacterState& riding = p.roster[6].character.state;
  riding.platform = 1;
  riding.platform_offset = {1234, 517, -889};
  const Pose& pose = movers.pose(0);
  const Vec3 p_exact = apply(pose, to_position(riding.platform_offset) + Vec3{0.0003, 0, -0.0004});
  riding.position = quantize_position(p_exact);
  // Client 11 stands beside it; the rest stay in their row, far from both.
  p.roster[11].character.state.position = {riding.position.x + 512, riding.position.y, riding.position.z};
  p.replication.send_snapshots(p.roster, server::GameMatch{}, movers, 1, ServerParts::kStart, p.outbox, p.counters);
  ASSERT_EQ(p.sink.sent.size(), std::size_t(kClients));
  ASSERT_EQ(config.neighbours, 4) << "the default";
  for (const std::size_t self : {std::size_t(0), std::size_t(5), std::size_t(11)}) {
    std::vector<uint32_t> gone;
    std::vector<proto::SnapshotNeighbour> neighbours;
    read_view(p, self, self, {}, 1, gone, 1, &neighbours);
    // Client 0 has four within 2 m (0.5 to 2 m); client 5 eight (the rider is gone from the row), of
    // which the four nearest (CoreConfig::neighbours), ties by id; client 11 the rider alone.
    const std::vector<std::vector<uint32_t>> wants{{2, 3, 4, 5}, {3, 4, 5, 8}, {7}};
    const std::vector<uint32_t>& want = wants[self == 0 ? 0 : self == 5 ? 1 : 2];
    ASSERT_EQ(neighbours.size(), want.size()) << "client " << self;
    for (std::size_t k = 0; k < want.size(); ++k) {
      const proto::SnapshotNeighbour& n = neighbours[k];
      ASSERT_EQ(n.id, want[k]);
      const server::SimulatedCharacter& ch = p.roster[n.id - 1].character;
      CharacterState state = n.state;
      if (state.platform != 0) {
        const FixedVec3 guess = platform_offset_guess(inverse(movers.pose(state.platform - 1u)), state.position);
        state.platform_offset = {guess.x + n.offset_residual.x, guess.y + n.offset_residual.y, guess.z + n.offset_residual.z};
      }
      EXPECT_EQ(state, ch.state) << "neighbour " << n.id;
      EXPECT_TRUE(n.input.same_command(ch.last_input));
      ASSERT_EQ(n.ahead_count, (n.id - 1) % 3) << "the inputs held up to the first missing one";
      for (uint32_t a = 0; a < n.ahead_count; ++a) EXPECT_TRUE(n.ahead[a].same_command(encode_move(-1, 0.1 * a, 0, 0)));
    }
  }

}

// The operator's settings: no neighbours at all, or neighbours without the inputs ahead (a game that
// counts a nearby player's next move, a tick early, as a leak).
TEST(Replication, NeighboursAndTheirInputsAheadAreTheOperatorsToTurnOff) {
  for (const auto& [neighbours, ahead] : {std::pair{0, 4}, std::pair{2, 0}}) {
    server::CoreConfig config;
    config.snapshot_budget = 1200;
    config.neighbours = neighbours;
    config.neighbour_inputs_ahead = ahead;
    ServerParts p(config, 1);
    add_clients(p, 5);  // 0.5 m apart
    for (int i = 0; i < 5; ++i) p.roster[std::size_t(i)].character.inputs.offer(encode_move(1, 0, 0, 2), 2);
    p.replication.send_snapshots(p.roster, server::GameMatch{}, MoverFrame{}, 1, ServerParts::kStart, p.outbox, p.counters);
    std::vector<uint32_t> gone;
    std::vector<proto::SnapshotNeighbour> got;
    const proto::RemoteView view = read_view(p, 2, 2, {}, 1, gone, 1, &got);
    EXPECT_EQ(view.size(), 4u) << "the view is whole either way";
    ASSERT_EQ(got.size(), std::size_t(neighbours));
    for (const proto::SnapshotNeighbour& n : got) EXPECT_EQ(n.ahead_count, 0u) << "none ahead when turned off";
  }
}

}  // namespace
}  // namespace foothold::test
