#include "bots/frame_watch.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace foothold::bots {

std::string PopAt::text() const {
  if (character == 0) return "none";
  return std::to_string(tick) + ":" + std::to_string(character) + ":" + client::draw_cause_text(causes);
}

FrameCounts& FrameCounts::operator+=(const FrameCounts& o) {
  frames += o.frames;
  if (o.pop_max_m > pop_max_m) {
    pop_max_m = o.pop_max_m;
    pop_max_at = o.pop_max_at;
  }
  pops_over_2cm += o.pops_over_2cm;
  remote_stalls += o.remote_stalls;
  if (o.remote_pop_max_m > remote_pop_max_m) {
    remote_pop_max_m = o.remote_pop_max_m;
    remote_pop_max_at = o.remote_pop_max_at;
  }
  return *this;
}

void FrameWatch::trace_to(std::ostream* out) {
  trace_ = out;
  if (trace_) *trace_ << kDrawnHeader << '\n';
}

void FrameWatch::write_row(proto::Nanos now, double view, const client::DrawnRemote& d, double pop) {
  char row[320];
  const int n = std::snprintf(row, sizeof row, "%lld,%.4f,%u,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%s\n", (long long)now,
                              view, d.id, d.position.x, d.position.y, d.position.z, d.velocity.x, d.velocity.y,
                              d.velocity.z, std::sqrt(length_sq(d.error)), pop, client::draw_cause_text(d.causes).c_str());
  if (n > 0) trace_->write(row, std::min<std::streamsize>(n, sizeof row - 1));
}

Vec3 FrameWatch::explained(const client::ClientSession& session, const client::RemoteFrame& f,
                           const OtherCharacter& o, const Remote& was, const Vec3& velocity, double dt) const {
  // What the snapshots, as they stand now, say it moved between the two moments drawn: the whole
  // path, so a frame drawn late is not blamed for the turns and landings in between (#69: one
  // falling past its newest snapshot, drawn 60 ms late, showed as a 0.35 m pop by the velocities).
  // Only while the view ran as the frames' times say: a view clock that jumped or went back pops.
  const double ticks = dt * session.settings().tick_rate, ran = f.view - was.view;
  const bool steady = ran >= 0 && std::fabs(ran - ticks) <= 0.15 * ticks + 1e-3;
  const auto p1 = session.remote_drawing().raw(f, o, f.view), p0 = session.remote_drawing().raw(f, o, was.view);
  // Otherwise what its drawn velocity, in the frame before and this one, explains.
  if (!steady || !p1 || !p0) return (was.velocity + velocity) * (0.5 * dt);
  const double drop = session.derived_settings().crouch_drop;
  return (p1->position + Vec3{0, p1->crouched ? drop : 0, 0}) - (p0->position + Vec3{0, p0->crouched ? drop : 0, 0});
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
        if (pop > counts_.pop_max_m) {
          counts_.pop_max_m = pop;
          counts_.pop_max_at = {uint32_t(std::max(0.0, drawn->tick)), session.character_id(), drawn->causes};
        }
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
    double pop = 0;
    if (it != remotes_.end()) {
      const double dt = double(now - it->second.at) / double(proto::kSecond);
      const Vec3 moved = feet - it->second.drawn;
      if (std::sqrt(length_sq(moving)) > 0.5 && length_sq(moved) == 0) ++counts_.remote_stalls;
      pop = std::sqrt(length_sq(moved - explained(session, f, f.others[k], it->second, d.velocity, dt)));
      if (pop > counts_.remote_pop_max_m) {
        counts_.remote_pop_max_m = pop;
        counts_.remote_pop_max_at = {uint32_t(std::max(0.0, f.view)), d.id, d.causes};
      }
    }
    remotes_[d.id] = {feet, d.velocity, now, f.view};
    if (trace_) write_row(now, f.view, d, pop);
  }
}

}  // namespace foothold::bots
