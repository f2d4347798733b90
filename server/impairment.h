#pragma once
// Network impairment: loss, duplication, reordering, latency and jitter, seeded and reproducible.
// The bots' real UDP transport and the tests' simulated network both use it.

#include <cstdint>
#include <string>

#include "server/net_types.h"

namespace foothold::server {

struct Impairment {
  double loss = 0;        ///< probability a datagram is lost [0, 1]
  double duplicate = 0;   ///< probability a datagram arrives twice [0, 1]
  double reorder = 0;     ///< probability a datagram is held back behind later ones [0, 1]
  net::Nanos latency = 0; ///< one-way delay
  net::Nanos jitter = 0;  ///< the delay varies uniformly by +- this much
  bool active() const { return loss > 0 || duplicate > 0 || reorder > 0 || latency > 0 || jitter > 0; }
  /// Problems with the values, naming each flag.
  std::string validate() const;
};

/// Decides each datagram's fate, from its own seeded generator.
class Impairer {
 public:
  Impairer(const Impairment& impairment, uint64_t seed) : imp_(impairment), state_(seed) {}
  /// Fills `delays` with the delay of each copy to deliver and returns how many (0: lost; 2: duplicated).
  int decide(net::Nanos delays[2]);
  const Impairment& impairment() const { return imp_; }

 private:
  double uniform();
  net::Nanos one_delay();
  Impairment imp_;
  uint64_t state_;
};

}  // namespace foothold::server
