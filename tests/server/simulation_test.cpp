// The server's tick (server/simulation.h): one input per client per tick, the last repeated when
// its own is missing, every character stepped through the shared tick, the observer told.
#include <gtest/gtest.h>

#include "server_parts_support.h"

namespace foothold::test {
namespace {

struct Recorded final : server::TickObserver {
  std::vector<uint32_t> ticks, joined, left;
  std::vector<server::CharacterTick> last;
  void on_tick(const server::TickRecord& t) override {
    ticks.push_back(t.tick);
    for (const auto& j : t.joins) joined.push_back(j.id);
    for (uint32_t id : t.leaves) left.push_back(id);
    last.assign(t.characters.begin(), t.characters.end());
  }
};

std::unique_ptr<server::Client> joining(ServerParts& p, int port) {
  auto c = std::make_unique<server::Client>();
  c->session.endpoint = {asio::ip::make_address("10.1.0.1"), uint16_t(port)};
  c->character.state = p.simulation.spawn(p.roster.next_id(), p.roster);
  return c;
}

TEST(Simulation, EachTickConsumesOneInputPerClientAndRepeatsTheLastWhenOneIsMissing) {
  ServerParts p;
  Recorded rec;
  p.roster.add(joining(p, 1));
  p.roster.add(joining(p, 2));
  EXPECT_NE(p.roster[0].character.state.position, p.roster[1].character.state.position) << "spawns apart";
  server::Client& a = p.roster[0];
  // Client 1 sends inputs for ticks 1 and 2 (walking +x); client 2 sends nothing.
  const std::vector<InputCmd> inputs{encode_move(1, 0, 0, 1), encode_move(1, 0, 0, 2)};
  p.simulation.offer_inputs(a, inputs, 5, p.counters);
  EXPECT_EQ(a.character.echo_received, 5) << "a new newest input tick marks when it arrived";
  EXPECT_EQ(p.counters.get(server::Counter::kInputsAccepted), 2u);
  p.simulation.offer_inputs(a, inputs, 9, p.counters);
  EXPECT_EQ(a.character.echo_received, 5) << "duplicates bring nothing new";
  EXPECT_EQ(p.counters.get(server::Counter::kInputsDuplicate), 2u);
  const FixedVec3 start = a.character.state.position;
  for (int t = 1; t <= 3; ++t) p.simulation.advance(p.roster, p.counters, &rec);
  EXPECT_EQ(p.simulation.tick(), 3u);
  EXPECT_EQ(rec.ticks, (std::vector<uint32_t>{1, 2, 3}));
  EXPECT_EQ(rec.joined, (std::vector<uint32_t>{1, 2}));
  ASSERT_EQ(rec.last.size(), 2u);
  EXPECT_TRUE(rec.last[0].repeated) << "tick 3 had no input of its own";
  EXPECT_EQ(rec.last[0].input.move_x, inputs[1].move_x) << "the last one, repeated";
  EXPECT_EQ(rec.last[0].state, a.character.state);
  EXPECT_EQ(a.character.repeated_bits & 7u, 0b001u) << "tick 3 repeated, ticks 1 and 2 not";
  EXPECT_EQ(p.roster[1].character.repeated_bits & 7u, 0b111u);
  EXPECT_EQ(p.counters.get(server::Counter::kInputsConsumed), 2u);
  EXPECT_EQ(p.counters.get(server::Counter::kInputsRepeated), 4u);
  EXPECT_EQ(a.character.owed_tick, 3u) << "a repeated input may part the prediction from the state";
  EXPECT_GT(a.character.state.position.x, start.x) << "it walked";
  p.roster.remove(2);
  p.simulation.advance(p.roster, p.counters, &rec);
  EXPECT_EQ(rec.left, (std::vector<uint32_t>{2}));
  EXPECT_EQ(rec.last.size(), 1u);
}

TEST(Simulation, TheSameClientsGiveTheSameStatesOnAnyNumberOfThreads) {
  auto run = [](int threads) {
    ServerParts p({}, threads);
    for (int i = 0; i < 150; ++i) p.roster.add(joining(p, i + 1));
    for (uint32_t t = 1; t <= 60; ++t) {
      for (std::size_t i = 0; i < p.roster.size(); ++i) {
        const InputCmd in = encode_move(i % 3 == 0 ? 1 : -0.5, i % 2 ? 1 : -1, t % 20 == 0 ? kButtonJump : 0, t);
        p.simulation.offer_inputs(p.roster[i], std::span(&in, 1), t, p.counters);
      }
      p.simulation.advance(p.roster, p.counters, nullptr);
    }
    std::vector<CharacterState> states;
    for (std::size_t i = 0; i < p.roster.size(); ++i) states.push_back(p.roster[i].character.state);
    return states;
  };
  const auto one = run(1);
  EXPECT_EQ(run(2), one);
  EXPECT_EQ(run(3), one);
}

}  // namespace
}  // namespace foothold::test
