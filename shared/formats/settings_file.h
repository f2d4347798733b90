#pragma once
// Movement settings in TOML files: reading them (every key checked) and writing them back.

#include <string>
#include <string_view>
#include <vector>

#include "shared/settings.h"

namespace foothold {

/// Result of reading settings from TOML text or a file.
struct SettingsLoad {
  MoveSettings settings;            ///< the values read (defaults where not given); use only when ok()
  std::vector<std::string> errors;  ///< each names the file, the key and what is wrong
  /// True when there is no error.
  bool ok() const { return errors.empty(); }
};

/// Parses TOML text; `source` names it in messages. Keys not given keep their defaults; unknown keys,
/// wrong types and out-of-range values are errors (MoveSettings::validate() runs when the types are right).
/// Tables `[profiles.NAME]` are movement profiles: each gives some of the keys profile_keys() lists
/// (the others inherit the base's values, wherever the file sets them); a key that shapes the capsule
/// or the tick is refused by name, as are an unknown key, a bad name and more than kMaxProfiles.
SettingsLoad parse_settings(std::string_view toml_text, std::string_view source);

/// Reads and parses a TOML file; `path` names it in messages. An unreadable file is an error.
SettingsLoad load_settings_file(const std::string& path);

/// The settings as TOML text that parse_settings() reads back to equal values (profiles as
/// `[profiles.NAME]` tables giving every value they hold).
std::string settings_to_toml(const MoveSettings& settings);

}  // namespace foothold
