// #41's players named: every character a client sees carries its player's client id (its own from
// the Accept, the others' from the snapshots that add them), and the view's changes come as events
// that name the player: an appearance when a character comes into view, a leave that says whether
// it left the match or only the view. On a lossy network and at start (sixteen joining at once, their
// additions split over many snapshots built on older bases), no character blinks out and back.

#include <map>
#include <vector>

#include <gtest/gtest.h>

#include "client/impairment.h"
#include "client/view_events.h"
#include "shared/arena.h"
#include "support/scenario_support.h"
#include "support/sim_harness.h"

namespace foothold::test {
namespace {

constexpr proto::Nanos kS = proto::kSecond;
using Kind = client::ViewEvent::Kind;

TEST(PlayersNamed, EachClientNamesEveryPlayerItSeesAndHearsOfTheOneWhoLeft) {
  HarnessOptions o;
  o.clients = 16;
  o.pattern = bots::Pattern::kRide;
  SimHarness h(arena_world(), o);
  h.network().set_impairment(bad_network());
  h.start_all();
  // Every client's events, taken as a game would, every 1/60 s.
  std::vector<std::vector<client::ViewEvent>> events(16);
  auto run = [&](proto::Nanos d) {
    for (proto::Nanos t = 0; t < d; t += kS / 60) {
      h.run_for(kS / 60);
      for (int i = 0; i < 16; ++i)
        for (client::ViewEvent e; h.client(i).take_view_event(e);) events[size_t(i)].push_back(e);
    }
  };
  run(4 * kS);
  const int quitter = 15;
  const uint32_t quitter_character = h.client(quitter).character_id();
  h.client(quitter).disconnect();
  run(2 * kS);

  for (int i = 0; i < quitter; ++i) {
    const client::ClientSession& s = h.client(i);
    ASSERT_EQ(s.phase(), client::ClientSession::Phase::kConnected) << "client " << i;
    EXPECT_EQ(s.client_id(), SimHarness::client_id(i)) << "its own player, from the Accept";
    // Who each character is, by the server's word (the clients' own characters) ...
    std::map<uint32_t, uint64_t> player_of;
    for (int j = 0; j < 16; ++j) player_of[h.client(j).character_id()] = SimHarness::client_id(j);
    // ... and by this client's: every other still playing is shown, named.
    ASSERT_EQ(s.others().size(), 14u) << "client " << i;
    for (const OtherCharacter& other : s.others())
      EXPECT_EQ(s.client_id_of(other.id), player_of[other.id]) << "client " << i << ", character " << other.id;
    EXPECT_EQ(s.client_id_of(s.character_id()), 0u) << "not an other";
    // One appearance for each of the 15 others, then one leave of the match, by the quitter; nothing
    // else (no blink at the start, none from loss).
    std::map<uint32_t, int> appeared;
    int left_match = 0;
    for (const client::ViewEvent& e : events[size_t(i)]) {
      EXPECT_NE(e.kind, Kind::kLeftView) << "client " << i << ": character " << e.character_id << " at tick " << e.tick;
      EXPECT_EQ(e.client_id, player_of[e.character_id]) << "client " << i;
      if (e.kind == Kind::kAppeared) ++appeared[e.character_id];
      if (e.kind == Kind::kLeftMatch) {
        ++left_match;
        EXPECT_EQ(e.character_id, quitter_character);
        EXPECT_EQ(e.client_id, SimHarness::client_id(quitter));
        EXPECT_EQ(appeared[e.character_id], 1) << "it left after it came";
      }
    }
    EXPECT_EQ(appeared.size(), 15u) << "client " << i;
    for (const auto& [id, n] : appeared) EXPECT_EQ(n, 1) << "client " << i << ", character " << id;
    EXPECT_EQ(left_match, 1) << "client " << i;
    EXPECT_EQ(s.view_events_dropped(), 0u);
  }
}

}  // namespace
}  // namespace foothold::test
