# The Windows distributable: build/windows/foothold-client-VERSION-windows-x86_64.zip, made by every
# windows build (target foothold_windows_zip). What a game on Windows needs and nothing else:
#   bin/foothold-client.dll                      the client (the C API; Windows' own DLLs only)
#   lib/foothold-client.lib                      its import library for MSVC's linker
#   lib/libfoothold-client.dll.a                 its import library for MinGW
#   lib/cmake/FootholdClient/FootholdClientConfig.cmake   find_package(FootholdClient) -> Foothold::client
#   include/foothold/client.h                    the C API
#   LICENSE, THIRD_PARTY.md, README.md           the licences, and how to link it (client/windows/README.md)
set(_zip_name foothold-client-${PROJECT_VERSION}-windows-x86_64)
set(_stage ${CMAKE_BINARY_DIR}/package/${_zip_name})
set(FOOTHOLD_WINDOWS_ZIP ${CMAKE_BINARY_DIR}/${_zip_name}.zip)
add_custom_command(
  OUTPUT ${FOOTHOLD_WINDOWS_ZIP}
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${_stage}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${_stage}/bin ${_stage}/lib/cmake/FootholdClient ${_stage}/include/foothold
  COMMAND ${CMAKE_COMMAND} -E copy $<TARGET_FILE:foothold_client_shared> ${_stage}/bin/
  COMMAND ${CMAKE_COMMAND} -E copy $<TARGET_LINKER_FILE:foothold_client_shared>
          ${CMAKE_BINARY_DIR}/client/foothold-client.lib ${_stage}/lib/
  COMMAND ${CMAKE_COMMAND} -E copy ${PROJECT_SOURCE_DIR}/client/windows/FootholdClientConfig.cmake
          ${_stage}/lib/cmake/FootholdClient/
  COMMAND ${CMAKE_COMMAND} -E copy ${PROJECT_SOURCE_DIR}/client/include/foothold/client.h ${_stage}/include/foothold/
  COMMAND ${CMAKE_COMMAND} -E copy ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/THIRD_PARTY.md ${_stage}/
  COMMAND ${CMAKE_COMMAND} -E copy ${PROJECT_SOURCE_DIR}/client/windows/README.md ${_stage}/
  COMMAND ${CMAKE_COMMAND} -E rm -f ${FOOTHOLD_WINDOWS_ZIP}
  COMMAND ${CMAKE_COMMAND} -E chdir ${CMAKE_BINARY_DIR}/package
          ${CMAKE_COMMAND} -E tar cf ${FOOTHOLD_WINDOWS_ZIP} --format=zip ${_zip_name}
  DEPENDS foothold_client_shared ${PROJECT_SOURCE_DIR}/client/include/foothold/client.h
          ${PROJECT_SOURCE_DIR}/client/windows/README.md ${PROJECT_SOURCE_DIR}/client/windows/FootholdClientConfig.cmake
          ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/THIRD_PARTY.md
  COMMENT "${_zip_name}.zip" VERBATIM)
add_custom_target(foothold_windows_zip ALL DEPENDS ${FOOTHOLD_WINDOWS_ZIP})
