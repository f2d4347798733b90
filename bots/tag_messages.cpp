#include "bots/tag_messages.h"

#include <charconv>

namespace foothold::bots {

namespace {

// A decimal number of 1 to 10 digits at the front of `text` (no sign, no leading space): consumed.
bool take_number(std::string_view& text, uint32_t& value) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data()) return false;
  text.remove_prefix(std::size_t(end - text.data()));
  return true;
}

bool take_literal(std::string_view& text, std::string_view literal) {
  if (text.substr(0, literal.size()) != literal) return false;
  text.remove_prefix(literal.size());
  return true;
}

}  // namespace

bool TagTally::take(proto::Channel channel, std::span<const uint8_t> bytes) {
  if (channel != proto::Channel::kReliable) return false;
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  std::string_view rest = text;
  uint32_t from = 0, to = 0;
  if (take_literal(rest, "tag ")) {
    if (!take_number(rest, from) || !take_literal(rest, " ") || !take_number(rest, to) || !rest.empty()) return false;
    ++(from != 0 ? tags_seen_ : it_chosen_);
    return true;
  }
  rest = text;
  uint32_t round = 0;
  if (!take_literal(rest, "scores ") || !take_number(rest, round)) return false;
  while (!rest.empty()) {
    uint32_t id = 0, seconds = 0;
    if (!take_literal(rest, " ") || !take_number(rest, id) || !take_literal(rest, ":") || !take_number(rest, seconds))
      return false;
  }
  last_scores_.assign(text.substr(7));
  last_scores_round_ = round;
  return true;
}

}  // namespace foothold::bots
