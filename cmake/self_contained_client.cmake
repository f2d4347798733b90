# The self-contained client library's own copies of Bullet's collision module and of libsodium.
#
# A game ships libfoothold-client.so alone: at run time it needs libc, libstdc++ and libm only. So it
# carries what it uses inside it, position-independent and hidden behind its version script. Debian
# packages Bullet and libsodium as shared libraries only (libsodium.a is not position-independent),
# so they are compiled here from Debian's own sources of the versions installed, which ./setup.sh
# unpacks (dpkg-source, Debian's patches applied) under FOOTHOLD_DEBIAN_SOURCES. Nothing is
# downloaded at build time. The header-only libraries (tinyobjloader, tinygltf with stb, toml++) are
# compiled in by client/third_party_impl.cpp; FlatBuffers and Asio need no library at all.
#
# Off in the arm64 and sanitizer builds (their shared client links Debian's libraries, as a build for
# testing may); FOOTHOLD_SELF_CONTAINED_CLIENT=OFF does the same anywhere. Always on for Windows,
# where nothing else provides Bullet or libsodium (cmake/windows_dependencies.cmake).
set(_foothold_self_contained_default ON)
if((CMAKE_CROSSCOMPILING AND NOT WIN32) OR FOOTHOLD_SANITIZE OR FOOTHOLD_FUZZ)
  set(_foothold_self_contained_default OFF)
endif()
option(FOOTHOLD_SELF_CONTAINED_CLIENT "Build libfoothold-client.so with Bullet, libsodium and the file formats inside it"
       ${_foothold_self_contained_default})
set(FOOTHOLD_DEBIAN_SOURCES /usr/src/foothold CACHE PATH "Where ./setup.sh unpacks Debian's sources of Bullet and libsodium")

if(FOOTHOLD_SELF_CONTAINED_CLIENT)
  set(_bullet ${FOOTHOLD_DEBIAN_SOURCES}/bullet/src)
  set(_sodium ${FOOTHOLD_DEBIAN_SOURCES}/libsodium/src/libsodium)
  if(NOT EXISTS ${_bullet}/btBulletCollisionAll.cpp OR NOT EXISTS ${_sodium}/include/sodium.h)
    message(FATAL_ERROR
      "The self-contained client library compiles Debian's sources of Bullet and libsodium, which are not in "
      "${FOOTHOLD_DEBIAN_SOURCES}: run ./setup.sh as root (it unpacks them there), or configure with "
      "-DFOOTHOLD_SELF_CONTAINED_CLIENT=OFF (libfoothold-client.so then needs Debian's libraries at run time).")
  endif()

  # Bullet's collision module and LinearMath, in double precision like Debian's "-float64" libraries
  # whose headers the simulation is compiled against (the same package version: ./setup.sh fetches
  # the installed one). Bullet's own one-file builds of each.
  add_library(foothold_bullet_pic STATIC ${_bullet}/btBulletCollisionAll.cpp ${_bullet}/btLinearMathAll.cpp)
  target_include_directories(foothold_bullet_pic PRIVATE ${_bullet})
  target_compile_definitions(foothold_bullet_pic PRIVATE BT_USE_DOUBLE_PRECISION)
  target_link_libraries(foothold_bullet_pic PRIVATE foothold::determinism)
  target_compile_options(foothold_bullet_pic PRIVATE -w)  # not our code: its warnings are not ours to fix

  # libsodium with its portable implementations only (no CPU dispatch: a client's few packets a tick
  # do not need it), getrandom() for randomness and explicit_bzero() for wiping, as glibc has both.
  file(GLOB_RECURSE _sodium_sources CONFIGURE_DEPENDS ${_sodium}/*.c)
  file(STRINGS ${FOOTHOLD_DEBIAN_SOURCES}/libsodium/configure.ac _sodium_ac REGEX "^AC_INIT|^SODIUM_LIBRARY_VERSION_M")
  string(REGEX MATCH "AC_INIT\\(\\[libsodium\\],\\[([0-9.]+)\\]" _ "${_sodium_ac}")
  set(VERSION ${CMAKE_MATCH_1})
  string(REGEX MATCH "SODIUM_LIBRARY_VERSION_MAJOR=([0-9]+)" _ "${_sodium_ac}")
  set(SODIUM_LIBRARY_VERSION_MAJOR ${CMAKE_MATCH_1})
  string(REGEX MATCH "SODIUM_LIBRARY_VERSION_MINOR=([0-9]+)" _ "${_sodium_ac}")
  set(SODIUM_LIBRARY_VERSION_MINOR ${CMAKE_MATCH_1})
  if(NOT VERSION OR NOT SODIUM_LIBRARY_VERSION_MAJOR OR NOT SODIUM_LIBRARY_VERSION_MINOR)
    message(FATAL_ERROR "libsodium's configure.ac in ${FOOTHOLD_DEBIAN_SOURCES}/libsodium names no version")
  endif()
  set(SODIUM_LIBRARY_MINIMAL_DEF "")
  configure_file(${_sodium}/include/sodium/version.h.in ${CMAKE_BINARY_DIR}/sodium_pic/sodium/version.h @ONLY)
  # version.h includes "export.h" from its own folder: a copy beside the generated one, for the
  # programs that include sodium.h from these sources (the Windows build).
  configure_file(${_sodium}/include/sodium/export.h ${CMAKE_BINARY_DIR}/sodium_pic/sodium/export.h COPYONLY)
  add_library(foothold_sodium_pic STATIC ${_sodium_sources})
  target_include_directories(foothold_sodium_pic BEFORE PRIVATE ${CMAKE_BINARY_DIR}/sodium_pic/sodium ${_sodium}/include/sodium)
  target_include_directories(foothold_sodium_pic BEFORE PUBLIC ${CMAKE_BINARY_DIR}/sodium_pic ${_sodium}/include)
  target_compile_definitions(foothold_sodium_pic PRIVATE CONFIGURED=1 NATIVE_LITTLE_ENDIAN=1 PUBLIC SODIUM_STATIC)
  if(WIN32)
    # Its Windows code: SecureZeroMemory to wipe, RtlGenRandom (advapi32) for randomness.
    target_link_libraries(foothold_sodium_pic PUBLIC advapi32)
  else()
    target_compile_definitions(foothold_sodium_pic PRIVATE HAVE_EXPLICIT_BZERO=1 HAVE_GETRANDOM=1 HAVE_SYS_RANDOM_H=1)
  endif()
  target_compile_options(foothold_sodium_pic PRIVATE -w)
  unset(VERSION)
endif()
