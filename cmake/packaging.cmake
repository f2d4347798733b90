# Debian packages, by CPack from the install rules' components (./build.sh deb):
#
#   foothold-server        the programs (component server): foothold-server, foothold-token,
#                          foothold-bot, foothold-replay; what the container image holds
#   libfoothold-client0    the client library (component client): self-contained, it depends on libc6
#                          and libstdc++6 only
#   libfoothold-dev        headers, static libraries, the CMake package and the pkg-config module
#                          (component dev); it depends on libfoothold-client0 of the same version, and
#                          recommends the Debian development packages the C++ API's static archives
#                          link (a C game on the shared library needs none of them)
#
# The programs' and the library's dependencies on Debian's runtime packages are dpkg-shlibdeps's,
# from what they link. foothold-play (component play) is an example with SDL2 and OpenGL: not packaged.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME foothold)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "Foothold")
set(CPACK_PACKAGE_CONTACT "Foothold developers <foothold@invalid.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Deterministic fixed-tick simulation server for multiplayer games")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_COMPONENTS_ALL server client dev)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_STRIP_FILES ON)  # as Debian ships binaries
set(CPACK_DEBIAN_PACKAGE_SECTION games)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://invalid.invalid/foothold")

set(CPACK_DEBIAN_SERVER_PACKAGE_NAME foothold-server)
set(CPACK_COMPONENT_SERVER_DESCRIPTION
    "Foothold's server and tools\n foothold-server runs a fixed-tick match of kinematic characters that every client\n predicts bit-exactly; foothold-token mints connect tokens, foothold-bot loads a server\n with bot clients, foothold-replay verifies, replays and diffs recordings.")

set(CPACK_DEBIAN_CLIENT_PACKAGE_NAME libfoothold-client0)
set(CPACK_DEBIAN_CLIENT_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_CLIENT_PACKAGE_GENERATE_SHLIBS ON)  # shlibs and the ldconfig trigger
set(CPACK_COMPONENT_CLIENT_DESCRIPTION
    "Foothold's client library\n Prediction and reconciliation against a Foothold server, behind a C API. The library\n is self-contained: Bullet's collision module, libsodium and the file formats are inside it.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libfoothold-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libfoothold-client0 (= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_DEV_PACKAGE_RECOMMENDS
    "libbullet-dev, libsodium-dev, libflatbuffers-dev, libtinyobjloader-dev, libtinygltf-dev, libtomlplusplus-dev, libspdlog-dev, libcli11-dev, librecast-dev")
set(CPACK_DEBIAN_DEV_PACKAGE_SHLIBDEPS OFF)  # headers and archives: nothing it runs
set(CPACK_COMPONENT_DEV_DESCRIPTION
    "Foothold's development files\n The C API's header and pkg-config module (all a C game needs), the C++ API's headers and\n static libraries, the game API for a game's own server, and the CMake package\n (find_package(Foothold COMPONENTS client | client_static | sim | server)).")

# Each package carries the licence (and the client library what it bundles) as Debian's copyright file.
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/foothold-server RENAME copyright
        COMPONENT server)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/libfoothold-client0 RENAME copyright
        COMPONENT client)
install(FILES ${PROJECT_SOURCE_DIR}/THIRD_PARTY.md DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/libfoothold-client0 COMPONENT client)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/libfoothold-dev RENAME copyright
        COMPONENT dev)

include(CPack)
