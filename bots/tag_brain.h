#pragma once
// The tag brain (foothold-bot --pattern tag): plays the built-in tag game (foothold-server --game tag,
// games/tag_game.h) reading the game's replicated attributes like any game client would.
//
// Each tick the brain looks at what its session shows (a TagView: its own character id, the match
// attribute "it", the other characters of the newest snapshot) and at its own predicted state:
//   - "it" runs at full speed at the nearest other character (3D distance; ties: the lowest id),
//     leaving alone for 3 s the one who just passed "it" to it (the game would not take it back);
//   - the others run from "it" when it is in view within kFleeRadius, at an angle (left or right,
//     switched now and then and whenever they are stuck against something), so that "it" can gain
//     on them; otherwise, and before the game has chosen anyone, they wander;
//   - anyone stuck (barely moving while pushing) swerves for a second; everyone jumps now and then.
// The brain is a pure function of its seed, its bot index and what it is shown: the same
// observations give the same inputs.

#include <cstdint>
#include <functional>
#include <memory>
#include <span>

#include "client/session.h"
#include "shared/character_contacts.h"

namespace foothold::bots {

/// The tag game's attribute indices as games/tag_game.h documents them: used when the server's
/// Accept names no attributes (a server older than the names on the wire).
inline constexpr int kTagMatchIt = 0;          ///< match "it": the character id of "it" (0: nobody yet)
inline constexpr int kTagMatchRound = 1;       ///< match "round", from 1
inline constexpr int kTagCharacterItSeconds = 0;  ///< character "it_seconds": whole seconds as "it" this round

/// A runner flees "it" when it is nearer than this, metres (horizontally); farther off it wanders.
inline constexpr double kFleeRadius = 8;

/// What a tag brain sees each tick.
struct TagView {
  uint32_t self = 0;  ///< its own character id (0: not joined yet)
  uint32_t it = 0;    ///< the match attribute "it": who is "it" (0: nobody yet)
  /// The other characters, as the newest snapshot shows them (positions in 1/1024 m); any order.
  std::span<const OtherCharacter> others;
};

/// Where a tag brain looks, once per tick; the spans it returns must stay valid until the next call.
using TagEyes = std::function<TagView()>;

/// The value of the session's attribute called `name` (of the match when `match`, else of its own
/// character); when the server named no attributes at all, the one at `fallback`; 0 when the
/// server named attributes but none so.
int32_t tag_attribute(const client::ClientSession& session, bool match, std::string_view name, int fallback);

/// What `session` shows now (it must outlive the span of others returned).
TagView tag_view(const client::ClientSession& session);

/// A bot's standing in the tag game, from its session's attributes.
struct TagStanding {
  uint32_t id = 0;          ///< its character id
  int32_t round = 0;        ///< the match's "round" (0: no tag game heard)
  int32_t it_seconds = 0;   ///< its character's "it_seconds" in that round
};
/// The standing `session` shows now.
TagStanding tag_standing(const client::ClientSession& session);

/// A tag brain, as make_brain() makes it for Pattern::kTag but looking through `eyes` (called once
/// per next()): bots with different indices (or seeds) behave differently, the same seed and index
/// always the same given the same views and states. `tick_rate` (ticks per second) times its choices.
std::unique_ptr<client::InputSource> make_tag_brain(uint64_t seed, uint32_t bot_index, int tick_rate, TagEyes eyes);

}  // namespace foothold::bots
