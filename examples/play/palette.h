#pragma once
// foothold-play's colours, in one place. The headless test classifies the pixels of saved frames by
// these exact values and ranges: keep tests/play/check_frames.cpp in step with any change here.
//
// Every lit colour is base * intensity (shade() below), with intensity in [kWorldMinLight, 1] for the
// world and [kCharacterMinLight, 1] for characters, so each surface keeps its hue: the
// plain world stays grey-green (g > r > b), the local character stays strongly blue.

#include <cstdint>

namespace play {

/// An RGB colour, 0..255 per channel.
struct Rgb {
  uint8_t r, g, b;
};

// The clear colour: the sky. Never lit, so it reaches the frame exactly (check_frames: kSky).
inline constexpr Rgb kSky{135, 185, 235};

// The world by surface tag (foothold_client_world_triangles' tags 0, 1, 2).
inline constexpr Rgb kWorldPlain{128, 150, 112};   // grey-green (check_frames: is_world())
inline constexpr Rgb kWorldAlways{176, 160, 84};   // always_ground: sandy
inline constexpr Rgb kWorldNever{196, 84, 72};     // never_ground: reddish
inline constexpr double kCheckerDarken = 0.88;     // every other 2 m floor cell, to see motion

inline constexpr Rgb kMover{235, 140, 40};          // moving platforms: orange
inline constexpr Rgb kLocalCharacter{30, 80, 255};  // you: bright blue (check_frames: is_character())
inline constexpr Rgb kRemoteCharacter{240, 210, 40};  // the others: yellow

// The net graph overlay (top-left corner).
inline constexpr Rgb kPanel{20, 22, 30};
inline constexpr Rgb kText{230, 230, 230};
inline constexpr Rgb kTextWarn{255, 120, 100};
inline constexpr Rgb kRttBar{80, 220, 120};

// Flat shading: intensity = min_light + (1 - min_light) * max(0, n . light).
inline constexpr double kWorldMinLight = 0.45;
inline constexpr double kCharacterMinLight = 0.6;

/// `base` scaled by `intensity` (in [0, 1]).
inline Rgb shade(Rgb base, double intensity) {
  auto channel = [intensity](uint8_t c) { return uint8_t(double(c) * intensity + 0.5); };
  return {channel(base.r), channel(base.g), channel(base.b)};
}

}  // namespace play
