# The libraries a Windows build (the windows preset, cmake/windows-x86_64.cmake) uses, in place of the
# Debian packages a Linux build finds. Debian packages no library for MinGW, so:
#   - header-only libraries (Asio, FlatBuffers, CLI11, toml++, tinyobjloader, tinygltf with
#     nlohmann-json and stb) are taken from the host's /usr/include one by one, through a folder of
#     links that holds them and nothing else: the host's C library headers must never be seen;
#   - the header-only libraries' implementations are compiled once (foothold_header_only_impl, from
#     client/third_party_impl.cpp) as the self-contained Linux library compiles them;
#   - Bullet's collision module and libsodium are cmake/self_contained_client.cmake's builds from
#     Debian's sources.
# Everything links statically (libstdc++, libgcc, winpthread), so the DLL and the programs need only
# Windows' own DLLs.
if(NOT FOOTHOLD_SELF_CONTAINED_CLIENT)
  message(FATAL_ERROR "A Windows build compiles Bullet and libsodium itself: FOOTHOLD_SELF_CONTAINED_CLIENT must be ON")
endif()

set(_host_headers ${CMAKE_BINARY_DIR}/host_headers)
file(MAKE_DIRECTORY ${_host_headers})
foreach(entry asio asio.hpp CLI flatbuffers nlohmann toml++ tiny_gltf.h tiny_obj_loader.h stb/stb_image.h
              stb/stb_image_write.h)
  if(NOT EXISTS /usr/include/${entry})
    message(FATAL_ERROR "/usr/include/${entry} is missing: run ./setup.sh")
  endif()
  get_filename_component(_name ${entry} NAME)
  file(CREATE_LINK /usr/include/${entry} ${_host_headers}/${_name} SYMBOLIC)
endforeach()

add_library(foothold_host_headers INTERFACE)
target_include_directories(foothold_host_headers SYSTEM INTERFACE ${_host_headers})

# Asio on Windows 10 and later: Winsock 2 and its extensions.
target_compile_definitions(foothold_host_headers INTERFACE _WIN32_WINNT=0x0A00 WIN32_LEAN_AND_MEAN NOMINMAX)
target_link_libraries(foothold_host_headers INTERFACE ws2_32 mswsock)

add_library(foothold_header_only_impl STATIC ${PROJECT_SOURCE_DIR}/client/third_party_impl.cpp)
target_link_libraries(foothold_header_only_impl PRIVATE foothold_host_headers)
target_compile_definitions(foothold_header_only_impl PRIVATE TINYOBJLOADER_USE_DOUBLE TOML_HEADER_ONLY=0)
target_compile_options(foothold_header_only_impl PRIVATE -w)  # not our code

add_library(flatbuffers::flatbuffers ALIAS foothold_host_headers)
add_library(CLI11::CLI11 ALIAS foothold_host_headers)
add_library(TinyGLTF::TinyGLTF ALIAS foothold_header_only_impl)
add_library(foothold_tinyobjloader INTERFACE)
target_link_libraries(foothold_tinyobjloader INTERFACE foothold_host_headers foothold_header_only_impl)
target_compile_definitions(foothold_tinyobjloader INTERFACE TINYOBJLOADER_USE_DOUBLE)
add_library(tinyobjloader::tinyobjloader_double ALIAS foothold_tinyobjloader)
add_library(foothold_tomlplusplus INTERFACE)
target_link_libraries(foothold_tomlplusplus INTERFACE foothold_host_headers foothold_header_only_impl)
target_compile_options(foothold_tomlplusplus INTERFACE -DTOML_HEADER_ONLY=0)
add_library(tomlplusplus::tomlplusplus ALIAS foothold_tomlplusplus)
target_link_libraries(foothold_header_only_impl INTERFACE foothold_host_headers)
add_library(PkgConfig::SODIUM ALIAS foothold_sodium_pic)

# Bullet: the simulation compiles against the sources' headers (the version Debian installs).
add_library(foothold_bullet_collision INTERFACE)
add_library(Bullet::Collision ALIAS foothold_bullet_collision)
target_include_directories(foothold_bullet_collision SYSTEM INTERFACE ${FOOTHOLD_DEBIAN_SOURCES}/bullet/src)
target_compile_definitions(foothold_bullet_collision INTERFACE BT_USE_DOUBLE_PRECISION)
target_link_libraries(foothold_bullet_collision INTERFACE foothold_bullet_pic)

# Google Test, for the scenario suite run under Wine: Debian's libgtest-dev ships its sources.
set(FOOTHOLD_GTEST_SOURCES /usr/src/googletest CACHE PATH "Google Test's sources (Debian's libgtest-dev)")

# No DLL of the C or C++ runtime: a program or the client DLL runs on a bare Windows.
add_link_options(-static)
