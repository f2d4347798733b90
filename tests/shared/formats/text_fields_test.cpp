// Numbers read from text decide results (OBJ vertices, settings, scripts, spawn points), so every
// machine must read the same text as the same bits: the nearest double, ties to even. These cases
// are the ones naive parsers (powers of ten from libm, as tinyobjloader's) get wrong in the last
// bit on some machine; the expected bits were worked out independently (Python's float.hex).

#include <cstdio>
#include <cstring>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "shared/formats/obj_loader.h"
#include "shared/settings.h"
#include "shared/formats/text_fields.h"
#include "support/test_seed.h"
#include "shared/formats/settings_file.h"

namespace foothold {
namespace {

struct Hard {
  const char* text;
  double bits;
};
const Hard kHard[] = {
    {"0.1", 0x1.999999999999ap-4},
    {"0.3", 0x1.3333333333333p-2},
    {"2.2250738585072011e-308", 0x0.fffffffffffffp-1022},
    {"9007199254740993", 0x1.0p+53},                                      // a tie: to even
    {"1.00000000000000011102230246251565404236316680908203125", 0x1.0p+0},  // exactly halfway: to even
    {"1.00000000000000011102230246251565404236316680908203126", 0x1.0000000000001p+0},
    {"1e23", 0x1.52d02c7e14af6p+76},
    {"8.41e21", 0x1.c7e83209e90b2p+72},
    {"-12.3456789", -0x1.8b0fcd324d5a2p+3},
    {"123456.789012345678", 0x1.e240c9fcb68cdp+16},
    {"3.14159265358979323846264338327950288419716939937510582097494459", 0x1.921fb54442d18p+1},
    {"1048575.9990234375", 0x1.fffffff8p+19},
    {"0.000001", 0x1.0c6f7a0b5ed8dp-20},
    {"7.038531e-26", 0x1.5c87fbp-84},
    {"+2.5", 2.5},
};

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(ParseFinite, ReadsEveryHardCaseToTheCorrectlyRoundedBits) {
  for (const Hard& h : kHard) {
    const auto v = parse_finite(h.text);
    ASSERT_TRUE(v.has_value()) << h.text;
    EXPECT_TRUE(same_bits(*v, h.bits)) << h.text << " read as " << std::hexfloat << *v << ", not " << h.bits;
  }
  EXPECT_TRUE(same_bits(*parse_finite("-0.0"), -0.0)) << "the sign of zero is kept";
}

TEST(ParseFinite, AgreesWithTheCorrectlyRoundedCLibraryOnRandomSeventeenDigitNumbers) {
  // glibc's strtod is correctly rounded; the two must agree everywhere.
  std::mt19937_64 rng(test::test_seed(20261123));
  for (int i = 0; i < 20000; ++i) {
    char text[64];
    const double mantissa = double(rng() % 100000000000000000ull) / 1e16;
    std::snprintf(text, sizeof text, "%s%.17ge%d", rng() % 2 ? "-" : "", mantissa, int(rng() % 40) - 20);
    const auto v = parse_finite(text);
    ASSERT_TRUE(v.has_value()) << text;
    EXPECT_TRUE(same_bits(*v, std::strtod(text, nullptr))) << text;
  }
}

TEST(ParseFinite, RefusesWhatIsNotExactlyOneFiniteDecimalNumber) {
  for (const char* bad : {"", "+", "-", "1.5x", "1.5 ", "nan", "inf", "-inf", "1e400", "0x1p3", "++1", "+-1", "1,5", "--1"})
    EXPECT_FALSE(parse_finite(bad).has_value()) << "'" << bad << "'";
}

TEST(ObjLoader, VerticesAreTheCorrectlyRoundedBitsOfTheText) {
  // The parser underneath (tinyobjloader) computes its own values with libm; the world must hold
  // these bits on every machine, or arm64 clients get another world hash than x86-64 servers.
  const Hard coordinates[] = {{"0.1", 0x1.999999999999ap-4},
                              {"65993.70718713038", 0x1.01c9b50a373d2p+16},
                              {"-12.3456789", -0x1.8b0fcd324d5a2p+3},
                              {"123456.789012345678", 0x1.e240c9fcb68cdp+16},
                              {"3.14159265358979323846264338327950288419716939937510582097494459", 0x1.921fb54442d18p+1},
                              {"0.000001", 0x1.0c6f7a0b5ed8dp-20}};
  const auto at = [&](int i) { return coordinates[i % 6]; };
  std::string obj;
  for (int v = 0; v < 6; ++v) obj += std::string("v ") + at(v).text + " " + at(v + 1).text + " " + at(v + 2).text + "\n";
  obj += "f 1 2 3\nf 4 5 6\n";
  const MeshLoad m = parse_obj(obj, "hard.obj");
  ASSERT_TRUE(m.error.empty()) << m.error;
  ASSERT_EQ(m.mesh.vertices.size(), 6u);
  for (int v = 0; v < 6; ++v) {
    EXPECT_TRUE(same_bits(m.mesh.vertices[size_t(v)].x, at(v).bits)) << "vertex " << v;
    EXPECT_TRUE(same_bits(m.mesh.vertices[size_t(v)].y, at(v + 1).bits)) << "vertex " << v;
    EXPECT_TRUE(same_bits(m.mesh.vertices[size_t(v)].z, at(v + 2).bits)) << "vertex " << v;
  }
}

TEST(Settings, NumbersInTheFileAreReadToTheCorrectlyRoundedBits) {
  const auto s = parse_settings("radius = 0.30000000000000004\nwalk_speed = 4.1000000000000005\ngravity = 9.8100000000000005\n",
                                "hard.toml");
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(same_bits(s.settings.radius, 0x1.3333333333334p-2));
  EXPECT_TRUE(same_bits(s.settings.walk_speed, 0x1.0666666666667p+2));
  EXPECT_TRUE(same_bits(s.settings.gravity, 0x1.39eb851eb851fp+3));
}

}  // namespace
}  // namespace foothold
