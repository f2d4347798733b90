#pragma once
// The bots draw as a game would (foothold-bot --frame-rate HZ, #37): at each frame a bot asks its
// session for the drawn pose of its own character and of the others, and measures what a player
// would see go wrong:
// - a pop: the drawn local position's jump from one frame to the next less what the client's own
//   current prediction of its motion between those two frame times explains (a correction shown at
//   once pops by its full size, a smoothed one by what the smoothing releases that frame);
// - a remote stall: a frame in which another character that was moving at more than 0.5 m/s (as its
//   newest snapshots show it) is drawn where it was drawn the frame before;
// - a remote pop: the same as a pop, for the others, against their drawn velocity.

#include <cstdint>
#include <map>

#include "client/session.h"

namespace foothold::bots {

/// A bot's frames and what they showed.
struct FrameCounts {
  uint64_t frames = 0;
  double pop_max_m = 0;
  uint64_t pops_over_2cm = 0;
  uint64_t remote_stalls = 0;
  double remote_pop_max_m = 0;
  FrameCounts& operator+=(const FrameCounts& o);
};

class FrameWatch {
 public:
  /// One frame at `now` (frames in time order).
  void frame(client::ClientSession& session, proto::Nanos now);
  const FrameCounts& counts() const { return counts_; }

 private:
  struct Remote {
    Vec3 drawn;
    proto::Nanos at = 0;
  };
  FrameCounts counts_;
  bool have_local_ = false;
  Vec3 last_drawn_;
  proto::Nanos last_at_ = 0;
  std::map<uint32_t, Remote> remotes_;  // the others as last drawn, by id
};

}  // namespace foothold::bots
