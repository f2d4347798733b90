#pragma once
// Desync reports: one self-contained HTML file (foothold-replay diff/view --html) that shows the
// world in 3D, every character's path on one or two sides, a timeline per character coloured by
// what happened at each tick, and every field of both sides at any tick. The page (report/viewer.html)
// and three.js (Debian's libjs-three) are built into foothold-replay; the data goes in as JSON.
//
// Size: every tick is kept near the interesting ones (where the sides differ, and a window around
// them); elsewhere the rows are thinned to a stride chosen so the whole report stays small.

#include <cstdint>
#include <string>
#include <vector>

#include "replay/resimulate.h"
#include "replay/trace_diff.h"
#include "shared/settings.h"
#include "shared/world.h"

namespace foothold::replay {

/// One side of a report: its characters' states and, when known, the inputs they consumed.
struct ReportSide {
  std::string name;                         ///< e.g. the trace's file name
  std::vector<TraceRow> rows;               ///< any order; a repeated (id, tick) keeps the first
  const LoadedRecording* inputs = nullptr;  ///< the recording of its inputs, or null
};

/// What a timeline lane says about a tick (the page's colours).
enum class TickStatus : uint8_t {
  kIdentical = 0,          ///< both sides bit-identical (or a one-sided view: nothing wrong known)
  kCorrectedInput = 1,     ///< the sides differ because the inputs consumed differ (late or lost packets)
  kCorrectedInteraction = 2,  ///< they differ after a step met another character
  kUnexplained = 3,        ///< same inputs, nobody met: a determinism bug
  kDiverged = 4,           ///< they differ and no input stream says why
  kCorrectedServer = 5,    ///< they differ at a tick whose state the server's game changed (a teleport, a freeze...)
};

/// How a report is laid out.
struct ReportOptions {
  std::string title;        ///< the page's heading
  std::string world_name;   ///< as the user named it
  int keep_window = 60;     ///< ticks kept on each side of an interesting tick
  std::size_t row_budget = 60000;  ///< about this many rows per side at most, outside the windows
};

/// The report's data as JSON (the page's REPORT_JSON). `sides` holds one side (view) or two (diff:
/// side 0 against side 1, tick by tick).
std::string report_json(const World& world, const MoveSettings& settings, const std::vector<ReportSide>& sides,
                        const ReportOptions& options);

/// The whole page: the viewer with three.js and `json` inlined.
std::string render_report_html(const std::string& json);

/// The status of each tick where both sides have character `id` (a helper of report_json, public for
/// tests): compared row by row; a difference is explained by the inputs when they are known.
std::vector<std::pair<uint32_t, TickStatus>> tick_statuses(const std::vector<TraceRow>& a, const std::vector<TraceRow>& b,
                                                          const LoadedRecording* inputs_a,
                                                          const LoadedRecording* inputs_b);

}  // namespace foothold::replay
