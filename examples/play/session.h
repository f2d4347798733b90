#pragma once
// One play session: the client handle, what it says each frame, and how that is drawn.

#include <memory>
#include <string>
#include <vector>

#include <foothold/client.h>

#include "net_graph.h"
#include "scene.h"

namespace play {

struct ClientDeleter {
  void operator()(foothold_client* client) const { foothold_client_destroy(client); }
};
/// The client; destroying it says goodbye to the server.
using ClientPtr = std::unique_ptr<foothold_client, ClientDeleter>;

/// Prints a failed call with the client's message on stderr, but not the same line twice in a row:
/// a call that fails every frame must not flood the terminal.
class ErrorReporter {
 public:
  void report(const char* call, const std::string& message);

 private:
  std::string last_;
};

/// One frame's input: the wished direction in world axes and FOOTHOLD_CLIENT_BUTTON_* bits.
struct FrameInput {
  double move_x = 0, move_z = 0;
  uint32_t buttons = 0;
};

/// True for the statuses that end a session: rejected, failed, timed out, disconnected.
bool session_over(foothold_client_status status);

class Session {
 public:
  explicit Session(foothold_client* client) : client_(client) {}

  /// Reads the world into the GPU and the capsule's size (needs a current GL context).
  bool load(std::string& error);
  /// One frame: the input, then the client's update at `now` (seconds), then what it says.
  foothold_client_status advance(const FrameInput& input, double now);
  /// Draws the frame into a `width` x `height` viewport; `camera_yaw` turns the follow camera.
  void draw(int width, int height, double camera_yaw);

  /// The local character's centre once connected (the last one known after that).
  bool has_local() const { return has_local_; }
  Vec3d local_position() const;

 private:
  /// The local and remote characters; `remote_hint` is the stats' remote count.
  void read_characters(size_t remote_hint);

  foothold_client* client_;
  ErrorReporter errors_;
  WorldMesh world_;
  MoverMesh movers_;
  NetGraph net_graph_;
  double radius_ = 0.4, height_ = 1.8, crouch_height_ = 1.2;
  foothold_client_status status_ = FOOTHOLD_CLIENT_IDLE;
  bool has_local_ = false;
  foothold_client_character local_{};
  std::vector<foothold_client_character> remotes_;  ///< capacity kept between frames
  size_t remote_count_ = 0;
};

}  // namespace play
