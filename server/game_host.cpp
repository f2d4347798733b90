#include "server/game_host.h"

#include "proto/untrusted_text.h"
#include "replay/recording.h"

#include "shared/det_math.h"

#include <algorithm>
#include <stdexcept>

namespace foothold::server {

static_assert(kMaxGameAttributes == kMaxAttributes, "the game API's attribute count is the server's");

namespace {

std::string list_problem(const std::vector<std::string>& names, std::string_view which) {
  if (names.size() > std::size_t(kMaxGameAttributes))
    return std::string(which) + ": " + std::to_string(names.size()) + " attributes, more than the " +
           std::to_string(kMaxGameAttributes) + " a game may declare";
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& n = names[i];
    const bool ok = !n.empty() && n.size() <= 16 && std::all_of(n.begin(), n.end(), [](char ch) {
                      return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_';
                    });
    if (!ok) return std::string(which) + "[" + std::to_string(i) + "]: '" + n + "' is not 1-16 characters of [a-z0-9_]";
    for (std::size_t j = 0; j < i; ++j)
      if (names[j] == n) return std::string(which) + ": '" + n + "' is declared twice";
  }
  return {};
}

bool valid_index(int index) { return index >= 0 && index < kMaxAttributes; }

// Every component finite and within +-limit (NaN fails every comparison).
bool in_fixed_range(const Vec3& v, double limit) {
  return v.x >= -limit && v.x <= limit && v.y >= -limit && v.y <= limit && v.z >= -limit && v.z <= limit;
}

}  // namespace

std::string schema_problem(const GameSchema& schema) {
  std::string p = list_problem(schema.character_attributes, "character_attributes");
  if (p.empty()) p = list_problem(schema.match_attributes, "match_attributes");
  if (p.empty()) p = list_problem(schema.seen_by_all, "seen_by_all");
  if (!p.empty()) return p;
  for (const std::string& n : schema.seen_by_all)
    if (std::find(schema.character_attributes.begin(), schema.character_attributes.end(), n) == schema.character_attributes.end())
      return "seen_by_all: '" + n + "' is not one of character_attributes";
  return {};
}

uint32_t seen_by_all_mask(const GameSchema& schema) {
  uint32_t mask = 0;
  for (std::size_t i = 0; i < schema.character_attributes.size() && i < std::size_t(kMaxAttributes); ++i)
    if (std::find(schema.seen_by_all.begin(), schema.seen_by_all.end(), schema.character_attributes[i]) != schema.seen_by_all.end())
      mask |= uint32_t(1) << i;
  return mask;
}

GameHost::GameHost(Roster& roster, const Simulation& simulation, Counters& counters, Send send, const RewindHistory& rewind)
    : roster_(roster),
      simulation_(simulation),
      counters_(counters),
      send_(std::move(send)),
      derived_(derive(simulation.settings())),
      follow_settings_(follow::follow_settings(simulation.settings())),
      rewind_(rewind) {}

void GameHost::install(std::unique_ptr<Game> game) {
  GameSchema schema = game ? game->schema() : GameSchema{};
  if (const std::string p = schema_problem(schema); !p.empty()) throw std::invalid_argument("the game's schema: " + p);
  game_ = std::move(game);
  schema_ = std::move(schema);
  match_.seen_by_all = seen_by_all_mask(schema_);
  if (game_) game_->on_start(*this);
}

std::optional<Vec3> GameHost::join(const Joining& joining) {
  if (!game_) return std::nullopt;
  // Not in the roster until its Accept is written, but the game may already give it commands.
  joining_ = joining.character;
  std::optional<Vec3> spawn = game_->on_join(*this, joining);
  joining_ = 0;
  // A spawn point is a teleport's position, held to the same range; out of it, the server's own.
  if (spawn) {
    GameCommand c;
    c.kind = GameCommandKind::kTeleport;
    c.vector = quantize_position(*spawn);
    if (!in_fixed_range(*spawn, kWorldLimit) || !command_problem(c, simulation_.world().bounds()).empty()) spawn.reset();
  }
  return spawn;
}

void GameHost::allocated() {
  delivered_ = std::move(allocation_);
  allocation_.reset();
  if (delivered_ && game_) game_->on_allocated(*this, *delivered_);
}

void GameHost::leaves() {
  roster_.take_departures(gone_);
  for (uint32_t id : gone_) {
    const auto at = std::lower_bound(npcs_.begin(), npcs_.end(), id, [](const Npc& n, uint32_t v) { return n.id < v; });
    if (at != npcs_.end() && at->id == id) npcs_.erase(at);
  }
  if (!game_) return;
  for (uint32_t id : gone_) {
    // Its triggers' leaves first: a game counting who is in a volume sees every enter matched.
    const auto at = std::lower_bound(presence_.begin(), presence_.end(), id, [](const Presence& p, uint32_t v) { return p.id < v; });
    if (at != presence_.end() && at->id == id) {
      const TriggerSet was = at->inside;
      presence_.erase(at);
      tell_triggers(id, was, {});
    }
    game_->on_leave(*this, id);
  }
}

bool GameHost::message(uint32_t id, proto::Channel channel, std::span<const uint8_t> bytes, const MessageTiming& timing) {
  if (!game_) return false;
  timing_ = timing;
  game_->on_message(*this, id, channel, bytes);
  timing_ = {};
  return true;
}

MessageTiming GameHost::timing_of(const Client& client) {
  return {client.character.inputs.newest_received(), client.view.acked_snapshot};
}

double GameHost::earliest_view(const MessageTiming& timing) const {
  if (timing.acked_snapshot == 0) return 0;
  const double behind = kViewDelayIntervals * double(rewind_.snapshot_interval()) + kViewJitterTicks;
  return det_max(0.0, double(timing.acked_snapshot) - behind);
}

bool GameHost::fire_tick_allowed(const MessageTiming& timing, uint32_t fire_tick) {
  if (timing.newest_input == 0 || fire_tick <= timing.newest_input + kFireTickMargin) return true;
  counters_.add(Counter::kRewindFireRefused);
  return false;
}

void GameHost::apply_commands(uint32_t tick, const Remove& remove) {
  applied_.clear();
  for (const GameCommand& c : pending_) {
    if (c.kind == GameCommandKind::kMatchAttribute) {
      int32_t& v = match_.attributes[c.slot];
      if (v != c.value) {
        v = c.value;
        match_.changed[c.slot] = tick;
      }
      applied_.push_back(c);
      continue;
    }
    if (c.kind == GameCommandKind::kMover) {  // the simulation applies it (its clocks)
      applied_.push_back(c);
      continue;
    }
    if (c.kind == GameCommandKind::kSpawn) {
      auto npc = std::make_unique<Client>();
      npc->id = c.character;
      npc->character.state = spawn_state(c);
      roster_.add_npc(std::move(npc));
      counters_.add(Counter::kGameSpawns);
      applied_.push_back(c);
      continue;
    }
    Client* client = roster_.by_id(c.character);
    if (!client) {
      counters_.add(Counter::kGameCommandsDropped);
      continue;
    }
    applied_.push_back(c);
    if (changes_state(c.kind)) {
      SimulatedCharacter& ch = client->character;
      apply_command(c, ch.state);
      ch.commanded = true;
    } else if (c.kind == GameCommandKind::kAttribute) {
      int32_t& v = client->game.attributes[c.slot];
      if (v != c.value) {
        v = c.value;
        client->game.changed[c.slot] = tick;
      }
    } else if (c.kind == GameCommandKind::kRemove) {
      counters_.add(Counter::kGameRemovals);
      remove(*client);
    }
  }
  counters_.add(Counter::kGameCommands, applied_.size());
  pending_.clear();
  // Each NPC's input for the tick, as a client's would have arrived for it: never late, never repeated.
  for (const Npc& n : npcs_) {
    Client* c = roster_.by_id(n.id);
    if (!c) continue;  // removed at this boundary: leaves() drops it
    InputCmd in = n.input;
    in.tick = tick;
    c->character.inputs.offer(in, tick);
  }
}

void GameHost::update_triggers() {
  const World& world = simulation_.world();
  if (world.triggers().empty()) return;
  // Merged by id with what the last tick left: both ascending.
  next_presence_.clear();
  trigger_changes_.clear();
  std::size_t old = 0;
  auto keep = [&](const Presence& p) {
    if (p.inside.any()) next_presence_.push_back(p);
  };
  for (std::size_t i = 0; i < roster_.size(); ++i) {
    const uint32_t id = roster_[i].id;
    // Gone from the roster since (a removal at the last boundary): leaves() tells the game.
    for (; old < presence_.size() && presence_[old].id < id; ++old) keep(presence_[old]);
    TriggerSet before;
    if (old < presence_.size() && presence_[old].id == id) before = presence_[old++].inside;
    const TriggerSet now = triggers_containing(world, roster_[i].character.state, derived_, &simulation_.movers());
    keep({id, now});
    if (now != before) trigger_changes_.push_back({id, before & ~now, now & ~before});
  }
  for (; old < presence_.size(); ++old) keep(presence_[old]);
  presence_.swap(next_presence_);  // before the hooks: triggers_at() is already after the tick
  for (const TriggerChange& c : trigger_changes_) tell_triggers(c.id, c.left, c.entered);
}

void GameHost::tell_triggers(uint32_t id, const TriggerSet& left, const TriggerSet& entered) {
  const std::size_t count = simulation_.world().triggers().size();
  for (std::size_t t = 0; t < count; ++t)
    if (left[t]) game_->on_trigger_leave(*this, id, int(t));
  for (std::size_t t = 0; t < count; ++t)
    if (entered[t]) game_->on_trigger_enter(*this, id, int(t));
}

void GameHost::after_tick(const Simulation& simulation) {
  if (!game_) return;
  update_triggers();
  reports_.clear();
  for (std::size_t i = 0; i < roster_.size(); ++i)
    reports_.push_back({roster_[i].id, roster_[i].character.state, simulation.touches(i)});
  game_->after_tick(*this, {simulation.tick(), reports_});
}

uint64_t game_random(uint64_t seed, uint64_t counter) {
  uint64_t z = seed + (counter + 1) * 0x9e3779b97f4a7c15ull;  // unsigned: wraps, as SplitMix64's state does
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

int GameControl::mover_index(std::string_view name) const {
  const auto& movers = world().movers();
  for (std::size_t m = 0; m < movers.size(); ++m)
    if (movers[m].name == name) return int(m);
  return -1;
}

uint64_t GameControl::random_below(uint64_t bound) {
  if (bound == 0) return 0;
  // 2^64 mod bound: the draws below it are the ones that would favour the low residues; drop them.
  const uint64_t threshold = (0 - bound) % bound;
  for (;;)
    if (const uint64_t r = random(); r >= threshold) return r % bound;
}

void GameHost::log(GameLogLevel level, std::string_view text) {
  if (!log_) return;
  // The game's text, but not its control bytes or escapes: a line it logs is one line, bounded.
  log_(level, "game " + game_name_ + ": " + proto::printable(text, kMaxGameLogLine));
}

uint32_t GameHost::tick() const { return simulation_.tick(); }
const MoveSettings& GameHost::settings() const { return simulation_.settings(); }

std::span<const uint32_t> GameHost::characters() const {
  ids_.clear();
  for (std::size_t i = 0; i < roster_.size(); ++i) ids_.push_back(roster_[i].id);
  return ids_;
}

const CharacterState* GameHost::character(uint32_t id) const {
  const Client* c = roster_.by_id(id);
  return c ? &c->character.state : nullptr;
}

std::span<const uint8_t> GameHost::user_data(uint32_t id) const {
  const Client* c = roster_.by_id(id);
  return c ? std::span<const uint8_t>(c->session.user_data.data(), c->session.user_data_size) : std::span<const uint8_t>();
}

const World& GameHost::world() const { return simulation_.world(); }

std::span<const int> GameHost::triggers_at(uint32_t id) const {
  at_.clear();
  const auto at = std::lower_bound(presence_.begin(), presence_.end(), id, [](const Presence& p, uint32_t v) { return p.id < v; });
  // A character gone from the roster is in none, whatever its entry still holds for leaves().
  if (at == presence_.end() || at->id != id || !roster_.by_id(id)) return at_;
  for (std::size_t t = 0; t < simulation_.world().triggers().size(); ++t)
    if (at->inside[t]) at_.push_back(int(t));
  return at_;
}

Navigation& GameHost::mesh() {
  if (!navigation_.ready() && !navigation_tried_ && Navigation::available()) {
    // No mesh from the program (--navmesh, GameEntry::paths): baked now, once, inside the tick.
    navigation_tried_ = true;
    const std::string error = navigation_.bake(simulation_.world(), simulation_.settings(), nullptr, {});
    if (log_)
      log_(GameLogLevel::kWarn, error.empty() ? "navmesh: baked at the game's first path(), inside a tick (" +
                                                    std::to_string(navigation_.polygons()) +
                                                    " polygons); --navmesh or GameEntry::paths has it ready at load"
                                              : "navmesh: the game's first path() could not bake one: " + error);
  }
  return navigation_;
}

follow::Path GameHost::path(const Vec3& from, const Vec3& to) { return mesh().path(from, to); }

std::optional<Vec3> GameHost::random_point() {
  Navigation& nav = mesh();
  if (!nav.ready()) return std::nullopt;
  return nav.random_point(random());
}

const GameHost::Npc* GameHost::npc(uint32_t id) const {
  const auto at = std::lower_bound(npcs_.begin(), npcs_.end(), id, [](const Npc& n, uint32_t v) { return n.id < v; });
  return at != npcs_.end() && at->id == id ? &*at : nullptr;
}

uint32_t GameHost::spawn(const Vec3& position, std::string_view profile) {
  const int index = simulation_.settings().profile_index(profile);
  if (index < 0 || npcs_.size() >= std::size_t(kMaxNpcs) || !in_fixed_range(position, kWorldLimit)) return 0;
  GameCommand c;
  c.kind = GameCommandKind::kSpawn;
  c.vector = quantize_position(position);
  c.value = index;
  if (!command_problem(c, simulation_.world().bounds()).empty()) return 0;
  c.character = spawn_ids_ ? spawn_ids_() : roster_.reserve_id();
  // Ids ascend in the order given, so the new one goes last; a replay's recorded id is checked as the command.
  if (c.character == 0 || (!npcs_.empty() && npcs_.back().id >= c.character)) return 0;
  npcs_.push_back({c.character, InputCmd{}});
  pending_.push_back(c);
  return c.character;
}

bool GameHost::set_input(uint32_t id, const InputCmd& input) {
  const Npc* n = npc(id);
  if (!n) return false;
  InputCmd& held = const_cast<Npc*>(n)->input;
  held = input;
  held.tick = 0;
  held.buttons &= kKnownButtons;
  return true;
}

InputCmd GameHost::npc_input(uint32_t id) const {
  const Npc* n = npc(id);
  return n ? n->input : InputCmd{};
}

bool GameHost::is_npc(uint32_t id) const { return npc(id) != nullptr; }

follow::FollowStep GameHost::follow(uint32_t id, follow::PathFollower& follower) {
  const Client* me = roster_.by_id(id);
  if (!me || !me->npc) return {};
  const CharacterState& self = me->character.state;
  // The others near it, by cell, then id (an order of the characters alone), from the characters
  // indexed once for all the NPCs a game steps this tick: again when a tick or a join or leave has
  // changed them since. Only on the ticks the follower weighs them (the rest, it steers as it last did).
  const uint32_t next = tick() + 1;
  nearby_.clear();
  if (follower.wants_nearby(next)) {
    if (!near_built_ || near_tick_ != tick() || near_roster_ != roster_.version()) {
      near_.clear();
      for (std::size_t i = 0; i < roster_.size(); ++i) near_.add(roster_[i].id, roster_[i].character.state);
      near_.sort();
      near_built_ = true;
      near_tick_ = tick();
      near_roster_ = roster_.version();
    }
    near_.near(self.position, id, nearby_);
  }
  follow::FollowStep step = follower.step(self, next, follow_settings_, nearby_);
  if (step.event == follow::FollowEvent::kNeedPath) {
    follower.set_path(path(follow::path_start(self, follow_settings_), follower.goal()), next);
    step = follower.step(self, next, follow_settings_, nearby_);
  }
  set_input(id, step.input);
  return step;
}

bool GameHost::mover(int index, const MoverCommand& command) {
  const double rate = command.rate * double(kRateOne);
  if (index < 0 || !(rate >= -double(kMaxMoverRate) && rate <= double(kMaxMoverRate))) return false;
  GameCommand c;
  c.kind = GameCommandKind::kMover;
  c.character = uint32_t(index);
  c.slot = uint8_t(command.action);
  c.value = command.action == MoverAction::kStart || command.action == MoverAction::kGoTo ? int32_t(det_llround(rate)) : 0;
  c.vector.x = command.key;
  if (!mover_command_problem(c, simulation_.world()).empty()) return false;
  pending_.push_back(c);
  return true;
}

int GameHost::rebuild_navigation(int index) {
  const World& world = simulation_.world();
  Navigation& nav = mesh();
  if (index < 0 || std::size_t(index) >= world.movers().size() || !nav.ready()) return -1;
  // The movers as the last tick left them (before the first tick: as the clocks start them).
  MoverFrame before_first;
  const MoverFrame* frame = &simulation_.movers();
  if (frame->mover_count() != world.movers().size()) {
    before_first.build(world, simulation_.tick(), simulation_.settings().tick_rate, &simulation_.clocks());
    frame = &before_first;
  }
  rebuilt_at_.resize(world.movers().size());
  Aabb region = frame->bounds(std::size_t(index));
  if (const std::optional<Aabb>& was = rebuilt_at_[std::size_t(index)])
    region = {{det_min(region.lo.x, was->lo.x), det_min(region.lo.y, was->lo.y), det_min(region.lo.z, was->lo.z)},
              {det_max(region.hi.x, was->hi.x), det_max(region.hi.y, was->hi.y), det_max(region.hi.z, was->hi.z)}};
  rebuilt_at_[std::size_t(index)] = frame->bounds(std::size_t(index));
  std::size_t tiles = 0;
  if (const std::string error = nav.rebuild(world, region, frame->triangles(), tiles); !error.empty()) {
    if (log_) log_(GameLogLevel::kError, "navmesh: rebuilding where mover " + world.movers()[std::size_t(index)].name + " stands: " + error);
    return -1;
  }
  return int(tiles);
}

double GameHost::mover_time(int index) const {
  if (index < 0 || std::size_t(index) >= simulation_.clocks().size()) return 0;
  return phase_seconds(simulation_.clocks().phase(std::size_t(index), simulation_.tick()), simulation_.settings().tick_rate);
}

bool GameHost::give(uint32_t id, const GameCommand& command) {
  // A joining client's and a spawned NPC's commands are taken before they are in the roster.
  if (id == 0 || (id != joining_ && !roster_.by_id(id) && !npc(id))) return false;
  if (!command_problem(command, simulation_.world().bounds()).empty()) return false;
  pending_.push_back(command);
  pending_.back().character = id;
  return true;
}

bool GameHost::teleport(uint32_t id, const Vec3& position) {
  // Checked before quantising, which would clamp what is far out (and make a NaN 0).
  if (!in_fixed_range(position, kWorldLimit)) return false;
  GameCommand c;
  c.kind = GameCommandKind::kTeleport;
  c.vector = quantize_position(position);
  return give(id, c);
}

bool GameHost::set_velocity(uint32_t id, const Vec3& velocity) {
  if (!in_fixed_range(velocity, kVelocityLimit)) return false;
  GameCommand c;
  c.kind = GameCommandKind::kVelocity;
  c.vector = quantize_velocity(velocity);
  return give(id, c);
}

bool GameHost::push(uint32_t id, const Vec3& velocity) {
  if (!in_fixed_range(velocity, kVelocityLimit)) return false;
  GameCommand c;
  c.kind = GameCommandKind::kPush;
  c.vector = quantize_velocity(velocity);
  return give(id, c);
}

bool GameHost::freeze(uint32_t id, bool frozen) {
  GameCommand c;
  c.kind = GameCommandKind::kFreeze;
  c.value = frozen ? 1 : 0;
  return give(id, c);
}

bool GameHost::set_profile(uint32_t id, std::string_view name) {
  const int index = simulation_.settings().profile_index(name);
  if (index < 0) return false;
  GameCommand c;
  c.kind = GameCommandKind::kProfile;
  c.value = index;
  return give(id, c);
}

bool GameHost::remove(uint32_t id) {
  GameCommand c;
  c.kind = GameCommandKind::kRemove;
  return give(id, c);
}

bool GameHost::set_attribute(uint32_t id, int index, int32_t value) {
  if (!valid_index(index) || std::size_t(index) >= schema_.character_attributes.size()) return false;
  GameCommand c;
  c.kind = GameCommandKind::kAttribute;
  c.slot = uint8_t(index);
  c.value = value;
  return give(id, c);
}

bool GameHost::set_match_attribute(int index, int32_t value) {
  if (!valid_index(index) || std::size_t(index) >= schema_.match_attributes.size()) return false;
  GameCommand c;
  c.kind = GameCommandKind::kMatchAttribute;
  c.slot = uint8_t(index);
  c.value = value;
  pending_.push_back(c);
  return true;
}

int32_t GameHost::attribute(uint32_t id, int index) const {
  const Client* c = roster_.by_id(id);
  return c && valid_index(index) ? c->game.attributes[std::size_t(index)] : 0;
}

int32_t GameHost::match_attribute(int index) const {
  return valid_index(index) ? match_.attributes[std::size_t(index)] : 0;
}

uint32_t GameHost::newest_snapshot(uint32_t id) const {
  const Client* c = roster_.by_id(id);
  return c ? c->view.newest_sent : 0;
}

double GameHost::rewind_to(uint32_t viewer, double view_tick, double earliest_view) {
  counters_.add(Counter::kRewindQueries);
  // Never later than the viewer's newest snapshot (a client cannot have drawn what it was not sent),
  // never earlier than the window, nor than its round trip and interpolation delay explain
  // (earliest_view): a client that lies about its time gains nothing.
  double view = rewind_.clamp(view_tick, newest_snapshot(viewer));
  if (view != view_tick) counters_.add(Counter::kRewindClamped);
  if (view < earliest_view) {
    view = rewind_.clamp(earliest_view, newest_snapshot(viewer));
    counters_.add(Counter::kRewindViewRaised);
  }
  rewind_.capsules_at(view, viewer, capsules_);
  return view;
}

void GameHost::place_movers(uint32_t tick) {
  // Built once per tick asked for (a tick's shots mostly name the same one).
  const uint32_t at = std::clamp(tick, rewind_.oldest(), simulation_.tick());
  if (!movers_built_ || movers_.tick() != at) movers_.build(simulation_.world(), at, simulation_.settings().tick_rate, &simulation_.clocks());
  movers_built_ = true;
}

RayHit GameHost::ray(uint32_t viewer, double view_tick, uint32_t movers_tick, const Vec3& origin, const Vec3& direction,
                     double length, double earliest_view) {
  rewind_to(viewer, view_tick, earliest_view);
  // The movers where the viewer's client drew them, within what the server has simulated.
  place_movers(movers_tick);
  return cast_ray(simulation_.world(), &movers_, capsules_, origin, direction, length, viewer, scratch_);
}

void GameHost::overlap(uint32_t viewer, double view_tick, const Vec3& center, double half_segment, double radius,
                       std::vector<uint32_t>& out, double earliest_view) {
  rewind_to(viewer, view_tick, earliest_view);
  overlap_characters(capsules_, center, half_segment, radius, viewer, out);
}

bool GameHost::origin_allowed(uint32_t id, uint32_t tick, const Vec3& origin) {
  const std::optional<Vec3> centre = rewind_.exact_at(id, tick);
  const Vec3 off = centre ? origin - *centre : Vec3{};
  const double radius = derive(simulation_.settings()).radius;
  bool ok = centre && dot(off, off) <= radius * radius;
  if (ok && dot(off, off) > 0) {
    // The segment from the centre the server knows to the origin claimed: the world's triangles and
    // the movers at that tick only (no character stands inside the shooter's own radius).
    place_movers(tick);
    const double d = length(off);
    const RayHit hit = cast_ray(simulation_.world(), &movers_, {}, *centre, off * (1 / d), d, id, scratch_);
    ok = hit.kind == RayHit::Kind::kNone;
  }
  if (!ok) counters_.add(Counter::kRewindOriginRefused);
  return ok;
}

std::optional<Vec3> GameHost::position_at(uint32_t id, uint32_t tick) const { return rewind_.exact_at(id, tick); }

proto::SendError GameHost::send(uint32_t id, proto::Channel channel, std::span<const uint8_t> bytes) {
  const proto::SendError result = send_(id, channel, bytes);
  // Kept for the recording, whatever became of it: a replay of the game gives it the same verdicts.
  if (keep_sent_ && !bytes.empty() && bytes.size() <= replay::kMaxRecordedMessage) {
    sent_heads_.push_back({id, channel == proto::Channel::kReliable, uint8_t(result), sent_bytes_.size(), bytes.size()});
    sent_bytes_.insert(sent_bytes_.end(), bytes.begin(), bytes.end());
  }
  return result;
}

std::size_t GameHost::broadcast(proto::Channel channel, std::span<const uint8_t> bytes) {
  std::size_t taken = 0;
  for (std::size_t i = 0; i < roster_.size(); ++i)
    if (!roster_[i].npc) taken += send(roster_[i].id, channel, bytes) == proto::SendError::kNone;
  return taken;
}

std::span<const SentRecord> GameHost::sent() {
  sent_.clear();
  for (const SentHead& h : sent_heads_)
    sent_.push_back({h.to, h.reliable, h.result, std::span(sent_bytes_).subspan(h.offset, h.size)});
  return sent_;
}

void GameHost::clear_sent() {
  sent_heads_.clear();
  sent_bytes_.clear();
}

}  // namespace foothold::server
