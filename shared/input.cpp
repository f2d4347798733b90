#include "shared/input.h"

#include <cmath>

#include "shared/det_math.h"

namespace foothold {

namespace {
int8_t to_axis(double v) {
  if (!std::isfinite(v)) return 0;
  const double c = det_min(det_max(v, -1.0), 1.0);
  return int8_t(det_llround(c * 127.0));
}
double from_axis(int8_t a) { return a == -128 ? -1.0 : a / 127.0; }
}  // namespace

InputCmd encode_move(double x, double z, uint8_t buttons, uint32_t tick) {
  if (!std::isfinite(x)) x = 0;
  if (!std::isfinite(z)) z = 0;
  const double len = std::sqrt(x * x + z * z);
  if (len > 1) {
    x /= len;
    z /= len;
  }
  InputCmd in;
  in.tick = tick;
  in.move_x = to_axis(x);
  in.move_z = to_axis(z);
  in.buttons = uint8_t(buttons & kKnownButtons);
  return in;
}

Vec3 wish_direction(const InputCmd& input) {
  Vec3 w{from_axis(input.move_x), 0, from_axis(input.move_z)};
  const double len_sq = length_sq(w);
  // Rounding to 1/127 steps can make a unit diagonal slightly longer than 1; never faster than full.
  if (len_sq > 1) w = w / std::sqrt(len_sq);
  return w;
}

}  // namespace foothold
