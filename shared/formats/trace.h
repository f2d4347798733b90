#pragma once
// The trajectory trace: one CSV row per character per tick, exact enough to compare bit for bit.
//
//   tick,id,x,y,z,vx,vy,vz,grounded,ground,nx,ny,nz,air,buffer,held,crouched,platform,ox,oy,oz,frozen,profile,px,pz[,extra]
//
// x,y,z are the capsule centre in metres and vx,vy,vz the velocity in m/s, each printed as the exact
// decimal value of its fixed-point integer (1/1024 m, 1/65536 m/s), so reading a trace back gives the
// very same integers. grounded is 0 or 1; ground is none, walkable, tagged, crevice or pit; nx,ny,nz
// is the floor normal (1/16384 steps; 0,0,0 when there is no floor); air, buffer and held are the jump
// state (ticks since standing, ticks since an unfulfilled jump press, each 255 for none; the button
// held: 0 or 1). crouched is 0 or 1; platform is the mover the character stands on (its index + 1,
// 0 for none) and ox,oy,oz its capsule centre in the mover's axes (metres, exact; 0 without one).
// frozen is 0 or 1 (a game froze it) and profile its movement profile's index (0: the base settings);
// px,pz is a game's push (m/s, exact; 0 without one: movement.md §5.5).
// Readers need only the first ten columns; a row without the normal reads as having none, a row
// without the jump state, the posture and platform, the game's two columns or the push as a spawned
// character's.

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "shared/character_state.h"

namespace foothold {

/// The columns every trace starts with.
inline constexpr std::string_view kTraceHeader = "tick,id,x,y,z,vx,vy,vz,grounded,ground";
/// The header Foothold writes.
inline constexpr std::string_view kTraceHeaderWritten =
    "tick,id,x,y,z,vx,vy,vz,grounded,ground,nx,ny,nz,air,buffer,held,crouched,platform,ox,oy,oz,frozen,profile,px,pz";
/// Number of columns Foothold writes (and reads; later ones are ignored).
inline constexpr int kTraceColumns = 25;

/// One row of a trace: one character after one tick.
struct TraceRow {
  uint32_t tick = 0;     ///< the simulation tick the state is after
  uint32_t id = 0;       ///< the character's id
  CharacterState state;  ///< its state, exactly as the step left it
  bool operator==(const TraceRow&) const = default;
};

/// One CSV line (no newline), all kTraceColumns columns.
std::string format_trace_row(const TraceRow& row);

/// Parses one CSV line (a trailing '\r' is ignored); columns after the kTraceColumns-th are ignored;
/// a row with fewer than thirteen keeps a zero floor normal, one with fewer than sixteen a spawned
/// character's jump state, one with fewer than twenty-one a standing character on no platform, one
/// with fewer than twenty-three (the traces before games) a character not frozen, on the base
/// profile, one with fewer than twenty-five one not pushed. On failure returns nothing and sets `error`.
std::optional<TraceRow> parse_trace_row(std::string_view line, std::string& error);

/// True when a header line starts with the ten trace columns (kTraceHeader), whatever follows them.
bool is_trace_header(std::string_view line);

/// Writes a header and rows to a stream. Keeps a reference to `out`: it must outlive the writer.
class TraceWriter {
 public:
  /// Writes the header line (kTraceHeaderWritten) at once.
  explicit TraceWriter(std::ostream& out) : out_(out) { out_ << kTraceHeaderWritten << '\n'; }
  /// Writes one row and a newline.
  void write(const TraceRow& row) { out_ << format_trace_row(row) << '\n'; }

 private:
  std::ostream& out_;
};

}  // namespace foothold
