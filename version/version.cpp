#include "version/version.h"

#include "foothold_git_describe.h"
#include "foothold_project_version.h"
#include "proto/codec.h"
#include "replay/recording.h"

namespace foothold {

std::string_view version() { return FOOTHOLD_PROJECT_VERSION; }

std::string_view git_describe() { return FOOTHOLD_GIT_DESCRIBE; }

std::string version_line(std::string_view program) {
  return std::string(program) + " " + std::string(version()) + " (protocol " + std::to_string(proto::kProtocolVersion) +
         ", recording " + std::to_string(replay::kRecordingFormat) + ", git " + std::string(git_describe()) + ")";
}

}  // namespace foothold
