#pragma once
// Every random seed a test uses is printed and can be set: FOOTHOLD_TEST_SEED=N runs the test with
// seed N instead of its default, so that a failure seen once can be replayed.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

namespace foothold::test {

/// The seed to use: FOOTHOLD_TEST_SEED when set (a decimal number), else `fallback`. Prints it and
/// records it in the test's XML properties.
inline uint64_t test_seed(uint64_t fallback) {
  uint64_t seed = fallback;
  if (const char* env = std::getenv("FOOTHOLD_TEST_SEED"); env && *env) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(env, &end, 10);
    if (end && *end == '\0') seed = v;
    else ADD_FAILURE() << "FOOTHOLD_TEST_SEED='" << env << "' is not a decimal number";
  }
  std::printf("seed %llu (rerun with FOOTHOLD_TEST_SEED=%llu)\n", static_cast<unsigned long long>(seed),
              static_cast<unsigned long long>(seed));
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  return seed;
}

}  // namespace foothold::test
