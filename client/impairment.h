#pragma once
// Network impairment: loss, duplication, reordering, latency and jitter, seeded and reproducible.
// The bots' real UDP transport, a client's network conditioner and the tests' simulated network
// all use it.

#include <cstdint>
#include <string>

#include "proto/endpoint.h"

namespace foothold::client {

/// How the network mistreats datagrams; all zero: a perfect network.
struct Impairment {
  double loss = 0;        ///< probability a datagram is lost [0, 1]
  double duplicate = 0;   ///< probability a datagram arrives twice [0, 1]
  double reorder = 0;     ///< probability a datagram is held back behind later ones [0, 1]
  proto::Nanos latency = 0; ///< one-way delay
  proto::Nanos jitter = 0;  ///< the delay varies uniformly by +- this much
  /// True when any impairment is set (otherwise datagrams go straight through).
  bool active() const { return loss > 0 || duplicate > 0 || reorder > 0 || latency > 0 || jitter > 0; }
  /// The first problem with the values, naming its command-line flag (--loss, ...); empty when all
  /// are valid. Latency and jitter may be at most 10 s.
  std::string validate() const;
};

/// Decides each datagram's fate, from its own seeded generator: the same seed gives the same
/// decisions in the same order. Keeps its own copy of the impairment. Not thread-safe.
class Impairer {
 public:
  /// Copies `impairment`; `seed` starts the generator.
  Impairer(const Impairment& impairment, uint64_t seed) : imp_(impairment), state_(seed) {}
  /// Fills `delays` with the delay of each copy to deliver and returns how many (0: lost; 2: duplicated).
  /// Delays are from the moment of sending, never negative; a reordered copy waits the jitter plus
  /// 5 to 25 ms more.
  int decide(proto::Nanos delays[2]);
  /// The impairment applied (its own copy).
  const Impairment& impairment() const { return imp_; }

 private:
  double uniform();
  proto::Nanos one_delay();
  Impairment imp_;
  uint64_t state_;
};

}  // namespace foothold::client
