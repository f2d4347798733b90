#include "server/spent_cookies.h"

#include <algorithm>

#include "proto/cookie_layout.h"

namespace foothold::server {

SpentCookies::SpentCookies(std::size_t capacity) : capacity_(std::max<std::size_t>(1, capacity)) {}

SpentCookies::Mac SpentCookies::mac_of(std::span<const uint8_t> cookie) {
  proto::CookieFields f;
  proto::read_cookie(cookie, f);
  return f.mac;
}

void SpentCookies::forget(proto::Nanos now) {
  while (!order_.empty() && order_.front().first <= now) {
    macs_.erase(order_.front().second);
    order_.pop_front();
  }
}

std::size_t SpentCookies::capacity_for(double cookies_per_second, double burst, proto::Nanos lifetime) {
  const double seconds = 2.0 * double(lifetime) / double(proto::kSecond);
  return std::size_t(std::max(0.0, cookies_per_second) * seconds + 2 * std::max(0.0, burst)) + 16;
}

const SpentCookies::Spent* SpentCookies::find(const Mac& mac, proto::Nanos now) {
  forget(now);
  const auto it = macs_.find(mac);
  return it == macs_.end() ? nullptr : &it->second;
}

bool SpentCookies::remember(const Mac& mac, const Spent& spent, proto::Nanos until, proto::Nanos now) {
  forget(now);
  if (macs_.count(mac)) return true;
  if (macs_.size() >= capacity_) return false;
  // Keep the times in order so that forget() can stop at the first one not due: a later entry that
  // would expire earlier is kept as long as the one before it (longer than needed, never shorter).
  if (!order_.empty()) until = std::max(until, order_.back().first);
  macs_.emplace(mac, spent);
  order_.emplace_back(until, mac);
  return true;
}

}  // namespace foothold::server
