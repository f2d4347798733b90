#pragma once
// What a player sends for one tick: integers only, so the server and the client feed the step
// exactly the same numbers.

#include <cstddef>
#include <cstdint>

#include "shared/vec3.h"

namespace foothold {

/// Button bits of InputCmd::buttons.
enum Button : uint8_t {
  kButtonJump = 1u << 0,    ///< jump, when grounded at the start of the tick (movement.md §5.2)
  kButtonCrouch = 1u << 1,  ///< crouch while held; released, stand up where there is room (movement.md §5.4)
};
/// The button bits the step knows; others are ignored (and cleared by decoders).
inline constexpr uint8_t kKnownButtons = kButtonJump | kButtonCrouch;

/// One tick of input. move_x and move_z are world-axis stick values in [-127, 127], where 127 is full
/// speed; a vector longer than 127 is treated as unit length. -128 is read as -127.
struct InputCmd {
  uint32_t tick = 0;   ///< the simulation tick this input is for
  int8_t move_x = 0;   ///< world X axis, [-127, 127]
  int8_t move_z = 0;   ///< world Z axis, [-127, 127]
  uint8_t buttons = 0; ///< Button bits
  bool operator==(const InputCmd&) const = default;
  /// Equal apart from the tick number: the same command for the step.
  bool same_command(const InputCmd& o) const {
    return move_x == o.move_x && move_z == o.move_z && buttons == o.buttons;
  }
};

/// Most inputs of another character a client is given beyond the one the server last stepped it with
/// (proto::SnapshotNeighbour::ahead, PredictedNeighbour::ahead): those the server already holds for
/// the ticks that follow.
inline constexpr std::size_t kMaxInputsAhead = 7;

/// Turns a wished direction (x, z in world axes, each in [-1, 1]; longer vectors are normalised) into
/// the stick values a client sends. Non-finite values count as 0; unknown bits of `buttons` are cleared.
InputCmd encode_move(double x, double z, uint8_t buttons, uint32_t tick);

/// The horizontal wish vector of an input in world axes: length at most 1 (full stick), Y = 0.
Vec3 wish_direction(const InputCmd& input);

}  // namespace foothold
