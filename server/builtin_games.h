#pragma once
// The games foothold-server carries, chosen by name (--game, `game` in the config, FOOTHOLD_GAME).
// Until the game API (issue #36) gives games their own hooks, a game here is what it does with the
// clients' messages.

#include <span>
#include <string>
#include <string_view>

#include "server/server_core.h"

namespace foothold::server {

/// The known names, in the order --help and errors list them: "none" (the default: messages are
/// counted as undelivered and dropped) and "echo" (every message back to its sender, unchanged, on
/// the channel it came on).
std::span<const std::string_view> builtin_game_names();
/// "none, echo": for messages.
std::string builtin_game_list();
/// True when `name` is one of them.
bool is_builtin_game(std::string_view name);
/// Hands `core` the game called `name` (one of builtin_game_names()); `core` must outlive nothing
/// more than itself: the game keeps a reference to it.
void install_builtin_game(std::string_view name, ServerCore& core);

}  // namespace foothold::server
