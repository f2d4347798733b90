#include "shared/settings.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "shared/det_math.h"
#include "shared/fixed_point.h"
#include "shared/hash.h"
#include "shared/setting_keys.h"

namespace foothold {

namespace {

// One table drives parsing, validation, hashing, printing and the settings table of
// docs/settings.md: a setting is a field of MoveSettings and a row here.
using Bound = SettingBound;
using Key = SettingKey;

constexpr Bound at(double v) { return {v, nullptr, nullptr, 1, false}; }
constexpr Bound above(double v) { return {v, nullptr, nullptr, 1, true}; }
constexpr Bound share(double MoveSettings::*key, const char* name, double scale, bool open) {
  return {0, key, name, scale, open};
}

const Key kKeys[] = {
    {"tick_rate", nullptr, &MoveSettings::tick_rate, "ticks/s", at(10), at(240), "[10, 240]", "simulation rate"},
    {"radius", &MoveSettings::radius, nullptr, "m", at(0.05), at(5), "[0.05, 5]", "capsule radius"},
    {"height", &MoveSettings::height, nullptr, "m", share(&MoveSettings::radius, "radius", 2, true), at(20),
     "(2 * radius, 20]", "capsule total height, caps included"},
    {"max_slope_deg", &MoveSettings::max_slope_deg, nullptr, "degrees", above(0), at(89), "(0, 89]",
     "steepest walkable slope"},
    {"step_height", &MoveSettings::step_height, nullptr, "m", at(0), share(&MoveSettings::height, "height", 0.5, false),
     "[0, height / 2]", "highest stair a grounded character climbs"},
    {"walk_speed", &MoveSettings::walk_speed, nullptr, "m/s", at(0), at(100), "[0, 100]",
     "ground speed at full input, also along slopes", &MoveProfile::walk_speed},
    {"gravity", &MoveSettings::gravity, nullptr, "m/s^2", at(0), at(200), "[0, 200]",
     "downward acceleration while airborne", &MoveProfile::gravity},
    {"jump_speed", &MoveSettings::jump_speed, nullptr, "m/s", at(0), at(100), "[0, 100]", "upward speed a jump gives",
     &MoveProfile::jump_speed},
    {"air_acceleration", &MoveSettings::air_acceleration, nullptr, "m/s^2", at(0), at(1000), "[0, 1000]",
     "horizontal steering toward the input while airborne", &MoveProfile::air_acceleration},
    {"max_fall_speed", &MoveSettings::max_fall_speed, nullptr, "m/s", at(1), at(500), "[1, 500]", "terminal falling speed",
     &MoveProfile::max_fall_speed},
    {"contact_distance", &MoveSettings::contact_distance, nullptr, "m", at(0.008), at(0.5), "[0.008, 0.5]",
     "gap within which a surface counts for grounding; grounded characters rest at half of it"},
    // The margin must stay clear of the quantum (so rounding a position never reaches a surface) and
    // below the rest gap (so a character sliding along its floor never touches it).
    {"safety_margin", &MoveSettings::safety_margin, nullptr, "m", at(0.002),
     share(&MoveSettings::contact_distance, "contact_distance", 0.5, true), "[0.002, contact_distance / 2)",
     "gap the solver keeps from every surface"},
    {"coyote_time", &MoveSettings::coyote_time, nullptr, "s", at(0), at(1), "[0, 1]",
     "a jump still works this long after walking off the ground; 0 turns it off", &MoveProfile::coyote_time},
    {"jump_buffer", &MoveSettings::jump_buffer, nullptr, "s", at(0), at(1), "[0, 1]",
     "a jump pressed this long before landing happens on landing; 0 turns it off", &MoveProfile::jump_buffer},
    {"crouch_height", &MoveSettings::crouch_height, nullptr, "m", share(&MoveSettings::radius, "radius", 2, true),
     share(&MoveSettings::height, "height", 1, false), "(2 * radius, height]", "capsule total height while crouched"},
    {"crouch_speed", &MoveSettings::crouch_speed, nullptr, "m/s", at(0), at(100), "[0, 100]",
     "ground speed at full input while crouched", &MoveProfile::crouch_speed},
    {"max_iterations", nullptr, &MoveSettings::max_iterations, "", at(1), at(64), "[1, 64]",
     "collide-and-slide iterations per tick"},
    {"max_pushout_iterations", nullptr, &MoveSettings::max_pushout_iterations, "", at(1), at(64), "[1, 64]",
     "push-out iterations per tick"},
    // A push's friction: a 6 m/s knockback on the ground goes about 6^2 / (2 * 20) = 0.9 m. 0 keeps a
    // push until a wall takes it. Hashed only when changed (settings from before pushes keep theirs).
    {"push_friction", &MoveSettings::push_friction, nullptr, "m/s^2", at(0), at(1000), "[0, 1000]",
     "how fast a game's push (knockback) dies on the ground", nullptr, true},
    {"push_air_friction", &MoveSettings::push_air_friction, nullptr, "m/s^2", at(0), at(1000), "[0, 1000]",
     "how fast a game's push dies in the air", nullptr, true},
};

double value_of(const MoveSettings& s, const Key& k) { return setting_value(s, k); }

std::string number(double v) { return exact_number_text(v); }

}  // namespace

std::span<const SettingKey> setting_keys() { return kKeys; }

double setting_value(const MoveSettings& s, const SettingKey& k) { return k.real ? s.*k.real : double(s.*k.whole); }

std::string exact_number_text(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

namespace {

// The shortest text that reads back to v ("0.4", "45"): for people, in docs/settings.md.
std::string shortest(double v) {
  char buf[40];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

// Checks one bound; on failure appends the message. `below` is true for the lower bound.
bool within(const MoveSettings& s, const Key& k, const Bound& b, bool below, std::vector<std::string>& errors) {
  const double v = value_of(s, k);
  const double limit = b.key ? s.*b.key * b.scale : b.value;
  const bool ok = below ? (b.open ? v > limit : v >= limit) : (b.open ? v < limit : v <= limit);
  if (ok) return true;
  std::string msg = std::string(k.name) + " = " + number(v) + " is out of range " + k.range;
  if (*k.unit) msg += std::string(" ") + k.unit;
  if (b.key) msg += " (" + std::string(b.key_name) + " = " + number(s.*b.key) + ")";
  errors.push_back(msg);
  return false;
}

// A profile's name: 1 to kMaxProfileName of [a-z0-9_-], and not "base" (profile 0's name).
bool valid_profile_name(std::string_view name) {
  if (name.empty() || name.size() > kMaxProfileName || name == "base") return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return false;
  return true;
}

// Every key's range (or only the keys a profile may give), one message for each violated one.
void check_ranges(const MoveSettings& s, bool profile_keys_only, std::vector<std::string>& e) {
  // NaN fails every comparison, so it is out of range of its lower bound.
  for (const Key& k : kKeys)
    if ((k.profile || !profile_keys_only) && within(s, k, k.lo, true, e)) within(s, k, k.hi, false, e);
}

}  // namespace

std::vector<std::string> MoveSettings::validate() const {
  std::vector<std::string> e;
  check_ranges(*this, false, e);
  if (profiles.size() > std::size_t(kMaxProfiles))
    e.push_back("profiles: " + std::to_string(profiles.size()) + " profiles, at most " + std::to_string(kMaxProfiles));
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    const std::string& name = profiles[i].name;
    if (!valid_profile_name(name)) {
      e.push_back("profiles." + name + ": a profile's name is 1 to " + std::to_string(kMaxProfileName) +
                  " characters of a-z, 0-9, _ and -, and not 'base'");
    }
    if (i > 0 && !(profiles[i - 1].name < name))
      e.push_back("profiles." + name + ": profiles must be in ascending name order, each name once");
    // The same ranges as the base keys, with the profile's values in the base's place.
    std::vector<std::string> own;
    check_ranges(with_profile(int(i) + 1), true, own);
    for (const std::string& m : own) e.push_back("profiles." + name + "." + m);
  }
  return e;
}

int MoveSettings::profile_index(std::string_view name) const {
  if (name == "base") return 0;
  for (std::size_t i = 0; i < profiles.size(); ++i)
    if (profiles[i].name == name) return int(i) + 1;
  return -1;
}

std::string_view MoveSettings::profile_name(int index) const {
  if (index == 0) return "base";
  if (index >= 1 && std::size_t(index) <= profiles.size()) return profiles[std::size_t(index) - 1].name;
  return {};
}

MoveSettings MoveSettings::with_profile(int index) const {
  MoveSettings out;
  // Every base value but the profiles (copying them would make each profile's settings hold all).
  for (const Key& k : kKeys) {
    if (k.real) out.*k.real = this->*k.real;
    if (k.whole) out.*k.whole = this->*k.whole;
  }
  if (index < 1 || std::size_t(index) > profiles.size()) return out;
  const MoveProfile& p = profiles[std::size_t(index) - 1];
  for (const Key& k : kKeys)
    if (k.profile) out.*k.real = p.*k.profile;
  return out;
}

std::vector<std::string> profile_keys() {
  std::vector<std::string> out;
  for (const Key& k : kKeys)
    if (k.profile) out.emplace_back(k.name);
  return out;
}

uint64_t MoveSettings::hash() const {
  // Whole numbers first, then reals, each in table order: the order of foothold.settings.v1.
  Hasher h;
  h.add_string("foothold.settings.v1");
  for (const Key& k : kKeys) {
    if (!k.whole) continue;
    h.add_string(k.name);
    h.add_i32(this->*k.whole);
  }
  static const MoveSettings kDefaults;
  for (const Key& k : kKeys) {
    if (!k.real || (k.hashed_when_changed && this->*k.real == kDefaults.*k.real)) continue;
    h.add_string(k.name);
    h.add_double(this->*k.real);
  }
  // Profiles follow, only when there are any: settings without them keep the hash they had before
  // profiles existed (recordings and deployed configurations name it).
  if (!profiles.empty()) {
    h.add_string("profiles");
    h.add_u64(profiles.size());
    for (const MoveProfile& p : profiles) {
      h.add_string(p.name);
      for (const Key& k : kKeys) {
        if (!k.profile) continue;
        h.add_string(k.name);
        h.add_double(p.*k.profile);
      }
    }
  }
  return h.value();
}

DerivedSettings derive(const MoveSettings& s) {
  DerivedSettings d;
  static_cast<MoveSettings&>(d) = s;
  d.dt = 1.0 / s.tick_rate;
  d.half_segment = s.height / 2 - s.radius;
  const double slope = det_radians(s.max_slope_deg);
  d.cos_max_slope = det_cos(slope);
  d.sin_max_slope = det_sin(slope);
  d.tan_max_slope = d.sin_max_slope / d.cos_max_slope;
  d.rest_gap = s.contact_distance / 2;
  // Whole ticks, rounded to nearest (det_llround is exact): 0.1 s at 60 Hz is 6 ticks.
  d.coyote_ticks = int(det_llround(s.coyote_time * s.tick_rate));
  d.buffer_ticks = int(det_llround(s.jump_buffer * s.tick_rate));
  // On the position grid (det_llround is exact), never more than the standing capsule's core segment.
  d.crouch_drop = det_min(double(det_llround((s.height - s.crouch_height) / 2 * kPositionScale)) / kPositionScale,
                            2 * d.half_segment);
  d.crouch_half_segment = d.half_segment - d.crouch_drop;
  // Each profile's settings derived whole, once, so that a step picks them by index and copies
  // nothing that allocates (no entry holds profiles of its own).
  if (!s.profiles.empty()) {
    d.by_profile.reserve(s.profiles.size() + 1);
    for (std::size_t i = 0; i <= s.profiles.size(); ++i) d.by_profile.push_back(derive(s.with_profile(int(i))));
  }
  return d;
}

std::vector<SettingDoc> setting_docs() {
  const MoveSettings defaults;
  std::vector<SettingDoc> out;
  for (const Key& k : kKeys)
    out.push_back({k.name, shortest(value_of(defaults, k)), k.unit, k.range, k.meaning});
  return out;
}

std::string settings_markdown_table() {
  std::string out = "| key | default | unit | range | meaning |\n|-----|---------|------|-------|---------|\n";
  for (const SettingDoc& d : setting_docs())
    out += "| `" + d.key + "` | " + d.default_value + " | " + d.unit + " | " + d.range + " | " + d.meaning + " |\n";
  return out;
}

}  // namespace foothold
