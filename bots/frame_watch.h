#pragma once
// The bots draw as a game would (foothold-bot --frame-rate HZ, #37): at each frame a bot asks its
// session for the drawn pose of its own character and of the others, and measures what a player
// would see go wrong:
// - a pop: the drawn local position's jump from one frame to the next less what the client's own
//   current prediction of its motion between those two frame times explains (a correction shown at
//   once pops by its full size, a smoothed one by what the smoothing releases that frame);
// - a remote stall: a frame in which another character that the server moved at more than 0.5 m/s
//   around the moment drawn (as the snapshots show it: the two around that moment, or past the
//   newest, the newest two) is drawn where it was drawn the frame before;
// - a remote pop: the same as a pop, for the others: the drawn jump less what the drawn velocity
//   explains (the mean of this frame's and the last's, times the time between them).

#include <cstdint>
#include <map>
#include <vector>

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
    Vec3 drawn, velocity;  // drawn: the feet
    proto::Nanos at = 0;
  };
  FrameCounts counts_;
  bool have_local_ = false;
  Vec3 last_drawn_;
  proto::Nanos last_at_ = 0;
  std::map<uint32_t, Remote> remotes_;  // the others as last drawn, by id
  std::vector<client::DrawnRemote> drawn_remotes_;  // this frame's
};

}  // namespace foothold::bots
