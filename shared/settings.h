#pragma once
// Movement settings: what the server and every client must agree on, bit for bit. They come from a
// TOML file (untrusted), are validated, hashed into the handshake, and turned once into the derived
// constants the step uses.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "shared/character_state.h"

namespace foothold {

/// A movement profile: a named set of the settings that leave the capsule's shape and the tick alone
/// (walk and crouch speed, jump, gravity, air steering, fall speed, coyote time, jump buffer), from a
/// `[profiles.NAME]` table of the settings file. Its values are resolved: the base's where the table
/// does not give them. A character moves with one when its state's `profile` names it.
/// Each value means what the MoveSettings field of its name does, in the same unit and range, and
/// defaults to the same.
struct MoveProfile {
  std::string name;              ///< 1 to kMaxProfileName characters of [a-z0-9_-]; never "base"
  double walk_speed = 5;         ///< metres per second
  double crouch_speed = 2.5;     ///< metres per second
  double jump_speed = 7;         ///< metres per second
  double gravity = 20;           ///< metres per second^2
  double air_acceleration = 10;  ///< metres per second^2
  double max_fall_speed = 55;    ///< metres per second
  double coyote_time = 0.1;      ///< seconds
  double jump_buffer = 0.1;      ///< seconds
  bool operator==(const MoveProfile&) const = default;
};
/// The longest profile name.
inline constexpr std::size_t kMaxProfileName = 32;

/// The tunable movement parameters. Defaults are Foothold's reference character. Each field has one
/// row in the key table of settings.cpp (its TOML key, unit, range and meaning), which drives
/// parsing, validation, hashing, printing and the settings table of docs/settings.md; adding a setting is a
/// field here and a row there (and, if a movement profile may give it, a field of MoveProfile named
/// in that row). `profiles` is the one field that is not a key.
struct MoveSettings {
  int tick_rate = 60;                 ///< simulation ticks per second [10, 240]
  double radius = 0.4;                ///< capsule radius, metres [0.05, 5]
  double height = 1.8;                ///< capsule total height including both caps, metres (> 2 * radius, <= 20)
  double max_slope_deg = 45;          ///< steepest walkable slope, degrees (0, 89]
  double step_height = 0.35;          ///< highest stair a grounded character climbs, metres [0, height / 2]
  double walk_speed = 5;              ///< ground speed at full input, metres per second [0, 100]
  double gravity = 20;                ///< downward acceleration while airborne, metres per second^2 [0, 200]
  double jump_speed = 7;              ///< upward speed a jump gives, metres per second [0, 100]
  double air_acceleration = 10;       ///< horizontal acceleration toward the input while airborne, m/s^2 [0, 1000]
  double max_fall_speed = 55;         ///< terminal downward speed, metres per second [1, 500]
  double contact_distance = 0.04;     ///< gap within which a surface counts as touching for grounding, metres
                                      ///< [0.008, 0.5]; grounded characters rest at half of it
  double safety_margin = 0.01;        ///< gap the solver keeps from every surface, metres
                                      ///< [0.002, contact_distance / 2)
  double coyote_time = 0.1;           ///< seconds after walking off the ground a jump still works [0, 1]; 0: off
  double jump_buffer = 0.1;           ///< seconds a jump pressed before landing waits for it [0, 1]; 0: off
  double crouch_height = 1.2;         ///< capsule total height while crouched, metres (> 2 * radius, <= height)
  double crouch_speed = 2.5;          ///< ground speed at full input while crouched, metres per second [0, 100]
  int max_iterations = 16;            ///< collide-and-slide iterations per tick [1, 64]
  int max_pushout_iterations = 8;     ///< push-out iterations per tick [1, 64]
  double push_friction = 20;          ///< how fast a push (CharacterState::push) dies on the ground, m/s^2 [0, 1000]
  double push_air_friction = 4;       ///< how fast a push dies in the air, m/s^2 [0, 1000]
  /// The movement profiles, ascending by name (at most kMaxProfiles): profile k (k >= 1) of a
  /// character's state is profiles[k - 1]; 0 is these base settings.
  std::vector<MoveProfile> profiles;

  /// Every violated constraint, one message each, naming the key (a profile's as profiles.NAME.key);
  /// empty when the settings are usable. Profiles must be ascending by name, without repeats.
  std::vector<std::string> validate() const;

  /// A hash of every value (their exact bits), profiles included, for the handshake and recordings.
  /// Settings without profiles hash as they did before profiles existed.
  uint64_t hash() const;

  /// The profile index of `name`: k >= 1 for the k-th profile, 0 for "base", -1 for any other name.
  int profile_index(std::string_view name) const;
  /// The name of profile `index`: "base" for 0, the profile's name for 1 .. profiles.size(), and ""
  /// for any other index.
  std::string_view profile_name(int index) const;
  /// These settings with profile `index`'s values in place of the base's (the base settings for 0
  /// or an index with no profile), and no profiles.
  MoveSettings with_profile(int index) const;

  bool operator==(const MoveSettings&) const = default;
};

/// The settings as the step reads them: every MoveSettings value, plus the constants derived from
/// them once (so that no step computes a cosine). Built only by derive().
struct DerivedSettings : MoveSettings {
  double dt = 0;               ///< seconds per tick: 1 / tick_rate
  double half_segment = 0;     ///< half the length of the capsule's core segment, metres: height / 2 - radius
  double cos_max_slope = 0;    ///< a contact normal with n.y >= this is walkable (movement.md §3.2)
  double sin_max_slope = 0;    ///< the steepest walkable direction's rise per metre of travel
  double tan_max_slope = 0;    ///< the steepest walkable rise per metre of horizontal travel
  double rest_gap = 0;         ///< metres: the gap a grounded character is locked at, contact_distance / 2 (§10)
  int coyote_ticks = 0;        ///< coyote_time in whole ticks (rounded): airborne ticks a jump still works (§5.2)
  int buffer_ticks = 0;        ///< jump_buffer in whole ticks (rounded): how old a press may be and still jump (§5.2)
  /// How far the capsule centre drops on crouching, metres: (height - crouch_height) / 2 rounded to
  /// the position grid, so that crouching and standing keep a character on the grid (§5.4).
  double crouch_drop = 0;
  double crouch_half_segment = 0;  ///< half_segment - crouch_drop: the crouched capsule's, metres
  /// With profiles, one entry per profile index (0 the base), each derived from with_profile() and
  /// carrying no profiles of its own: what step() moves a character with. Empty without profiles.
  std::vector<DerivedSettings> by_profile;

  /// The settings a character whose state says `profile` moves with: by_profile's entry, or these
  /// settings when there are no profiles; an index with no profile gets the base's. Never allocates.
  const DerivedSettings& for_profile(uint8_t profile) const {
    if (by_profile.empty()) return *this;
    return profile < by_profile.size() ? by_profile[profile] : by_profile[0];
  }
};

/// One row of the settings table of docs/settings.md: a key's TOML name, default, unit, range and meaning.
struct SettingDoc {
  std::string key, default_value, unit, range, meaning;  ///< as the README prints them (default: shortest exact)
};
/// Every setting key, in the README's order.
std::vector<SettingDoc> setting_docs();
/// The settings table of docs/settings.md (Markdown), generated from the key table; a test checks the page.
std::string settings_markdown_table();

/// The keys a `[profiles.NAME]` table may give, in the key table's order.
std::vector<std::string> profile_keys();

/// Derives the step's constants. Precondition: settings.validate() is empty.
DerivedSettings derive(const MoveSettings& settings);

}  // namespace foothold
