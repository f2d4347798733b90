#include <cmath>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "shared/hash.h"
#include "shared/setting_keys.h"
#include "shared/settings.h"
#include "shared/formats/settings_file.h"

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


// The settings page's table (docs/settings.md) is generated from the key table that parses and
// validates them; this keeps the two the same. On failure the expected table is printed: paste it
// between the markers.
TEST(Settings, DocumentedTableIsTheKeyTable) {
  std::ifstream in(std::string(FOOTHOLD_SOURCE_DIR) + "/docs/settings.md");
  ASSERT_TRUE(in) << "cannot read docs/settings.md";
  std::stringstream text;
  text << in.rdbuf();
  const std::string readme = text.str();
  // A blank line after the marker: Markdown would take a table right after an HTML comment as HTML.
  const std::string begin = "<!-- settings-table: generated from the key table in shared/settings.cpp -->\n\n";
  const std::string end = "<!-- /settings-table -->";
  const auto b = readme.find(begin);
  const auto e = readme.find(end);
  ASSERT_NE(b, std::string::npos) << "docs/settings.md has no settings-table marker";
  ASSERT_NE(e, std::string::npos) << "docs/settings.md has no end marker";
  const std::string table = readme.substr(b + begin.size(), e - b - begin.size());
  EXPECT_EQ(table, settings_markdown_table()) << "expected:\n" << settings_markdown_table();
}

TEST(Settings, EveryKeyIsDocumentedParsedAndHashed) {
  // Each key of the table reads back from TOML, is rejected out of range, and changes the hash.
  const auto docs = setting_docs();
  EXPECT_EQ(docs.size(), 20u);
  const MoveSettings defaults;
  for (const auto& d : docs) {
    SCOPED_TRACE(d.key);
    EXPECT_FALSE(d.meaning.empty());
    EXPECT_FALSE(d.range.empty());
    const auto changed = parse_settings(d.key + " = 3\n", "one-key");
    // 3 is in range for most keys; where it is not, the error must name the key.
    if (changed.ok()) {
      EXPECT_NE(changed.settings.hash(), defaults.hash());
    } else {
      EXPECT_TRUE(mentions(changed.errors, d.key)) << changed.errors[0];
    }
    EXPECT_TRUE(mentions(parse_settings(d.key + " = 100000\n", "big").errors, d.key + " = "));
    EXPECT_NE(settings_to_toml(defaults).find(d.key + " = "), std::string::npos);
  }
}

// The push frictions came after settings were deployed: settings that leave them at their defaults
// hash as before (FNV-1a of foothold.settings.v1's keys then: the whole ones, then the reals, each in
// table order), so recordings and configurations keep naming the same hash; changing one changes it.
TEST(Settings, SettingsThatLeaveThePushFrictionsAloneHashAsBeforeThem) {
  const MoveSettings s;
  Hasher h;
  h.add_string("foothold.settings.v1");
  for (const SettingKey& k : setting_keys())
    if (k.whole) {
      h.add_string(k.name);
      h.add_i32(s.*k.whole);
    }
  for (const SettingKey& k : setting_keys())
    if (k.real && std::string_view(k.name).rfind("push_", 0) != 0) {
      h.add_string(k.name);
      h.add_double(s.*k.real);
    }
  EXPECT_EQ(s.hash(), h.value());
  MoveSettings pushy = s;
  pushy.push_friction = 10;
  EXPECT_NE(pushy.hash(), s.hash());
  MoveSettings floaty = s;
  floaty.push_air_friction = 0;
  EXPECT_NE(floaty.hash(), s.hash());
  EXPECT_NE(floaty.hash(), pushy.hash());
}

TEST(Settings, CrossKeyBoundsNameTheOtherKeyAndItsValue) {
  const auto tall = parse_settings("radius = 1\nheight = 1.5\n", "s");
  ASSERT_FALSE(tall.ok());
  EXPECT_TRUE(mentions(tall.errors, "height = 1.5 is out of range (2 * radius, 20] m (radius = 1.0)")) << tall.errors[0];
  EXPECT_TRUE(mentions(parse_settings("step_height = 0.95\n", "s").errors, "step_height = 0.94999999999999996"));
  EXPECT_TRUE(parse_settings("step_height = 0.9\n", "s").ok());  // exactly height / 2
  EXPECT_TRUE(mentions(parse_settings("safety_margin = 0.02\n", "s").errors, "(contact_distance = 0.040000000000000001)"));
}

TEST(Settings, DerivedSettingsCarryEveryValueAndTheirConstants) {
  MoveSettings m;
  m.radius = 0.3;
  m.height = 1.5;
  m.tick_rate = 50;
  m.contact_distance = 0.05;
  const DerivedSettings d = derive(m);
  EXPECT_EQ(static_cast<const MoveSettings&>(d), m);
  EXPECT_EQ(d.dt, 1.0 / 50);
  EXPECT_EQ(d.half_segment, 0.45);
  EXPECT_EQ(d.rest_gap, 0.025);
}

}  // namespace
}  // namespace foothold
