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
  if (drawn_remotes_.size() < session.others().size()) drawn_remotes_.resize(session.others().size());
  const std::size_t n = std::min(session.draw_remotes(now, drawn_remotes_), drawn_remotes_.size());
  const client::RemoteFrame f = session.remote_frame(now);
  const double rate = session.settings().tick_rate;
  std::size_t k = 0;  // the session's others and the drawn ones are both in id order
  for (std::size_t i = 0; i < n; ++i) {
    const client::DrawnRemote& d = drawn_remotes_[i];
    while (k < f.others.size() && f.others[k].id < d.id) ++k;
    if (k == f.others.size()) break;
    // How fast the server moved it around the moment drawn, as the snapshots show: the segment
    // drawn from, or past the newest one, the motion of the newest two.
    const auto truth = session.remote_drawing().raw(f, f.others[k], f.view);
    Vec3 moving = truth ? truth->velocity : Vec3{};
    if (truth && truth->extrapolated) moving = to_position(f.samples.motion(d.id, f.newest_snapshot, f.max_gap)) * rate;
    // Measured where a game stands its model: the feet (a crouch lowers the centre, not the feet).
    const Vec3 feet = d.position + Vec3{0, d.crouched ? session.derived_settings().crouch_drop : 0, 0};
    const auto it = remotes_.find(d.id);
    if (it != remotes_.end()) {
      const double dt = double(now - it->second.at) / double(proto::kSecond);
      const Vec3 moved = feet - it->second.drawn;
      if (std::sqrt(length_sq(moving)) > 0.5 && length_sq(moved) == 0) ++counts_.remote_stalls;
      // What its drawn velocity, in the frame before and this one, explains.
      const double pop = std::sqrt(length_sq(moved - (it->second.velocity + d.velocity) * (0.5 * dt)));
      counts_.remote_pop_max_m = std::max(counts_.remote_pop_max_m, pop);
    }
    remotes_[d.id] = {feet, d.velocity, now};
  }
}

}  // namespace foothold::bots
