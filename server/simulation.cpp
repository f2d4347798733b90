#include "server/simulation.h"

namespace foothold::server {

Simulation::Simulation(const World& world, const MoveSettings& settings, ParallelFor& threads, std::size_t capacity)
    : world_(world), settings_(settings), derived_(derive(settings)), spawns_(world, settings), threads_(threads) {
  occupied_.reserve(capacity);
  entrants_.reserve(capacity);
  characters_.reserve(capacity);
}

CharacterState Simulation::spawn(uint32_t id, const Roster& roster) {
  occupied_.clear();
  for (std::size_t i = 0; i < roster.size(); ++i) occupied_.push_back(roster[i].character.state.position);
  return spawns_.choose(id, occupied_);
}

void Simulation::offer_inputs(Client& c, std::span<const InputCmd> inputs, proto::Nanos now, Counters& counters) {
  InputBuffer& buffer = c.character.inputs;
  const uint32_t newest_before = buffer.newest_received();
  for (const InputCmd& in : inputs) {
    switch (buffer.offer(in, tick_ + 1)) {
      case InputBuffer::Offer::kAccepted: counters.add(Counter::kInputsAccepted); break;
      case InputBuffer::Offer::kDuplicate: counters.add(Counter::kInputsDuplicate); break;
      case InputBuffer::Offer::kLate: counters.add(Counter::kInputsLate); break;
      case InputBuffer::Offer::kTooFarAhead: counters.add(Counter::kInputsTooFarAhead); break;
    }
  }
  // The round trip is measured on the newest input tick: the client knows when it sent it, and the
  // snapshot says how long it waited here (echo delay).
  if (buffer.newest_received() != newest_before) c.character.echo_received = now;
}

void Simulation::advance(Roster& roster, Counters& counters, TickObserver* observer) {
  ++tick_;
  roster.take_changes(joins_, leaves_);
  // The roster is in ascending id, so the shared tick's results come back in roster order.
  const std::size_t n = roster.size();
  entrants_.resize(n);
  characters_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    Client& c = roster[i];
    SimulatedCharacter& ch = c.character;
    const InputBuffer::Consumed in = ch.inputs.consume(tick_);
    ch.repeated_bits = (ch.repeated_bits << 1) | (in.repeated ? 1u : 0u);
    counters.add(in.repeated ? Counter::kInputsRepeated : Counter::kInputsConsumed);
    entrants_[i] = {c.id, ch.state, in.input, &ch.candidates};
    characters_[i] = {c.id, in.input, in.repeated, {}, false};
  }
  runner_.run(tick_, entrants_, world_, derived_, &threads_);
  for (std::size_t i = 0; i < n; ++i) {
    SimulatedCharacter& ch = roster[i].character;
    CharacterTick& out = characters_[i];
    ch.state = runner_.results()[i].state;
    const bool met = runner_.results()[i].diagnostics.characters_near > 0;
    ch.interaction_bits = (ch.interaction_bits << 1) | (met ? 1u : 0u);
    // A repeated input or a meeting may part the client's prediction from this state: until it
    // acknowledges a snapshot of this tick or later, its snapshots carry the state in full.
    if (out.repeated || met) ch.owed_tick = tick_;
    out.state = ch.state;
    out.met_character = met;
  }
  if (observer) observer->on_tick({tick_, joins_, leaves_, characters_});
  joins_.clear();
  leaves_.clear();
}

}  // namespace foothold::server
