#pragma once
// What a bot hears of the tag game (foothold-server --game tag, games/tag_game.h): its reliable text
// announcements to every client,
//   "tag FROM TO"                  "it" passed from character FROM to TO (FROM 0: the game chose TO)
//   "scores ROUND ID:SECONDS ..."  round ROUND ended; each character's seconds as "it"
// (ids and numbers in decimal, single spaces). The fleet hands every message a bot receives to its
// TagTally first; what the tally does not recognise goes on to the message checker, if any.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "proto/message_endpoint.h"

namespace foothold::bots {

/// One bot's tally of the tag game's announcements. Not thread-safe.
class TagTally {
 public:
  /// Takes a message the bot received: true when it is one of the tag game's announcements (whole,
  /// on the reliable channel, exactly as above), which it then counts; false for anything else,
  /// which it leaves alone.
  bool take(proto::Channel channel, std::span<const uint8_t> bytes);
  /// "tag FROM TO" announcements with FROM != 0: passes of "it" this bot saw announced.
  uint64_t tags_seen() const { return tags_seen_; }
  /// "tag 0 TO" announcements: the game choosing "it" (at the start, after "it" left, at a round's end).
  uint64_t it_chosen() const { return it_chosen_; }
  /// The newest "scores" announcement without its "scores " prefix: "ROUND ID:SECONDS ..."; empty
  /// when none came.
  const std::string& last_scores() const { return last_scores_; }
  /// Its ROUND (0 when none came).
  uint32_t last_scores_round() const { return last_scores_round_; }

 private:
  uint64_t tags_seen_ = 0, it_chosen_ = 0;
  std::string last_scores_;
  uint32_t last_scores_round_ = 0;
};

}  // namespace foothold::bots
