#pragma once
// The flag and setting reference of the server program, as Markdown (docs/server-reference.md),
// from the same declarations that parse the command line and print --help, so the page cannot
// drift from them (tests/server/server_reference_test.cpp compares it with the committed page).

#include <span>
#include <string>

#include "server/server_program.h"

namespace foothold::server {

/// The reference page of a program run_server() would run with `games`, `program` and
/// `default_game` (as run_server takes them): every setting's flag, TOML key, environment
/// variable, kind of value and --help text, then the flags of the command line only.
std::string server_reference_markdown(std::span<const GameEntry> games, const char* program = "foothold-server",
                                      const char* default_game = "none");

}  // namespace foothold::server
