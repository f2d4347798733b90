// The implementations of the header-only libraries the file formats use, for the self-contained
// shared library only (cmake/self_contained_client.cmake): the static libraries and the programs
// link Debian's shared builds of them instead. Compiled with the definitions foothold::formats sees
// (tinyobjloader in double precision, toml++ as a library), so these are the symbols its objects call.

#define TINYOBJLOADER_IMPLEMENTATION
#include <tiny_obj_loader.h>

#define TOML_IMPLEMENTATION
#include <toml++/toml.h>

// tinygltf's default image callbacks are referenced by its loader's constructor; stb implements them.
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define TINYGLTF_IMPLEMENTATION
#include <tiny_gltf.h>
