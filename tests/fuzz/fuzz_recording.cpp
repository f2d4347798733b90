// libFuzzer: recordings read from untrusted files, and re-simulated when small.

#include <cstdint>
#include <vector>

#include "replay/resimulate.h"
#include "shared/world.h"
#include "shared/formats/world_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace foothold;
  static const auto world = std::move(load_world("arena").world);
  replay::LoadedRecording rec;
  std::string err;
  if (!replay::load_recording_bytes(std::vector<uint8_t>(data, data + size), "fuzz.rec", rec, err)) return 0;
  // Re-simulating must survive whatever states and inputs the file holds (bounded to stay fast).
  if (rec.characters.size() <= 4 && rec.ticks <= 64) {
    replay::ResimOptions o;
    o.threads = 1;
    o.keep_states = true;
    (void)replay::resimulate(rec, *world, o);
  }
  return 0;
}
