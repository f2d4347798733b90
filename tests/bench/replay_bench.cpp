// Re-simulation speed: a 10-minute recording of 64 bots wandering the arena (made once with the
// simulated network, then kept), verified with 1 and 2 threads. Issue target: under 1% of the
// recording's duration (100x real time or better).
//
//   build/release/tests/replay_bench [RECORDING]   (default: build/release/replay-bench-64x10min.rec)

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "replay/resimulate.h"
#include "server/recorder.h"
#include "support/scenario_support.h"
#include "support/sim_harness.h"

using namespace foothold;

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : "replay-bench-64x10min.rec";
  const auto& world = test::arena_world();
  if (!std::filesystem::exists(path)) {
    std::printf("making %s: 64 bots, 10 minutes of virtual time...\n", path.c_str());
    const auto t0 = std::chrono::steady_clock::now();
    test::HarnessOptions o;
    o.clients = 64;
    o.core.client_timeout = 60 * proto::kSecond;
    test::SimHarness h(world, o);
    replay::RecordingWriter writer;
    const auto header = server::server_recording_header("arena", world, o.settings, 1, 600);
    if (!writer.open(path, header)) {
      std::fprintf(stderr, "replay_bench: %s\n", writer.error().c_str());
      return 2;
    }
    server::ServerRecorder recorder(writer, 600);
    h.server().set_observer(&recorder);
    h.start_all();
    h.run_for(600 * proto::kSecond);
    writer.close(recorder.last_tick());
    std::printf("made in %.1f s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  replay::LoadedRecording rec;
  std::string err;
  const auto l0 = std::chrono::steady_clock::now();
  if (!replay::load_recording(path, rec, err)) {
    std::fprintf(stderr, "replay_bench: %s\n", err.c_str());
    return 2;
  }
  const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - l0).count();
  const double duration = double(rec.ticks) / rec.header.settings.tick_rate;
  std::printf("recording: %s, %.1f MB, %llu ticks (%.0f s), %zu characters; loaded in %.2f s\n", path.c_str(),
              double(rec.file_size) / 1e6, static_cast<unsigned long long>(rec.ticks), duration, rec.characters.size(), load_s);
  for (int threads : {1, 2}) {
    double best = 1e9;
    replay::ResimResult r;
    for (int run = 0; run < 3; ++run) {
      replay::ResimOptions ro;
      ro.threads = threads;
      r = replay::resimulate(rec, world, ro);
      best = std::min(best, r.seconds);
    }
    std::printf("threads=%d verify=%s steps=%llu best_of_3=%.2f s  (%.2f%% of the recording's duration, %.0fx real time, %.2f us/step)\n",
                threads, r.ok ? "ok" : "MISMATCH", static_cast<unsigned long long>(r.steps), best, 100 * best / duration,
                duration / best, best * 1e6 / double(r.steps));
  }
  return 0;
}
