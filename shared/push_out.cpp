#include "shared/push_out.h"

#include <cmath>

#include "shared/ground.h"
#include "shared/tolerances.h"

namespace foothold {

namespace {

struct Resolve {
  Vec3 position;
  int iterations = 0;
  bool clear = false;
};

// One set of resolution steps from `p`.
Resolve resolve(ContactQueries& q, Vec3 p, bool grounded, int budget) {
  const DerivedSettings& s = q.settings();
  Resolve out;
  ContactList contacts;
  for (; out.iterations < budget; ++out.iterations) {
    q.contacts(p, 0.0, contacts);
    // The deepest overlap first (the list is nearest first, so the most negative gap leads).
    if (contacts.size() == 0 || contacts[0].gap >= 0) {
      out.position = p;
      out.clear = true;
      return out;
    }
    const Contact& c = contacts[0];
    const double depth = -c.gap + s.contact_distance / 2;
    if (grounded && walkable_normal(c.normal, s)) {
      p.y += depth / c.normal.y;  // straight up by as much as the slope needs
    } else {
      p += c.normal * depth;
    }
  }
  q.contacts(p, 0.0, contacts);
  out.position = p;
  out.clear = contacts.size() == 0 || contacts[0].gap >= 0;
  return out;
}

}  // namespace

PushOutResult push_out(ContactQueries& q, const Vec3& center, bool grounded) {
  const DerivedSettings& s = q.settings();
  PushOutResult out;
  Resolve best = resolve(q, center, grounded, s.max_pushout_iterations);
  out.iterations = best.iterations;
  if (best.clear && best.iterations > 0) {
    // Movement.md §8.2: the nearest free spot may lie above where we wanted to be. Shift down by the excess
    // and resolve again; keep any free result that rose less.
    for (int round = 0; round < s.max_pushout_iterations; ++round) {
      const double excess = best.position.y - center.y;
      if (!(excess > s.contact_distance * tolerance::kPushOutRiseShare)) break;
      const Resolve lower = resolve(q, best.position - Vec3{0, excess, 0}, grounded, s.max_pushout_iterations);
      out.iterations += lower.iterations;
      if (!lower.clear || !(lower.position.y < best.position.y - tolerance::kDistanceNoise)) break;
      best = lower;
    }
  }
  out.position = best.position;
  out.resolved = best.clear;
  return out;
}

}  // namespace foothold
