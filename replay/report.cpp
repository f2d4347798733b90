#include "replay/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "shared/animation.h"
#include "shared/fixed_point.h"
#include "shared/mover_clock.h"

// The page and three.js, built in by report/resources.S (.incbin), each ending in a zero byte.
extern "C" const char foothold_report_viewer_html[];
extern "C" const char foothold_report_three_js[];

namespace foothold::replay {

namespace {

// Ticks before a difference within which a repeated input explains it (as explain_divergences does).
constexpr uint32_t kRepeatReach = 32;
// Mover poses kept per mover at most (the page holds each until the next).
constexpr uint32_t kMaxPoses = 4000;

// JSON by hand: numbers with the decimals their unit needs, so a 10-minute report stays small.
class Json {
 public:
  void raw(std::string_view s) { out_ += s; }
  void number(double v, int decimals) {
    if (!std::isfinite(v)) v = 0;
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    std::string_view s(buf);
    // "-0.000" and trailing zeros cost bytes and say nothing.
    if (s.find('.') != std::string_view::npos) {
      while (s.back() == '0') s.remove_suffix(1);
      if (s.back() == '.') s.remove_suffix(1);
    }
    if (s == "-0") s = "0";
    out_ += s;
  }
  void integer(int64_t v) { out_ += std::to_string(v); }
  void string(std::string_view s) {
    out_ += '"';
    for (char c : s) {
      switch (c) {
        case '"': out_ += "\\\""; break;
        case '\\': out_ += "\\\\"; break;
        case '\n': out_ += "\\n"; break;
        case '<': out_ += "\\u003c"; break;  // never "</script>" inside the page's script element
        default:
          if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out_ += buf;
          } else {
            out_ += c;
          }
      }
    }
    out_ += '"';
  }
  void key(std::string_view k) {
    string(k);
    out_ += ':';
  }
  void comma(bool& first) {
    if (!first) out_ += ',';
    first = false;
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

// A side's rows of one character, ascending tick, one per tick.
using Rows = std::vector<TraceRow>;

std::map<uint32_t, Rows> by_character(const std::vector<TraceRow>& rows) {
  std::map<uint32_t, Rows> out;
  for (const TraceRow& r : rows) out[r.id].push_back(r);
  for (auto& [id, list] : out) {
    std::stable_sort(list.begin(), list.end(), [](const TraceRow& a, const TraceRow& b) { return a.tick < b.tick; });
    list.erase(std::unique(list.begin(), list.end(), [](const TraceRow& a, const TraceRow& b) { return a.tick == b.tick; }),
               list.end());
  }
  return out;
}

const Timeline* timeline_of(const LoadedRecording* r, uint32_t id) {
  if (!r) return nullptr;
  for (const Timeline& t : r->characters)
    if (t.id == id) return &t;
  return nullptr;
}

bool within(const Timeline& t, uint32_t tick) { return tick >= t.first_tick && tick <= t.last_tick(); }

// True when `t` repeated an input for a tick in [tick - reach, tick].
bool repeated_near(const Timeline& t, uint32_t tick) {
  for (uint32_t k = tick >= kRepeatReach ? tick - kRepeatReach : 0; k <= tick; ++k)
    if (within(t, k) && t.repeated[k - t.first_tick]) return true;
  return false;
}

void write_vec(Json& j, const Vec3& v, int decimals, bool& first) {
  j.comma(first);
  j.number(v.x, decimals);
  j.raw(",");
  j.number(v.y, decimals);
  j.raw(",");
  j.number(v.z, decimals);
}

// Triangle i of `owner` is at(owner, i): the world's static ones, or a mover's own.
void write_triangles(Json& j, std::size_t count, const WorldTriangle& (*at)(const void*, std::size_t), const void* owner) {
  j.key("positions");
  j.raw("[");
  bool first = true;
  for (std::size_t i = 0; i < count; ++i) {
    const Triangle& t = at(owner, i).tri;
    write_vec(j, t.a, 3, first);
    write_vec(j, t.b, 3, first);
    write_vec(j, t.c, 3, first);
  }
  j.raw("],");
  j.key("tags");
  j.raw("[");
  first = true;
  for (std::size_t i = 0; i < count; ++i) {
    j.comma(first);
    j.integer(int(at(owner, i).tag));
  }
  j.raw("]");
}

// The movers' clocks a recording's mover commands give (movement.md §15.4): every segment kept, for
// any tick the page shows; without a recording, the driven movers stand still.
MoverClocks recorded_clocks(const World& world, int tick_rate, const std::vector<ReportSide>& sides) {
  MoverClocks clocks;
  clocks.reset(world);
  const LoadedRecording* rec = nullptr;
  for (const ReportSide& s : sides) rec = rec ? rec : s.inputs;
  if (!rec) return clocks;
  for (const TickCommands& t : rec->commands)
    for (const GameCommand& c : t.commands)
      if (c.kind == GameCommandKind::kMover) clocks.apply(world, c, t.tick, tick_rate);
  return clocks;
}

void write_world(Json& j, const World& world, const MoverClocks& clocks, int tick_rate, uint32_t first_tick,
                 uint32_t last_tick) {
  j.key("world");
  j.raw("{");
  write_triangles(j, world.triangle_count(),
                  [](const void* w, std::size_t i) -> const WorldTriangle& {
                    return static_cast<const World*>(w)->triangle(uint32_t(i));
                  },
                  &world);
  j.raw(",");
  j.key("movers");
  j.raw("[");
  bool first_mover = true;
  const uint32_t span = last_tick >= first_tick ? last_tick - first_tick : 0;
  const uint32_t stride = std::max<uint32_t>(1, span / kMaxPoses + (span % kMaxPoses != 0));
  for (std::size_t mi = 0; mi < world.movers().size(); ++mi) {
    const Mover& m = world.movers()[mi];
    j.comma(first_mover);
    j.raw("{");
    j.key("name");
    j.string(m.name);
    j.raw(",");
    write_triangles(j, m.local.size(),
                    [](const void* v, std::size_t i) -> const WorldTriangle& {
                      return (*static_cast<const std::vector<WorldTriangle>*>(v))[i];
                    },
                    &m.local);
    j.raw(",");
    std::vector<uint32_t> ticks;
    for (uint64_t t = first_tick; t <= last_tick; t += stride) ticks.push_back(uint32_t(t));
    if (ticks.empty() || ticks.back() != last_tick) ticks.push_back(last_tick);
    j.key("ticks");
    j.raw("[");
    bool first = true;
    for (uint32_t t : ticks) {
      j.comma(first);
      j.integer(t);
    }
    j.raw("],");
    j.key("poses");
    j.raw("[");
    first = true;
    for (uint32_t t : ticks) {
      const Pose p = clocks.pose(world, mi, t, tick_rate);
      write_vec(j, p.translation, 4, first);
      for (double q : {p.rotation.x, p.rotation.y, p.rotation.z, p.rotation.w}) {
        j.raw(",");
        j.number(q, 5);
      }
    }
    j.raw("]}");
  }
  j.raw("]}");
}

// The ticks of `rows` to keep: every tick within `window` of an interesting one, the first and the
// last, and every `stride`-th otherwise.
std::vector<std::size_t> kept_rows(const Rows& rows, const std::set<uint32_t>& interesting, int window, uint32_t stride) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const uint32_t t = rows[i].tick;
    bool keep = i == 0 || i + 1 == rows.size() || t % stride == 0;
    if (!keep && !interesting.empty()) {
      const auto it = interesting.lower_bound(t >= uint32_t(window) ? t - uint32_t(window) : 0);
      keep = it != interesting.end() && *it <= t + uint32_t(window);
    }
    if (keep) out.push_back(i);
  }
  return out;
}

void write_side(Json& j, const Rows& rows, const std::vector<std::size_t>& keep, const Timeline* inputs) {
  j.raw("{");
  j.key("ticks");
  j.raw("[");
  bool first = true;
  for (std::size_t i : keep) {
    j.comma(first);
    j.integer(rows[i].tick);
  }
  j.raw("],");
  auto vectors = [&](const char* name, int decimals, auto get) {
    j.key(name);
    j.raw("[");
    bool f = true;
    for (std::size_t i : keep) write_vec(j, get(rows[i].state), decimals, f);
    j.raw("],");
  };
  vectors("position", 4, [](const CharacterState& s) { return to_position(s.position); });
  vectors("velocity", 3, [](const CharacterState& s) { return to_velocity(s.velocity); });
  vectors("normal", 3, [](const CharacterState& s) { return to_normal(s.floor_normal); });
  auto integers = [&](const char* name, auto get) {
    j.key(name);
    j.raw("[");
    bool f = true;
    for (std::size_t i : keep) {
      j.comma(f);
      j.integer(get(rows[i].state));
    }
    j.raw("],");
  };
  integers("ground", [](const CharacterState& s) { return int64_t(s.ground); });
  integers("crouched", [](const CharacterState& s) { return int64_t(s.crouched); });
  integers("platform", [](const CharacterState& s) { return int64_t(s.platform); });
  j.key("input");
  j.raw("[");
  first = true;
  if (inputs) {
    for (std::size_t i : keep) {
      const uint32_t t = rows[i].tick;
      const bool known = within(*inputs, t);
      const InputCmd in = known ? inputs->inputs[t - inputs->first_tick] : InputCmd{};
      j.comma(first);
      j.integer(in.move_x);
      j.raw(",");
      j.integer(in.move_z);
      j.raw(",");
      j.integer(in.buttons);
      j.raw(",");
      j.integer(known ? inputs->repeated[t - inputs->first_tick] : 0);
    }
  }
  j.raw("]}");
}

// The sides' rows by character, and what they span together.
struct Grouped {
  std::vector<std::map<uint32_t, Rows>> sides;  // one map per side
  std::set<uint32_t> ids;                       // every character on any side
  uint32_t first_tick = 0, last_tick = 0;       // over every side (both 0 without a row)
  uint32_t stride = 1;                          // outside the windows, every stride-th tick is kept
};

Grouped group_sides(const std::vector<ReportSide>& sides, std::size_t row_budget) {
  Grouped g;
  for (const ReportSide& s : sides) g.sides.push_back(by_character(s.rows));
  uint32_t first_tick = UINT32_MAX, last_tick = 0;
  for (const auto& side : g.sides) {
    for (const auto& [id, rows] : side) {
      g.ids.insert(id);
      first_tick = std::min(first_tick, rows.front().tick);
      last_tick = std::max(last_tick, rows.back().tick);
    }
  }
  if (g.ids.empty()) first_tick = last_tick = 0;
  g.first_tick = first_tick;
  g.last_tick = last_tick;
  // The stride that brings the longest side within the row budget.
  std::size_t side_rows = 0;
  for (const auto& side : g.sides) {
    std::size_t n = 0;
    for (const auto& kv : side) n += kv.second.size();
    side_rows = std::max(side_rows, n);
  }
  g.stride = uint32_t(std::max<std::size_t>(1, (side_rows + row_budget - 1) / std::max<std::size_t>(1, row_budget)));
  return g;
}

// The report's opening fields: what it is, its sides' names and the character's capsule.
void write_header(Json& j, const MoveSettings& settings, const std::vector<ReportSide>& sides, const ReportOptions& options,
                  uint32_t stride) {
  j.key("version");
  j.raw("1,");
  j.key("kind");
  j.string(sides.size() == 2 ? "diff" : "view");
  j.raw(",");
  j.key("title");
  j.string(options.title);
  j.raw(",");
  j.key("world_name");
  j.string(options.world_name);
  j.raw(",");
  j.key("tick_rate");
  j.integer(settings.tick_rate);
  j.raw(",");
  j.key("stride");
  j.integer(stride);
  j.raw(",");
  j.key("names");
  j.raw("[");
  bool first = true;
  for (const ReportSide& s : sides) {
    j.comma(first);
    j.string(s.name);
  }
  j.raw("],");
  j.key("capsule");
  j.raw("{");
  j.key("radius");
  j.number(settings.radius, 4);
  j.raw(",");
  j.key("height");
  j.number(settings.height, 4);
  j.raw(",");
  j.key("crouch_height");
  j.number(settings.crouch_height, 4);
  j.raw("},");
}

using Statuses = std::vector<std::pair<uint32_t, TickStatus>>;

// The first tick where the sides differ and what explains it; both null when they never do.
void write_parting(Json& j, const Statuses& statuses, const std::set<uint32_t>& interesting) {
  j.key("parting_tick");
  if (interesting.empty()) {
    j.raw("null,");
    j.key("divergence");
    j.raw("null,");
    return;
  }
  j.integer(*interesting.begin());
  j.raw(",");
  j.key("divergence");
  TickStatus s = TickStatus::kDiverged;
  for (const auto& st : statuses)
    if (st.first == *interesting.begin()) s = st.second;
  j.string(s == TickStatus::kCorrectedInput         ? "input"
           : s == TickStatus::kCorrectedServer      ? "server"
           : s == TickStatus::kCorrectedInteraction ? "interaction"
           : s == TickStatus::kUnexplained          ? "unexplained"
                                                    : "unknown");
  j.raw(",");
}

// Status ranges [start, end, code]: consecutive ticks with the same status.
void write_status_ranges(Json& j, const Statuses& statuses) {
  j.key("status");
  j.raw("[");
  bool f = true;
  for (std::size_t i = 0; i < statuses.size();) {
    std::size_t k = i;
    while (k + 1 < statuses.size() && statuses[k + 1].second == statuses[i].second &&
           statuses[k + 1].first == statuses[k].first + 1)
      ++k;
    j.comma(f);
    j.integer(statuses[i].first);
    j.raw(",");
    j.integer(statuses[k].first);
    j.raw(",");
    j.integer(int(statuses[i].second));
    i = k + 1;
  }
  j.raw("],");
}

// One character: how its sides compare tick by tick, and each side's kept rows.
void write_character(Json& j, uint32_t id, const Grouped& g, const std::vector<ReportSide>& sides,
                     const ReportOptions& options) {
  static const Rows kNone;
  const Rows& a = g.sides[0].count(id) ? g.sides[0].at(id) : kNone;
  const Rows& b = sides.size() == 2 && g.sides[1].count(id) ? g.sides[1].at(id) : kNone;
  const Statuses statuses = sides.size() == 2 ? tick_statuses(a, b, sides[0].inputs, sides[1].inputs) : Statuses{};
  std::set<uint32_t> interesting;
  for (const auto& [t, s] : statuses)
    if (s != TickStatus::kIdentical) interesting.insert(t);
  j.raw("{");
  j.key("id");
  j.integer(id);
  j.raw(",");
  write_parting(j, statuses, interesting);
  write_status_ranges(j, statuses);
  j.key("sides");
  j.raw("[");
  for (std::size_t s = 0; s < sides.size(); ++s) {
    if (s > 0) j.raw(",");
    const Rows& rows = s == 0 ? a : b;
    write_side(j, rows, kept_rows(rows, interesting, options.keep_window, g.stride), timeline_of(sides[s].inputs, id));
  }
  j.raw("]}");
}

}  // namespace

std::vector<std::pair<uint32_t, TickStatus>> tick_statuses(const std::vector<TraceRow>& a, const std::vector<TraceRow>& b,
                                                          const LoadedRecording* inputs_a, const LoadedRecording* inputs_b) {
  std::vector<std::pair<uint32_t, TickStatus>> out;
  if (a.empty()) return out;
  const uint32_t id = a.front().id;
  const Timeline* ta = timeline_of(inputs_a, id);
  // Without the second side's inputs, it is taken to have consumed the first side's (a client
  // predicts with the inputs it sent), as `diff --inputs-a` does.
  const Timeline* tb = inputs_b ? timeline_of(inputs_b, id) : ta;
  std::size_t j = 0;
  for (const TraceRow& ra : a) {
    while (j < b.size() && b[j].tick < ra.tick) ++j;
    if (j == b.size()) break;
    if (b[j].tick != ra.tick) continue;
    const uint32_t t = ra.tick;
    TickStatus s = TickStatus::kIdentical;
    if (!(ra.state == b[j].state)) {
      if (!ta || !tb) {
        s = TickStatus::kDiverged;
      } else if ((within(*ta, t) && t - ta->first_tick < ta->commanded.size() && ta->commanded[t - ta->first_tick]) ||
                 (within(*tb, t) && t - tb->first_tick < tb->commanded.size() && tb->commanded[t - tb->first_tick])) {
        s = TickStatus::kCorrectedServer;
      } else if ((within(*ta, t) && within(*tb, t) &&
                  !ta->inputs[t - ta->first_tick].same_command(tb->inputs[t - tb->first_tick])) ||
                 repeated_near(*ta, t) || repeated_near(*tb, t)) {
        s = TickStatus::kCorrectedInput;
      } else if ((within(*ta, t) && ta->met[t - ta->first_tick]) || (within(*tb, t) && tb->met[t - tb->first_tick])) {
        s = TickStatus::kCorrectedInteraction;
      } else {
        s = TickStatus::kUnexplained;
      }
    }
    out.push_back({t, s});
  }
  return out;
}

std::string report_json(const World& world, const MoveSettings& settings, const std::vector<ReportSide>& sides,
                        const ReportOptions& options) {
  const Grouped g = group_sides(sides, options.row_budget);
  Json j;
  j.raw("{");
  write_header(j, settings, sides, options, g.stride);
  write_world(j, world, recorded_clocks(world, settings.tick_rate, sides), settings.tick_rate, g.first_tick, g.last_tick);
  j.raw(",");
  j.key("first_tick");
  j.integer(g.first_tick);
  j.raw(",");
  j.key("last_tick");
  j.integer(g.last_tick);
  j.raw(",");
  j.key("characters");
  j.raw("[");
  bool first = true;
  for (uint32_t id : g.ids) {
    j.comma(first);
    write_character(j, id, g, sides, options);
  }
  j.raw("]}");
  return j.take();
}

std::string render_report_html(const std::string& json) {
  std::string page = foothold_report_viewer_html;
  // Each placeholder once, found in the template before anything is inserted, and the later one
  // replaced first: what goes in is never searched.
  const std::string three_mark = "/*@THREE_JS@*/", json_mark = "/*@REPORT_JSON@*/";
  const auto three_at = page.find(three_mark), data_at = page.find(json_mark);
  if (three_at == std::string::npos || data_at == std::string::npos) return page;
  if (data_at > three_at) {
    page.replace(data_at, json_mark.size(), json);
    page.replace(three_at, three_mark.size(), foothold_report_three_js);
  } else {
    page.replace(three_at, three_mark.size(), foothold_report_three_js);
    page.replace(data_at, json_mark.size(), json);
  }
  return page;
}

}  // namespace foothold::replay
