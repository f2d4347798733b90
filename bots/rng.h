#pragma once
// The bots' random numbers: splitmix64, small, fast and the same everywhere, seeded from --seed and
// each bot's index, so that a run is reproducible.

#include <cstdint>

namespace foothold::bots {

/// A splitmix64 generator; its whole state is `state`.
struct Rng {
  uint64_t state;
  /// The next 64 random bits.
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double uniform() { return double(next() >> 11) / double(1ull << 53); }
};

/// The seed of bot `bot_index`'s brain in a fleet seeded with `seed`.
inline uint64_t brain_seed(uint64_t seed, uint32_t bot_index) {
  return Rng{seed ^ (uint64_t(bot_index) * 0xd1342543de82ef95ull)}.next();
}

}  // namespace foothold::bots
