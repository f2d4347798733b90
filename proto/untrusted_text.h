#pragma once
// Text a peer sent (a Reject's message, a version hint) on its way to a log or a terminal. Nothing a
// peer sends is printed as it came: escape sequences could rewrite what an operator sees, and
// newlines could forge whole log lines.

#include <cstddef>
#include <string>
#include <string_view>

namespace foothold::proto {

/// `text` reduced to printable ASCII (0x20 to 0x7e; every other byte becomes '?') and cut to
/// `max_bytes`.
std::string printable(std::string_view text, std::size_t max_bytes);

}  // namespace foothold::proto
