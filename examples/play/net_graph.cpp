#include "net_graph.h"

#include <cmath>

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include <SDL_opengl.h>

#include "bitmap_font.h"
#include "palette.h"
#include "scene.h"

namespace play {

namespace {

constexpr int kLines = 11;
constexpr int kColumns = 38;        // characters: the panel's width
constexpr int kGraphHeight = 24;    // font pixels
constexpr int kPadding = 4;         // font pixels
constexpr double kMinGraphMs = 50;  // the graph's top is at least this many milliseconds

// Screen pixels per font pixel: 1 on small windows, more as they grow.
int overlay_scale(int height) { return std::max(1, height / 360); }

void fill_rect(float x0, float y0, float x1, float y1) {
  glBegin(GL_QUADS);
  glVertex2f(x0, y0);
  glVertex2f(x1, y0);
  glVertex2f(x1, y1);
  glVertex2f(x0, y1);
  glEnd();
}

}  // namespace

const char* status_name(foothold_client_status status) {
  switch (status) {
    case FOOTHOLD_CLIENT_IDLE: return "idle";
    case FOOTHOLD_CLIENT_CONNECTING: return "connecting";
    case FOOTHOLD_CLIENT_CONNECTED: return "connected";
    case FOOTHOLD_CLIENT_REJECTED: return "rejected";
    case FOOTHOLD_CLIENT_FAILED: return "failed";
    case FOOTHOLD_CLIENT_TIMED_OUT: return "timed out";
    case FOOTHOLD_CLIENT_DISCONNECTED: return "disconnected";
  }
  return "unknown";
}

void NetGraph::sample(const foothold_client_stats& stats, foothold_client_status status, double now) {
  stats_ = stats;
  status_ = status;
  rtt_[next_] = stats.rtt_ms_smoothed;
  next_ = (next_ + 1) % kRttHistory;
  ++frames_;
  if (mark_time_ < 0) {
    mark_time_ = now;
    mark_in_ = stats.bytes_in;
    mark_out_ = stats.bytes_out;
    mark_frames_ = frames_;
    return;
  }
  const double elapsed = now - mark_time_;
  if (elapsed < 1.0) return;
  // Counters restart at connect (zeros before): a counter that went back starts a fresh second.
  in_per_second_ = stats.bytes_in >= mark_in_ ? double(stats.bytes_in - mark_in_) / elapsed : 0;
  out_per_second_ = stats.bytes_out >= mark_out_ ? double(stats.bytes_out - mark_out_) / elapsed : 0;
  fps_ = double(frames_ - mark_frames_) / elapsed;
  error_peak_m_ = error_window_peak_m_;
  error_window_peak_m_ = 0;
  mark_time_ = now;
  mark_in_ = stats.bytes_in;
  mark_out_ = stats.bytes_out;
  mark_frames_ = frames_;
}

void NetGraph::sample_drawing(const double error[3], double view_tick) {
  error_m_ = std::sqrt(error[0] * error[0] + error[1] * error[1] + error[2] * error[2]);
  error_window_peak_m_ = std::max(error_window_peak_m_, error_m_);
  view_behind_ = stats_.server_tick > 0 ? double(stats_.server_tick) - view_tick : 0;
}

void NetGraph::sample_attributes(const foothold_client* client) {
  auto line = [client](int32_t scope, const char* label) {
    std::string out;
    for (int32_t i = 0; i < 16; ++i) {
      const char* name = foothold_client_attribute_name(client, scope, i);
      int32_t value = 0;
      if (!name || foothold_client_attribute(client, scope, i, &value) != FOOTHOLD_CLIENT_OK) continue;
      out += (out.empty() ? label : " ") + std::string(name) + "=" + std::to_string(value);
    }
    return out;
  };
  mine_ = line(FOOTHOLD_CLIENT_ATTRIBUTE_CHARACTER, "mine: ");
  match_ = line(FOOTHOLD_CLIENT_ATTRIBUTE_MATCH, "match: ");
}

void NetGraph::draw(int width, int height) const {
  const int s = overlay_scale(height);
  const float line = float(kLineAdvance * s), pad = float(kPadding * s);
  const float panel_w = float(kColumns * kGlyphAdvance * s) + 2 * pad;
  const float graph_h = float(kGraphHeight * s);
  const float panel_h = kLines * line + graph_h + 3 * pad;

  // A pixel-exact projection with y down, on top of the 3D frame.
  glViewport(0, 0, width, height);
  glMatrixMode(GL_PROJECTION);
  const Mat4 ortho = orthographic(0, width, height, 0, -1, 1);
  glLoadMatrixd(ortho.data());
  glMatrixMode(GL_MODELVIEW);
  glLoadIdentity();
  glDisable(GL_DEPTH_TEST);

  glColor3ub(kPanel.r, kPanel.g, kPanel.b);
  fill_rect(0, 0, panel_w, panel_h);

  // The graph's top, in ms: the worst sample shown, at least kMinGraphMs.
  double top = kMinGraphMs;
  for (double ms : rtt_) top = std::max(top, ms);

  char text[kLines][96];
  const bool bad = status_ != FOOTHOLD_CLIENT_CONNECTING && status_ != FOOTHOLD_CLIENT_CONNECTED;
  std::snprintf(text[0], sizeof text[0], "%s  %.0f fps", status_name(status_), fps_);
  if (stats_.rtt_ms_smoothed < 0) std::snprintf(text[1], sizeof text[1], "rtt -");
  else std::snprintf(text[1], sizeof text[1], "rtt %.1f ms, last %.1f, graph 0-%.0f", stats_.rtt_ms_smoothed, stats_.rtt_ms, top);
  std::snprintf(text[2], sizeof text[2], "corrections %" PRIu64, stats_.corrections);
  std::snprintf(text[3], sizeof text[3], " input %" PRIu64 " interact %" PRIu64 " server %" PRIu64 " unexpl %" PRIu64,
                stats_.corrections_input, stats_.corrections_interaction, stats_.corrections_server,
                stats_.corrections_unexplained);
  std::snprintf(text[4], sizeof text[4], "smoothing %.1f cm, 1 s peak %.1f", error_m_ * 100, error_peak_m_ * 100);
  std::snprintf(text[5], sizeof text[5], "bytes/s in %.0f out %.0f", in_per_second_, out_per_second_);
  std::snprintf(text[6], sizeof text[6], "input buffer %d ticks", int(stats_.input_lead_ticks));
  std::snprintf(text[7], sizeof text[7], "server tick %u, view -%.1f", unsigned(stats_.server_tick), view_behind_);
  std::snprintf(text[8], sizeof text[8], "remotes %u", unsigned(stats_.remote_count));
  // The game's attributes, cut to the panel's width.
  std::snprintf(text[9], sizeof text[9], "%.*s", kColumns, mine_.empty() ? "mine: -" : mine_.c_str());
  std::snprintf(text[10], sizeof text[10], "%.*s", kColumns, match_.empty() ? "match: -" : match_.c_str());
  for (int i = 0; i < kLines; ++i) {
    // Unexplained corrections are a determinism bug: that line, and a failed status, stand out.
    const bool warn = (i == 0 && bad) || (i == 3 && stats_.corrections_unexplained > 0);
    const Rgb c = warn ? kTextWarn : kText;
    glColor3ub(c.r, c.g, c.b);
    draw_text(text[i], pad, pad + float(i) * line, s);
  }

  // The round trip, one bar per frame, oldest on the left.
  const float graph_y = pad * 2 + kLines * line, bar_w = (panel_w - 2 * pad) / float(kRttHistory);
  glColor3ub(kRttBar.r, kRttBar.g, kRttBar.b);
  glBegin(GL_QUADS);
  for (size_t i = 0; i < kRttHistory; ++i) {
    const double ms = rtt_[(next_ + i) % kRttHistory];
    if (ms <= 0) continue;
    const float x = pad + float(i) * bar_w, h = float(std::min(1.0, ms / top)) * graph_h;
    glVertex2f(x, graph_y + graph_h - h);
    glVertex2f(x + bar_w, graph_y + graph_h - h);
    glVertex2f(x + bar_w, graph_y + graph_h);
    glVertex2f(x, graph_y + graph_h);
  }
  glEnd();
}

}  // namespace play
