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
// - a remote pop: the same as a pop, for the others: the drawn jump of the feet less what the
//   snapshots, as they stand now, say it moved between the two moments drawn (the view tick then and
//   now, RemoteDrawing::raw: the path, so a late frame is not blamed for a fall or a turn in between,
//   #69); where the view clock did not run as the frames' times say (a jump), less what the drawn
//   velocity explains (the mean of this frame's and the last's, times the time between them).
// Each largest pop keeps where it was drawn and why: the tick, the character, and what the drawing
// did to it that frame (DrawnPose::causes, DrawnRemote::causes).

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "client/session.h"

namespace foothold::bots {

/// Where a pop was drawn and why (#69).
struct PopAt {
  uint32_t tick = 0;       ///< the tick drawn (the own: the predicted tick; the others: the view tick), whole
  uint32_t character = 0;  ///< the character drawn
  uint32_t causes = 0;     ///< what the drawing did that frame (client::DrawCause bits)
  /// TICK:CHARACTER:CAUSE, the causes as client::draw_cause_text() gives them; "none" before any pop.
  std::string text() const;
};

/// A bot's frames and what they showed.
struct FrameCounts {
  uint64_t frames = 0;
  double pop_max_m = 0;
  uint64_t pops_over_2cm = 0;
  uint64_t remote_stalls = 0;
  double remote_pop_max_m = 0;
  PopAt pop_max_at;         ///< where pop_max_m was drawn
  PopAt remote_pop_max_at;  ///< where remote_pop_max_m was drawn
  FrameCounts& operator+=(const FrameCounts& o);
};

class FrameWatch {
 public:
  /// One frame at `now` (frames in time order).
  void frame(client::ClientSession& session, proto::Nanos now);
  /// Writes every other character drawn, a row a frame (kDrawnHeader's columns), to `out` from now
  /// on (null: none); `out` must outlive the watch's frames.
  void trace_to(std::ostream* out);
  /// The drawn others' trace's header line (foothold-bot --trace-dir: DIR/drawn-<id>.csv).
  static constexpr const char* kDrawnHeader =
      "time_ns,view_tick,id,x,y,z,vx,vy,vz,error_m,pop_m,causes";
  const FrameCounts& counts() const { return counts_; }

 private:
  struct Remote {
    Vec3 drawn, velocity;  // drawn: the feet
    proto::Nanos at = 0;
    double view = 0;  // the view tick it was drawn at
  };
  // What explains its drawn feet's move since `was`, `dt` seconds before this frame.
  Vec3 explained(const client::ClientSession& session, const client::RemoteFrame& f, const OtherCharacter& o,
                 const Remote& was, const Vec3& velocity, double dt) const;
  FrameCounts counts_;
  bool have_local_ = false;
  Vec3 last_drawn_;
  proto::Nanos last_at_ = 0;
  std::map<uint32_t, Remote> remotes_;  // the others as last drawn, by id
  std::vector<client::DrawnRemote> drawn_remotes_;  // this frame's
  std::ostream* trace_ = nullptr;
  void write_row(proto::Nanos now, double view, const client::DrawnRemote& d, double pop);
};

}  // namespace foothold::bots
