#include "shared/formats/settings_file.h"

#include <algorithm>
#include <optional>
#include <sstream>

#include <toml++/toml.h>

#include "shared/formats/text_fields.h"
#include "shared/setting_keys.h"

namespace foothold {

namespace {

// "file:line: " for a node's messages.
std::string where_is(const std::string& where, const toml::node& node) {
  return where + ":" + std::to_string(node.source().begin.line) + ": ";
}

// The key table's row of the setting named `name`, or null.
const SettingKey* find_key(std::string_view name) {
  for (const SettingKey& k : setting_keys())
    if (name == k.name) return &k;
  return nullptr;
}

// A real-valued key's number: integers are accepted where a real number is expected ("gravity = 20").
std::optional<double> real_of(const toml::node& node) {
  if (!(node.is_floating_point() || node.is_integer())) return std::nullopt;
  return node.value<double>();
}

// The keys a profile may give, for messages: "walk_speed, crouch_speed, ...".
std::string profile_key_list() {
  std::string out;
  for (const std::string& k : profile_keys()) out += (out.empty() ? "" : ", ") + k;
  return out;
}

// One [profiles.NAME] table: the base's values, with those it gives in their place.
void read_profile(const std::string& where, const std::string& name, const toml::node& node, const MoveSettings& base,
                  SettingsLoad& out) {
  const std::string table = "profiles." + name;
  const toml::table* keys = node.as_table();
  if (!keys) {
    out.errors.push_back(where_is(where, node) + table + " must be a table ([" + table + "])");
    return;
  }
  MoveProfile p;
  p.name = name;
  for (const SettingKey& k : setting_keys())
    if (k.profile) p.*k.profile = base.*k.real;
  for (auto&& [key, value] : *keys) {
    const std::string key_name(key.str());
    const std::string at = where_is(where, value);
    const SettingKey* k = find_key(key_name);
    if (!k) {
      out.errors.push_back(at + "unknown key '" + table + "." + key_name + "'");
    } else if (!k->profile) {
      out.errors.push_back(at + table + "." + key_name + ": a profile may not change the capsule's shape or the tick (" +
                           key_name + " is the base's alone); a profile gives only " + profile_key_list());
    } else if (const auto v = real_of(value)) {
      p.*k->profile = *v;
    } else {
      out.errors.push_back(at + table + "." + key_name + " must be a number");
    }
  }
  out.settings.profiles.push_back(std::move(p));
}

}  // namespace

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
  const toml::node* profiles = nullptr;
  for (auto&& [key, node] : table) {
    const std::string name(key.str());
    const std::string at = where_is(where, node);
    if (name == "profiles") {
      profiles = &node;
      continue;
    }
    const SettingKey* k = find_key(name);
    if (!k) {
      out.errors.push_back(at + "unknown key '" + name + "'");
    } else if (k->real) {
      if (const auto v = real_of(node)) {
        out.settings.*k->real = *v;
      } else {
        out.errors.push_back(at + name + " must be a number");
      }
    } else if (auto v = node.as_integer(); v && v->get() >= -1000000 && v->get() <= 1000000) {
      out.settings.*k->whole = int(v->get());
    } else {
      out.errors.push_back(at + name + " must be a whole number");
    }
  }
  // The profiles after every base key, whatever the order in the file: they inherit the base's values.
  if (profiles) {
    if (const toml::table* named = profiles->as_table()) {
      for (auto&& [key, node] : *named) read_profile(where, std::string(key.str()), node, out.settings, out);
    } else {
      out.errors.push_back(where_is(where, *profiles) + "profiles must be tables: [profiles.NAME]");
    }
    // Ascending name order: profile k of a state is the k-th (toml++ keeps a table's keys sorted
    // already; this does not depend on it).
    std::sort(out.settings.profiles.begin(), out.settings.profiles.end(),
              [](const MoveProfile& a, const MoveProfile& b) { return a.name < b.name; });
  }
  if (out.errors.empty()) {
    for (const auto& e : out.settings.validate()) out.errors.push_back(where + ": " + e);
  }
  return out;
}

SettingsLoad load_settings_file(const std::string& path) {
  const auto text = read_whole_file(path);
  if (!text.bytes) {
    SettingsLoad out;
    out.errors.push_back(path + ": cannot open settings file: " + text.error);
    return out;
  }
  return parse_settings(*text.bytes, path);
}

std::string settings_to_toml(const MoveSettings& s) {
  std::string out;
  for (const SettingKey& k : setting_keys()) {
    out += std::string(k.name) + " = ";
    out += k.real ? exact_number_text(s.*k.real) : std::to_string(s.*k.whole);
    out += "\n";
  }
  // Every profile with all its values (resolved: what it inherited is written out too).
  for (const MoveProfile& p : s.profiles) {
    out += "\n[profiles." + p.name + "]\n";
    for (const SettingKey& k : setting_keys())
      if (k.profile) out += std::string(k.name) + " = " + exact_number_text(p.*k.profile) + "\n";
  }
  return out;
}

}  // namespace foothold
