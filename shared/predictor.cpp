#include "shared/predictor.h"

#include <algorithm>
#include <cassert>

#include "shared/animation.h"
#include "shared/character_contacts.h"
#include "shared/fixed_point.h"

namespace foothold {

void Predictor::reserve(std::size_t others, std::size_t neighbours) {
  others_.reserve(others);
  motion_.reserve(others);
  moved_.reserve(others);
  seen_by_neighbours_.reserve(others + 1);
  neighbours_.reserve(neighbours);
  stepped_.reserve((std::size_t(kHistory) + 1) * neighbours);
  scratch_.reserve_others(others + 1);  // a neighbour's step sees this character as well
}

void Predictor::set_others(std::span<const OtherCharacter> others, uint32_t self_id, uint32_t seen_tick,
                           std::span<const FixedVec3> motion, std::span<const PredictedNeighbour> neighbours) {
  others_.assign(others.begin(), others.end());
  self_id_ = self_id;
  seen_tick_ = seen_tick;
  // The neighbours by id (the order the server steps and publishes them in), never this character.
  neighbours_.clear();
  for (const PredictedNeighbour& n : neighbours)
    if (n.id != self_id) neighbours_.push_back(n);
  std::sort(neighbours_.begin(), neighbours_.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  stepped_.resize(neighbours_.size());
  for (std::size_t k = 0; k < neighbours_.size(); ++k) stepped_[k] = neighbours_[k].state;
  stepped_through_ = seen_tick;
  motion_.clear();
  if (motion.size() != others.size()) return;  // nothing to carry them by
  // Across the ground only (a jump is no line), each axis bounded by the walk speed (a guess may be
  // wrong, never wild).
  const int32_t bound = int32_t(settings_.walk_speed * kPositionScale / double(settings_.tick_rate));
  for (const FixedVec3& m : motion) motion_.push_back({std::clamp(m.x, -bound, bound), 0, std::clamp(m.z, -bound, bound)});
}

void Predictor::others_at(uint32_t tick, std::vector<OtherCharacter>& out) {
  carried_at(tick, out);
  if (neighbours_.empty() || int32_t(tick - 1 - seen_tick_) < 0 || !step_neighbours_through(tick - 1)) return;
  // The neighbours where their own steps of tick - 1 left them (both lists by id).
  std::size_t k = 0;
  for (OtherCharacter& o : out) {
    while (k < neighbours_.size() && neighbours_[k].id < o.id) ++k;
    if (k < neighbours_.size() && neighbours_[k].id == o.id) o = as_other(o.id, neighbour_state(tick - 1, k));
  }
}

const CharacterState* Predictor::own_state(uint32_t tick) const {
  if (int32_t(tick - start_) < 0 || int32_t(latest_ - tick) < 0 || latest_ - tick >= kHistory) return nullptr;
  return &at(tick).state;
}

bool Predictor::step_neighbours_through(uint32_t tick) {
  while (int32_t(stepped_through_ - tick) < 0) {
    // Every one as the server's step of tick u sees them: the neighbours and this character after
    // u - 1, the rest carried; each neighbour then steps with its input for u (input_after(); its
    // own entry in the list is skipped by the step: Surroundings::self_id).
    const uint32_t u = stepped_through_ + 1;
    const CharacterState* own = own_state(u - 1);
    // Not known (yet), or a snapshot older than the whole history (a server long silent: the
    // neighbours' rows would grow without end): carried instead.
    if (!own || u - seen_tick_ > kHistory) return false;
    others_at(u, seen_by_neighbours_);
    const OtherCharacter me = as_other(self_id_, *own);
    const auto at_me = std::lower_bound(seen_by_neighbours_.begin(), seen_by_neighbours_.end(), me.id,
                                        [](const OtherCharacter& o, uint32_t id) { return o.id < id; });
    seen_by_neighbours_.insert(at_me, me);
    const std::size_t n = neighbours_.size();
    stepped_.resize(std::size_t(u - seen_tick_ + 1) * n);
    for (std::size_t k = 0; k < n; ++k) {
      InputCmd input = neighbours_[k].input_after(u - seen_tick_);
      input.tick = u;
      const StepResult r = step(neighbour_state(u - 1, k), input, world_, settings_, scratch_,
                                {movers_at(u), seen_by_neighbours_, neighbours_[k].id});
      stepped_[std::size_t(u - seen_tick_) * n + k] = r.state;
    }
    stepped_through_ = u;
  }
  return true;
}

void Predictor::forget_neighbours_after(uint32_t tick) {
  // The neighbours' steps after `tick` saw this character's state after it, which has changed.
  if (int32_t(stepped_through_ - tick) > 0) stepped_through_ = int32_t(tick - seen_tick_) > 0 ? tick : seen_tick_;
}

void Predictor::carried_at(uint32_t tick, std::vector<OtherCharacter>& out) const {
  out.assign(others_.begin(), others_.end());
  if (motion_.empty()) return;
  const int64_t horizon = int64_t(kOthersHorizonMs) * settings_.tick_rate / 1000;
  const int64_t ahead = std::clamp<int64_t>(int64_t(tick) - 1 - int64_t(seen_tick_), 0, horizon);
  if (ahead == 0) return;
  const auto& movers = world_.movers();
  const uint32_t to_tick = seen_tick_ + uint32_t(ahead);
  for (std::size_t i = 0; i < out.size(); ++i) {
    FixedVec3& p = out[i].position;
    const uint16_t platform = out[i].platform;
    if (platform != 0 && platform <= movers.size()) {
      // One standing on a mover rides it: from where the mover had it at the snapshot's tick to
      // where the mover is at the end of tick - 1 (the step carries it through tick itself); its
      // own steps across the deck (its motion, for one aboard) on top.
      const Vec3 at = to_position(p);
      p = quantize_position(clocks_ ? clocks_->carry(world_, platform - 1u, seen_tick_, to_tick, settings_.tick_rate, at)
                                    : carry(movers[platform - 1u].chain, seen_tick_, to_tick, settings_.tick_rate, at));
    }
    const FixedVec3& m = motion_[i];
    p = published_position({int32_t(p.x + m.x * ahead), int32_t(p.y + m.y * ahead), int32_t(p.z + m.z * ahead)});
  }
}

const MoverFrame* Predictor::movers_at(uint32_t tick) {
  if (world_.movers().empty()) return nullptr;
  MoverFrame& f = frames_[tick % kFrames];
  if (f.tick() != tick || f.mover_count() != world_.movers().size()) f.build(world_, tick, settings_.tick_rate, clocks_);
  return &f;
}

uint32_t Predictor::movers_changed() {
  for (MoverFrame& f : frames_) f.forget();
  forget_neighbours_after(base_);
  return replay_after(base_);
}

uint32_t Predictor::replay_after(uint32_t tick) {
  uint32_t replayed = 0;
  for (uint32_t t = tick + 1; int32_t(latest_ - t) >= 0; ++t) {
    at(t).state = step_from(at(t - 1).state, at(t).input, at(t).met);
    forget_neighbours_after(t);
    ++replayed;
  }
  return replayed;
}

CharacterState Predictor::step_from(const CharacterState& from, const InputCmd& input, bool& met) {
  std::span<const OtherCharacter> others = others_;
  if (!motion_.empty() || !neighbours_.empty()) {
    others_at(input.tick, moved_);
    others = moved_;
  }
  const StepResult r = step(from, input, world_, settings_, scratch_, {movers_at(input.tick), others, self_id_});
  met = r.diagnostics.characters_near > 0;
  return r.state;
}

void Predictor::reset(uint32_t tick, const CharacterState& state) {
  start_ = tick;
  base_ = tick;
  latest_ = tick;
  at(tick) = {InputCmd{}, state};
  forget_neighbours_after(tick);
}

const InputCmd& Predictor::input(uint32_t tick) const {
  [[maybe_unused]] const uint32_t held = latest_ + 1 - oldest_input_tick();  // 0 to kHistory, the newest
  assert(latest_ - tick < held && "an input the history does not hold");
  return at(tick).input;
}

const CharacterState& Predictor::predict(InputCmd input) {
  const uint32_t tick = latest_ + 1;
  input.tick = tick;
  // The oldest unconfirmed prediction falls out of the history when the server lags this far.
  if (tick - base_ >= kHistory) {
    base_ = tick - kHistory + 1;
  }
  bool met = false;
  const CharacterState next = step_from(at(latest_).state, input, met);
  at(tick) = {input, next, met};
  latest_ = tick;
  ++counters_.predicted;
  return at(tick).state;
}

Predictor::Outcome Predictor::confirm(uint32_t tick, uint32_t digest) {
  if (tick <= base_) return Outcome::kStale;
  if (tick > latest_ || at(tick).state.digest() != digest) {
    ++counters_.mismatched;
    return Outcome::kMismatch;
  }
  base_ = tick;
  ++counters_.matched;
  return Outcome::kMatched;
}

Predictor::Reconciliation Predictor::reconcile(uint32_t tick, const CharacterState& server, uint32_t repeated_mask,
                                               uint32_t interaction_mask, uint32_t server_mask) {
  Reconciliation r;
  if (tick <= base_) return r;  // kStale

  // Was any input since the last confirmed tick replaced by a repeat on the server? The mask covers
  // 32 ticks; a longer gap cannot be checked and counts as explained.
  const uint32_t window = tick - base_;
  const uint32_t bits = window >= 32 ? ~0u : ((1u << window) - 1);
  r.explained = window > 32 || (repeated_mask & bits) != 0;
  // A game command that changed the state is the surest cause of all: it is its own class.
  r.server = (server_mask & bits) != 0;

  if (tick > latest_) {
    // The server ran ahead of every prediction we made: it can only have repeated inputs for us.
    r.outcome = Outcome::kAhead;
    r.explained = true;
    r.position_error = length(to_position(server.position) - to_position(at(latest_).state.position));
    reset(tick, server);
    ++counters_.corrections;
    return r;
  }

  const CharacterState predicted = at(tick).state;
  base_ = tick;
  if (predicted == server) {
    r.outcome = Outcome::kMatched;
    r.server = false;
    ++counters_.matched;
    return r;
  }
  r.outcome = Outcome::kCorrected;
  r.position_error = length(to_position(server.position) - to_position(predicted.position));
  ++counters_.corrections;
  if (r.server) {
    r.explained = true;
    ++counters_.server;
  } else if (!r.explained) {
    // Another character met on either side since the last confirmed tick: its moves are only a
    // guess here (movement.md §16), so a difference is expected, not a bug.
    bool met = window > 32 || (interaction_mask & bits) != 0;
    for (uint32_t t = tick - window + 1; t <= tick && !met; ++t) met = at(t).met;
    r.interaction = met;
    r.explained = met;
    ++(met ? counters_.interactions : counters_.unexplained);
  }
  if (r.position_error > counters_.max_error) counters_.max_error = r.position_error;
  // Rewind to the server's word and replay what it has not seen yet.
  at(tick).state = server;
  forget_neighbours_after(tick);
  r.replayed = replay_after(tick);
  counters_.replayed_ticks += r.replayed;
  return r;
}

}  // namespace foothold
