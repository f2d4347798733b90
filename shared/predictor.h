#pragma once
// Client-side prediction and reconciliation: a client predicts its own character with the very step
// the server runs, keeps the inputs the server has not acknowledged, and when the server's state for
// an acknowledged tick differs from its prediction it rewinds to the server's state and replays the
// inputs since. Its history is the client's one record of its inputs: what a client sends again
// until the server has it, it reads from here (input()). Reusable by any game client: it knows
// nothing of sockets or time.

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "shared/character_state.h"
#include "shared/input.h"
#include "shared/mover_clock.h"
#include "shared/step.h"

namespace foothold {

/// Another character near this client's own, as a snapshot tells it in full (proto::SnapshotNeighbour):
/// its state after the snapshot's tick, the input the server stepped it with for that tick and the
/// ones it already held for the next. The predictor steps such a character itself, with its inputs
/// (the last one held), instead of carrying its position.
struct PredictedNeighbour {
  uint32_t id = 0;
  CharacterState state;
  InputCmd input;
  /// Its inputs for the ticks right after, those the server already held (the first ahead_count):
  /// exact where the held input is a guess. After the last of them its last is held.
  std::array<InputCmd, kMaxInputsAhead> ahead{};
  uint8_t ahead_count = 0;
  bool operator==(const PredictedNeighbour&) const = default;
  /// The input it steps with in the tick `after` ticks past the snapshot's (1 the next), tick field aside.
  const InputCmd& input_after(uint32_t after) const {
    if (after <= ahead_count) return ahead[after - 1];
    return ahead_count > 0 ? ahead[ahead_count - 1u] : input;
  }
};

/// Predicts one character on a client and reconciles it with the server's states (see above).
/// Keeps references to `world` and `settings` (see the constructor). Call reset() before predict().
class Predictor {
 public:
  /// Ticks of history kept: inputs and predictions older than the newest by this much are gone.
  static constexpr uint32_t kHistory = 256;

  /// Keeps references to `world` and `settings`: both must outlive the predictor (temporaries are
  /// refused at compile time: `Predictor p(world, derive(s))` would dangle).
  Predictor(const World& world, const DerivedSettings& settings) : world_(world), settings_(settings) {}
  Predictor(const World&, DerivedSettings&&) = delete;
  Predictor(World&&, const DerivedSettings&) = delete;

  /// Sizes every list a prediction uses for up to `others` other characters and `neighbours` of
  /// them in full, so that nothing it does afterwards allocates within those counts: the neighbours'
  /// rows are reserved for the longest run past a snapshot (kHistory ticks), not only the run the
  /// last few snapshots needed (a client's promise, "nothing allocates once connected", holds when
  /// a neighbour first comes near, or snapshots stop for a while, as well).
  void reserve(std::size_t others, std::size_t neighbours);

  /// The other characters as this client knows them (the newest snapshot's, published positions)
  /// and its own character's id: every later prediction and replay steps against them (movement.md
  /// §16). Copied; allocates only when the list grows past every earlier one.
  ///
  /// With `motion` (one per other, raw 1/1024 m per tick, from RemoteInterpolator::motion) and the
  /// snapshot tick `seen_tick`, the others are not left where the snapshot showed them while this
  /// client steps ahead of it, but carried on where they will most likely be: a step of tick t sees
  /// each at its position plus its motion times (t - 1 - seen_tick), as the server's step of t sees
  /// them after tick t - 1. Across the ground only (a jump is no line; the motion's y is ignored),
  /// and bounded: each axis of the motion to the walk speed, at most kOthersHorizonMs of it, then
  /// held; one standing on a mover rides it, from where the mover had it at `seen_tick` to where it
  /// is at the end of t - 1 (movers are posed at any tick from the world alone), its motion (then its
  /// steps across the deck: ClientSession takes the mover's part out) on top. A guess: when it is
  /// wrong the prediction is corrected
  /// and the correction is still an interaction (the step met someone). A pure function of what the
  /// client received, so a replay of the same snapshots predicts the same.
  ///
  /// `neighbours` (each also one of `others`, by id), the ones the snapshot gave in full, are not
  /// carried but stepped: for each tick after `seen_tick`, every neighbour steps from its state with
  /// its inputs (PredictedNeighbour::input_after(): past the known ones the last is held, as the
  /// server itself repeats an input that is late),
  /// against the others as the step of that tick sees them and this client's own character as
  /// predicted, exactly as the server's tick steps them all (shared/tick.h). While the neighbours'
  /// inputs do not change, the pushes of a crowd then predict exactly where carrying each one on its
  /// own line cannot. The neighbours are stepped from the snapshot again after every call and after
  /// every change to this character's predictions (a correction), as far as a prediction needs them.
  void set_others(std::span<const OtherCharacter> others, uint32_t self_id, uint32_t seen_tick = 0,
                  std::span<const FixedVec3> motion = {}, std::span<const PredictedNeighbour> neighbours = {});
  /// How far ahead of its snapshot the others are carried at most.
  static constexpr uint32_t kOthersHorizonMs = 250;
  /// The others as the step of `tick` sees them (set_others), into `out`: for tests and tools.
  /// Neighbours are where their own steps put them, once this character's prediction of tick - 1
  /// exists (else carried like the rest); `out` is then in ascending id.
  void others_at(uint32_t tick, std::vector<OtherCharacter>& out);

  /// The movers' clocks every later step runs the movers on (shared/mover_clock.h; null, the
  /// default: as just reset, none driven yet). Kept by reference: it must outlive the predictor or
  /// the next set_clocks().
  void set_clocks(const MoverClocks* clocks) {
    clocks_ = clocks;
    movers_changed();
  }
  /// The clocks changed (a snapshot brought a mover's new segment): every prediction after the last
  /// confirmed tick is stepped again with the movers as they now run, so that the server's state
  /// for a later tick finds them matching. Returns the ticks stepped again.
  uint32_t movers_changed();

  /// Starts over from an authoritative state: `state` is the character after tick `tick`.
  void reset(uint32_t tick, const CharacterState& state);

  /// Predicts the next tick (latest_tick() + 1) with `input`; its tick field is set to that tick.
  /// Returns the predicted state: a reference into the history, which later calls may overwrite.
  const CharacterState& predict(InputCmd input);

  /// Whether the newest prediction (or replay) of `tick` met another character (movement.md §16);
  /// false for a tick no longer in the history.
  bool met(uint32_t tick) const { return latest_ - tick < kHistory && tick <= latest_ && at(tick).met; }

  /// The input predict() was given for `tick` (its tick field set to `tick`). `tick` must be held:
  /// from oldest_input_tick() to latest_tick().
  const InputCmd& input(uint32_t tick) const;
  /// The oldest tick whose input the history holds: the first predicted since reset(), or, once
  /// predictions ran kHistory ticks past it, kHistory - 1 before latest_tick(). latest_tick() + 1
  /// when none is (just reset).
  uint32_t oldest_input_tick() const {
    return latest_ - start_ < kHistory ? start_ + 1 : latest_ - kHistory + 1;
  }

  /// The newest tick predicted (or given to reset()).
  uint32_t latest_tick() const { return latest_; }
  /// The state after latest_tick().
  const CharacterState& latest_state() const { return at(latest_).state; }
  /// The state after `tick` as now predicted (the server's, for the tick given to reset()), or null
  /// when the history does not hold it.
  const CharacterState* state(uint32_t tick) const {
    if (tick > latest_ || int32_t(tick - start_) < 0 || latest_ - tick >= kHistory) return nullptr;
    return &at(tick).state;
  }
  /// The newest tick the server has confirmed (its state is the base of every prediction since).
  /// When predictions would run kHistory ticks past it, predict() moves it up to the oldest tick still
  /// kept, which the server has not confirmed.
  uint32_t acknowledged_tick() const { return base_; }

  /// What reconcile() did with a server state.
  enum class Outcome : uint8_t {
    kMatched,    ///< the prediction for that tick equals the server's state bit for bit
    kCorrected,  ///< it did not: rewound to the server's state and replayed the inputs since
    kAhead,      ///< the server is past every tick predicted: restarted from its state
    kStale,      ///< not newer than what the server already confirmed: ignored
    kMismatch,   ///< confirm(): the digest differs, or that tick was not predicted: the full state is needed
  };
  /// The result of one reconcile().
  struct Reconciliation {
    Outcome outcome = Outcome::kStale;  ///< what was done
    /// For kCorrected and kAhead: true when the server used a different input than ours for a tick
    /// since the last confirmed one (it repeated one for a late or lost packet), or when another
    /// character was met in those ticks (`interaction`). False means the same inputs and the same
    /// surroundings gave a different state: a determinism bug.
    bool explained = false;
    /// For kCorrected: not explained by a repeated input, but the server's step or ours met another
    /// character since the last confirmed tick, whose moves this client can only guess.
    bool interaction = false;
    /// For kCorrected and kAhead: a game command changed the character's state on the server (a
    /// teleport, a velocity, a freeze, a profile) at the start of a tick since the last confirmed one
    /// (`server_mask`): the correction's class is `server`, whatever else happened (`interaction`
    /// stays false).
    bool server = false;
    double position_error = 0;  ///< metres between the prediction and the server's state (kCorrected, kAhead)
    uint32_t replayed = 0;      ///< ticks re-simulated after the correction (kCorrected)
  };

  /// Takes the server's state after tick `tick`. Bit i of `repeated_mask` says the server repeated
  /// an earlier input for tick `tick - i` instead of using ours. States for ticks not newer than
  /// acknowledged_tick() are ignored (kStale).
  /// Bit i of `interaction_mask` says the server's step of tick `tick - i` met another character;
  /// bit i of `server_mask` that a game command changed the character's state at the start of tick
  /// `tick - i` (SnapshotHeader::server_mask).
  Reconciliation reconcile(uint32_t tick, const CharacterState& server_state, uint32_t repeated_mask,
                           uint32_t interaction_mask = 0, uint32_t server_mask = 0);

  /// Takes the digest of the server's state after `tick` (CharacterState::digest()), which a server
  /// sends instead of the state when it expects the prediction to match. kMatched: the prediction
  /// for `tick` has that digest and is confirmed as by reconcile(). kMismatch: it does not, or `tick`
  /// is past every prediction; nothing changes, and the caller asks for the full state, which then
  /// goes through reconcile() (and is counted there). kStale: not newer than acknowledged_tick().
  Outcome confirm(uint32_t tick, uint32_t digest);

  /// Running totals.
  struct Counters {
    uint64_t predicted = 0;       ///< predict() calls
    uint64_t matched = 0;         ///< reconciliations and confirmations that matched (kMatched)
    uint64_t mismatched = 0;      ///< confirmations that did not (kMismatch): the full state was asked for
    uint64_t corrections = 0;     ///< kCorrected and kAhead reconciliations
    uint64_t interactions = 0;    ///< kCorrected ones explained by another character, not by an input
    uint64_t server = 0;          ///< kCorrected ones explained by a game command (Reconciliation::server)
    uint64_t unexplained = 0;     ///< kCorrected ones explained by neither: determinism bugs
    uint64_t replayed_ticks = 0;  ///< ticks re-simulated by corrections
    double max_error = 0;  ///< metres: the largest position_error of a kCorrected reconciliation
  };
  /// The totals since construction (reset() does not clear them).
  const Counters& counters() const { return counters_; }

 private:
  struct Entry {
    InputCmd input;        ///< the input for this tick
    CharacterState state;  ///< the predicted state after it
    bool met = false;      ///< the predicted step met another character
  };
  CharacterState step_from(const CharacterState& from, const InputCmd& input, bool& met);
  void carried_at(uint32_t tick, std::vector<OtherCharacter>& out) const;
  const CharacterState* own_state(uint32_t tick) const;
  bool step_neighbours_through(uint32_t tick);
  void forget_neighbours_after(uint32_t tick);
  const CharacterState& neighbour_state(uint32_t tick, std::size_t k) const {
    return stepped_[std::size_t(tick - seen_tick_) * neighbours_.size() + k];
  }
  const MoverFrame* movers_at(uint32_t tick);
  // Steps every prediction after `tick` again from the state after it; returns how many.
  uint32_t replay_after(uint32_t tick);
  // The movers' frames of the last kFrames ticks stepped, by tick % kFrames: a correction replays
  // the ticks since the server's state (about a round trip's worth), whose frames the predictions
  // built already (a frame is a pure function of the world and the tick, so any copy is the same).
  static constexpr uint32_t kFrames = 16;
  Entry& at(uint32_t tick) { return history_[tick % kHistory]; }
  const Entry& at(uint32_t tick) const { return history_[tick % kHistory]; }

  const World& world_;
  const DerivedSettings& settings_;
  StepScratch scratch_;
  std::array<MoverFrame, kFrames> frames_;
  const MoverClocks* clocks_ = nullptr;
  std::vector<OtherCharacter> others_;
  std::vector<FixedVec3> motion_;       // per other (empty: none carried)
  std::vector<OtherCharacter> moved_;   // the others carried to the tick being stepped
  std::vector<OtherCharacter> seen_by_neighbours_;  // the same, with this character in it
  std::vector<PredictedNeighbour> neighbours_;      // by ascending id
  // The neighbours' states after each tick from seen_tick_ (its row: the snapshot's) through
  // stepped_through_, a row of neighbours_.size() per tick.
  std::vector<CharacterState> stepped_;
  uint32_t stepped_through_ = 0;
  uint32_t seen_tick_ = 0;
  uint32_t self_id_ = 0;
  std::array<Entry, kHistory> history_{};
  uint32_t start_ = 0;   // the tick given to reset(): inputs are held from the one after
  uint32_t base_ = 0;    // last tick confirmed by the server
  uint32_t latest_ = 0;  // last tick predicted
  Counters counters_;
};

}  // namespace foothold
