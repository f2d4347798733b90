#include "server/simulation.h"

namespace foothold::server {

Simulation::Simulation(const World& world, const MoveSettings& settings, ParallelFor& threads, std::size_t capacity)
    : world_(world), settings_(settings), derived_(derive(settings)), spawns_(world, settings), threads_(threads) {
  clocks_.reset(world);
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

void Simulation::advance(Roster& roster, Counters& counters, TickObserver* observer, std::span<const MessageRecord> messages,
                         std::span<const GameCommand> commands, std::span<const SentRecord> sent,
                         const Allocation* allocation) {
  ++tick_;
  roster.take_changes(joins_, leaves_);
  // The game's mover commands, in the order given (GameHost checked each against the world).
  for (const GameCommand& c : commands)
    if (c.kind == GameCommandKind::kMover) clocks_.apply(world_, c, tick_, settings_.tick_rate);
  if (tick_ > kClockHistoryTicks) clocks_.forget_before(tick_ - kClockHistoryTicks);
  // The roster is in ascending id, so the shared tick's results come back in roster order. Taking
  // the inputs and applying the results touch every client once, so they run on the threads too:
  // each index writes only its own client and its own slots.
  const std::size_t n = roster.size();
  entrants_.resize(n);
  characters_.resize(n);
  auto take_inputs = [&](std::size_t begin, std::size_t end, int) {
    for (std::size_t i = begin; i < end; ++i) {
      Client& c = roster[i];
      SimulatedCharacter& ch = c.character;
      const InputBuffer::Consumed in = ch.inputs.consume(tick_);
      ch.repeated_bits = (ch.repeated_bits << 1) | (in.repeated ? 1u : 0u);
      ch.server_bits = (ch.server_bits << 1) | (ch.commanded ? 1u : 0u);
      ch.commanded = false;
      ch.last_input = in.input;
      entrants_[i] = {c.id, ch.state, in.input, &ch.candidates};
      characters_[i] = {c.id, in.input, in.repeated, {}, false};
    }
  };
  threads_.run(n, kMinClientsPerThread, take_inputs);
  runner_.run(tick_, entrants_, world_, derived_, &threads_, &clocks_);
  auto apply_results = [&](std::size_t begin, std::size_t end, int) {
    for (std::size_t i = begin; i < end; ++i) {
      SimulatedCharacter& ch = roster[i].character;
      CharacterTick& out = characters_[i];
      ch.state = runner_.results()[i].state;
      const bool met = runner_.results()[i].diagnostics.characters_near > 0;
      ch.interaction_bits = (ch.interaction_bits << 1) | (met ? 1u : 0u);
      // A repeated input, a meeting or a game's command may part the client's prediction from this
      // state: until it acknowledges a snapshot of this tick or later, its snapshots carry the state
      // in full.
      if (out.repeated || met || (ch.server_bits & 1u)) ch.owed_tick = tick_;
      out.state = ch.state;
      out.met_character = met;
    }
  };
  threads_.run(n, kMinClientsPerThread, apply_results);
  std::size_t repeated = 0;
  for (const CharacterTick& c : characters_) repeated += c.repeated;
  counters.add(Counter::kInputsRepeated, repeated);
  counters.add(Counter::kInputsConsumed, n - repeated);
  if (observer) observer->on_tick({tick_, joins_, leaves_, characters_, messages, commands, sent, allocation});
  joins_.clear();
  leaves_.clear();
}

}  // namespace foothold::server
