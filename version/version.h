#pragma once
// One version for everything (#40): the CMake project's version is the only source; every program's
// --version, the C API's foothold_client_version(), the pkg-config and CMake packages say it.

#include <string>
#include <string_view>

namespace foothold {

/// The project's version, "MAJOR.MINOR.PATCH" (CMake's PROJECT_VERSION).
std::string_view version();
/// What `git describe --always --dirty --tags` said of the source tree at build time ("unknown"
/// outside a git checkout).
std::string_view git_describe();
/// The line every program answers --version with:
/// "NAME VERSION (protocol P, recording R, git DESCRIBE)".
std::string version_line(std::string_view program);

}  // namespace foothold
