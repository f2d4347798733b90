#include "fleet/agones_sdk.h"

#include <charconv>
#include <cstdlib>

#include <httplib.h>

namespace foothold::fleet {

namespace {

std::string describe(const httplib::Result& r) {
  if (!r) return httplib::to_string(r.error());
  std::string body = r->body;
  while (!body.empty() && (body.back() == '\n' || body.back() == '\r')) body.pop_back();
  if (body.size() > 200) body = body.substr(0, 200) + "...";
  return "HTTP " + std::to_string(r->status) + (body.empty() ? "" : ": " + body);
}

void configure(httplib::Client& client, std::chrono::milliseconds timeout) {
  client.set_connection_timeout(timeout);
  client.set_read_timeout(timeout);
  client.set_write_timeout(timeout);
  client.set_keep_alive(false);
}

}  // namespace

AgonesSdk::AgonesSdk(std::string host, int port, std::chrono::milliseconds timeout)
    : host_(std::move(host)), port_(port), timeout_(timeout) {}

AgonesSdk::~AgonesSdk() = default;

std::string AgonesSdk::where() const {
  return (host_.find(':') != std::string::npos ? "[" + host_ + "]" : host_) + ":" + std::to_string(port_);
}

SdkResult AgonesSdk::call(const char* method, const std::string& path, const std::string& body, std::string* response) {
  httplib::Client client(host_, port_);
  configure(client, timeout_);
  const std::string m = method;
  httplib::Result r = m == "GET"     ? client.Get(path)
                      : m == "PATCH" ? client.Patch(path, body, "application/json")
                      : m == "PUT"   ? client.Put(path, body, "application/json")
                                     : client.Post(path, body, "application/json");
  if (!r || r->status != 200) return {false, m + " " + path + ": " + describe(r)};
  if (response) *response = r->body;
  return {true, {}};
}

SdkResult AgonesSdk::post(const char* path, const std::string& body, std::string* response) {
  return call("POST", path, body, response);
}

SdkResult AgonesSdk::ready() { return post("/ready", "{}"); }
SdkResult AgonesSdk::health() { return post("/health", "{}"); }
SdkResult AgonesSdk::shutdown() { return post("/shutdown", "{}"); }
SdkResult AgonesSdk::allocate() { return post("/allocate", "{}"); }

SdkResult AgonesSdk::game_server(GameServerInfo& out) {
  std::string body;
  SdkResult r = call("GET", "/gameserver", {}, &body);
  if (!r.ok) return r;
  std::string error;
  if (!parse_game_server(body, out, error)) return {false, "GET /gameserver: " + error};
  return r;
}

SdkResult AgonesSdk::set_counter_count(const std::string& name, int64_t count) {
  // int64 as a string: the gateway's JSON form of a protobuf int64.
  return call("PATCH", "/v1beta1/counters/" + name, "{\"count\":\"" + std::to_string(count) + "\"}", nullptr);
}

SdkResult AgonesSdk::set_counter_capacity(const std::string& name, int64_t capacity) {
  return call("PATCH", "/v1beta1/counters/" + name, "{\"capacity\":\"" + std::to_string(capacity) + "\"}", nullptr);
}

SdkResult AgonesSdk::watch(const std::function<void(const GameServerInfo&)>& on_update) {
  httplib::Client client(host_, port_);
  configure(client, timeout_);
  // A watch is quiet until something changes: no read timeout to speak of; stop_watch() ends it.
  client.set_read_timeout(std::chrono::hours(24 * 365));
  {
    std::lock_guard lock(watch_mutex_);
    if (watch_stopped_) return {true, {}};
    watching_ = &client;
  }
  std::string line;
  std::string parse_error;
  httplib::Result r = client.Get("/watch/gameserver", [&](const char* data, std::size_t size) {
    for (std::size_t i = 0; i < size; ++i) {
      if (data[i] != '\n') {
        if (line.size() < (1u << 20)) line.push_back(data[i]);  // a record is a few hundred bytes
        continue;
      }
      GameServerInfo gs;
      if (parse_game_server(line, gs, parse_error)) on_update(gs);
      line.clear();
    }
    return !watch_stopped_.load();
  });
  {
    std::lock_guard lock(watch_mutex_);
    watching_ = nullptr;
  }
  if (watch_stopped_) return {true, {}};
  if (!r) return {false, "GET /watch/gameserver: " + describe(r)};
  if (r->status != 200) return {false, "GET /watch/gameserver: " + describe(r)};
  return {false, "GET /watch/gameserver: the stream ended"};
}

void AgonesSdk::stop_watch() {
  std::lock_guard lock(watch_mutex_);
  watch_stopped_ = true;
  if (watching_) watching_->stop();
}

std::optional<int> sdk_port_from_environment(std::string& error) {
  error.clear();
  const char* v = std::getenv("AGONES_SDK_HTTP_PORT");
  if (!v || !*v) return std::nullopt;
  const std::string s = v;
  int port = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), port);
  if (ec != std::errc() || end != s.data() + s.size() || port < 1 || port > 65535) {
    error = "AGONES_SDK_HTTP_PORT = '" + s + "' is not a port (1 to 65535)";
    return std::nullopt;
  }
  return port;
}

}  // namespace foothold::fleet
