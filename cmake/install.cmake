# `cmake --install`: the client SDK (libraries, headers, a CMake package and a pkg-config module)
# and the tools (installed by their own folders).
#
#   <prefix>/include/foothold/client.h              the C API
#   <prefix>/include/foothold/{shared,client,proto}/... the C++ API: simulation, formats, client, wire (proto)
#   <prefix>/lib/libfoothold-client.so.0.1.0        the client, shared (soname libfoothold-client.so.0): the C API, self-contained
#   <prefix>/lib/libfoothold-{client,sim,formats,proto}.a  the same, static, one archive per target
#   <prefix>/lib/cmake/Foothold/                    find_package(Foothold COMPONENTS client | client_static | sim | server)
#   <prefix>/lib/pkgconfig/foothold-client.pc       pkg-config --cflags --libs foothold-client
#   <prefix>/include/foothold/server/{game,server_program}.h  the game API and the server program
#   <prefix>/include/foothold/follow/*.h             paths and the path follower (GameControl::path())
#   <prefix>/lib/libfoothold-{server,fleet,replay,workers,version,follow,nav}.a  the server, for a game's own server (Foothold::server)
include(CMakePackageConfigHelpers)

set(foothold_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/Foothold)

install(FILES ${PROJECT_SOURCE_DIR}/client/include/foothold/client.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/foothold COMPONENT dev)
# The C++ headers keep their paths under include/foothold/, so that their own includes
# ("shared/world.h") resolve against it. proto/endpoint.h is left out: it is Asio's, for our tools.
foreach(dir shared shared/formats client proto)
  file(GLOB headers ${PROJECT_SOURCE_DIR}/${dir}/*.h)
  list(FILTER headers EXCLUDE REGEX "/proto/endpoint\\.h$")
  install(FILES ${headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/foothold/${dir} COMPONENT dev)
endforeach()
install(FILES ${PROJECT_BINARY_DIR}/proto/include/proto/foothold_generated.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/foothold/proto
        COMPONENT dev)
# The server's public face: the game API and the program that runs a game (the rest of server/ is
# its inside, and reaches for Asio).
install(FILES ${PROJECT_SOURCE_DIR}/server/game.h ${PROJECT_SOURCE_DIR}/server/server_program.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/foothold/server COMPONENT dev)
# Paths and the path follower, which the game API's paths are (GameControl::path()).
file(GLOB follow_headers ${PROJECT_SOURCE_DIR}/follow/*.h)
install(FILES ${follow_headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/foothold/follow COMPONENT dev)

# A complete game to build against the package (examples/hill_game: its source, level and CMake
# project; tests/install/check_install.sh builds it from the installed copy).
install(FILES ${PROJECT_SOURCE_DIR}/examples/hill_game/CMakeLists.txt ${PROJECT_SOURCE_DIR}/examples/hill_game/hill_game.cpp
              ${PROJECT_SOURCE_DIR}/examples/hill_game/hill.gltf ${PROJECT_SOURCE_DIR}/examples/hill_game/make_level.py
              ${PROJECT_SOURCE_DIR}/examples/hill_game/README.md
        DESTINATION ${CMAKE_INSTALL_DATADIR}/foothold/examples/hill_game COMPONENT dev)

# The shared library in a set of its own: Foothold::client needs nothing else installed.
# (The library itself is the client component's, its development symlink the dev component's: the
# packages libfoothold-client0 and libfoothold-dev, cmake/packaging.cmake.)
install(TARGETS foothold_client_shared
        EXPORT FootholdClientTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT client NAMELINK_COMPONENT dev)
install(EXPORT FootholdClientTargets NAMESPACE Foothold:: DESTINATION ${foothold_cmake_dir} COMPONENT dev)
install(TARGETS foothold_client foothold_sim foothold_formats foothold_proto foothold_determinism
                foothold_bullet_collision
        EXPORT FootholdTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(EXPORT FootholdTargets NAMESPACE Foothold:: DESTINATION ${foothold_cmake_dir} COMPONENT dev)
# The server component in a set of its own, loaded only when asked for: it brings spdlog, CLI11 and
# toml++, which the client's never do.
# The navigation mesh's library (nav/, over Debian's Recast/Detour) goes with it where it is built.
set(foothold_nav_archive "")
if(TARGET foothold_nav)
  set(foothold_nav_archive foothold_nav)
endif()
install(TARGETS foothold_server foothold_fleet foothold_replay foothold_workers foothold_version foothold_follow ${foothold_nav_archive}
        EXPORT FootholdServerTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(EXPORT FootholdServerTargets NAMESPACE Foothold:: DESTINATION ${foothold_cmake_dir} COMPONENT dev)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/FootholdConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/FootholdConfig.cmake INSTALL_DESTINATION ${foothold_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/FootholdConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/FootholdConfig.cmake ${PROJECT_BINARY_DIR}/FootholdConfigVersion.cmake
        DESTINATION ${foothold_cmake_dir} COMPONENT dev)

# Relocatable: the prefix is found from the .pc file's own place, so `cmake --install --prefix DIR`
# works whatever prefix the build was configured with.
file(RELATIVE_PATH foothold_pc_to_prefix "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
configure_file(${PROJECT_SOURCE_DIR}/cmake/foothold-client.pc.in ${PROJECT_BINARY_DIR}/foothold-client.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/foothold-client.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)
