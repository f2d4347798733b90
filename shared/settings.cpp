#include "shared/settings.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <toml++/toml.h>

#include "shared/det_math.h"
#include "shared/fixed_point.h"
#include "shared/hash.h"

namespace foothold {

namespace {

// One table drives parsing, validation messages, hashing and printing, so a new setting is
// added in exactly one place besides the struct.
struct DoubleKey {
  const char* name;
  double MoveSettings::*field;
};
struct IntKey {
  const char* name;
  int MoveSettings::*field;
};

constexpr DoubleKey kDoubleKeys[] = {
    {"radius", &MoveSettings::radius},
    {"height", &MoveSettings::height},
    {"max_slope_deg", &MoveSettings::max_slope_deg},
    {"step_height", &MoveSettings::step_height},
    {"walk_speed", &MoveSettings::walk_speed},
    {"gravity", &MoveSettings::gravity},
    {"jump_speed", &MoveSettings::jump_speed},
    {"air_acceleration", &MoveSettings::air_acceleration},
    {"max_fall_speed", &MoveSettings::max_fall_speed},
    {"contact_distance", &MoveSettings::contact_distance},
    {"safety_margin", &MoveSettings::safety_margin},
};
constexpr IntKey kIntKeys[] = {
    {"tick_rate", &MoveSettings::tick_rate},
    {"max_iterations", &MoveSettings::max_iterations},
    {"max_pushout_iterations", &MoveSettings::max_pushout_iterations},
};

std::string number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

void check_range(std::vector<std::string>& errors, const char* key, double v, double lo, double hi,
                 const char* bounds) {
  if (!(v >= lo && v <= hi)) errors.push_back(std::string(key) + " = " + number(v) + " is out of range " + bounds);
}

}  // namespace

std::vector<std::string> MoveSettings::validate() const {
  std::vector<std::string> e;
  check_range(e, "tick_rate", tick_rate, 10, 240, "[10, 240]");
  check_range(e, "radius", radius, 0.05, 5, "[0.05, 5] m");
  check_range(e, "height", height, 0, 20, "(2 * radius, 20] m");
  if (height <= 2 * radius) e.push_back("height = " + number(height) + " must exceed 2 * radius = " + number(2 * radius));
  check_range(e, "max_slope_deg", max_slope_deg, 1e-9, 89, "(0, 89] degrees");
  check_range(e, "step_height", step_height, 0, height / 2, "[0, height / 2] m");
  check_range(e, "walk_speed", walk_speed, 0, 100, "[0, 100] m/s");
  check_range(e, "gravity", gravity, 0, 200, "[0, 200] m/s^2");
  check_range(e, "jump_speed", jump_speed, 0, 100, "[0, 100] m/s");
  check_range(e, "air_acceleration", air_acceleration, 0, 1000, "[0, 1000] m/s^2");
  check_range(e, "max_fall_speed", max_fall_speed, 1, 500, "[1, 500] m/s");
  check_range(e, "contact_distance", contact_distance, 0.008, 0.5, "[0.008, 0.5] m");
  // The margin must stay clear of the quantum (so rounding a position never reaches a surface) and
  // below the rest gap (so a character sliding along its floor never touches it).
  check_range(e, "safety_margin", safety_margin, 0.002, 0.25, "[0.002, contact_distance / 2) m");
  if (safety_margin >= contact_distance / 2)
    e.push_back("safety_margin = " + number(safety_margin) + " must be less than contact_distance / 2 = " +
                number(contact_distance / 2));
  check_range(e, "max_iterations", max_iterations, 1, 64, "[1, 64]");
  check_range(e, "max_pushout_iterations", max_pushout_iterations, 1, 64, "[1, 64]");
  return e;
}

uint64_t MoveSettings::hash() const {
  Hasher h;
  h.add_string("foothold.settings.v1");
  for (const auto& k : kIntKeys) {
    h.add_string(k.name);
    h.add_i32(this->*k.field);
  }
  for (const auto& k : kDoubleKeys) {
    h.add_string(k.name);
    h.add_double(this->*k.field);
  }
  return h.value();
}

DerivedSettings derive(const MoveSettings& s) {
  DerivedSettings d;
  d.dt = 1.0 / s.tick_rate;
  d.radius = s.radius;
  d.half_segment = s.height / 2 - s.radius;
  const double slope = det_radians(s.max_slope_deg);
  d.cos_max_slope = det_cos(slope);
  d.sin_max_slope = det_sin(slope);
  d.tan_max_slope = d.sin_max_slope / d.cos_max_slope;
  d.step_height = s.step_height;
  d.walk_speed = s.walk_speed;
  d.gravity = s.gravity;
  d.jump_speed = s.jump_speed;
  d.air_acceleration = s.air_acceleration;
  d.max_fall_speed = s.max_fall_speed;
  d.contact_distance = s.contact_distance;
  d.rest_gap = s.contact_distance / 2;
  d.safety_margin = s.safety_margin;
  d.max_iterations = s.max_iterations;
  d.max_pushout_iterations = s.max_pushout_iterations;
  return d;
}

SettingsLoad parse_settings(std::string_view toml_text, std::string_view source) {
  SettingsLoad out;
  const std::string where(source);
  toml::table table;
  try {
    table = toml::parse(toml_text, source);
  } catch (const toml::parse_error& err) {
    std::ostringstream msg;
    msg << where << ":" << err.source().begin.line << ":" << err.source().begin.column << ": " << err.description();
    out.errors.push_back(msg.str());
    return out;
  }
  for (auto&& [key, node] : table) {
    const std::string name(key.str());
    const std::string at = where + ":" + std::to_string(node.source().begin.line) + ": ";
    bool known = false;
    for (const auto& k : kDoubleKeys) {
      if (name != k.name) continue;
      known = true;
      // Integers are accepted where a real number is expected ("gravity = 20").
      if (auto v = node.value<double>(); v && (node.is_floating_point() || node.is_integer())) {
        out.settings.*k.field = *v;
      } else {
        out.errors.push_back(at + name + " must be a number");
      }
    }
    for (const auto& k : kIntKeys) {
      if (name != k.name) continue;
      known = true;
      if (auto v = node.as_integer(); v && v->get() >= -1000000 && v->get() <= 1000000) {
        out.settings.*k.field = int(v->get());
      } else {
        out.errors.push_back(at + name + " must be a whole number");
      }
    }
    if (!known) out.errors.push_back(at + "unknown key '" + name + "'");
  }
  if (out.errors.empty()) {
    for (const auto& e : out.settings.validate()) out.errors.push_back(where + ": " + e);
  }
  return out;
}

SettingsLoad load_settings_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    SettingsLoad out;
    out.errors.push_back(path + ": cannot open settings file");
    return out;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_settings(text.str(), path);
}

std::string settings_to_toml(const MoveSettings& s) {
  std::string out;
  for (const auto& k : kIntKeys) out += std::string(k.name) + " = " + std::to_string(s.*k.field) + "\n";
  for (const auto& k : kDoubleKeys) out += std::string(k.name) + " = " + number(s.*k.field) + "\n";
  return out;
}

}  // namespace foothold
