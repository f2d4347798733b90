// Hostile networks, in virtual time: loss, duplication, reordering, latency and jitter. Every client
// connects and stays, every correction is explained, and once the network heals every client agrees
// with the server bit for bit; the server's recording verifies.

#include <cmath>

#include <gtest/gtest.h>

#include "replay/recording.h"
#include "replay/resimulate.h"
#include "server/recorder.h"
#include "support/process.h"
#include "support/scenario_support.h"
#include "support/sim_harness.h"
#include "support/test_seed.h"

namespace foothold::test {
namespace {

using client::ClientSession;

TEST(Impairment, LossDuplicationReorderingAndJitterCauseOnlyExplainedCorrections) {
  TempDir dir;
  HarnessOptions o;
  o.clients = 16;
  o.seed = test_seed(42);
  SimHarness h(arena_world(), o);
  replay::RecordingWriter writer;
  const auto header = server::server_recording_header("arena", arena_world(), o.settings, 0, 600);
  ASSERT_TRUE(writer.open(dir.file("impaired.rec"), header));
  server::ServerRecorder recorder(writer, 600);
  h.server().set_observer(&recorder);

  client::Impairment bad;
  bad.loss = 0.10;
  bad.duplicate = 0.02;
  bad.reorder = 0.05;
  bad.latency = 60 * proto::kMillisecond;
  bad.jitter = 20 * proto::kMillisecond;
  h.network().set_impairment(bad);
  h.start_all();
  h.run_for(20 * proto::kSecond);

  uint64_t corrections = 0;
  for (int i = 0; i < o.clients; ++i) {
    const auto& c = h.client(i);
    ASSERT_EQ(c.phase(), ClientSession::Phase::kConnected) << "client " << i << ": " << c.reason_text();
    EXPECT_EQ(c.predictor().counters().unexplained, 0u) << "client " << i;
    corrections += c.predictor().counters().corrections;
  }
  EXPECT_GT(corrections, 0u) << "10% loss must have made the server repeat some inputs";
  EXPECT_GT(h.network().lost(), 1000u);
  EXPECT_GT(h.server().counters().get(server::Counter::kInputsRepeated), 0u);

  // The network heals; after a moment to settle, every snapshot matches the prediction exactly, but
  // for what another character's moves caused (movement.md §16): those are counted as interactions.
  h.network().set_impairment({});
  h.run_for(2 * proto::kSecond);
  std::vector<uint64_t> matched(size_t(o.clients)), compared(size_t(o.clients)), fixes(size_t(o.clients)),
      met(size_t(o.clients));
  for (int i = 0; i < o.clients; ++i) {
    matched[size_t(i)] = h.client(i).predictor().counters().matched;
    compared[size_t(i)] = h.client(i).stats().compared;
    fixes[size_t(i)] = h.client(i).predictor().counters().corrections;
    met[size_t(i)] = h.client(i).predictor().counters().interactions;
  }
  h.run_for(3 * proto::kSecond);
  for (int i = 0; i < o.clients; ++i) {
    const auto& c = h.client(i);
    EXPECT_EQ(c.phase(), ClientSession::Phase::kConnected);
    EXPECT_GT(c.stats().compared - compared[size_t(i)], 150u) << "client " << i;
    const uint64_t by_others = c.predictor().counters().interactions - met[size_t(i)];
    EXPECT_EQ(c.predictor().counters().matched - matched[size_t(i)] + by_others, c.stats().compared - compared[size_t(i)])
        << "client " << i << " disagrees with the server after the network healed";
    EXPECT_EQ(c.predictor().counters().corrections, fixes[size_t(i)] + by_others) << "client " << i;
    EXPECT_EQ(c.predictor().counters().unexplained, 0u) << "client " << i;
  }
  writer.close(recorder.last_tick());
  replay::LoadedRecording rec;
  std::string err;
  ASSERT_TRUE(replay::load_recording(dir.file("impaired.rec"), rec, err)) << err;
  const auto result = replay::resimulate(rec, arena_world(), {});
  EXPECT_TRUE(result.ok) << "tick " << result.first.tick << " id " << result.first.id;
  EXPECT_EQ(rec.characters.size(), 16u);
}

TEST(Impairment, SameSeedSameRun) {
  // The simulated network is reproducible: the same seed gives the same session, datagram for datagram.
  auto run = [](uint64_t seed) {
    HarnessOptions o;
    o.clients = 3;
    o.seed = seed;
    SimHarness h(arena_world(), o);
    client::Impairment bad;
    bad.loss = 0.2;
    bad.reorder = 0.1;
    bad.jitter = 10 * proto::kMillisecond;
    bad.latency = 30 * proto::kMillisecond;
    h.network().set_impairment(bad);
    h.start_all();
    h.run_for(3 * proto::kSecond);
    std::vector<uint64_t> v{h.network().lost(), h.network().delivered(), h.server().current_tick()};
    for (int i = 0; i < 3; ++i) {
      v.push_back(h.client(i).predictor().counters().corrections);
      v.push_back(h.client(i).predictor().latest_state().hash());
    }
    return v;
  };
  EXPECT_EQ(run(7), run(7));
  EXPECT_NE(run(7), run(8));
}


// The impairer on its own: rates close to what was asked, delays within their bounds, seeds repeat.
TEST(Impairer, LossDuplicationAndDelaysFollowTheSettings) {
  client::Impairment imp;
  imp.loss = 0.2;
  imp.duplicate = 0.1;
  imp.reorder = 0.05;
  imp.latency = 40 * proto::kMillisecond;
  imp.jitter = 10 * proto::kMillisecond;
  ASSERT_EQ(imp.validate(), "");
  const uint64_t seed = test_seed(77);
  client::Impairer a(imp, seed), b(imp, seed);
  int lost = 0, doubled = 0, late = 0;
  constexpr int kN = 20000;
  for (int i = 0; i < kN; ++i) {
    proto::Nanos da[2] = {-1, -1}, db[2] = {-1, -1};
    const int n = a.decide(da);
    ASSERT_EQ(n, b.decide(db)) << "the same seed, the same fate";
    lost += n == 0;
    doubled += n == 2;
    for (int k = 0; k < n; ++k) {
      ASSERT_EQ(da[k], db[k]);
      ASSERT_GE(da[k], imp.latency - imp.jitter);
      ASSERT_LE(da[k], imp.latency + 2 * imp.jitter + 25 * proto::kMillisecond);
      late += da[k] > imp.latency + imp.jitter;
    }
  }
  // Binomial counts within five standard deviations of what was asked.
  EXPECT_NEAR(lost, 0.2 * kN, 5 * std::sqrt(0.2 * 0.8 * kN));
  EXPECT_NEAR(doubled, 0.1 * 0.8 * kN, 5 * std::sqrt(0.08 * 0.92 * kN));
  EXPECT_GT(late, 0) << "some datagrams are held back behind later ones";
}

TEST(Impairer, BadSettingsNameTheirFlag) {
  client::Impairment imp;
  imp.loss = 1.5;
  EXPECT_NE(imp.validate().find("--loss"), std::string::npos);
  imp = {};
  imp.latency = -1;
  EXPECT_NE(imp.validate().find("--latency"), std::string::npos);
  imp = {};
  imp.jitter = 11 * proto::kSecond;
  EXPECT_NE(imp.validate().find("--jitter"), std::string::npos);
  EXPECT_FALSE(client::Impairment{}.active());
}

}  // namespace
}  // namespace foothold::test
