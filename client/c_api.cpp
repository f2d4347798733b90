// The C API (include/foothold/client.h) over UdpClient. Every entry point catches every exception: a
// C caller cannot unwind through C++ frames. Per-frame calls touch only memory sized at create and
// connect, so they allocate nothing.

#include "foothold/client.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string_view>
#include <cstring>
#include <ctime>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "proto/token.h"
#include "client/impairment.h"
#include "client/input_latch.h"
#include "client/udp_client.h"
#include "shared/fixed_point.h"
#include "shared/formats/settings_file.h"
#include "shared/formats/world_file.h"
#include "shared/mover_frame.h"
#include "shared/settings.h"

namespace {

using foothold::client::ClientSession;
namespace proto = foothold::proto;

// The input a game set last, held for every tick until it sets another.
}  // namespace

struct foothold_client {
  std::unique_ptr<foothold::World> world;
  foothold::MoveSettings settings;
  foothold::client::SessionOptions options;
  bool have_server = false;
  foothold::proto::TokenAddress server;
  std::unique_ptr<foothold::client::UdpClient> udp;
  foothold::client::InputLatch input;  // every press kept until a tick has used it
  // The last failed call's message: mutable, since the getters that take a const client report too.
  mutable std::string error;
  std::string ended;   // why the session ended, once it has
  foothold::client::EndReason end = foothold::client::EndReason::kNone;  // and its code
  foothold::client::Impairment conditioner;  // the network conditioner (off: nothing set)
  uint64_t token_expires = 0;  // the current token's expiry, UNIX seconds
  bool clock_started = false;
  double last_now = 0;
  // The application's clock, as the session's nanoseconds: `origin` is the first update's time.
  double origin = 0;
  proto::Nanos now_ns = 0;
  foothold::MoverFrame movers;
  bool movers_built = false;
  uint64_t movers_version = 0;  // the session's mover_segments the frame was built with
  // The others as drawn this frame (grows with the most ever seen, never per frame).
  std::vector<foothold::client::DrawnRemote> drawn;
  // A message taken from the session that did not fit the caller's buffer: kept for the next call.
  foothold::proto::ReceivedMessage message;
  bool message_held = false;
};

namespace {

// The conditioner's five keys, in the order of Impairment's fields they set, each with its range.
struct ConditionerKey {
  const char* name;
  double max;         // values are in [0, max]
  const char* range;  // what the refusal says
};
constexpr std::array<ConditionerKey, 5> kConditioner = {{{"loss", 1, " must be a probability in [0, 1]"},
                                                         {"duplicate", 1, " must be a probability in [0, 1]"},
                                                         {"reorder", 1, " must be a probability in [0, 1]"},
                                                         {"latency_ms", 10000, " must be in [0, 10000] ms"},
                                                         {"jitter_ms", 10000, " must be in [0, 10000] ms"}}};
constexpr std::array<const char*, 5> kConditionerKeys = {kConditioner[0].name, kConditioner[1].name, kConditioner[2].name,
                                                         kConditioner[3].name, kConditioner[4].name};

// The conditioner's five values, in kConditioner's order, each in its key's range. A value out of
// range is named as `prefix` + its key.
bool conditioner_from(const std::array<double, 5>& values, std::string_view prefix, foothold::client::Impairment& out,
                      std::string& error) {
  for (std::size_t k = 0; k < values.size(); ++k) {
    if (!(values[k] >= 0 && values[k] <= kConditioner[k].max)) {
      error = std::string(prefix) + kConditioner[k].name + kConditioner[k].range;
      return false;
    }
  }
  out = {};
  out.loss = values[0];
  out.duplicate = values[1];
  out.reorder = values[2];
  out.latency = proto::Nanos(values[3] * 1e6);
  out.jitter = proto::Nanos(values[4] * 1e6);
  return true;
}

// "loss=0.05,latency_ms=50,...": each key at most once, the others 0.
bool parse_conditioner(std::string_view text, foothold::client::Impairment& out, std::string& error) {
  const auto& kKeys = kConditionerKeys;
  std::array<double, 5> values{};
  std::array<bool, 5> seen{};
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    if (item.empty()) continue;
    const std::size_t eq = item.find('=');
    const std::string_view key = item.substr(0, eq);
    std::size_t k = 0;
    while (k < kKeys.size() && key != kKeys[k]) ++k;
    if (eq == std::string_view::npos || k == kKeys.size()) {
      error = "'" + std::string(item) + "' is not KEY=VALUE with KEY one of loss, duplicate, reorder, latency_ms, jitter_ms";
      return false;
    }
    if (seen[k]) {
      error = std::string(kKeys[k]) + " is given twice";
      return false;
    }
    seen[k] = true;
    const std::string value(item.substr(eq + 1));
    char* end = nullptr;
    values[k] = std::strtod(value.c_str(), &end);
    if (value.empty() || end != value.c_str() + value.size() || !std::isfinite(values[k])) {
      error = std::string(kKeys[k]) + "='" + value + "' is not a number";
      return false;
    }
  }
  return conditioner_from(values, "", out, error);
}

// The config's values, each in its range: the first that is not, named, into `error`.
bool check_config(const foothold_client_config& config, std::string& error) {
  // A timeout must be a positive number of seconds a clock can count (at most a day).
  for (const auto& [name, value] : {std::pair{"connect_timeout_s", config.connect_timeout_s},
                                    std::pair{"server_timeout_s", config.server_timeout_s}}) {
    if (!(value > 0 && value <= 86400)) {
      error = std::string("config.") + name + " must be in (0, 86400] seconds";
      return false;
    }
  }
  const auto refuse = [&error](std::string why) {
    error = "config." + std::move(why);
    return false;
  };
  if (config.message_queue_bytes < 65536 || config.message_queue_bytes > 16777216)
    return refuse("message_queue_bytes must be in [65536, 16777216]");
  if (config.message_rate < 1024 || config.message_rate > 10000000)
    return refuse("message_rate must be in [1024, 10000000] bytes a second");
  if (config.message_copies < 1 || config.message_copies > foothold::proto::kMaxCopies)
    return refuse("message_copies must be in [1, " + std::to_string(foothold::proto::kMaxCopies) + "]");
  if (config.draw_extrapolate != 0 && config.draw_extrapolate != 1) return refuse("draw_extrapolate must be 0 or 1");
  if (!(config.draw_smoothing_s >= 0 && config.draw_smoothing_s <= 2))
    return refuse("draw_smoothing_s must be in [0, 2] seconds");
  if (!(config.draw_snap_m >= 0.01 && config.draw_snap_m <= 100)) return refuse("draw_snap_m must be in [0.01, 100] metres");
  if (!(config.draw_remote_extrapolate_s >= 0 && config.draw_remote_extrapolate_s <= 1))
    return refuse("draw_remote_extrapolate_s must be in [0, 1] seconds");
  return true;
}

// The network conditioner: from FOOTHOLD_CLIENT_CONDITIONER when set, else the config; `origin`
// says which (for the warning it prints).
bool conditioner_for(const foothold_client_config& config, foothold::client::Impairment& out, std::string& origin,
                     std::string& error) {
  if (const char* env = std::getenv("FOOTHOLD_CLIENT_CONDITIONER")) {
    origin = "FOOTHOLD_CLIENT_CONDITIONER";
    if (parse_conditioner(env, out, error)) return true;
    error = "FOOTHOLD_CLIENT_CONDITIONER: " + error;
    return false;
  }
  origin = "config.condition_*";
  if (conditioner_from({config.condition_loss, config.condition_duplicate, config.condition_reorder,
                        config.condition_latency_ms, config.condition_jitter_ms},
                       "condition_", out, error))
    return true;
  error = "config." + error;
  return false;
}

// Once the session has ended: why, for code and for people (kept until the next connect).
void note_end(foothold_client* client) {
  const ClientSession& session = client->udp->session();
  if (!session.finished() || !client->ended.empty()) return;
  client->end = session.end_reason();
  // Silence to a token that has run out by now: the server drops expired tokens unanswered.
  if (client->end == foothold::client::EndReason::kNoAnswer && client->token_expires <= uint64_t(std::time(nullptr)))
    client->end = foothold::client::EndReason::kTokenExpired;
  client->ended = std::string(foothold::client::to_string(session.phase())) + ": " + session.reason_text();
  if (client->end == foothold::client::EndReason::kTokenExpired) client->ended += " (the token has expired: mint a new one)";
}

foothold_client_result fail(const foothold_client* c, foothold_client_result r, std::string message) {
  if (c) c->error = std::move(message);
  return r;
}

// Runs `body` (which returns a result) with every exception turned into an error: out of memory,
// or anything else a bug could throw.
template <class F>
foothold_client_result guarded(const foothold_client* c, F&& body) {
  if (!c) return FOOTHOLD_CLIENT_ERROR_ARGUMENT;
  try {
    c->error.clear();
    return body();
  } catch (const std::bad_alloc&) {
    return fail(c, FOOTHOLD_CLIENT_ERROR_INTERNAL, "out of memory");
  } catch (const std::exception& e) {
    return fail(c, FOOTHOLD_CLIENT_ERROR_INTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    return fail(c, FOOTHOLD_CLIENT_ERROR_INTERNAL, "internal error");
  }
}

void write_error(char* error, size_t size, const std::string& message) {
  if (!error || size == 0) return;
  const size_t n = std::min(size - 1, message.size());
  std::memcpy(error, message.data(), n);
  error[n] = '\0';
}

bool connected(const foothold_client* c) {
  return c->udp && c->udp->session().phase() == ClientSession::Phase::kConnected;
}

void fill_character(foothold_client_character& out, uint32_t id, const foothold::Vec3& position,
                    const foothold::Vec3& velocity, foothold::GroundKind ground, bool crouched, uint32_t platform,
                    uint32_t tick, uint64_t client_id) {
  out.id = id;
  out.client_id = client_id;
  out.position[0] = position.x;
  out.position[1] = position.y;
  out.position[2] = position.z;
  out.velocity[0] = velocity.x;
  out.velocity[1] = velocity.y;
  out.velocity[2] = velocity.z;
  out.ground = int32_t(ground);
  out.crouched = crouched ? 1 : 0;
  out.platform = platform;
  out.tick = tick;
}

foothold_client_result copy_triangles(const foothold_client* c, size_t total, size_t first, size_t count, float* vertices,
                                      uint32_t* tags, const foothold::WorldTriangle& (*at)(const foothold_client*, size_t)) {
  if (count > 0 && !vertices) return fail(c, FOOTHOLD_CLIENT_ERROR_ARGUMENT, "vertices is null");
  if (first > total || count > total - first)
    return fail(c, FOOTHOLD_CLIENT_ERROR_ARGUMENT,
                "triangles [" + std::to_string(first) + ", " + std::to_string(first) + " + " + std::to_string(count) +
                    ") are outside the " + std::to_string(total) + " there are");
  for (size_t i = 0; i < count; ++i) {
    const foothold::WorldTriangle& t = at(c, first + i);
    const foothold::Vec3 corners[3] = {t.tri.a, t.tri.b, t.tri.c};
    for (int k = 0; k < 3; ++k) {
      vertices[i * 9 + size_t(k) * 3 + 0] = float(corners[k].x);
      vertices[i * 9 + size_t(k) * 3 + 1] = float(corners[k].y);
      vertices[i * 9 + size_t(k) * 3 + 2] = float(corners[k].z);
    }
    if (tags) tags[i] = uint32_t(t.tag);
  }
  return FOOTHOLD_CLIENT_OK;
}

}  // namespace

extern "C" {

// The project's version (CMakeLists.txt), given by the build: one source for every version.
const char* foothold_client_version(void) { return FOOTHOLD_PROJECT_VERSION; }

void foothold_client_config_init(foothold_client_config* config) {
  if (!config) return;
  *config = foothold_client_config{};
  config->struct_size = sizeof(foothold_client_config);
  config->world = "arena";
  config->settings_file = nullptr;
  config->server = nullptr;
  config->connect_timeout_s = 5;
  config->server_timeout_s = 10;
  config->message_queue_bytes = uint32_t(foothold::proto::MessageConfig{}.limits.queue_bytes);
  config->message_rate = foothold::proto::MessageConfig{}.rate;
  config->message_copies = foothold::proto::MessageConfig{}.limits.copies;
  config->draw_extrapolate = 0;
  config->draw_smoothing_s = foothold::client::DrawOptions{}.smoothing_s;
  config->draw_snap_m = foothold::client::DrawOptions{}.snap_m;
  config->draw_remote_extrapolate_s = foothold::client::DrawOptions{}.remote_extrapolate_s;
}

foothold_client_result foothold_client_create(const foothold_client_config* config, foothold_client** out, char* error,
                                              size_t error_size) {
  if (out) *out = nullptr;
  if (!out || !config) {
    write_error(error, error_size, !out ? "out is null" : "config is null");
    return FOOTHOLD_CLIENT_ERROR_ARGUMENT;
  }
  try {
    if (config->struct_size != sizeof(foothold_client_config)) {
      write_error(error, error_size, "config.struct_size is not sizeof(foothold_client_config): call foothold_client_config_init first");
      return FOOTHOLD_CLIENT_ERROR_ARGUMENT;
    }
    std::string bad;
    if (!check_config(*config, bad)) {
      write_error(error, error_size, bad);
      return FOOTHOLD_CLIENT_ERROR_ARGUMENT;
    }
    foothold::client::Impairment conditioner;
    std::string origin;
    if (!conditioner_for(*config, conditioner, origin, bad)) {
      write_error(error, error_size, bad);
      return FOOTHOLD_CLIENT_ERROR_ARGUMENT;
    }
    auto c = std::make_unique<foothold_client>();
    c->conditioner = conditioner;
    if (conditioner.active()) {
      // Loudly: a conditioner left on by mistake looks exactly like a bad network.
      std::fprintf(stderr,
                   "foothold-client: NETWORK CONDITIONER ON (from %s): loss %.1f%%, duplicate %.1f%%, reorder %.1f%%, "
                   "latency %.0f ms +- %.0f ms each way; for testing only\n",
                   origin.c_str(), conditioner.loss * 100, conditioner.duplicate * 100, conditioner.reorder * 100,
                   double(conditioner.latency) / 1e6, double(conditioner.jitter) / 1e6);
    }
    c->options.draw.extrapolate = config->draw_extrapolate == 1;
    c->options.draw.remote_extrapolate_s = config->draw_remote_extrapolate_s;
    c->options.draw.smoothing_s = config->draw_smoothing_s;
    c->options.draw.snap_m = config->draw_snap_m;
    c->options.messages.limits.copies = uint8_t(config->message_copies);
    c->options.messages.limits.queue_bytes = config->message_queue_bytes;
    c->options.messages.rate = config->message_rate;
    c->options.connect_timeout = proto::Nanos(config->connect_timeout_s * 1e9);
    c->options.server_timeout = proto::Nanos(config->server_timeout_s * 1e9);
    if (config->settings_file) {
      const auto loaded = foothold::load_settings_file(config->settings_file);
      if (!loaded.ok()) {
        std::string message;
        for (const auto& e : loaded.errors) message += (message.empty() ? "" : "; ") + e;
        write_error(error, error_size, message);
        return FOOTHOLD_CLIENT_ERROR_SETTINGS;
      }
      c->settings = loaded.settings;
    }
    auto loaded = foothold::load_world(config->world ? config->world : "arena");
    if (!loaded.world) {
      write_error(error, error_size, loaded.error);
      return FOOTHOLD_CLIENT_ERROR_WORLD;
    }
    c->world = std::move(loaded.world);
    if (config->server) {
      std::string err;
      if (!foothold::client::parse_address(config->server, c->server, err)) {
        write_error(error, error_size, "config.server: " + err);
        return FOOTHOLD_CLIENT_ERROR_NETWORK;
      }
      c->have_server = true;
    }
    // Sized now, so that drawing movers every frame allocates nothing.
    c->movers.build(*c->world, 0, c->settings.tick_rate);
    c->movers_built = true;
    *out = c.release();
    return FOOTHOLD_CLIENT_OK;
  } catch (const std::bad_alloc&) {
    write_error(error, error_size, "out of memory");
  } catch (const std::exception& e) {
    write_error(error, error_size, std::string("internal error: ") + e.what());
  } catch (...) {
    write_error(error, error_size, "internal error");
  }
  return FOOTHOLD_CLIENT_ERROR_INTERNAL;
}

void foothold_client_destroy(foothold_client* client) {
  if (!client) return;
  try {
    foothold_client_disconnect(client);
  } catch (...) {
  }
  delete client;
}

const char* foothold_client_last_error(const foothold_client* client) {
  if (!client) return "null client";
  // A failed call's own message first; otherwise, once the session has ended, why it ended.
  return client->error.empty() ? client->ended.c_str() : client->error.c_str();
}

int32_t foothold_client_end_reason(const foothold_client* client) { return client ? int32_t(client->end) : 0; }

const char* foothold_client_end_name(int32_t reason) {
  if (reason < 0 || reason >= foothold::client::kEndReasons) return "unknown";
  // The names are string literals: their data() is NUL-terminated.
  return foothold::client::to_string(foothold::client::EndReason(reason)).data();
}

foothold_client_result foothold_client_connect(foothold_client* client, const uint8_t* token, size_t token_size) {
  return guarded(client, [&] {
    // A session that ended (rejected, timed out, disconnected) leaves the handle free for another.
    if (client->udp && !client->udp->session().finished())
      return fail(client, FOOTHOLD_CLIENT_ERROR_STATE, "already connecting or connected: disconnect first");
    if (!token) return fail(client, FOOTHOLD_CLIENT_ERROR_ARGUMENT, "token is null");
    foothold::proto::ConnectToken parsed;
    std::string err;
    if (!foothold::proto::parse_token(std::span<const uint8_t>(token, token_size), parsed, err))
      return fail(client, FOOTHOLD_CLIENT_ERROR_TOKEN, "token: " + err);
    const uint64_t now_unix = uint64_t(std::time(nullptr));
    if (parsed.expires_unix <= now_unix)
      return fail(client, FOOTHOLD_CLIENT_ERROR_TOKEN,
                  "token: expired " + std::to_string(now_unix - parsed.expires_unix) + " s ago (mint a new one)");
    // A server honours a not-before time up to its clock skew (30 s by default) early: beyond that,
    // by this machine's clock, it would stay silent, so say why now rather than time out later.
    constexpr uint64_t kServerClockSkew = 30;
    if (parsed.not_before_unix > now_unix + kServerClockSkew)
      return fail(client, FOOTHOLD_CLIENT_ERROR_TOKEN,
                  "token: not valid for another " + std::to_string(parsed.not_before_unix - now_unix) +
                      " s (it was minted with a not-before time; connect then)");
    const foothold::proto::TokenAddress server = client->have_server ? client->server : parsed.servers.items[0];
    auto udp = std::make_unique<foothold::client::UdpClient>(*client->world, client->settings, parsed, server, client->options);
    if (!udp->ok()) return fail(client, FOOTHOLD_CLIENT_ERROR_NETWORK, udp->error());
    client->udp = std::move(udp);
    client->udp->set_conditioner(client->conditioner, parsed.client_id ^ 0x636f6e646974696full);
    client->input.reset();
    client->ended.clear();
    client->end = foothold::client::EndReason::kNone;
    client->token_expires = parsed.expires_unix;
    client->message_held = false;
    return FOOTHOLD_CLIENT_OK;
  });
}

foothold_client_result foothold_client_connect_token_file(foothold_client* client, const char* path) {
  return guarded(client, [&] {
    if (!path) return fail(client, FOOTHOLD_CLIENT_ERROR_ARGUMENT, "path is null");
    foothold::proto::ConnectToken parsed;
    std::string err;
    if (!foothold::proto::read_token_file(path, parsed, err)) return fail(client, FOOTHOLD_CLIENT_ERROR_TOKEN, err);
    const auto bytes = foothold::proto::serialize_token(parsed);
    return foothold_client_connect(client, bytes.data(), bytes.size());
  });
}

foothold_client_result foothold_client_update(foothold_client* client, double now_seconds) {
  return guarded(client, [&] {
    if (!std::isfinite(now_seconds)) return fail(client, FOOTHOLD_CLIENT_ERROR_ARGUMENT, "now_seconds is not finite");
    if (client->clock_started && now_seconds < client->last_now)
      return fail(client, FOOTHOLD_CLIENT_ERROR_ARGUMENT, "now_seconds went backwards");
    if (!client->clock_started) {
      client->clock_started = true;
      client->origin = now_seconds;
    }
    client->last_now = now_seconds;
    // Nanoseconds from the first update; a day of play is 8.6e13, far inside int64.
    client->now_ns = proto::Nanos((now_seconds - client->origin) * 1e9);
    if (!client->udp) return fail(client, FOOTHOLD_CLIENT_ERROR_STATE, "not connected: call foothold_client_connect first");
    client->udp->poll(client->now_ns, client->input);
    note_end(client);
    return FOOTHOLD_CLIENT_OK;
  });
}

foothold_client_result foothold_client_set_input(foothold_client* client, double move_x, double move_z, uint32_t buttons) {
  return guarded(client, [&] {
    if (!std::isfinite(move_x) || !std::isfinite(move_z))
      return fail(client, FOOTHOLD_CLIENT_ERROR_ARGUMENT, "move_x and move_z must be finite");
    if (!client->udp) return fail(client, FOOTHOLD_CLIENT_ERROR_STATE, "not connected: call foothold_client_connect first");
    client->input.set(move_x, move_z, uint8_t(buttons & foothold::kKnownButtons));
    return FOOTHOLD_CLIENT_OK;
  });
}

foothold_client_status foothold_client_get_status(const foothold_client* client) {
  if (!client || !client->udp) return FOOTHOLD_CLIENT_IDLE;
  switch (client->udp->session().phase()) {
    case ClientSession::Phase::kIdle:
    case ClientSession::Phase::kRequesting:
    case ClientSession::Phase::kConnecting: return FOOTHOLD_CLIENT_CONNECTING;
    case ClientSession::Phase::kConnected: return FOOTHOLD_CLIENT_CONNECTED;
    case ClientSession::Phase::kRejected: return FOOTHOLD_CLIENT_REJECTED;
    case ClientSession::Phase::kFailed: return FOOTHOLD_CLIENT_FAILED;
    case ClientSession::Phase::kTimedOut: return FOOTHOLD_CLIENT_TIMED_OUT;
    case ClientSession::Phase::kDisconnected: return FOOTHOLD_CLIENT_DISCONNECTED;
  }
  return FOOTHOLD_CLIENT_IDLE;
}

foothold_client_result foothold_client_local_character(foothold_client* client, foothold_client_character* out) {
  return guarded(client, [&] {
    if (!out) return fail(client, FOOTHOLD_CLIENT_ERROR_ARGUMENT, "out is null");
    if (!connected(client)) return fail(client, FOOTHOLD_CLIENT_ERROR_STATE, "not connected");
    const ClientSession& s = client->udp->session();
    const foothold::CharacterState& st = s.predictor().latest_state();
    fill_character(*out, s.character_id(), foothold::to_position(st.position), foothold::to_velocity(st.velocity),
                   st.ground, st.crouched, st.platform, s.predictor().latest_tick(), s.client_id());
    return FOOTHOLD_CLIENT_OK;
  });
}

foothold_client_result foothold_client_remote_characters(foothold_client* client, foothold_client_character* out,
                                                         size_t capacity, size_t* count) {
  return guarded(client, [&] {
    if (!count) return fail(client, FOOTHOLD_CLIENT_ERROR_ARGUMENT, "count is null");
    *count = 0;
    if (capacity > 0 && !out) return fail(client, FOOTHOLD_CLIENT_ERROR_ARGUMENT, "out is null with a capacity");
    if (!connected(client)) return fail(client, FOOTHOLD_CLIENT_ERROR_STATE, "not connected");
    const ClientSession& s = client->udp->session();
    // Render time: a little behind the newest snapshot, advancing with the clock between snapshots
    // (the session's view tick, which a shot carries to the server).
    const double render = s.view_tick(client->now_ns);
    size_t n = 0;  // characters seen; the first `capacity` of them written
    for (const foothold::OtherCharacter& o : s.others()) {
      if (n >= capacity) {
        n += s.remotes().sample(o.id, render).has_value();
        continue;
      }
      const auto now = s.remotes().sample(o.id, render);
      if (!now) continue;
      const auto before = s.remotes().sample(o.id, render - 1);
      const foothold::Vec3 velocity = before ? (now->position - before->position) * double(client->settings.tick_rate)
                                             : foothold::Vec3{};
      fill_character(out[n], o.id, now->position, velocity, now->ground, o.crouched, o.platform, s.stats().server_tick,
                     s.client_id_of(o.id));
      ++n;
    }
    *count = n;
    return FOOTHOLD_CLIENT_OK;
  });
}

foothold_client_result foothold_client_get_stats(const foothold_client* client, foothold_client_stats* out) {
  return guarded(client, [&] {
    if (!out) return fail(client, FOOTHOLD_CLIENT_ERROR_ARGUMENT, "out is null");
    *out = foothold_client_stats{};
    out->struct_size = sizeof(foothold_client_stats);
    out->rtt_ms = -1;
    out->rtt_ms_smoothed = -1;
    out->connect_ms = -1;
    if (!client->udp) return FOOTHOLD_CLIENT_OK;
    const ClientSession& s = client->udp->session();
    const auto& st = s.stats();
    const auto& p = s.predictor().counters();
    out->rtt_ms = st.rtt_ms;
    out->rtt_ms_smoothed = st.rtt_smoothed_ms;
    out->connect_ms = st.connect_ms;
    out->ticks = p.predicted;
    out->snapshots = st.snapshots;
    out->corrections = p.corrections;
    out->corrections_interaction = p.interactions;
    out->corrections_unexplained = p.unexplained;
    out->corrections_server = p.server;
    out->corrections_input = p.corrections - p.interactions - p.unexplained - p.server;
    out->packets_in = st.packets_in;
    out->packets_out = st.packets_out;
    out->bytes_in = st.bytes_in;
    out->bytes_out = st.bytes_out;
    out->input_lead_ticks = st.input_lead;
    out->server_tick = st.server_tick;
    out->remote_count = uint32_t(s.others().size());
    const foothold::proto::MessageStats m = s.messages().stats();
    out->messages_sent = m.sent;
    out->messages_received = m.received;
    out->message_bytes_out = m.bytes_out;
    out->message_bytes_in = m.bytes_in;
    out->message_retransmissions = m.retransmissions;
    out->message_rtt_ms = s.messages().rtt().samples() ? double(s.messages().rtt().smoothed()) / 1e6 : -1;
    return FOOTHOLD_CLIENT_OK;
  });
}

size_t foothold_client_world_triangle_count(const foothold_client* client) {
  return client ? client->world->triangle_count() : 0;
}

foothold_client_result foothold_client_world_triangles(const foothold_client* client, size_t first, size_t count,
                                                       float* vertices, uint32_t* tags) {
  return guarded(client, [&] {
    return copy_triangles(client, client->world->triangle_count(), first, count, vertices, tags,
                          [](const foothold_client* k, size_t i) -> const foothold::WorldTriangle& {
                            return k->world->triangle(uint32_t(i));
                          });
  });
}

size_t foothold_client_mover_triangle_count(const foothold_client* client) {
  return client ? client->movers.triangle_count() : 0;
}

foothold_client_result foothold_client_mover_triangles(foothold_client* client, size_t first, size_t count,
                                                       float* vertices, uint32_t* tags) {
  return guarded(client, [&] {
    const bool live = connected(client);
    const uint32_t tick = live ? client->udp->session().predictor().latest_tick() : 0;
    // Built again for a new tick, or when a snapshot brought a mover's new clock.
    const uint64_t version = live ? client->udp->session().stats().mover_segments : 0;
    if (client->movers.tick() != tick || client->movers_version != version) {
      client->movers.build(*client->world, tick, client->settings.tick_rate,
                           live ? &client->udp->session().mover_clocks() : nullptr);
      client->movers_version = version;
    }
    return copy_triangles(client, client->movers.triangle_count(), first, count, vertices, tags,
                          [](const foothold_client* k, size_t i) -> const foothold::WorldTriangle& {
                            return k->movers.triangle(i);
                          });
  });
}

foothold_client_result foothold_client_capsule(const foothold_client* client, double* radius, double* height,
                                               double* crouch_height) {
  return guarded(client, [&] {
    if (radius) *radius = client->settings.radius;
    if (height) *height = client->settings.height;
    if (crouch_height) *crouch_height = client->settings.crouch_height;
    return FOOTHOLD_CLIENT_OK;
  });
}

foothold_client_result foothold_client_send_message(foothold_client* client, int32_t channel, const void* bytes,
                                                    size_t size) {
  return guarded(client, [&] {
    if (channel != FOOTHOLD_CLIENT_RELIABLE && channel != FOOTHOLD_CLIENT_UNRELIABLE)
      return fail(client, FOOTHOLD_CLIENT_ERROR_ARGUMENT, "channel " + std::to_string(channel) + " is neither RELIABLE (0) nor UNRELIABLE (1)");
    if (size > 0 && !bytes) return fail(client, FOOTHOLD_CLIENT_ERROR_ARGUMENT, "bytes is null with a size");
    if (!connected(client)) return fail(client, FOOTHOLD_CLIENT_ERROR_STATE, "not connected");
    const auto ch = channel == FOOTHOLD_CLIENT_RELIABLE ? foothold::proto::Channel::kReliable : foothold::proto::Channel::kUnreliable;
    using foothold::proto::SendError;
    switch (client->udp->session().send_message(ch, {static_cast<const uint8_t*>(bytes), size})) {
      case SendError::kNone: return FOOTHOLD_CLIENT_OK;
      case SendError::kEmpty: return fail(client, FOOTHOLD_CLIENT_ERROR_ARGUMENT, "the message is empty: it needs a byte at least");
      case SendError::kTooLarge:
        return fail(client, FOOTHOLD_CLIENT_ERROR_ARGUMENT,
                    "the message is " + std::to_string(size) + " bytes: at most " +
                        std::to_string(ch == foothold::proto::Channel::kReliable ? foothold::proto::MessageLimits{}.max_message
                                                                                 : foothold::proto::kMaxUnreliableMessage) +
                        " on this channel");
      case SendError::kQueueFull:
        return fail(client, FOOTHOLD_CLIENT_ERROR_QUEUE_FULL, "the message queue is full: send it again after an update");
      case SendError::kNotConnected: return fail(client, FOOTHOLD_CLIENT_ERROR_STATE, "not connected");
    }
    return fail(client, FOOTHOLD_CLIENT_ERROR_INTERNAL, "an unknown send error");
  });
}

foothold_client_result foothold_client_receive_message(foothold_client* client, void* buffer, size_t capacity, size_t* size,
                                                       int32_t* channel) {
  return guarded(client, [&] {
    if (!size) return fail(client, FOOTHOLD_CLIENT_ERROR_ARGUMENT, "size is null");
    *size = 0;
    if (capacity > 0 && !buffer) return fail(client, FOOTHOLD_CLIENT_ERROR_ARGUMENT, "buffer is null with a capacity");
    if (!client->udp) return fail(client, FOOTHOLD_CLIENT_ERROR_STATE, "not connected");
    // Messages that arrived before the session ended can still be read.
    if (!client->message_held && !client->udp->session().receive_message(client->message)) return FOOTHOLD_CLIENT_OK;
    client->message_held = true;
    const std::vector<uint8_t>& m = client->message.bytes;
    *size = m.size();
    if (m.size() > capacity)
      return fail(client, FOOTHOLD_CLIENT_ERROR_ARGUMENT,
                  "the message is " + std::to_string(m.size()) + " bytes, the buffer " + std::to_string(capacity) +
                      ": it is kept for a call with room");
    std::memcpy(buffer, m.data(), m.size());
    if (channel) *channel = client->message.channel == foothold::proto::Channel::kReliable ? FOOTHOLD_CLIENT_RELIABLE : FOOTHOLD_CLIENT_UNRELIABLE;
    client->message_held = false;
    return FOOTHOLD_CLIENT_OK;
  });
}

foothold_client_result foothold_client_draw_local(foothold_client* client, foothold_client_character* out, double error[3]) {
  return guarded(client, [&] {
    if (!out) return fail(client, FOOTHOLD_CLIENT_ERROR_ARGUMENT, "out is null");
    if (!connected(client)) return fail(client, FOOTHOLD_CLIENT_ERROR_STATE, "not connected");
    ClientSession& s = client->udp->session();
    const auto d = s.draw_local(client->now_ns);
    if (!d) return fail(client, FOOTHOLD_CLIENT_ERROR_STATE, "no tick predicted yet");
    const foothold::CharacterState& st = s.predictor().latest_state();
    fill_character(*out, s.character_id(), d->position, d->velocity, st.ground, d->crouched, d->platform,
                   uint32_t(d->tick), s.client_id());
    if (error) {
      error[0] = d->error.x;
      error[1] = d->error.y;
      error[2] = d->error.z;
    }
    return FOOTHOLD_CLIENT_OK;
  });
}

foothold_client_result foothold_client_draw_remotes(foothold_client* client, foothold_client_character* out,
                                                   size_t capacity, size_t* count) {
  return guarded(client, [&] {
    if (!count) return fail(client, FOOTHOLD_CLIENT_ERROR_ARGUMENT, "count is null");
    *count = 0;
    if (capacity > 0 && !out) return fail(client, FOOTHOLD_CLIENT_ERROR_ARGUMENT, "out is null with a capacity");
    if (!connected(client)) return fail(client, FOOTHOLD_CLIENT_ERROR_STATE, "not connected");
    ClientSession& s = client->udp->session();
    if (client->drawn.size() < s.others().size()) client->drawn.resize(s.others().size());
    const size_t n = s.draw_remotes(client->now_ns, client->drawn);
    const uint32_t tick = uint32_t(std::max(0.0, s.view_tick(client->now_ns)));
    for (size_t i = 0; i < n && i < capacity && i < client->drawn.size(); ++i) {
      const auto& d = client->drawn[i];
      fill_character(out[i], d.id, d.position, d.velocity, d.ground, d.crouched, d.platform, tick, s.client_id_of(d.id));
    }
    *count = n;
    return FOOTHOLD_CLIENT_OK;
  });
}

foothold_client_result foothold_client_poll_event(foothold_client* client, foothold_client_event* out) {
  return guarded(client, [&] {
    if (!out) return fail(client, FOOTHOLD_CLIENT_ERROR_ARGUMENT, "out is null");
    *out = foothold_client_event{};
    if (!client->udp) return fail(client, FOOTHOLD_CLIENT_ERROR_STATE, "never connected");
    foothold::client::ViewEvent e;
    if (!client->udp->session().take_view_event(e)) return FOOTHOLD_CLIENT_OK;
    out->kind = int32_t(e.kind);
    out->character_id = e.character_id;
    out->client_id = e.client_id;
    out->tick = e.tick;
    out->npc = e.npc ? 1 : 0;
    return FOOTHOLD_CLIENT_OK;
  });
}

foothold_client_result foothold_client_view_tick(const foothold_client* client, double* tick) {
  return guarded(client, [&] {
    if (!tick) return fail(client, FOOTHOLD_CLIENT_ERROR_ARGUMENT, "tick is null");
    *tick = 0;
    if (!connected(client)) return fail(client, FOOTHOLD_CLIENT_ERROR_STATE, "not connected");
    *tick = client->udp->session().view_tick(client->now_ns);
    return FOOTHOLD_CLIENT_OK;
  });
}

foothold_client_result foothold_client_attribute(const foothold_client* client, int32_t scope, int32_t index,
                                                 int32_t* value) {
  return guarded(client, [&] {
    const foothold_client* c = client;
    if (!value) return fail(c, FOOTHOLD_CLIENT_ERROR_ARGUMENT, "value is null");
    *value = 0;
    if (scope != FOOTHOLD_CLIENT_ATTRIBUTE_CHARACTER && scope != FOOTHOLD_CLIENT_ATTRIBUTE_MATCH)
      return fail(c, FOOTHOLD_CLIENT_ERROR_ARGUMENT, "scope " + std::to_string(scope) + " is neither CHARACTER (0) nor MATCH (1)");
    if (index < 0 || index >= 16)
      return fail(c, FOOTHOLD_CLIENT_ERROR_ARGUMENT, "attribute index " + std::to_string(index) + " is not in 0..15");
    if (!client->udp) return fail(c, FOOTHOLD_CLIENT_ERROR_STATE, "not connected");
    const ClientSession& s = client->udp->session();
    *value = scope == FOOTHOLD_CLIENT_ATTRIBUTE_CHARACTER ? s.attribute(index) : s.match_attribute(index);
    return FOOTHOLD_CLIENT_OK;
  });
}

foothold_client_result foothold_client_character_attribute(const foothold_client* client, uint32_t character,
                                                           int32_t index, int32_t* value) {
  return guarded(client, [&] {
    const foothold_client* c = client;
    if (!value) return fail(c, FOOTHOLD_CLIENT_ERROR_ARGUMENT, "value is null");
    *value = 0;
    if (index < 0 || index >= 16)
      return fail(c, FOOTHOLD_CLIENT_ERROR_ARGUMENT, "attribute index " + std::to_string(index) + " is not in 0..15");
    if (!client->udp) return fail(c, FOOTHOLD_CLIENT_ERROR_STATE, "not connected");
    *value = client->udp->session().attribute_of(character, index);
    return FOOTHOLD_CLIENT_OK;
  });
}

int32_t foothold_client_attribute_index(const foothold_client* client, int32_t scope, const char* name) {
  if (!client || !name || !client->udp) return -1;
  const ClientSession& s = client->udp->session();
  if (scope == FOOTHOLD_CLIENT_ATTRIBUTE_CHARACTER) return s.attribute_index(name);
  if (scope == FOOTHOLD_CLIENT_ATTRIBUTE_MATCH) return s.match_attribute_index(name);
  return -1;
}

const char* foothold_client_attribute_name(const foothold_client* client, int32_t scope, int32_t index) {
  if (!client || !client->udp || index < 0) return nullptr;
  const ClientSession& s = client->udp->session();
  const auto names = scope == FOOTHOLD_CLIENT_ATTRIBUTE_CHARACTER ? s.attribute_names()
                     : scope == FOOTHOLD_CLIENT_ATTRIBUTE_MATCH   ? s.match_attribute_names()
                                                                  : std::span<const std::string>();
  return std::size_t(index) < names.size() ? names[std::size_t(index)].c_str() : nullptr;
}

foothold_client_result foothold_client_disconnect(foothold_client* client) {
  return guarded(client, [&] {
    if (client->udp) {
      client->udp->session().disconnect();
      note_end(client);
    }
    return FOOTHOLD_CLIENT_OK;
  });
}

}  // extern "C"
