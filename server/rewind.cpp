#include "server/rewind.h"

#include <algorithm>

#include "shared/character_contacts.h"
#include "shared/det_math.h"

namespace foothold::server {

RewindHistory::RewindHistory(uint32_t window_ticks, SnapshotSchedule schedule, const DerivedSettings& settings)
    : window_(window_ticks),
      schedule_{std::max<uint32_t>(1, schedule.interval), schedule.staggered},
      radius_(settings.radius),
      half_(settings.half_segment),
      crouch_half_(settings.crouch_half_segment),
      // The window and one snapshot interval more: a view at the window's edge interpolates from the
      // snapshot tick before it.
      ring_(std::size_t(window_ticks) + schedule_.interval + 1) {}

void RewindHistory::record(uint32_t tick, const Roster& roster) {
  Tick& t = ring_[tick % ring_.size()];
  t.tick = tick;
  t.entries.clear();
  for (std::size_t i = 0; i < roster.size(); ++i) {
    const CharacterState& s = roster[i].character.state;
    t.entries.push_back({roster[i].id, published_position(s.position), s.position, s.crouched});
  }
  newest_ = tick;
  oldest_ = tick > window_ ? tick - window_ : 1;
  if (const uint32_t held = uint32_t(ring_.size()) - schedule_.interval - 1; newest_ - oldest_ > held) oldest_ = newest_ - held;
}

double RewindHistory::clamp(double view, uint32_t newest_seen) const {
  const double hi = double(std::min(newest_, newest_seen));
  const double lo = double(oldest_);
  if (!(view == view)) return hi;  // NaN: the present as the client had it
  return det_max(lo, det_min(view, det_max(lo, hi)));
}

const RewindHistory::Tick* RewindHistory::at(uint32_t tick) const {
  if (newest_ == 0 || tick > newest_ || newest_ - tick >= ring_.size()) return nullptr;
  const Tick& t = ring_[tick % ring_.size()];
  return t.tick == tick ? &t : nullptr;
}

QueryCapsule RewindHistory::capsule(const Entry& e, const Vec3& center) const {
  return {e.id, center, e.crouched ? crouch_half_ : half_, radius_};
}

void RewindHistory::capsules_at(double view, uint32_t viewer, std::vector<QueryCapsule>& out) const {
  out.clear();
  view = clamp(view, newest_);
  // The viewer's snapshot ticks around the view, as a client that had every snapshot holds them.
  const uint32_t whole = uint32_t(det_floor(view));
  uint32_t a_tick = schedule_.latest(viewer, whole);
  const Tick* a = at(a_tick);
  while (!a && a_tick < whole) a = at(++a_tick);  // the oldest snapshot tick may be out of the ring
  const Tick* b = at(a_tick + schedule_.interval);
  if (!a) a = at(whole);
  if (!a) return;
  const double f = b ? (view - double(a->tick)) / double(b->tick - a->tick) : 0.0;
  std::size_t j = 0;
  for (const Entry& ea : a->entries) {
    const Vec3 pa = to_position(ea.published);
    if (b) {
      while (j < b->entries.size() && b->entries[j].id < ea.id) ++j;
      if (j < b->entries.size() && b->entries[j].id == ea.id && f > 0) {
        const Vec3 pb = to_position(b->entries[j].published);
        out.push_back(capsule(f < 0.5 ? ea : b->entries[j], pa + (pb - pa) * f));
        continue;
      }
    }
    out.push_back(capsule(ea, pa));
  }
}

std::optional<Vec3> RewindHistory::exact_at(uint32_t id, uint32_t tick) const {
  const Tick* t = at(tick);
  if (!t) return std::nullopt;
  const auto it = std::lower_bound(t->entries.begin(), t->entries.end(), id, [](const Entry& e, uint32_t v) { return e.id < v; });
  if (it == t->entries.end() || it->id != id) return std::nullopt;
  return to_position(it->exact);
}

}  // namespace foothold::server
