#include "server/builtin_games.h"

#include <algorithm>
#include <array>

namespace foothold::server {

namespace {
constexpr std::array<std::string_view, 2> kNames = {"none", "echo"};
}  // namespace

std::span<const std::string_view> builtin_game_names() { return kNames; }

std::string builtin_game_list() {
  std::string list;
  for (std::string_view n : kNames) list += (list.empty() ? "" : ", ") + std::string(n);
  return list;
}

bool is_builtin_game(std::string_view name) { return std::find(kNames.begin(), kNames.end(), name) != kNames.end(); }

void install_builtin_game(std::string_view name, ServerCore& core) {
  if (name == "echo") {
    // A refused echo (the sender's queue is full: it sends faster than it reads) is counted by the
    // core as messages_refused; the sender's check finds it missing.
    core.set_message_handler([&core](uint32_t client, proto::Channel channel, std::span<const uint8_t> bytes) {
      core.send_message(client, channel, bytes);
    });
    return;
  }
  core.set_message_handler(nullptr);
}

}  // namespace foothold::server
