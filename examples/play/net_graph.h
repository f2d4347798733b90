#pragma once
// The net graph: a panel in the top-left corner with the connection's numbers (status, round trip,
// corrections by kind, the drawn error the smoothing is taking in and the others' view delay,
// bytes per second, input buffer, server tick, remote count) and a bar graph
// of the round trip over the last kRttHistory frames.

#include <array>
#include <string>
#include <cstddef>
#include <cstdint>

#include <foothold/client.h>

namespace play {

class NetGraph {
 public:
  static constexpr size_t kRttHistory = 120;  ///< frames the bar graph covers

  /// Records this frame's numbers; `now` is the frame clock in seconds.
  void sample(const foothold_client_stats& stats, foothold_client_status status, double now);
  /// Records the game's replicated attributes (the local character's and the match's) by name, as
  /// "name=value" lines; nothing when the server's game declared none.
  void sample_attributes(const foothold_client* client);
  /// Records the own character's drawn error this frame (drawn minus predicted, metres: what
  /// foothold_client_draw_local's smoothing is still taking in) and the view tick the others are drawn at.
  void sample_drawing(const double error[3], double view_tick);
  /// Draws the panel over whatever is on screen, in a pixel-exact 2D projection of the viewport.
  void draw(int width, int height) const;

 private:
  foothold_client_stats stats_{};
  foothold_client_status status_ = FOOTHOLD_CLIENT_IDLE;
  std::array<double, kRttHistory> rtt_{};  ///< ms, -1 for none; a ring, newest at next_ - 1
  size_t next_ = 0;
  // Bytes per second: the counters' change over the last whole second.
  double mark_time_ = -1;
  uint64_t mark_in_ = 0, mark_out_ = 0;
  double in_per_second_ = 0, out_per_second_ = 0;
  // Frames per second, counted the same way.
  uint64_t frames_ = 0, mark_frames_ = 0;
  double fps_ = 0;
  // The drawn error now and its largest over the last second, metres; how far behind the newest
  // snapshot the others are drawn, ticks.
  double error_m_ = 0, error_peak_m_ = 0, error_window_peak_m_ = 0;
  double view_behind_ = 0;
  // The attributes' lines: the local character's, the match's.
  std::string mine_, match_;
};

/// "connected", "timed out", ... for a status.
const char* status_name(foothold_client_status status);

}  // namespace play
