#include <cmath>
#include <gtest/gtest.h>

#include "shared/settings.h"

namespace foothold {
namespace {

bool mentions(const std::vector<std::string>& errors, const std::string& text) {
  for (const auto& e : errors)
    if (e.find(text) != std::string::npos) return true;
  return false;
}

TEST(Settings, DefaultsAreValidAndAsDocumented) {
  const MoveSettings s;
  EXPECT_TRUE(s.validate().empty());
  EXPECT_EQ(s.tick_rate, 60);
  EXPECT_EQ(s.radius, 0.4);
  EXPECT_EQ(s.height, 1.8);
  EXPECT_EQ(s.max_slope_deg, 45);
  EXPECT_EQ(s.step_height, 0.35);
  EXPECT_EQ(s.walk_speed, 5);
  EXPECT_EQ(s.gravity, 20);
  EXPECT_EQ(s.jump_speed, 7);
  EXPECT_EQ(s.max_iterations, 16);
}

TEST(Settings, DerivedSlopeLimitIsExactEnough) {
  const DerivedSettings d = derive(MoveSettings{});
  EXPECT_NEAR(d.cos_max_slope, std::sqrt(0.5), 1e-15);
  EXPECT_NEAR(d.tan_max_slope, 1.0, 1e-15);
  EXPECT_EQ(d.rest_gap, 0.02);
  EXPECT_EQ(d.half_segment, 0.5);
}

TEST(Settings, ParsesKnownKeysAndKeepsDefaultsForTheRest) {
  const auto r = parse_settings("gravity = 9.81\ntick_rate = 30\nwalk_speed = 4\n", "test.toml");
  ASSERT_TRUE(r.ok()) << r.errors[0];
  EXPECT_EQ(r.settings.gravity, 9.81);
  EXPECT_EQ(r.settings.tick_rate, 30);
  EXPECT_EQ(r.settings.walk_speed, 4);
  EXPECT_EQ(r.settings.radius, 0.4);
}

TEST(Settings, UnknownKeyIsAnErrorNamingTheKeyAndLine) {
  const auto r = parse_settings("gravity = 20\ngravty = 3\n", "game.toml");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(mentions(r.errors, "game.toml:2")) << r.errors[0];
  EXPECT_TRUE(mentions(r.errors, "unknown key 'gravty'")) << r.errors[0];
}

TEST(Settings, OutOfRangeAndWrongTypesAreErrorsNamingTheKey) {
  EXPECT_TRUE(mentions(parse_settings("radius = -1\n", "s").errors, "radius"));
  EXPECT_TRUE(mentions(parse_settings("max_slope_deg = 95\n", "s").errors, "max_slope_deg"));
  EXPECT_TRUE(mentions(parse_settings("tick_rate = 60.5\n", "s").errors, "tick_rate must be a whole number"));
  EXPECT_TRUE(mentions(parse_settings("gravity = \"strong\"\n", "s").errors, "gravity must be a number"));
  EXPECT_TRUE(mentions(parse_settings("gravity = nan\n", "s").errors, "gravity"));
  EXPECT_TRUE(mentions(parse_settings("height = 0.7\n", "s").errors, "height"));
  EXPECT_TRUE(mentions(parse_settings("safety_margin = 0.03\n", "s").errors, "safety_margin"));
  EXPECT_TRUE(mentions(parse_settings("max_iterations = 0\n", "s").errors, "max_iterations"));
  EXPECT_TRUE(mentions(parse_settings("this is not toml", "s").errors, "s:1"));
}

TEST(Settings, TomlTextRoundTripsAndHashTracksEveryValue) {
  MoveSettings s;
  s.gravity = 9.80665;
  s.step_height = 0.3;
  const auto back = parse_settings(settings_to_toml(s), "roundtrip");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back.settings, s);
  EXPECT_EQ(back.settings.hash(), s.hash());
  MoveSettings t = s;
  t.max_iterations = 15;
  EXPECT_NE(t.hash(), s.hash());
  t = s;
  t.radius = 0.4000000001;
  EXPECT_NE(t.hash(), s.hash());
}

TEST(Settings, MissingFileIsAnError) {
  const auto r = load_settings_file("/nonexistent/foothold.toml");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(mentions(r.errors, "/nonexistent/foothold.toml"));
}

}  // namespace
}  // namespace foothold
