#include "shared/formats/settings_file.h"

#include <sstream>

#include <toml++/toml.h>

#include "shared/formats/text_fields.h"
#include "shared/setting_keys.h"

namespace foothold {

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
    for (const SettingKey& k : setting_keys()) {
      if (name != k.name) continue;
      known = true;
      if (k.real) {
        // Integers are accepted where a real number is expected ("gravity = 20").
        if (auto v = node.value<double>(); v && (node.is_floating_point() || node.is_integer())) {
          out.settings.*k.real = *v;
        } else {
          out.errors.push_back(at + name + " must be a number");
        }
      } else if (auto v = node.as_integer(); v && v->get() >= -1000000 && v->get() <= 1000000) {
        out.settings.*k.whole = int(v->get());
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
  const auto text = read_whole_file(path);
  if (!text) {
    SettingsLoad out;
    out.errors.push_back(path + ": cannot open settings file");
    return out;
  }
  return parse_settings(*text, path);
}

std::string settings_to_toml(const MoveSettings& s) {
  std::string out;
  for (const SettingKey& k : setting_keys()) {
    out += std::string(k.name) + " = ";
    out += k.real ? exact_number_text(s.*k.real) : std::to_string(s.*k.whole);
    out += "\n";
  }
  return out;
}

}  // namespace foothold
