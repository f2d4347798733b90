#include "replay/trace_diff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

namespace foothold::replay {

bool read_trace(const std::string& path, Trace& out, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = path + ": cannot open trace";
    return false;
  }
  out.name = path;
  out.rows.clear();
  std::string line;
  if (!std::getline(in, line) || !is_trace_header(line)) {
    error = path + ":1: not a trace (the header must begin with " + std::string(kTraceHeader) + ")";
    return false;
  }
  std::size_t line_no = 1;
  std::string why;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line == "\r") continue;
    const auto row = parse_trace_row(line, why);
    if (!row) {
      error = path + ":" + std::to_string(line_no) + ": " + why;
      return false;
    }
    out.rows.push_back(*row);
  }
  return true;
}

DiffResult diff_traces(const Trace& a, const Trace& b, double tolerance) {
  // Index both by (id, tick).
  auto index = [](const Trace& t) {
    std::map<std::pair<uint32_t, uint32_t>, const TraceRow*> m;
    for (const auto& r : t.rows) m[{r.id, r.tick}] = &r;
    return m;
  };
  const auto ia = index(a), ib = index(b);
  DiffResult result;
  CharacterDiff* current = nullptr;
  double error_sum = 0;
  for (const auto& [key, ra] : ia) {
    const auto it = ib.find(key);
    if (it == ib.end()) {
      ++result.rows_only_in_a;
      continue;
    }
    const TraceRow* rb = it->second;
    if (!current || current->id != key.first) {
      if (current && current->compared) current->mean_error = error_sum / double(current->compared);
      result.characters.push_back({});
      current = &result.characters.back();
      current->id = key.first;
      error_sum = 0;
    }
    CharacterDiff& d = *current;
    ++d.compared;
    const Vec3 pa = to_position(ra->state.position), pb = to_position(rb->state.position);
    const double err = length(pa - pb);
    error_sum += err;
    d.max_error = std::max(d.max_error, err);
    d.samples.push_back({key.second, pa, pb});
    const bool ground_differs = ra->state.ground != rb->state.ground;
    if (ground_differs) ++d.ground_mismatches;
    const bool differs = !(ra->state == rb->state);
    if (differs) ++d.state_mismatches;
    const bool divergent = tolerance == 0 ? differs : err > tolerance;
    if (divergent && !d.diverged) {
      d.diverged = true;
      d.first_divergent_tick = key.second;
    }
  }
  if (current && current->compared) current->mean_error = error_sum / double(current->compared);
  for (const auto& [key, rb] : ib)
    if (!ia.count(key)) ++result.rows_only_in_b;
  for (const auto& d : result.characters) result.within_tolerance &= !d.diverged;
  return result;
}

void explain_divergences(DiffResult& diff, const LoadedRecording& ra, const LoadedRecording& rb) {
  auto find = [](const LoadedRecording& r, uint32_t id) -> const Timeline* {
    for (const auto& t : r.characters)
      if (t.id == id) return &t;
    return nullptr;
  };
  for (auto& d : diff.characters) {
    if (!d.diverged) continue;
    const Timeline* ta = find(ra, d.id);
    const Timeline* tb = find(rb, d.id);
    if (!ta || !tb) {
      d.explanation = "no input stream for character " + std::to_string(d.id) + " in " + (!ta ? "the first" : "the second") +
                      " recording";
      continue;
    }
    // The first tick, up to the divergence, where the two sides consumed different commands.
    const uint32_t from = std::max(ta->first_tick, tb->first_tick);
    bool found = false;
    for (uint32_t t = from; t <= d.first_divergent_tick && t <= ta->last_tick() && t <= tb->last_tick(); ++t) {
      const std::size_t ia = t - ta->first_tick, ib = t - tb->first_tick;
      const InputCmd& a = ta->inputs[ia];
      const InputCmd& b = tb->inputs[ib];
      if (!a.same_command(b)) {
        found = true;
        d.cause = CharacterDiff::Cause::kInputDiffers;
        d.cause_tick = t;
        const bool rep_a = ta->repeated[ia], rep_b = tb->repeated[ib];
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      "input divergence at tick %u: %s (move %d,%d buttons %u) vs (move %d,%d buttons %u)%s", t,
                      rep_a || rep_b ? (rep_a ? "the first side repeated an earlier input for a late or lost packet"
                                              : "the second side repeated an earlier input for a late or lost packet")
                                     : "different inputs were consumed",
                      a.move_x, a.move_z, a.buttons, b.move_x, b.move_z, b.buttons,
                      t == d.first_divergent_tick ? "" : "; the states parted later");
        d.explanation = buf;
        break;
      }
    }
    // The same inputs: the states part in a tick whose state a game command changed on either side,
    // or where either side's step met another character.
    const uint32_t parted = d.first_divergent_tick;
    if (!found && parted >= from && parted <= ta->last_tick() && parted <= tb->last_tick()) {
      const std::size_t ia = parted - ta->first_tick, ib = parted - tb->first_tick;
      const uint8_t ca = ia < ta->commanded.size() ? ta->commanded[ia] : 0, cb = ib < tb->commanded.size() ? tb->commanded[ib] : 0;
      if (ca != 0 || cb != 0) {
        found = true;
        d.cause = CharacterDiff::Cause::kServer;
        d.cause_tick = parted;
        d.explanation = "server at tick " + std::to_string(parted) + ": the " + (ca ? "first" : "second") +
                        " side's game gave a " + std::string(to_string(GameCommandKind(ca ? ca : cb))) +
                        " command, which the other side learns only from the server";
      }
    }
    if (!found && parted >= from && parted <= ta->last_tick() && parted <= tb->last_tick()) {
      const std::size_t ia = parted - ta->first_tick, ib = parted - tb->first_tick;
      const bool met_a = ia < ta->met.size() && ta->met[ia], met_b = ib < tb->met.size() && tb->met[ib];
      if (met_a || met_b) {
        found = true;
        d.cause = CharacterDiff::Cause::kInteraction;
        d.cause_tick = parted;
        d.explanation = "interaction at tick " + std::to_string(parted) + ": the same inputs, but the " +
                        (met_a ? "first" : "second") + " side's step met another character, whose moves a client can only guess";
      }
    }
    // One recording for both sides (a client's inputs not given): its commands agree with themselves,
    // but where that side repeated an earlier input, the other side may have had another. It is the
    // weaker clue (the client's own command is unknown), so a meeting at the divergent tick wins.
    // Only a repeat within
    // the 32 ticks before the states part counts (a snapshot's repeated_mask reach): an older one
    // would have parted them sooner.
    const uint32_t recent = std::max(from, d.first_divergent_tick > 32 ? d.first_divergent_tick - 32 : 0u);
    for (uint32_t t = recent; !found && &ra == &rb && t <= d.first_divergent_tick && t <= ta->last_tick(); ++t) {
      if (!ta->repeated[t - ta->first_tick]) continue;
      found = true;
      d.cause = CharacterDiff::Cause::kInputDiffers;
      d.cause_tick = t;
      d.explanation = "input divergence at tick " + std::to_string(t) +
                      ": the first side repeated an earlier input for a late or lost packet" +
                      (t == d.first_divergent_tick ? "" : "; the states parted later");
    }
    if (!found) {
      d.cause = CharacterDiff::Cause::kDeterminism;
      d.cause_tick = d.first_divergent_tick;
      d.explanation = "the same inputs gave different states at tick " + std::to_string(d.first_divergent_tick) +
                      ": a determinism bug";
    }
  }
}

namespace {
std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}
}  // namespace

std::string render_svg(const DiffResult& diff, const std::string& name_a, const std::string& name_b, double tolerance) {
  const double w = 1200, h = 640, pad = 44;
  const double map_w = 560, plot_x0 = 640;
  // Bounds of every path.
  double xmin = 1e300, xmax = -1e300, zmin = 1e300, zmax = -1e300, emax = 1e-6;
  uint32_t tmin = ~0u, tmax = 0;
  for (const auto& d : diff.characters)
    for (const auto& s : d.samples) {
      for (const Vec3& p : {s.a, s.b}) {
        xmin = std::min(xmin, p.x), xmax = std::max(xmax, p.x);
        zmin = std::min(zmin, p.z), zmax = std::max(zmax, p.z);
      }
      emax = std::max(emax, length(s.a - s.b));
      tmin = std::min(tmin, s.tick), tmax = std::max(tmax, s.tick);
    }
  if (xmin > xmax) xmin = xmax = zmin = zmax = 0, tmin = tmax = 0;
  const double span = std::max({xmax - xmin, zmax - zmin, 1.0});
  auto mx = [&](double x) { return pad + (x - xmin) / span * (map_w - 2 * pad); };
  auto mz = [&](double z) { return pad + (z - zmin) / span * (h - 2 * pad); };
  const double plot_w = w - plot_x0 - pad, plot_h = h - 2 * pad;
  auto px = [&](uint32_t t) { return plot_x0 + (tmax > tmin ? double(t - tmin) / double(tmax - tmin) : 0.0) * plot_w; };
  auto py = [&](double e) { return pad + plot_h - e / emax * plot_h; };

  std::ostringstream s;
  s << "<svg xmlns='http://www.w3.org/2000/svg' width='" << w << "' height='" << h << "' font-family='sans-serif' font-size='12'>\n";
  s << "<rect width='100%' height='100%' fill='white'/>\n";
  s << "<text x='" << pad << "' y='16' font-size='14'>Paths from above (x to the right, z downward)</text>\n";
  s << "<text x='" << pad << "' y='32'><tspan fill='#1f77b4'>solid: " << name_a << "</tspan>   <tspan fill='#ff7f0e'>dashed: "
    << name_b << "</tspan></text>\n";
  s << "<text x='" << plot_x0 << "' y='16' font-size='14'>Position error (m) over ticks " << tmin << "-" << tmax << "</text>\n";
  s << "<text x='" << plot_x0 << "' y='32'>"
    << (emax <= 1e-6 ? std::string("every error is 0: bit-exact") : "largest " + num(emax) + " m") << "</text>\n";
  s << "<rect x='" << pad << "' y='" << pad << "' width='" << map_w - 2 * pad << "' height='" << h - 2 * pad
    << "' fill='none' stroke='#ccc'/>\n";
  s << "<rect x='" << plot_x0 << "' y='" << pad << "' width='" << plot_w << "' height='" << plot_h << "' fill='none' stroke='#ccc'/>\n";
  if (tolerance > 0 && tolerance < emax)
    s << "<line x1='" << plot_x0 << "' x2='" << plot_x0 + plot_w << "' y1='" << num(py(tolerance)) << "' y2='" << num(py(tolerance))
      << "' stroke='#999' stroke-dasharray='4 3'/><text x='" << plot_x0 + 4 << "' y='" << num(py(tolerance) - 4)
      << "' fill='#999'>tolerance</text>\n";
  for (const auto& d : diff.characters) {
    auto path = [&](bool second) {
      std::ostringstream p;
      bool first = true;
      for (const auto& smp : d.samples) {
        const Vec3& v = second ? smp.b : smp.a;
        p << (first ? "M" : " L") << num(mx(v.x)) << ' ' << num(mz(v.z));
        first = false;
      }
      return p.str();
    };
    s << "<path d='" << path(false) << "' fill='none' stroke='#1f77b4' stroke-width='1.5'/>\n";
    s << "<path d='" << path(true) << "' fill='none' stroke='#ff7f0e' stroke-width='1.5' stroke-dasharray='5 4'/>\n";
    std::ostringstream e;
    bool first = true;
    for (const auto& smp : d.samples) {
      e << (first ? "M" : " L") << num(px(smp.tick)) << ' ' << num(py(length(smp.a - smp.b)));
      first = false;
    }
    s << "<path d='" << e.str() << "' fill='none' stroke='" << (d.diverged ? "#d62728" : "#2ca02c") << "' stroke-width='1'/>\n";
    if (d.diverged) {
      for (const auto& smp : d.samples) {
        if (smp.tick != d.first_divergent_tick) continue;
        s << "<circle cx='" << num(mx(smp.a.x)) << "' cy='" << num(mz(smp.a.z)) << "' r='6' fill='none' stroke='#d62728' stroke-width='2'/>\n";
        s << "<text x='" << num(mx(smp.a.x) + 8) << "' y='" << num(mz(smp.a.z) - 8) << "' fill='#d62728'>id " << d.id << " parts at tick "
          << d.first_divergent_tick << "</text>\n";
        s << "<line x1='" << num(px(smp.tick)) << "' x2='" << num(px(smp.tick)) << "' y1='" << pad << "' y2='" << pad + plot_h
          << "' stroke='#d62728' stroke-dasharray='2 2'/>\n";
      }
    }
  }
  std::size_t diverged = 0;
  for (const auto& d : diff.characters) diverged += d.diverged;
  s << "<text x='" << pad << "' y='" << h - 12 << "'>" << diff.characters.size() << " character(s) compared, " << diverged
    << " diverged" << (diverged ? " (red circles: where their paths part)" : ": the paths lie on each other") << "</text>\n";
  s << "</svg>\n";
  return s.str();
}

}  // namespace foothold::replay
