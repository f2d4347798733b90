#include "session.h"

#include <algorithm>
#include <cstdio>

#include <SDL_opengl.h>

#include "palette.h"

namespace play {

void ErrorReporter::report(const char* call, const std::string& message) {
  std::string line = std::string(call) + ": " + message;
  if (line == last_) return;
  std::fprintf(stderr, "foothold-play: %s\n", line.c_str());
  last_ = std::move(line);
}

bool session_over(foothold_client_status status) {
  return status == FOOTHOLD_CLIENT_REJECTED || status == FOOTHOLD_CLIENT_FAILED || status == FOOTHOLD_CLIENT_TIMED_OUT ||
         status == FOOTHOLD_CLIENT_DISCONNECTED;
}

bool Session::load(std::string& error) {
  if (foothold_client_capsule(client_, &radius_, &height_, &crouch_height_) != FOOTHOLD_CLIENT_OK) {
    error = std::string("foothold_client_capsule: ") + foothold_client_last_error(client_);
    return false;
  }
  if (!world_.load(client_, error)) {
    error = "foothold_client_world_triangles: " + error;
    return false;
  }
  return true;
}

foothold_client_status Session::advance(const FrameInput& input, double now) {
  if (foothold_client_set_input(client_, input.move_x, input.move_z, input.buttons) != FOOTHOLD_CLIENT_OK)
    errors_.report("foothold_client_set_input", foothold_client_last_error(client_));
  if (foothold_client_update(client_, now) != FOOTHOLD_CLIENT_OK)
    errors_.report("foothold_client_update", foothold_client_last_error(client_));
  status_ = foothold_client_get_status(client_);
  foothold_client_stats stats{};
  if (foothold_client_get_stats(client_, &stats) != FOOTHOLD_CLIENT_OK)
    errors_.report("foothold_client_get_stats", foothold_client_last_error(client_));
  net_graph_.sample(stats, status_, now);
  // Characters exist only in a session: asking before (or after) is an ERROR_STATE, not news.
  if (status_ == FOOTHOLD_CLIENT_CONNECTED) {
    read_characters(stats.remote_count);
    net_graph_.sample_attributes(client_);
  }
  return status_;
}

void Session::read_characters(size_t remote_hint) {
  // As a game draws them at this frame's time: the own character between its predicted ticks with
  // corrections smoothed, the others on the view clock.
  double error[3] = {0, 0, 0};
  if (foothold_client_draw_local(client_, &local_, error) == FOOTHOLD_CLIENT_OK) {
    has_local_ = true;
    double view = 0;
    if (foothold_client_view_tick(client_, &view) != FOOTHOLD_CLIENT_OK)
      errors_.report("foothold_client_view_tick", foothold_client_last_error(client_));
    net_graph_.sample_drawing(error, view);
  } else {
    errors_.report("foothold_client_draw_local", foothold_client_last_error(client_));
  }
  // Room for every remote (storage that only ever grows): the stats' remote_count is the newest
  // snapshot's; a count beyond the room (one appeared since) grows it for the next frame. Drawn
  // once a frame: the drawing keeps what it drew, to take the next snapshot in smoothly.
  if (remote_hint > remotes_.size()) remotes_.resize(remote_hint);
  size_t count = 0;
  if (foothold_client_draw_remotes(client_, remotes_.data(), remotes_.size(), &count) != FOOTHOLD_CLIENT_OK) {
    errors_.report("foothold_client_draw_remotes", foothold_client_last_error(client_));
    count = 0;
  }
  remote_count_ = std::min(count, remotes_.size());
  if (count > remotes_.size()) remotes_.resize(count);
}

Vec3d Session::local_position() const { return {local_.position[0], local_.position[1], local_.position[2]}; }

void Session::draw(int width, int height, double camera_yaw) {
  glDisable(GL_DITHER);  // exact colours: the saved frames are checked against the palette
  glDisable(GL_CULL_FACE);
  glDisable(GL_LIGHTING);
  glShadeModel(GL_FLAT);
  glClearColor(float(kSky.r) / 255.0f, float(kSky.g) / 255.0f, float(kSky.b) / 255.0f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);

  const Camera camera = has_local_ ? follow_camera(local_position(), camera_yaw) : overview_camera(world_.bounds());
  begin_3d(camera, width, height, std::max(200.0, 4 * world_.bounds().extent()));
  world_.draw();
  std::string error;
  if (!movers_.draw(client_, error)) errors_.report("foothold_client_mover_triangles", error);
  auto capsule = [this](const foothold_client_character& c, Rgb colour) {
    draw_capsule({c.position[0], c.position[1], c.position[2]}, radius_, c.crouched ? crouch_height_ : height_, colour);
  };
  if (has_local_) capsule(local_, kLocalCharacter);
  for (size_t i = 0; i < remote_count_; ++i) capsule(remotes_[i], kRemoteCharacter);

  net_graph_.draw(width, height);
}

}  // namespace play
