// The GameServer record as the sidecar's REST gateway writes it (fleet/game_server.h).
#include "fleet/game_server.h"

#include <gtest/gtest.h>

namespace foothold::fleet {
namespace {

// What v1.49.0's local sidecar answers to GET /gameserver (copied from a run, trimmed of nothing).
const char* kRecord =
    R"({"object_meta":{"name":"local", "namespace":"", "uid":"", "resource_version":"", "generation":"0", )"
    R"("creation_timestamp":"-62135596800", "deletion_timestamp":"0", "annotations":{"map":"arena", "a":"1"}, )"
    R"("labels":{"mode":"ctf", "agones.dev/sdk-x":"y"}}, "spec":{"health":{"disabled":false}}, )"
    R"("status":{"state":"Allocated", "address":"10.0.0.7", "addresses":[], "ports":[{"name":"default", "port":7001}, )"
    R"({"name":"game", "port":7002}], "players":null, "counters":{"players":{"count":"3", "capacity":"64"}}, "lists":{}}})";

TEST(GameServerRecord, ReadsWhatTheSidecarWrites) {
  GameServerInfo gs;
  std::string error;
  ASSERT_TRUE(parse_game_server(kRecord, gs, error)) << error;
  EXPECT_EQ(gs.name, "local");
  EXPECT_EQ(gs.state, "Allocated");
  EXPECT_EQ(gs.address, "10.0.0.7");
  ASSERT_EQ(gs.ports.size(), 2u);
  EXPECT_EQ(gs.ports[1].name, "game");
  EXPECT_EQ(gs.ports[1].port, 7002);
  // Sorted by key, whatever the JSON's order: one order on every run.
  const Metadata labels = {{"agones.dev/sdk-x", "y"}, {"mode", "ctf"}};
  const Metadata annotations = {{"a", "1"}, {"map", "arena"}};
  EXPECT_EQ(gs.labels, labels);
  EXPECT_EQ(gs.annotations, annotations);
  // int64s come as strings.
  EXPECT_EQ(gs.players, 3);
  EXPECT_EQ(gs.player_capacity, 64);
}

TEST(GameServerRecord, AWatchLineIsUnwrapped) {
  GameServerInfo gs;
  std::string error;
  ASSERT_TRUE(parse_game_server(std::string(R"({"result":)") + kRecord + "}", gs, error)) << error;
  EXPECT_EQ(gs.state, "Allocated");
  EXPECT_EQ(gs.players, 3);
}

TEST(GameServerRecord, NoCounterIsMinusOne) {
  GameServerInfo gs;
  std::string error;
  ASSERT_TRUE(parse_game_server(R"({"object_meta":{"name":"x"},"status":{"state":"Ready","ports":[{"port":70000},{"port":"7777"}]}})",
                                gs, error));
  EXPECT_EQ(gs.players, -1);
  EXPECT_EQ(gs.player_capacity, -1);
  // A port out of range is not a port; one written as a string is.
  ASSERT_EQ(gs.ports.size(), 1u);
  EXPECT_EQ(gs.ports[0].port, 7777);
}

TEST(GameServerRecord, RefusesWhatIsNotOne) {
  for (const char* bad : {"", "not json", "[1,2]", R"({"result": 3})", R"({"status":{}})", R"({"object_meta":{}, "status":[]})",
                          R"({"object_meta":{"name":"x"},"status":{"state":"Ready")"}) {
    GameServerInfo gs;
    gs.name = "untouched";
    std::string error;
    EXPECT_FALSE(parse_game_server(bad, gs, error)) << bad;
    EXPECT_FALSE(error.empty()) << bad;
    EXPECT_EQ(gs.name, "untouched") << bad;
  }
}

}  // namespace
}  // namespace foothold::fleet
