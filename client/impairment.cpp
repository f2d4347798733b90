#include "client/impairment.h"

#include <algorithm>

namespace foothold::client {

std::string Impairment::validate() const {
  auto prob = [](double p) { return p >= 0 && p <= 1; };
  if (!prob(loss)) return "--loss must be a probability in [0, 1]";
  if (!prob(duplicate)) return "--duplicate must be a probability in [0, 1]";
  if (!prob(reorder)) return "--reorder must be a probability in [0, 1]";
  if (latency < 0 || latency > 10 * proto::kSecond) return "--latency must be in [0, 10000] ms";
  if (jitter < 0 || jitter > 10 * proto::kSecond) return "--jitter must be in [0, 10000] ms";
  return "";
}

double Impairer::uniform() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return double(z >> 11) / double(1ull << 53);
}

proto::Nanos Impairer::one_delay() {
  proto::Nanos d = imp_.latency;
  if (imp_.jitter > 0) d += proto::Nanos((uniform() * 2 - 1) * double(imp_.jitter));
  // A reordered datagram waits behind those sent after it: held back by a few more milliseconds
  // than the jitter can explain.
  if (imp_.reorder > 0 && uniform() < imp_.reorder) d += imp_.jitter + 5 * proto::kMillisecond + proto::Nanos(uniform() * 20e6);
  return std::max<proto::Nanos>(0, d);
}

int Impairer::decide(proto::Nanos delays[2]) {
  if (imp_.loss > 0 && uniform() < imp_.loss) return 0;
  delays[0] = one_delay();
  if (imp_.duplicate > 0 && uniform() < imp_.duplicate) {
    delays[1] = one_delay();
    return 2;
  }
  return 1;
}

}  // namespace foothold::client
