// libFuzzer: movement settings and server configuration from untrusted TOML.

#include <cstdint>
#include <string_view>

#include "server/server_config.h"
#include "shared/settings.h"
#include "shared/formats/settings_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace foothold;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto s = parse_settings(text, "fuzz.toml");
  if (s.ok()) {
    const DerivedSettings d = derive(s.settings);
    (void)d;
    (void)s.settings.hash();
    // What a valid file says, printed and read back, says the same.
    const auto again = parse_settings(settings_to_toml(s.settings), "again.toml");
    if (!again.ok() || !(again.settings == s.settings)) __builtin_trap();
  }
  server::ServerConfig config;
  (void)server::parse_server_config(text, "fuzz-server.toml", config);
  (void)config.validate();
  return 0;
}
