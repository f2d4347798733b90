// Whether the server's key file is exposed to other users of its host (server/key_permissions.h).

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "server/key_permissions.h"
#include "support/process.h"

namespace foothold::server {
namespace {

TEST(KeyPermissions, ReadableByGroupOrOthersIsExposedOwnerOnlyIsNot) {
  test::TempDir dir;
  const std::string path = dir.write("server.key", std::string(64, 'a') + "\n");
  struct Case {
    mode_t mode;
    const char* says;  // nullptr: not exposed
  };
  for (const Case& c : {Case{0600, nullptr}, Case{0400, nullptr}, Case{0620, nullptr}, Case{0640, "mode 0640: readable by group"},
                        Case{0604, "mode 0604: readable by others"}, Case{0644, "mode 0644: readable by group and others"},
                        Case{0444, "readable by group and others"}}) {
    ASSERT_EQ(chmod(path.c_str(), c.mode), 0);
    const std::string exposed = key_file_exposure(path);
    if (c.says) {
      EXPECT_NE(exposed.find(c.says), std::string::npos) << std::oct << c.mode << ": " << exposed;
    } else {
      EXPECT_EQ(exposed, "") << std::oct << c.mode;
    }
  }
  EXPECT_NE(key_file_exposure(dir.file("missing.key")), "") << "a file that cannot be examined is said so";
}

}  // namespace
}  // namespace foothold::server
