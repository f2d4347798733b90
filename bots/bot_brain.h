#pragma once
// What bots do: the input patterns of foothold-bot --pattern.

#include <cstdint>
#include <memory>
#include <string>

#include "replay/input_script.h"
#include "client/session.h"

namespace foothold::bots {

/// How a bot moves. Its wishes are in world axes (X and Z), as the step takes them.
enum class Pattern : uint8_t {
  kWander,  ///< walk in a direction that changes every one to three seconds; jump now and then
  kCircle,  ///< walk round a circle of about 3 m radius
  kJump,    ///< jump whenever grounded, drifting slowly
  kScript,  ///< play an input script (replay/input_script.h), looped
  kRide,    ///< walk onto a mover (bot i: mover i modulo their count), then crowd toward its middle,
            ///< crouching and jumping now and then; wander in a world without movers
  kTag,     ///< play the tag game (foothold-server --game tag): "it" chases the nearest other, the
            ///< others run from "it" (bots/tag_brain.h); wander while nobody is "it"
  kShoot,   ///< wander, and shoot twice a second at the nearest other as drawn (bots/shooter.h;
            ///< foothold-server --game hitscan)
};

/// A pattern as foothold-bot --pattern gives it.
struct PatternSpec {
  /// Which pattern.
  Pattern pattern = Pattern::kWander;
  replay::InputScript script;  ///< for kScript
};

/// "wander", "circle", "jump", "ride", "tag", "shoot" or "script:FILE". On failure returns false and says why.
bool parse_pattern(const std::string& text, PatternSpec& out, std::string& error);

/// A bot's input source; bots with different indices (or seeds) behave differently, the same
/// seed and index always the same. `tick_rate` (ticks per second) times the patterns. A kScript
/// brain refers to `spec.script`: `spec` must outlive it. A kRide brain finds the movers in `world`
/// (null: none), which it refers to: `world` must outlive it. A kTag brain reads its bot's `session`
/// (the game's attributes, the other characters; null: it sees nobody, and wanders), which must
/// outlive it; the other patterns ignore it.
std::unique_ptr<client::InputSource> make_brain(const PatternSpec& spec, uint64_t seed, uint32_t bot_index, int tick_rate,
                                                const World* world = nullptr,
                                                const client::ClientSession* session = nullptr);

}  // namespace foothold::bots
