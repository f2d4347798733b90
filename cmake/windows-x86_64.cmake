# Cross-compiling for Windows on x86-64 on Debian: MinGW-w64's GCC 12 with POSIX threads
# (g++-mingw-w64-x86-64-posix), its Windows headers and import libraries under
# /usr/x86_64-w64-mingw32, and wine64 to run what the build must run. Used by the windows preset.
# Only header-only libraries come from the host's /usr/include (cmake/windows_dependencies.cmake
# picks them one by one); Bullet and libsodium are compiled from Debian's sources.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_CROSSCOMPILING_EMULATOR /usr/lib/wine/wine64)
