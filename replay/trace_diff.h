#pragma once
// Comparing two trajectory traces (server against client, run against run): rows are aligned by
// (tick, id) over the ticks both contain. Given the two input streams, each divergence is explained:
// the two sides consumed a different input (a late or repeated one) or the same inputs gave
// different states (a determinism bug).

#include <cstdint>
#include <string>
#include <vector>

#include "replay/resimulate.h"
#include "shared/formats/trace.h"

namespace foothold::replay {

/// A trajectory trace (shared/formats/trace.h's CSV) in memory.
struct Trace {
  /// Where it came from (read_trace() sets the path).
  std::string name;
  /// Rows in file order.
  std::vector<TraceRow> rows;
};

/// Reads a trace CSV; errors name the file and line. Blank lines are skipped.
bool read_trace(const std::string& path, Trace& out, std::string& error);

/// How one character's rows compare. Positions in metres, world axes (Y up).
struct CharacterDiff {
  /// The character's id.
  uint32_t id = 0;
  uint64_t compared = 0;            ///< ticks present in both traces
  /// The rows parted: not bit-identical (tolerance 0) or a position error over the tolerance.
  bool diverged = false;
  /// The first tick at which they parted (when diverged).
  uint32_t first_divergent_tick = 0;
  double max_error = 0;             ///< metres, position
  /// Metres, position, averaged over the compared rows.
  double mean_error = 0;
  /// Compared rows whose ground kind differs.
  uint64_t ground_mismatches = 0;
  uint64_t state_mismatches = 0;    ///< rows not bit-identical
  /// Why it diverged (with input streams): what happened first. kUnknown: not explained (it did not
  /// diverge, or an input stream lacks it); kInputDiffers: the two sides consumed a different input;
  /// kInteraction: the same inputs, but a step met another character, whose moves one side (a client)
  /// could only guess (movement.md §16); kDeterminism: the same inputs and no other character gave
  /// different states; kServer: the server's game changed the character (a teleport, a launch, a
  /// freeze, a profile: server/game.h) at the tick the states part, which a client learns only then.
  enum class Cause : uint8_t { kUnknown, kInputDiffers, kInteraction, kDeterminism, kServer } cause = Cause::kUnknown;
  /// The first tick whose inputs differ, or (kInteraction, kDeterminism, kServer) the first divergent tick.
  uint32_t cause_tick = 0;
  /// One sentence for people (also set when an input stream lacks the character).
  std::string explanation;
  /// (tick, a position, b position) of every compared row, for plotting.
  struct Sample {
    /// The tick of the row.
    uint32_t tick;
    /// Positions in trace a and trace b, metres.
    Vec3 a, b;
  };
  /// One per compared row, in tick order.
  std::vector<Sample> samples;
};

/// How two traces compare.
struct DiffResult {
  std::vector<CharacterDiff> characters;  ///< ascending id; only ids present in both traces
  /// (id, tick) rows in trace a that b lacks.
  uint64_t rows_only_in_a = 0;
  /// (id, tick) rows in trace b that a lacks.
  uint64_t rows_only_in_b = 0;
  /// No character diverged (rows in one trace only do not count).
  bool within_tolerance = true;
};

/// Compares two traces. With tolerance 0 rows must be bit-identical; otherwise the position error
/// must stay within `tolerance` metres (the 3D distance between positions).
DiffResult diff_traces(const Trace& a, const Trace& b, double tolerance);

/// Fills in each divergence's cause from the two input streams (recordings of the two sides): the
/// first tick, up to the divergence, whose commands differ (tick number aside); else interaction when
/// either side's step of the divergent tick met another character; else, given the same recording for
/// both sides, a tick within 32 before the divergence that it repeated an input for; else determinism.
void explain_divergences(DiffResult& diff, const LoadedRecording& inputs_a, const LoadedRecording& inputs_b);

/// An SVG: both paths from above (x to the right, z downward), and the error over time, divergences
/// marked; a `tolerance` above 0 is drawn as a line.
std::string render_svg(const DiffResult& diff, const std::string& name_a, const std::string& name_b, double tolerance);

}  // namespace foothold::replay
