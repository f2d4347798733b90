// Movement profiles: `[profiles.NAME]` tables of the settings file (shared/formats/settings_file.h),
// their validation, hash and names (shared/settings.h), and the step moving a character with the
// profile its state names (CharacterState::profile).

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "shared/formats/settings_file.h"
#include "shared/setting_keys.h"
#include "shared/step.h"
#include "support/scenario_support.h"

namespace foothold::test {
namespace {

bool mentions(const std::vector<std::string>& errors, const std::string& text) {
  for (const auto& e : errors)
    if (e.find(text) != std::string::npos) return true;
  return false;
}

std::string all(const std::vector<std::string>& errors) {
  std::string out;
  for (const auto& e : errors) out += e + "\n";
  return out;
}

constexpr const char* kHeavyAndLight = R"(
walk_speed = 4
gravity = 25

[profiles.light]
jump_speed = 10

[profiles.heavy]
walk_speed = 8
jump_speed = 9.5
)";

TEST(Profiles, ATableOverridesWhatItGivesAndInheritsTheRest) {
  const auto r = parse_settings(kHeavyAndLight, "p.toml");
  ASSERT_TRUE(r.ok()) << all(r.errors);
  const MoveSettings& s = r.settings;
  ASSERT_EQ(s.profiles.size(), 2u);
  EXPECT_EQ(s.profiles[0].name, "heavy") << "ascending by name, whatever the file's order";
  EXPECT_EQ(s.profiles[1].name, "light");
  const MoveProfile& heavy = s.profiles[0];
  EXPECT_EQ(heavy.walk_speed, 8);
  EXPECT_EQ(heavy.jump_speed, 9.5);
  EXPECT_EQ(heavy.gravity, 25) << "inherits the file's base value, not the default";
  EXPECT_EQ(heavy.crouch_speed, MoveSettings{}.crouch_speed);
  EXPECT_EQ(heavy.coyote_time, MoveSettings{}.coyote_time);
  EXPECT_EQ(s.profiles[1].walk_speed, 4);
  EXPECT_EQ(s.profiles[1].jump_speed, 10);
  EXPECT_EQ(s.walk_speed, 4) << "the base is the top level's";
  EXPECT_EQ(s.jump_speed, 7);
}

TEST(Profiles, IndicesAndNames) {
  const MoveSettings s = parse_settings(kHeavyAndLight, "p.toml").settings;
  EXPECT_EQ(s.profile_index("base"), 0);
  EXPECT_EQ(s.profile_index("heavy"), 1);
  EXPECT_EQ(s.profile_index("light"), 2);
  EXPECT_EQ(s.profile_index("medium"), -1);
  EXPECT_EQ(s.profile_index(""), -1);
  EXPECT_EQ(s.profile_name(0), "base");
  EXPECT_EQ(s.profile_name(1), "heavy");
  EXPECT_EQ(s.profile_name(2), "light");
  EXPECT_EQ(s.profile_name(3), "");
  EXPECT_EQ(s.profile_name(-1), "");
  const MoveSettings heavy = s.with_profile(1);
  EXPECT_EQ(heavy.walk_speed, 8);
  EXPECT_EQ(heavy.radius, s.radius);
  EXPECT_TRUE(heavy.profiles.empty());
  EXPECT_EQ(s.with_profile(7).walk_speed, 4) << "no such profile: the base's";
}

TEST(Profiles, AProfileDefaultsAreTheBaseDefaults) {
  // MoveProfile's in-class defaults repeat MoveSettings': they must not drift apart.
  const MoveProfile p;
  const MoveSettings s;
  for (const SettingKey& k : setting_keys()) {
    if (!k.profile) continue;
    EXPECT_EQ(p.*k.profile, s.*k.real) << k.name;
  }
  EXPECT_EQ(profile_keys(), (std::vector<std::string>{"walk_speed", "gravity", "jump_speed", "air_acceleration",
                                                       "max_fall_speed", "coyote_time", "jump_buffer", "crouch_speed"}));
}

TEST(Profiles, AShapeOrTickKeyIsRefusedByName) {
  for (const char* key : {"radius", "height", "crouch_height", "step_height", "tick_rate", "max_slope_deg",
                          "contact_distance", "safety_margin", "max_iterations", "max_pushout_iterations"}) {
    SCOPED_TRACE(key);
    const auto r = parse_settings(std::string("[profiles.heavy]\n") + key + " = 1\n", "p.toml");
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(mentions(r.errors, "p.toml:2: profiles.heavy." + std::string(key))) << all(r.errors);
    EXPECT_TRUE(mentions(r.errors, "may not change the capsule's shape or the tick")) << all(r.errors);
  }
}

TEST(Profiles, UnknownKeysBadNamesAndBadValuesAreRefused) {
  const auto unknown = parse_settings("[profiles.heavy]\nwalk_sped = 3\n", "p.toml");
  EXPECT_TRUE(mentions(unknown.errors, "p.toml:2: unknown key 'profiles.heavy.walk_sped'")) << all(unknown.errors);
  for (const char* name : {"Heavy", "\"has space\"", "base", "\"\"", "a23456789012345678901234567890123", "\"é\""}) {
    SCOPED_TRACE(name);
    const auto r = parse_settings(std::string("[profiles.") + name + "]\nwalk_speed = 3\n", "p.toml");
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(mentions(r.errors, "a profile's name is 1 to 32 characters")) << all(r.errors);
  }
  EXPECT_TRUE(parse_settings("[profiles.a2345678901234567890123456789012]\n[profiles.x_y-0]\n", "p").ok())
      << "32 characters, and every allowed one";
  const auto range = parse_settings("[profiles.heavy]\nwalk_speed = 101\n", "p.toml");
  EXPECT_TRUE(mentions(range.errors, "profiles.heavy.walk_speed = 101.0 is out of range [0, 100]")) << all(range.errors);
  const auto type = parse_settings("[profiles.heavy]\ngravity = \"high\"\n", "p.toml");
  EXPECT_TRUE(mentions(type.errors, "profiles.heavy.gravity must be a number")) << all(type.errors);
  EXPECT_FALSE(parse_settings("profiles = 3\n", "p.toml").ok());
  EXPECT_FALSE(parse_settings("[profiles]\nheavy = 3\n", "p.toml").ok());
  // At most 15.
  std::string many;
  for (int i = 0; i < 16; ++i) many += "[profiles.p" + std::to_string(10 + i) + "]\n";
  const auto sixteen = parse_settings(many, "p.toml");
  EXPECT_TRUE(mentions(sixteen.errors, "16 profiles, at most 15")) << all(sixteen.errors);
  EXPECT_TRUE(parse_settings(many.substr(many.find('\n') + 1), "p.toml").ok()) << "15 are fine";
}

TEST(Profiles, ValidateRefusesUnsortedOrRepeatedNames) {
  MoveSettings s;
  s.profiles.push_back({.name = "b"});
  s.profiles.push_back({.name = "a"});
  EXPECT_TRUE(mentions(s.validate(), "ascending name order"));
  s.profiles[1].name = "b";
  EXPECT_TRUE(mentions(s.validate(), "ascending name order"));
  s.profiles[0].name = "a";
  EXPECT_TRUE(s.validate().empty());
}

TEST(Profiles, HashAndEqualityCoverThemAndTomlRoundTripsThem) {
  const MoveSettings with = parse_settings(kHeavyAndLight, "p.toml").settings;
  MoveSettings without = with;
  without.profiles.clear();
  EXPECT_NE(with.hash(), without.hash());
  EXPECT_FALSE(with == without);
  EXPECT_EQ(without.hash(), parse_settings("walk_speed = 4\ngravity = 25\n", "p").settings.hash())
      << "settings without profiles hash as before profiles existed";
  MoveSettings tweaked = with;
  tweaked.profiles[0].jump_speed = 9.500000001;
  EXPECT_NE(tweaked.hash(), with.hash());
  tweaked = with;
  tweaked.profiles[1].name = "lite";
  EXPECT_NE(tweaked.hash(), with.hash());
  const auto back = parse_settings(settings_to_toml(with), "roundtrip");
  ASSERT_TRUE(back.ok()) << all(back.errors);
  EXPECT_EQ(back.settings, with);
  EXPECT_EQ(back.settings.hash(), with.hash());
}

// --- the step -------------------------------------------------------------------------------------

std::unique_ptr<World> flat_world() {
  MeshBuilder b;
  b.floor_grid(-30, -30, 30, 30, 0, 4);
  return make_world(b.take(), "flat");
}

struct Motion {
  double x = 0;      ///< after a second's walk along +X
  double peak = 0;   ///< the highest centre of a jump from rest
};

Motion walk_and_jump(const World& w, const DerivedSettings& s, uint8_t profile) {
  StepScratch scratch;
  Motion run;
  CharacterState st = spawn_state({0, rest_height(), 0});
  st.profile = profile;
  for (uint32_t t = 1; t <= 10; ++t) st = step(st, encode_move(0, 0, 0, t), w, s, scratch).state;
  CharacterState jumper = st;
  const double x0 = to_position(st.position).x;
  for (uint32_t t = 11; t <= 70; ++t) st = step(st, encode_move(1, 0, 0, t), w, s, scratch).state;
  EXPECT_EQ(st.profile, profile) << "the step keeps it";
  run.x = to_position(st.position).x - x0;
  jumper = step(jumper, encode_move(0, 0, kButtonJump, 11), w, s, scratch).state;
  for (uint32_t t = 12; t <= 100; ++t) {
    jumper = step(jumper, encode_move(0, 0, kButtonJump, t), w, s, scratch).state;
    run.peak = std::max(run.peak, to_position(jumper.position).y);
  }
  return run;
}

TEST(Profiles, TheStepMovesACharacterWithItsStatesProfile) {
  const auto w = flat_world();
  const auto r = parse_settings(kHeavyAndLight, "p.toml");
  ASSERT_TRUE(r.ok()) << all(r.errors);
  const DerivedSettings s = derive(r.settings);
  ASSERT_EQ(s.by_profile.size(), 3u);
  const Motion base = walk_and_jump(*w, s, 0);
  const Motion heavy = walk_and_jump(*w, s, 1);
  const Motion light = walk_and_jump(*w, s, 2);
  // A second at 4 and at 8 m/s; each position rounds to the grid.
  EXPECT_NEAR(base.x, 4, 0.05);
  EXPECT_NEAR(heavy.x, 8, 0.05);
  EXPECT_NEAR(light.x, 4, 0.05);
  // Jump heights v^2 / 2g (g = 25), within a tick's discretisation.
  const double rest = rest_height();
  EXPECT_NEAR(base.peak - rest, 7.0 * 7 / 50, 0.1);
  EXPECT_NEAR(heavy.peak - rest, 9.5 * 9.5 / 50, 0.1);
  EXPECT_NEAR(light.peak - rest, 10.0 * 10 / 50, 0.1);
  EXPECT_GT(light.peak, heavy.peak);
  EXPECT_GT(heavy.peak, base.peak + 0.5);
}

TEST(Profiles, AnIndexWithNoProfileMovesWithTheBase) {
  const auto w = flat_world();
  const DerivedSettings s = derive(parse_settings(kHeavyAndLight, "p.toml").settings);
  const DerivedSettings plain = derive(MoveSettings{});
  const Motion base = walk_and_jump(*w, s, 0);
  for (const uint8_t index : {uint8_t(3), uint8_t(15), uint8_t(255)}) {
    SCOPED_TRACE(int(index));
    const Motion other = walk_and_jump(*w, s, index);
    EXPECT_EQ(other.x, base.x);
    EXPECT_EQ(other.peak, base.peak);
    EXPECT_EQ(&s.for_profile(index), &s.by_profile[0]);
  }
  // Settings without profiles: every index is the base (the settings themselves).
  EXPECT_EQ(&plain.for_profile(4), &plain);
  const Motion plain_base = walk_and_jump(*w, plain, 0);
  EXPECT_EQ(walk_and_jump(*w, plain, 4).x, plain_base.x);
}

TEST(Profiles, DerivedProfilesHoldTheBaseShapeAndTheirOwnValues) {
  const DerivedSettings s = derive(parse_settings(kHeavyAndLight, "p.toml").settings);
  for (const DerivedSettings& d : s.by_profile) {
    EXPECT_TRUE(d.profiles.empty() && d.by_profile.empty()) << "no entry holds profiles of its own";
    EXPECT_EQ(d.half_segment, s.half_segment);
    EXPECT_EQ(d.crouch_drop, s.crouch_drop);
    EXPECT_EQ(d.tick_rate, s.tick_rate);
  }
  EXPECT_EQ(s.by_profile[0].walk_speed, 4);
  EXPECT_EQ(s.by_profile[1].walk_speed, 8);
  EXPECT_EQ(s.by_profile[1].gravity, 25);
}

// The settings page (docs/settings.md) documents the profile tables and the keys they may give.
TEST(Profiles, TheSettingsPageListsTheKeysAProfileMayGive) {
  std::ifstream in(std::string(FOOTHOLD_SOURCE_DIR) + "/docs/settings.md");
  ASSERT_TRUE(in);
  std::stringstream text;
  text << in.rdbuf();
  const std::string readme = text.str();
  const auto at = readme.find("[profiles.NAME]");
  ASSERT_NE(at, std::string::npos);
  const std::string paragraph = readme.substr(at, readme.find("\n\n", at) - at);
  for (const std::string& k : profile_keys()) EXPECT_NE(paragraph.find("`" + k + "`"), std::string::npos) << k;
}

}  // namespace
}  // namespace foothold::test
