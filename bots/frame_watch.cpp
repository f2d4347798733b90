#include "bots/frame_watch.h"

#include <algorithm>
#include <cmath>

namespace foothold::bots {

FrameCounts& FrameCounts::operator+=(const FrameCounts& o) {
  frames += o.frames;
  pop_max_m = std::max(pop_max_m, o.pop_max_m);
  pops_over_2cm += o.pops_over_2cm;
  remote_stalls += o.remote_stalls;
  remote_pop_max_m = std::max(remote_pop_max_m, o.remote_pop_max_m);
  return *this;
}

void FrameWatch::frame(client::ClientSession& session, proto::Nanos now) {
  if (session.phase() != client::ClientSession::Phase::kConnected) {
    have_local_ = false;
    remotes_.clear();
    return;
  }
  ++counts_.frames;
  const auto drawn = session.draw_local(now);
  if (drawn) {
    if (have_local_) {
      // What the prediction, as it stands now, says the character did between the two frames.
      const auto p1 = session.predicted_local(now), p0 = session.predicted_local(last_at_);
      if (p1 && p0) {
        const double pop = std::sqrt(length_sq((drawn->position - last_drawn_) - (p1->position - p0->position)));
        counts_.pop_max_m = std::max(counts_.pop_max_m, pop);
        counts_.pops_over_2cm += pop > 0.02;
      }
    }
    have_local_ = true;
    last_drawn_ = drawn->position;
    last_at_ = now;
  }
  // The others, where the session draws them this frame.
  const double view = session.view_tick(now);
  const double tick_s = 1.0 / session.settings().tick_rate;
  for (const OtherCharacter& o : session.others()) {
    const auto s = session.remotes().sample(o.id, view);
    if (!s) continue;
    // Its drawn velocity: the slope of what is drawn around this moment.
    const auto ahead = session.remotes().sample(o.id, view + 0.01);
    const Vec3 velocity = ahead ? (ahead->position - s->position) * (1 / (0.01 * tick_s)) : Vec3{};
    const FixedVec3 m = session.remotes().motion(o.id, session.stats().server_tick, 64);
    const double moving = std::sqrt(double(m.x) * m.x + double(m.z) * m.z) / kPositionScale / tick_s;
    const auto it = remotes_.find(o.id);
    if (it != remotes_.end()) {
      const double dt = double(now - it->second.at) / double(proto::kSecond);
      const Vec3 moved = s->position - it->second.drawn;
      if (moving > 0.5 && length_sq(moved) == 0) ++counts_.remote_stalls;
      const double pop = std::sqrt(length_sq(moved - velocity * dt));
      counts_.remote_pop_max_m = std::max(counts_.remote_pop_max_m, pop);
    }
    remotes_[o.id] = {s->position, now};
  }
}

}  // namespace foothold::bots
