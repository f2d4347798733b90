// Links the installed C++ API statically: loads the arena and steps a character on it.
#include <cstdio>

#include "shared/formats/world_file.h"
#include "shared/settings.h"
#include "shared/step.h"

int main() {
  auto loaded = foothold::load_world("arena");
  if (!loaded.world) {
    std::fprintf(stderr, "consumer_cpp: %s\n", loaded.error.c_str());
    return 1;
  }
  const foothold::DerivedSettings settings = foothold::derive(foothold::MoveSettings{});
  foothold::CharacterState state = foothold::spawn_state({0, 2, 0});
  foothold::StepScratch scratch;
  for (uint32_t tick = 1; tick <= 120; ++tick)
    state = foothold::step(state, foothold::InputCmd{tick}, *loaded.world, settings, scratch).state;
  std::printf("ground=%d y=%d\n", int(state.ground), state.position.y);
  return state.ground == foothold::GroundKind::kWalkable ? 0 : 1;
}
