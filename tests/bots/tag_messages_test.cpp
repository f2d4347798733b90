// What bots count of the tag game's announcements (bots/tag_messages.h): a pass of "it" is a
// "tag FROM TO" with FROM != 0 (the game choosing "it", FROM 0, is not one); the newest "scores" is
// kept; anything else is left for the message checker.

#include <string>

#include <gtest/gtest.h>

#include "bots/message_checker.h"
#include "bots/tag_messages.h"

namespace foothold::bots {
namespace {

bool take(TagTally& tally, const std::string& text, proto::Channel channel = proto::Channel::kReliable) {
  return tally.take(channel, {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
}

TEST(TagTally, CountsPassesOfItButNotTheGameChoosingIt) {
  TagTally tally;
  EXPECT_TRUE(take(tally, "tag 0 3"));
  EXPECT_EQ(tally.tags_seen(), 0u) << "FROM 0: the game chose 3";
  EXPECT_EQ(tally.it_chosen(), 1u);
  EXPECT_TRUE(take(tally, "tag 3 4"));
  EXPECT_TRUE(take(tally, "tag 4 12"));
  EXPECT_TRUE(take(tally, "tag 0 4"));
  EXPECT_EQ(tally.tags_seen(), 2u);
  EXPECT_EQ(tally.it_chosen(), 2u);
  EXPECT_TRUE(tally.last_scores().empty());
}

TEST(TagTally, KeepsTheNewestScores) {
  TagTally tally;
  EXPECT_EQ(tally.last_scores_round(), 0u);
  EXPECT_TRUE(take(tally, "scores 1 1:12 2:0 7:48"));
  EXPECT_EQ(tally.last_scores(), "1 1:12 2:0 7:48");
  EXPECT_EQ(tally.last_scores_round(), 1u);
  EXPECT_TRUE(take(tally, "scores 2 2:30"));
  EXPECT_EQ(tally.last_scores(), "2 2:30");
  EXPECT_EQ(tally.last_scores_round(), 2u);
  EXPECT_TRUE(take(tally, "scores 3")) << "a round nobody was in";
  EXPECT_EQ(tally.last_scores(), "3");
  EXPECT_EQ(tally.tags_seen(), 0u);
}

TEST(TagTally, LeavesEverythingElseAlone) {
  TagTally tally;
  for (const char* text : {"", "tag", "tag ", "tag 1", "tag 1 ", "tag 1 2 ", "tag 1 2 3", "tag x 2", "tag -1 2", "tag  1 2",
                           "tagged 1 2", "TAG 1 2", "scores", "scores ", "scores x", "scores 1 2", "scores 1 2:",
                           "scores 1 :3", "scores 1 2:3 ", "scores 1  2:3", "hello"})
    EXPECT_FALSE(take(tally, text)) << "'" << text << "'";
  EXPECT_FALSE(take(tally, "tag 1 2", proto::Channel::kUnreliable)) << "the game announces reliably";
  // A message checker's echo (bots/message_checker.h) is no announcement.
  std::string echo;
  for (std::size_t i = 0; i < 64; ++i) echo.push_back(char(message_byte(3, 0, i)));
  EXPECT_FALSE(take(tally, echo));
  EXPECT_EQ(tally.tags_seen(), 0u);
  EXPECT_EQ(tally.it_chosen(), 0u);
  EXPECT_TRUE(tally.last_scores().empty());
}

}  // namespace
}  // namespace foothold::bots
