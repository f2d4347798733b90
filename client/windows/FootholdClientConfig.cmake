# find_package(FootholdClient) for the Windows distributable (foothold-client-VERSION-windows-x86_64.zip):
# Foothold::client, the DLL with its import library (foothold-client.lib for MSVC,
# libfoothold-client.dll.a for MinGW) and include/foothold/client.h.
get_filename_component(_foothold_root "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET Foothold::client)
  add_library(Foothold::client SHARED IMPORTED)
  if(MSVC)
    set(_foothold_implib "${_foothold_root}/lib/foothold-client.lib")
  else()
    set(_foothold_implib "${_foothold_root}/lib/libfoothold-client.dll.a")
  endif()
  set_target_properties(Foothold::client PROPERTIES
    IMPORTED_LOCATION "${_foothold_root}/bin/foothold-client.dll"
    IMPORTED_IMPLIB "${_foothold_implib}"
    INTERFACE_INCLUDE_DIRECTORIES "${_foothold_root}/include")
  unset(_foothold_implib)
endif()
unset(_foothold_root)
