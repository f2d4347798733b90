#pragma once
/// @file
/// The game API: where a game's rules run inside the server's deterministic tick.
///
/// A game is C++ code implementing Game, handed to the server (ServerCore::set_game, or
/// run_server() for a program of its own). The server calls it at defined points, always on its one
/// io thread, in a defined order; the game answers through GameControl, whose commands take effect
/// at the next tick boundary, the same on every run:
///
///   when a Connect is accepted (between ticks)  on_join: the game may choose the spawn point; the
///                                               character steps from the next tick on
///   at the start of tick T, before its steps:   on_allocated, once, when the fleet has allocated
///                                               the server since tick T-1 (Agones); then
///                                               on_leave for each character gone since tick T-1,
///                                               ascending id; then on_message for each message that
///                                               arrived, ascending sender id, each sender's reliable
///                                               ones first, each channel in order; then every command
///                                               given since the last boundary is applied, in the
///                                               order given (and recorded, as tick T's)
///   tick T's steps
///   after tick T's steps, before its snapshots: on_trigger_leave and on_trigger_enter for every
///                                               character whose trigger volumes changed, ascending
///                                               id, each one's leaves before its enters, each in
///                                               ascending trigger index; then after_tick with every
///                                               character's state and what it touched, ascending id
///
/// A character that leaves the match while in triggers gets on_trigger_leave for each, ascending
/// index, just before its on_leave: every enter has its leave.
///
/// So a command given in after_tick(T) or in a hook at the start of tick T+1 acts before T+1's steps.
/// Messages a game sends are queued at once and go out after the next snapshots. A game must not
/// block: it runs inside the tick.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "follow/nearby_index.h"
#include "follow/path.h"
#include "follow/path_follower.h"
#include "proto/message_endpoint.h"
#include "shared/character_state.h"
#include "shared/input.h"
#include "shared/mover_clock.h"
#include "shared/ray_query.h"
#include "shared/server_limits.h"
#include "shared/settings.h"
#include "shared/touches.h"
#include "shared/vec3.h"
#include "shared/world.h"

namespace foothold::server {

/// The attributes a game replicates to its clients (Game::schema()): integers, sent in the snapshots
/// when they change and read by clients by index or name. Each list holds at most 16 names, each 1–16
/// characters of [a-z0-9_], unique within its list.
///
/// A character attribute's visibility is `self` (only the character's own client receives it) unless
/// its name is also in `seen_by_all`: then it is `all`, and every client that sees the character (has
/// it in its view) receives it too, with the character (a team, a score, a health bar over a player):
///
///   GameSchema schema() const override { return {{"team", "ammo"}, {"round"}, {"team"}}; }  // team: all
struct GameSchema {
  std::vector<std::string> character_attributes;  ///< each character's (a client receives its own)
  std::vector<std::string> match_attributes;      ///< the match's (every client receives them)
  /// The names of character_attributes whose visibility is `all` (each once); the others are `self`.
  /// Each costs every client that sees the character the bytes of its changes, within the budget.
  std::vector<std::string> seen_by_all = {};
};
/// Most attributes per character, and per match.
inline constexpr int kMaxGameAttributes = 16;

/// The fleet's allocation of this server to a match (Agones: its GameServer became Allocated): the
/// GameServer's labels and annotations then, each sorted by key. Where a backend says what the match
/// is (a game mode, a map, a match id) through a GameServerAllocation's metadata.
struct Allocation {
  std::vector<std::pair<std::string, std::string>> labels;       ///< the GameServer's labels, (key, value) sorted by key
  std::vector<std::pair<std::string, std::string>> annotations;  ///< the GameServer's annotations, (key, value) sorted by key
};

/// A client whose Connect was just accepted.
struct Joining {
  uint32_t character = 0;              ///< its character's id (ascending, never reused)
  uint64_t client_id = 0;              ///< the connect token's client id
  std::span<const uint8_t> user_data;  ///< the connect token's user data (what the backend said of the player)
};

/// One character after a tick.
struct CharacterReport {
  uint32_t id = 0;                ///< the character's id
  CharacterState state;           ///< after the tick
  std::span<const Touch> touches; ///< what its step touched: surfaces (with their tags), movers, other characters
};

/// One tick, after its steps. The spans are valid only during Game::after_tick().
struct TickReport {
  uint32_t tick = 0;                              ///< the tick just simulated
  std::span<const CharacterReport> characters;    ///< ascending id
};

/// What the server had measured of a client when it handed one of its messages to the game
/// (GameControl::message_timing()): what bounds the times a shot may claim, since a client's own
/// clock is not to be trusted. Recorded with the message (recording format 10), so that a replay
/// judges the same; zeros when unknown (an older recording), and then nothing is bounded by it.
struct MessageTiming {
  /// The newest input tick that had arrived from it (InputBuffer::newest_received): its prediction,
  /// and so the fire tick of anything it sent with that input, was no further ahead. 0: unknown.
  uint32_t newest_input = 0;
  /// The newest snapshot tick it had acknowledged: it had drawn the others from that snapshot or a
  /// newer one, so its view was at most an interpolation delay behind it. 0: unknown.
  uint32_t acked_snapshot = 0;
};
/// A fire tick may be this many ticks past MessageTiming::newest_input: a message may be handed over
/// before the input sent with it is counted, and a copy (MessageLimits::copies) a datagram later.
inline constexpr uint32_t kFireTickMargin = 2;
/// How far behind MessageTiming::acked_snapshot an honest view may be: the client's interpolation
/// delay (client/view_clock.h: one snapshot interval, one more for each snapshot loss makes worth
/// waiting for, two at 5% loss, and its measured jitter, a quarter tick of margin), in snapshot
/// intervals, plus kViewJitterTicks.
inline constexpr double kViewDelayIntervals = 3;
/// The jitter allowance of that bound, ticks: the view clock's jitter part and its steering (it
/// follows a changed delay at 10%), and a message handed over a tick after its datagram's ack.
inline constexpr double kViewJitterTicks = 6;

/// How much a game's log line matters (GameControl::log): the server's logger's levels, debug to error.
enum class GameLogLevel : uint8_t { kDebug, kInfo, kWarn, kError };
/// A game's log line at most, in bytes: longer text is cut there.
inline constexpr std::size_t kMaxGameLogLine = 512;

/// What a game tells a mover to do (GameControl::mover; shared/mover_clock.h has the clock).
struct MoverCommand {
  MoverAction action = MoverAction::kStop;  ///< what the mover does
  /// kStart: the rate, times the animation's own speed (negative runs it backwards); kGoTo: the
  /// speed, > 0. At most 16 either way; held to 1/65536.
  double rate = 1;
  /// kGoTo: the key (mover_keys(): the distinct key times of its animation, ascending).
  int key = 0;
  /// Runs at `rate` without end (looping), either way.
  static MoverCommand start(double rate = 1) { return {MoverAction::kStart, rate, 0}; }
  /// Holds where it is.
  static MoverCommand stop() { return {MoverAction::kStop, 0, 0}; }
  /// Runs the other way: one going to a key goes back to where that run started, and stops there.
  static MoverCommand reverse() { return {MoverAction::kReverse, 0, 0}; }
  /// Runs at `speed` to key `key` (the nearest time its loop shows it) and stops there.
  static MoverCommand go_to(int key, double speed = 1) { return {MoverAction::kGoTo, speed, key}; }
};

/// What a game does: commands applied at the next tick boundary, and what it may read. Every command
/// naming a character returns false, and does nothing, when there is no such character now (it left,
/// or never was) or a value is out of range (each command says its range; an attribute's index is in
/// range below the schema's count of them); a character that leaves before the boundary has its
/// commands dropped there (counted: game_commands_dropped). A replay applies a recorded command only
/// within the same ranges (shared/game_command.h's command_problem()).
class GameControl {
 public:
  /// The last tick simulated (0 before the first).
  virtual uint32_t tick() const = 0;
  /// The movement settings (their profiles too).
  virtual const MoveSettings& settings() const = 0;
  /// The characters now, ascending id.
  virtual std::span<const uint32_t> characters() const = 0;
  /// A character's state as the last tick left it, or nullptr when there is no such character.
  virtual const CharacterState* character(uint32_t id) const = 0;
  /// The user data of character `id`'s connect token (empty when there is none).
  virtual std::span<const uint8_t> user_data(uint32_t id) const = 0;
  /// The world the match is played in: its trigger volumes are world().triggers() (a trigger's index
  /// is its place there; its name World::triggers()[index].name), its bounds world().bounds().
  virtual const World& world() const = 0;
  /// The triggers character `id` is in (shared/triggers.h: its capsule overlaps the box) after the
  /// last tick, as trigger indices, ascending; empty when none, before its first tick, or when there
  /// is no such character. During on_trigger_enter and on_trigger_leave: already after that tick's
  /// changes. Valid until the next call.
  virtual std::span<const int> triggers_at(uint32_t id) const = 0;
  /// The index of the trigger named `name` (world().triggers()), or -1 when there is none.
  int trigger_index(std::string_view name) const { return world().trigger_index(name); }
  /// A path from `from` to `to` (metres: a capsule centre, or a point on the ground) on the world's
  /// navigation mesh: where the base settings' character can walk on the static triangles, with
  /// the jumps up a ledge within its jump's reach and the drops off one (movers only where rebuild_navigation() put them). Each
  /// end is taken to the mesh's nearest point (within twice the capsule's radius across and its
  /// height up and down); then Detour's find path and straight path give the corners to go
  /// through, each saying how to go on from it (follow::Leg: walk, jump, drop), for the path follower
  /// (follow/path_follower.h). Complete when it reaches `to`; partial when `to` cannot be reached
  /// (it ends at the closest point that can); none, without corners, when either end is off the
  /// mesh. The same query on the same mesh gives the same corners. The program loads the mesh
  /// (--navmesh) or bakes it at load for a game that asks for paths (GameEntry::paths); without
  /// one, the first call bakes it, inside the tick.
  virtual follow::Path path(const Vec3& from, const Vec3& to) = 0;
  /// Builds the navigation mesh again where mover `index` stands (as the last tick left it) and where
  /// it stood when this was last called for it, with every mover's triangles as they stand there
  /// (the baked mesh has the static world only): a door the game shut blocks paths, one it opened
  /// lets them through again, a platform parked over a gap joins its two sides. path() and follow()
  /// go by the rebuilt mesh from then on. Call it when a mover has stopped where it matters: one
  /// still moving makes the mesh stale again at once. Inside the tick: each tile (about 8.5 m square
  /// for the default capsule) costs a few milliseconds. A replay of the game rebuilds at the same
  /// tick with the same poses, so it finds the same paths. Returns the tiles built again; -1 for a
  /// mover that does not exist, without a mesh, or when Recast failed (logged).
  virtual int rebuild_navigation(int index) = 0;
  /// Drives mover `index` (world().movers()) from the next tick on: recorded, sent to the clients
  /// (who predict it from that tick), and kept for lag compensation. A mover marked
  /// extras.foothold.driven in its glTF starts still at its animation's start; any other runs on the
  /// world's clock until its first command. False, and nothing done, for a mover that does not exist,
  /// a rate not finite or over 16, a go-to with a speed not above 0 or a key the mover lacks.
  virtual bool mover(int index, const MoverCommand& command) = 0;
  /// The index of the mover named `name` (World::Mover::name: its glTF node's name), or -1.
  int mover_index(std::string_view name) const;
  /// Seconds into its animation mover `index` is at the end of the last tick (commands given since
  /// not yet in it; 0 for a mover that does not exist).
  virtual double mover_time(int index) const = 0;

  /// Spawns a character the game drives (an NPC: no client behind it) with its capsule centre at
  /// `position` (metres; still, in the air: it lands by its steps) and movement profile `profile`,
  /// and returns its id: the next id (characters' ids ascend in the order they are given, players'
  /// and NPCs' alike), at once, so that the game can give it commands and set_input() before it is
  /// in the match. It joins at the next tick boundary and steps from that tick on, with the others:
  /// it collides with players and NPCs, rides movers, is in triggers, is seen by clients as a
  /// player is (their view events say it is an NPC) and is recorded as a client's character is,
  /// its inputs with it, so that a recording replays without the game (the spawn is a command of
  /// the recording, checked by --verify-game). remove() ends it (on_leave follows); on_join is not
  /// called for it. Returns 0, and spawns nothing, for a position out of teleport()'s range, an
  /// unknown profile, or kMaxNpcs NPCs already spawned and not removed.
  virtual uint32_t spawn(const Vec3& position, std::string_view profile = "base") = 0;
  /// Sets the input NPC `id` steps with, from the next tick on (held until changed, as a late
  /// client's last input is): the stick and the buttons of `input` (its tick is ignored, unknown
  /// buttons cleared). What a client's player does, the game does for its NPC; a path follower makes
  /// the input from a path (follow()). False for a character that is not an NPC spawned and not
  /// removed.
  virtual bool set_input(uint32_t id, const InputCmd& input) = 0;
  /// The input NPC `id` steps with next (set_input()'s, neutral at first); a neutral one when `id`
  /// is not an NPC.
  virtual InputCmd npc_input(uint32_t id) const = 0;
  /// Whether character `id` is an NPC (spawned by the game, and not removed; also before its first
  /// tick).
  virtual bool is_npc(uint32_t id) const = 0;
  /// How many NPCs the operator asked the game for (--npcs, `npcs`, FOOTHOLD_NPCS; 0: none asked):
  /// a game that fills its match with NPCs reads it in on_start. Recorded, so that --verify-game
  /// asks for as many.
  virtual uint32_t npcs_wanted() const = 0;
  /// A point on the walkable surface of the navigation mesh's main region, drawn uniformly by area
  /// with one number of random(): a patrol's next goal, an NPC's spawn point. The main region is the
  /// largest set of polygons that all reach one another (jump links included), so any two points
  /// drawn are joined by a complete path both ways; none is on a wall's top or in a pit with no way
  /// out. Nothing, and nothing drawn, without a mesh (path() says when one could not be baked).
  /// A mover standing on a point drawn is not known to the mesh (rebuild_navigation()).
  virtual std::optional<Vec3> random_point() = 0;
  /// Steps `follower` (follow/path_follower.h) for NPC `id` and sets its input for the next tick
  /// (set_input()): the follower is given the characters within 10 m of it (ascending id) to steer
  /// round, and a path (path()) whenever it asks for one. Returns the follower's step: kArrived and
  /// kGaveUp say the goal is over (the input is then neutral). A neutral input, and nothing set,
  /// when `id` is not an NPC or has no state yet (spawned since the last tick: it stays still
  /// through its first tick).
  virtual follow::FollowStep follow(uint32_t id, follow::PathFollower& follower) = 0;
  /// Characters within this many metres of an NPC are given to its follower (follow()).
  static constexpr double kFollowNearby = follow::kNearbyReach;

  /// Moves the character's capsule centre to `position` (metres; velocity kept; it leaves the ground).
  /// In range: every component finite and within the world's bounds (World::bounds(), its static
  /// triangles) grown by kTeleportMargin (1,000 m) on each side (shared/game_command.h).
  virtual bool teleport(uint32_t id, const Vec3& position) = 0;
  /// Sets the character's velocity (m/s; it leaves the ground): jump pads, launches (a knockback that
  /// should carry on the ground is push()). In range: every component finite and at most
  /// kMaxCommandSpeed (200 m/s) either way.
  virtual bool set_velocity(uint32_t id, const Vec3& velocity) = 0;
  /// Knockback: adds `velocity`'s horizontal part (m/s) to the character's push, an external velocity
  /// that moves it beside its own on the ground and in the air through the same collide-and-slide,
  /// slides along the walls it meets and dies at push_friction (on the ground) or push_air_friction
  /// (in the air), m/s²: a 6 m/s push on flat ground goes about 6² / (2 · 20) = 0.9 m and stops
  /// (movement.md §5.5). The vertical part is a launch, added to the velocity (upward: it leaves the
  /// ground). The client predicts it. In range: every component finite and at most kMaxCommandSpeed
  /// (200 m/s) either way; the push that results is held to that on each axis.
  virtual bool push(uint32_t id, const Vec3& velocity) = 0;
  /// Freezes (inputs ignored, gravity still acts) or unfreezes the character.
  virtual bool freeze(uint32_t id, bool frozen) = 0;
  /// Switches the character to the movement profile `name` ("base", or a [profiles.NAME] of the
  /// settings); the client predicts with the same profile. False for an unknown name.
  virtual bool set_profile(uint32_t id, std::string_view name) = 0;
  /// Disconnects the character's client (Disconnect(Removed)) at the boundary; an NPC is taken out
  /// of the match there.
  virtual bool remove(uint32_t id) = 0;
  /// Sets the character's attribute `index` (of GameSchema::character_attributes).
  virtual bool set_attribute(uint32_t id, int index, int32_t value) = 0;
  /// Sets the match's attribute `index` (of GameSchema::match_attributes).
  virtual bool set_match_attribute(int index, int32_t value) = 0;
  /// The character's attribute as replicated (commands given since the last boundary not yet in it);
  /// 0 when there is no such character or attribute.
  virtual int32_t attribute(uint32_t id, int index) const = 0;
  /// The match's attribute as replicated; 0 when there is no such attribute.
  virtual int32_t match_attribute(int index) const = 0;
  /// During on_message: what the server had measured of the sender when it handed the message over
  /// (zeros outside on_message). A game keeps it with what it judges later (a shot).
  virtual const MessageTiming& message_timing() const = 0;
  /// The oldest view tick that a message handed over with `timing` can honestly carry: its
  /// acknowledged snapshot less the interpolation delay and jitter its client may have
  /// (kViewDelayIntervals snapshot intervals and kViewJitterTicks); 0 when `timing` is unknown.
  virtual double earliest_view(const MessageTiming& timing) const = 0;
  /// Whether a message handed over with `timing` may name `fire_tick` as the tick its client had
  /// predicted: at most kFireTickMargin past its newest input (always, when `timing` is unknown).
  /// False is counted (rewind_fire_refused).
  virtual bool fire_tick_allowed(const MessageTiming& timing, uint32_t fire_tick) = 0;
  /// Lag compensation (server/rewind.h): the world as client `viewer` drew it. The other characters
  /// at `view_tick` (a fractional server tick: ClientSession::view_tick(), sent with the shot),
  /// interpolated between snapshot ticks as its client did; a view older than the rewind window, or
  /// newer than the newest snapshot sent to `viewer`, is clamped (counted: rewind_clamped), and one
  /// older than `earliest_view` (earliest_view() of the shot's message) is raised to it (counted:
  /// rewind_view_raised): a client that lies about its time gains nothing, its round trip and its
  /// interpolation delay are all the past it is granted. The movers at `movers_tick`: a client draws
  /// them where its own prediction has them (they are a function of the tick alone), so a shot names
  /// its fire tick, the tick its client had predicted; clamped to the window and the current tick.
  /// `viewer`'s own character is never hit.
  virtual RayHit ray(uint32_t viewer, double view_tick, uint32_t movers_tick, const Vec3& origin, const Vec3& direction,
                     double length, double earliest_view = 0) = 0;
  /// The characters (not `viewer`'s) that an upright capsule at `center` (`half_segment` 0: a
  /// sphere) overlaps at `view_tick` as `viewer` drew them (bounded as ray() bounds it), ascending
  /// id, into `out`.
  virtual void overlap(uint32_t viewer, double view_tick, const Vec3& center, double half_segment, double radius,
                       std::vector<uint32_t>& out, double earliest_view = 0) = 0;
  /// Whether a shot of character `id` fired at `tick` may start at `origin`: within the character's
  /// radius of its exact centre after `tick` (position_at), and the segment from that centre to
  /// `origin` meets none of the world's static triangles nor the movers where they were at `tick`
  /// (a claimed origin beyond a thin wall does not shoot through it). False, counted
  /// (rewind_origin_refused), otherwise; false too when the window no longer holds `tick`.
  virtual bool origin_allowed(uint32_t id, uint32_t tick, const Vec3& origin) = 0;
  /// Where character `id`'s capsule centre was after `tick`, exactly, while the window holds it.
  virtual std::optional<Vec3> position_at(uint32_t id, uint32_t tick) const = 0;
  /// The newest snapshot tick sent to client `id` (0: none yet).
  virtual uint32_t newest_snapshot(uint32_t id) const = 0;
  /// Queues a message to one client (ServerCore::send_message's verdicts; kNotConnected for an NPC).
  virtual proto::SendError send(uint32_t id, proto::Channel channel, std::span<const uint8_t> bytes) = 0;
  /// Queues a message to every client (not to the NPCs: they have none); returns how many took it.
  virtual std::size_t broadcast(proto::Channel channel, std::span<const uint8_t> bytes) = 0;
  /// The next number of the match's deterministic random source: a counter-based generator
  /// (SplitMix64's mix of the match's seed plus the count of numbers drawn before). The seed is drawn
  /// from the system's randomness when the server starts (or given: --game-seed), written into the
  /// recording (format 11), and --verify-game replays the game with it, so the same calls in the same
  /// order give the same numbers. Never rand(), a clock or a pointer: those a replay cannot repeat.
  virtual uint64_t random() = 0;
  /// A number in [0, bound) from random() (0 when `bound` is 0), without modulo bias.
  uint64_t random_below(uint64_t bound);
  /// Logs `text` through the server's logger, the line naming the game ("game NAME: TEXT"); the text
  /// is cut to kMaxGameLogLine bytes and every byte outside printable ASCII shown as '?', so a game
  /// cannot forge log lines. Silent under --verify-game unless --game-log is given (a replay does not
  /// print the match again); under a server's --log-level as the server's own lines.
  virtual void log(GameLogLevel level, std::string_view text) = 0;
  /// The match is over: after this tick the server drains (every client told, the recording
  /// closed), tells the fleet (Agones: Shutdown) and its program exits 0.
  virtual void end_match() = 0;

 protected:
  ~GameControl() = default;
};

/// A game: override the hooks it needs (each does nothing by default).
class Game {
 public:
  virtual ~Game() = default;
  /// The attributes it replicates; asked once, when it is installed.
  virtual GameSchema schema() const { return {}; }
  /// Once, when it is installed, before any other hook.
  virtual void on_start(GameControl&) {}
  /// A client joins. Returns where its character starts (metres, the capsule centre), or nothing for
  /// the server's own spawn spot (clear of the others); a point out of teleport()'s range is taken as
  /// nothing.
  virtual std::optional<Vec3> on_join(GameControl&, const Joining&) { return std::nullopt; }
  /// The fleet allocated this server to a match (once at most; never without a fleet): at the start
  /// of the next tick, before the leaves.
  virtual void on_allocated(GameControl&, const Allocation&) {}
  /// A character left (it quit, timed out, was replaced or removed): at the start of the next tick.
  virtual void on_leave(GameControl&, uint32_t /*id*/) {}
  /// A message from character `id`'s client.
  virtual void on_message(GameControl&, uint32_t /*id*/, proto::Channel, std::span<const uint8_t>) {}
  /// Character `character` came into the trigger volume `trigger` (an index of
  /// GameControl::world().triggers()) in the tick just simulated: after its steps, before
  /// after_tick. Named so, not on_enter, beside on_join and on_leave, which are about the match.
  virtual void on_trigger_enter(GameControl&, uint32_t /*character*/, int /*trigger*/) {}
  /// Character `character` went out of the trigger volume `trigger` in the tick just simulated, or
  /// is leaving the match while in it (then just before its on_leave, the character already gone:
  /// GameControl::character() is null).
  virtual void on_trigger_leave(GameControl&, uint32_t /*character*/, int /*trigger*/) {}
  /// After every tick's steps.
  virtual void after_tick(GameControl&, const TickReport&) {}
};

}  // namespace foothold::server
