#include "shared/formats/trace.h"

#include <charconv>

namespace foothold {

std::string format_trace_row(const TraceRow& row) {
  const auto& p = row.state.position;
  const auto& v = row.state.velocity;
  std::string s;
  s.reserve(100);
  s += std::to_string(row.tick);
  s += ',';
  s += std::to_string(row.id);
  for (int32_t c : {p.x, p.y, p.z}) {
    s += ',';
    s += format_fixed(c, kPositionFracBits);
  }
  for (int32_t c : {v.x, v.y, v.z}) {
    s += ',';
    s += format_fixed(c, kVelocityFracBits);
  }
  s += is_grounded(row.state.ground) ? ",1," : ",0,";
  s += to_string(row.state.ground);
  const auto& n = row.state.floor_normal;
  for (int16_t c : {n.x, n.y, n.z}) {
    s += ',';
    s += format_fixed(c, kNormalFracBits);
  }
  s += ',';
  s += std::to_string(row.state.air_ticks);
  s += ',';
  s += std::to_string(row.state.jump_buffer);
  s += row.state.jump_held ? ",1" : ",0";
  s += row.state.crouched ? ",1," : ",0,";
  s += std::to_string(row.state.platform);
  const auto& o = row.state.platform_offset;
  for (int32_t c : {o.x, o.y, o.z}) {
    s += ',';
    s += format_fixed(c, kPositionFracBits);
  }
  s += row.state.frozen ? ",1," : ",0,";
  s += std::to_string(row.state.profile);
  for (int32_t c : {row.state.push.x, row.state.push.z}) {
    s += ',';
    s += format_fixed(c, kVelocityFracBits);
  }
  return s;
}

bool is_trace_header(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line.substr(0, kTraceHeader.size()) == kTraceHeader &&
         (line.size() == kTraceHeader.size() || line[kTraceHeader.size()] == ',');
}

namespace {

bool parse_u32(std::string_view t, uint32_t& out, const char* what, std::string& error) {
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
  if (ec != std::errc() || p != t.data() + t.size()) {
    error = std::string("bad ") + what + " '" + std::string(t) + "'";
    return false;
  }
  return true;
}

// Columns 17-21 (format 3 on): posture, platform and the offset on it.
bool parse_posture_columns(const std::string_view* cols, TraceRow& row, std::string& error) {
  uint32_t platform = 0;
  if (cols[16] != "0" && cols[16] != "1") {
    error = "bad crouched '" + std::string(cols[16]) + "'";
    return false;
  }
  if (!parse_u32(cols[17], platform, "platform", error) || platform > 65535) {
    if (error.empty()) error = "bad platform '" + std::string(cols[17]) + "'";
    return false;
  }
  int32_t* offset[3] = {&row.state.platform_offset.x, &row.state.platform_offset.y, &row.state.platform_offset.z};
  for (int i = 0; i < 3; ++i) {
    const auto v = parse_fixed(cols[18 + i], kPositionFracBits);
    if (!v) {
      error = "bad platform offset '" + std::string(cols[18 + i]) + "' (not an exact fixed-point value)";
      return false;
    }
    *offset[i] = *v;
  }
  row.state.crouched = cols[16] == "1";
  row.state.platform = uint16_t(platform);
  return true;
}

// Columns 22-23: what a game set (frozen, movement profile); absent from older traces.
bool parse_game_columns(const std::string_view* cols, TraceRow& row, std::string& error) {
  uint32_t profile = 0;
  if (cols[21] != "0" && cols[21] != "1") {
    error = "bad frozen '" + std::string(cols[21]) + "'";
    return false;
  }
  if (!parse_u32(cols[22], profile, "profile", error)) return false;
  if (profile > 255) {
    error = "bad profile '" + std::string(cols[22]) + "' (a byte)";
    return false;
  }
  row.state.frozen = cols[21] == "1";
  row.state.profile = uint8_t(profile);
  return true;
}

// Columns 24-25: a game's push (x and z); absent from older traces.
bool parse_push_columns(const std::string_view* cols, TraceRow& row, std::string& error) {
  for (int i = 0; i < 2; ++i) {
    const auto v = parse_fixed(cols[23 + i], kVelocityFracBits);
    if (!v) {
      error = "bad push '" + std::string(cols[23 + i]) + "' (not an exact fixed-point value)";
      return false;
    }
    (i == 0 ? row.state.push.x : row.state.push.z) = *v;
  }
  return true;
}

}  // namespace

std::optional<TraceRow> parse_trace_row(std::string_view line, std::string& error) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::string_view cols[kTraceColumns];
  size_t n = 0, pos = 0;
  while (n < kTraceColumns) {
    const size_t comma = line.find(',', pos);
    cols[n++] = line.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  if (n < 10) {
    error = "expected 10 columns, found " + std::to_string(n);
    return std::nullopt;
  }
  TraceRow row;
  if (!parse_u32(cols[0], row.tick, "tick", error) || !parse_u32(cols[1], row.id, "id", error)) return std::nullopt;
  int32_t* fields[6] = {&row.state.position.x, &row.state.position.y, &row.state.position.z,
                        &row.state.velocity.x, &row.state.velocity.y, &row.state.velocity.z};
  static constexpr const char* kNames[6] = {"x", "y", "z", "vx", "vy", "vz"};
  for (int i = 0; i < 6; ++i) {
    const auto v = parse_fixed(cols[2 + i], i < 3 ? kPositionFracBits : kVelocityFracBits);
    if (!v) {
      error = std::string("bad ") + kNames[i] + " '" + std::string(cols[2 + i]) + "' (not an exact fixed-point value)";
      return std::nullopt;
    }
    *fields[i] = *v;
  }
  const auto ground = parse_ground_kind(cols[9]);
  if (!ground) {
    error = "bad ground '" + std::string(cols[9]) + "'";
    return std::nullopt;
  }
  if (cols[8] != (is_grounded(*ground) ? "1" : "0")) {
    error = "grounded '" + std::string(cols[8]) + "' disagrees with ground '" + std::string(cols[9]) + "'";
    return std::nullopt;
  }
  row.state.ground = *ground;
  if (n >= 13) {
    int16_t* normal[3] = {&row.state.floor_normal.x, &row.state.floor_normal.y, &row.state.floor_normal.z};
    for (int i = 0; i < 3; ++i) {
      const auto v = parse_fixed(cols[10 + i], kNormalFracBits);
      if (!v || *v < -32768 || *v > 32767) {
        error = "bad floor normal '" + std::string(cols[10 + i]) + "'";
        return std::nullopt;
      }
      *normal[i] = int16_t(*v);
    }
  }
  if (n >= 16) {
    uint32_t air = 0, buffer = 0;
    if (!parse_u32(cols[13], air, "air", error) || air > 255 || !parse_u32(cols[14], buffer, "buffer", error) || buffer > 255) {
      if (error.empty()) error = "bad jump state '" + std::string(cols[13]) + "," + std::string(cols[14]) + "'";
      return std::nullopt;
    }
    if (cols[15] != "0" && cols[15] != "1") {
      error = "bad held '" + std::string(cols[15]) + "'";
      return std::nullopt;
    }
    row.state.air_ticks = uint8_t(air);
    row.state.jump_buffer = uint8_t(buffer);
    row.state.jump_held = cols[15] == "1";
  }
  if (n >= 21 && !parse_posture_columns(cols, row, error)) return std::nullopt;
  if (n >= 23 && !parse_game_columns(cols, row, error)) return std::nullopt;
  if (n >= 25 && !parse_push_columns(cols, row, error)) return std::nullopt;
  return row;
}

}  // namespace foothold
