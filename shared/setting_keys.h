#pragma once
// The settings' key table: one row per field of MoveSettings, read by validation, hashing and the
// settings table of docs/settings.md (settings.cpp) and by the TOML reader and writer (formats/settings_file.cpp).

#include <span>
#include <string>

#include "shared/settings.h"

namespace foothold {

/// A bound of a setting: a number, or a share of another key's value (height must exceed
/// 2 * radius); `open` excludes the bound itself.
struct SettingBound {
  double value = 0;
  double MoveSettings::*key = nullptr;  ///< when set, the bound is scale * that key's value
  const char* key_name = nullptr;       ///< that key's TOML name
  double scale = 1;                     ///< the share of that key's value
  bool open = false;                    ///< the bound itself is out of range
};

/// One setting: a field of MoveSettings (real- or whole-valued) and how people see it.
struct SettingKey {
  const char* name;                      ///< the TOML key
  double MoveSettings::*real = nullptr;  ///< a real-valued setting, or
  int MoveSettings::*whole = nullptr;    ///< a whole-number one
  const char* unit;                      ///< "m", "m/s", ... ("" for counts)
  SettingBound lo, hi;                   ///< the range
  const char* range;                     ///< the bounds as the README and messages write them
  const char* meaning;                   ///< one line for the README
  /// The same value in a movement profile, for the keys a `[profiles.NAME]` table may give (those
  /// that change neither the capsule's shape nor the tick); null for the others.
  double MoveProfile::*profile = nullptr;
  /// Hashed only when it differs from its default (MoveSettings{}): a key added after settings were
  /// deployed, so that settings that leave it alone keep the hash they had (recordings name it).
  bool hashed_when_changed = false;
};

/// Every setting, in the README's order.
std::span<const SettingKey> setting_keys();
/// The value of `key` in `settings`, as a double.
double setting_value(const MoveSettings& settings, const SettingKey& key);
/// A number as TOML and error messages write it: every digit that reads back exactly ("0.40000000000000002").
std::string exact_number_text(double value);

}  // namespace foothold
