#pragma once
// Comparing two trajectory traces (server against client, run against run): rows are aligned by
// (tick, id) over the ticks both contain. Given the two input streams, each divergence is explained:
// the two sides consumed a different input (a late or repeated one) or the same inputs gave
// different states (a determinism bug).

#include <cstdint>
#include <string>
#include <vector>

#include "replay/resimulate.h"
#include "shared/trace.h"

namespace foothold::replay {

struct Trace {
  std::string name;
  std::vector<TraceRow> rows;
};

/// Reads a trace CSV; errors name the file and line.
bool read_trace(const std::string& path, Trace& out, std::string& error);

struct CharacterDiff {
  uint32_t id = 0;
  uint64_t compared = 0;            ///< ticks present in both traces
  bool diverged = false;
  uint32_t first_divergent_tick = 0;
  double max_error = 0;             ///< metres, position
  double mean_error = 0;
  uint64_t ground_mismatches = 0;
  uint64_t state_mismatches = 0;    ///< rows not bit-identical
  /// Why it diverged (with input streams): what happened first.
  enum class Cause : uint8_t { kUnknown, kInputDiffers, kDeterminism } cause = Cause::kUnknown;
  uint32_t cause_tick = 0;          ///< the tick whose inputs differ
  std::string explanation;
  /// (tick, a position, b position) of every compared row, for plotting.
  struct Sample {
    uint32_t tick;
    Vec3 a, b;
  };
  std::vector<Sample> samples;
};

struct DiffResult {
  std::vector<CharacterDiff> characters;  ///< ascending id; only ids present in both traces
  uint64_t rows_only_in_a = 0;
  uint64_t rows_only_in_b = 0;
  bool within_tolerance = true;
};

/// Compares two traces. With tolerance 0 rows must be bit-identical; otherwise the position error
/// must stay within `tolerance` metres.
DiffResult diff_traces(const Trace& a, const Trace& b, double tolerance);

/// Fills in each divergence's cause from the two input streams (recordings of the two sides).
void explain_divergences(DiffResult& diff, const LoadedRecording& inputs_a, const LoadedRecording& inputs_b);

/// An SVG: both paths from above, and the error over time, divergences marked.
std::string render_svg(const DiffResult& diff, const std::string& name_a, const std::string& name_b, double tolerance);

}  // namespace foothold::replay
