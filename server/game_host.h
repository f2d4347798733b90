#pragma once
// Where the server meets its game (server/game.h): calls the game's hooks at their points of the
// tick, keeps the commands it gives until the boundary that applies them, and keeps the attributes
// it replicates. ServerCore owns one and drives it; the game sees it as GameControl.

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "follow/nearby_index.h"
#include "server/client.h"
#include "server/counters.h"
#include "server/game.h"
#include "server/navigation.h"
#include "server/rewind.h"
#include "server/roster.h"
#include "server/simulation.h"
#include "server/tick_observer.h"
#include "shared/game_command.h"
#include "shared/triggers.h"

namespace foothold::server {

/// Checks a game's schema: empty when it is valid, else what is wrong with it, by name.
std::string schema_problem(const GameSchema& schema);
/// Bit i: character attribute i is seen by all (GameSchema::seen_by_all) in a valid schema.
uint32_t seen_by_all_mask(const GameSchema& schema);

/// Where a game's log lines go: its level and the whole line ("game NAME: TEXT", already printable
/// and bounded).
using GameLog = std::function<void(GameLogLevel, const std::string& line)>;

/// The `counter`-th number (from 0) of the random source seeded with `seed`: SplitMix64's output
/// mix of seed + (counter + 1) x its golden-ratio increment, so SplitMix64's own sequence; a pure
/// function of its arguments (what GameControl::random() draws).
uint64_t game_random(uint64_t seed, uint64_t counter);

class GameHost final : public GameControl {
 public:
  /// How ServerCore sends, broadcasts and removes for the game.
  using Send = std::function<proto::SendError(uint32_t id, proto::Channel, std::span<const uint8_t>)>;
  using Remove = std::function<void(Client&)>;
  /// All referenced: they must outlive the host.
  GameHost(Roster& roster, const Simulation& simulation, Counters& counters, Send send, const RewindHistory& rewind);

  /// Installs `game` (null: none) and calls its on_start. Throws std::invalid_argument, naming the
  /// problem, when its schema is invalid.
  void install(std::unique_ptr<Game> game);
  /// The game, or null.
  Game* game() const { return game_.get(); }
  /// Its schema (empty without a game).
  const GameSchema& schema() const { return schema_; }
  /// The match's replicated attributes.
  const GameMatch& match() const { return match_; }

  /// Seeds the game's random source (GameControl::random()) and starts its count again; before
  /// install(), whose on_start may draw.
  void set_seed(uint64_t seed) {
    seed_ = seed;
    drawn_ = 0;
  }
  /// The seed of the game's random source (what the recording keeps).
  uint64_t seed() const { return seed_; }
  /// Numbers the game has drawn from it.
  uint64_t drawn() const { return drawn_; }
  /// The world's navigation mesh, what path() searches (server/navigation.h): loaded or baked by
  /// the program before the game starts; without one, the first path() bakes it.
  Navigation& navigation() { return navigation_; }
  /// How many NPCs the operator asked the game for (GameControl::npcs_wanted(); --npcs); before install().
  void set_npcs_wanted(uint32_t n) { npcs_wanted_ = n; }
  /// Where the ids of the NPCs the game spawns come from: by default the roster's next
  /// (Roster::reserve_id()); a replay of the game gives the recorded ones (a client that joined and
  /// left between two ticks took an id and left no trace).
  void set_spawn_ids(std::function<uint32_t()> next) { spawn_ids_ = std::move(next); }
  /// Where the game's log lines go (an empty function: nowhere), each naming `game_name`.
  void set_log(std::string game_name, GameLog log) {
    game_name_ = std::move(game_name);
    log_ = std::move(log);
  }

  /// A Connect accepted: the game's spawn point, if it chooses one.
  std::optional<Vec3> join(const Joining& joining);
  /// The fleet's allocation, handed to the game at the start of the next tick (allocated()).
  void allocate(Allocation allocation) { allocation_ = std::move(allocation); }
  /// The start of a tick: on_allocated when allocate() was called since the last one.
  void allocated();
  /// The allocation the last allocated() handed over (for the recorder), or null.
  const Allocation* delivered_allocation() const { return delivered_ ? &*delivered_ : nullptr; }
  /// The start of a tick: on_leave for every character gone since the last one.
  void leaves();
  /// The game called end_match().
  bool match_over() const { return match_over_; }
  /// A message from character `id`'s client, handed over with what the server had measured of it
  /// (`timing`: message_timing() during on_message); false without a game: not delivered.
  bool message(uint32_t id, proto::Channel channel, std::span<const uint8_t> bytes, const MessageTiming& timing = {});
  /// What the server has measured of `client` now (for message()).
  static MessageTiming timing_of(const Client& client);
  /// The boundary before tick `tick`: applies every command given since the last one, in order
  /// (`remove` ends a session; a spawn adds its NPC to the roster), keeps those applied for the
  /// recorder (applied()), and gives every NPC its input for the tick (GameControl::set_input).
  void apply_commands(uint32_t tick, const Remove& remove);
  /// The commands the last apply_commands() applied, in order.
  std::span<const GameCommand> applied() const { return applied_; }
  /// Keep what the game sends for sent() (a recorder is watching); off by default: a server that
  /// records nothing copies nothing.
  void keep_sent(bool on) { keep_sent_ = on; }
  /// What the game sent since the last clear_sent(), in order (for the recorder); valid until then.
  std::span<const SentRecord> sent();
  void clear_sent();
  /// After tick `simulation.tick()`'s steps: on_trigger_leave and on_trigger_enter for every change
  /// of the triggers a character is in (shared/triggers.h), then after_tick with every character's
  /// state and touches. A replay of the game (server/game_replay.h) calls it as the server does, so
  /// the same states give the same hooks.
  void after_tick(const Simulation& simulation);

  // GameControl.
  uint32_t tick() const override;
  const MoveSettings& settings() const override;
  std::span<const uint32_t> characters() const override;
  const CharacterState* character(uint32_t id) const override;
  std::span<const uint8_t> user_data(uint32_t id) const override;
  const World& world() const override;
  std::span<const int> triggers_at(uint32_t id) const override;
  follow::Path path(const Vec3& from, const Vec3& to) override;
  bool mover(int index, const MoverCommand& command) override;
  double mover_time(int index) const override;
  int rebuild_navigation(int index) override;
  bool teleport(uint32_t id, const Vec3& position) override;
  bool set_velocity(uint32_t id, const Vec3& velocity) override;
  bool push(uint32_t id, const Vec3& velocity) override;
  bool freeze(uint32_t id, bool frozen) override;
  bool set_profile(uint32_t id, std::string_view name) override;
  bool remove(uint32_t id) override;
  uint32_t spawn(const Vec3& position, std::string_view profile) override;
  bool set_input(uint32_t id, const InputCmd& input) override;
  InputCmd npc_input(uint32_t id) const override;
  bool is_npc(uint32_t id) const override;
  uint32_t npcs_wanted() const override { return npcs_wanted_; }
  std::optional<Vec3> random_point() override;
  follow::FollowStep follow(uint32_t id, follow::PathFollower& follower) override;
  bool set_attribute(uint32_t id, int index, int32_t value) override;
  bool set_match_attribute(int index, int32_t value) override;
  int32_t attribute(uint32_t id, int index) const override;
  int32_t match_attribute(int index) const override;
  const MessageTiming& message_timing() const override { return timing_; }
  double earliest_view(const MessageTiming& timing) const override;
  bool fire_tick_allowed(const MessageTiming& timing, uint32_t fire_tick) override;
  RayHit ray(uint32_t viewer, double view_tick, uint32_t movers_tick, const Vec3& origin, const Vec3& direction,
             double length, double earliest_view = 0) override;
  void overlap(uint32_t viewer, double view_tick, const Vec3& center, double half_segment, double radius,
               std::vector<uint32_t>& out, double earliest_view = 0) override;
  bool origin_allowed(uint32_t id, uint32_t tick, const Vec3& origin) override;
  std::optional<Vec3> position_at(uint32_t id, uint32_t tick) const override;
  uint32_t newest_snapshot(uint32_t id) const override;
  proto::SendError send(uint32_t id, proto::Channel channel, std::span<const uint8_t> bytes) override;
  std::size_t broadcast(proto::Channel channel, std::span<const uint8_t> bytes) override;
  void end_match() override { match_over_ = true; }
  uint64_t random() override { return game_random(seed_, drawn_++); }
  void log(GameLogLevel level, std::string_view text) override;

 private:
  bool give(uint32_t id, const GameCommand& command);
  // The mesh path() and random_point() search: the program's, or baked at the first call.
  Navigation& mesh();
  // The NPC `id`'s entry (npcs_), or null.
  struct Npc {
    uint32_t id;
    InputCmd input;  // what it steps with next (tick 0)
  };
  const Npc* npc(uint32_t id) const;
  // The view time clamped to what `viewer` may have seen, counted; the capsules and movers placed.
  double rewind_to(uint32_t viewer, double view_tick, double earliest_view);
  // The movers placed at `tick` (clamped to the window and the current tick).
  void place_movers(uint32_t tick);
  // After a tick's steps: the triggers each character is in now, and the game told what changed.
  void update_triggers();
  // The game told that `id` left each trigger in `left`, then entered each in `entered`, ascending.
  void tell_triggers(uint32_t id, const TriggerSet& left, const TriggerSet& entered);

  Roster& roster_;
  const Simulation& simulation_;
  Counters& counters_;
  Send send_;
  std::unique_ptr<Game> game_;
  GameSchema schema_;
  GameMatch match_;
  std::vector<GameCommand> pending_, applied_;
  std::vector<uint32_t> gone_;
  std::optional<Allocation> allocation_;  // allocate()'s, until the next tick starts
  std::optional<Allocation> delivered_;   // what the last allocated() handed over
  bool match_over_ = false;
  uint64_t seed_ = 0, drawn_ = 0;  // the random source's seed, and numbers drawn from it
  std::string game_name_;
  GameLog log_;
  MessageTiming timing_;  // the message being handed over's
  Navigation navigation_;  // the world's navigation mesh, beside it (path())
  bool navigation_tried_ = false;  // path() baked (or failed to bake) a mesh the program did not give
  std::vector<std::optional<Aabb>> rebuilt_at_;  // per mover: where rebuild_navigation() last built it in
  uint32_t joining_ = 0;  // the character whose on_join is running
  uint32_t npcs_wanted_ = 0;
  std::function<uint32_t()> spawn_ids_;
  std::vector<Npc> npcs_;  // the NPCs spawned and not gone, ascending id (those not yet in the roster too)
  std::vector<follow::Nearby> nearby_;  // follow(): the characters near the NPC it steps
  follow::NearbyIndex near_{kFollowNearby};  // follow(): every character by cell, as of near_tick_
  bool near_built_ = false;
  uint32_t near_tick_ = 0;
  uint64_t near_roster_ = 0;  // the roster's version() then
  mutable std::vector<uint32_t> ids_;  // characters(): refreshed on each call
  std::vector<CharacterReport> reports_;
  // The triggers each character is in after the last tick, ascending id; only those in some. A
  // character gone from the roster keeps its entry until leaves() tells the game it left them.
  struct Presence {
    uint32_t id;
    TriggerSet inside;
  };
  struct TriggerChange {
    uint32_t id;
    TriggerSet left, entered;
  };
  DerivedSettings derived_;  // the capsule each profile and posture gives (triggers_containing)
  follow::FollowSettings follow_settings_;  // follow()'s, of the base settings
  std::vector<Presence> presence_, next_presence_;
  std::vector<TriggerChange> trigger_changes_;
  mutable std::vector<int> at_;  // triggers_at(): refreshed on each call
  const RewindHistory& rewind_;
  std::vector<QueryCapsule> capsules_;
  MoverFrame movers_;
  bool movers_built_ = false;
  QueryScratch scratch_;
  // The game's sends since clear_sent(): heads, and their bytes one after another.
  struct SentHead {
    uint32_t to;
    bool reliable;
    uint8_t result;
    std::size_t offset, size;
  };
  bool keep_sent_ = false;
  std::vector<SentHead> sent_heads_;
  std::vector<uint8_t> sent_bytes_;
  std::vector<SentRecord> sent_;
};

}  // namespace foothold::server
