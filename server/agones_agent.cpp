#include "server/agones_agent.h"

#include <algorithm>
#include <chrono>

#include "replay/recording.h"

namespace foothold::server {

namespace {

// Every call to the sidecar on localhost gives up after this: it answers in milliseconds.
constexpr auto kCallTimeout = std::chrono::milliseconds(1000);
// Retries start this soon and back off, doubling, to kMaxBackoff.
constexpr proto::Nanos kFirstBackoff = 250 * proto::kMillisecond;
constexpr proto::Nanos kMaxBackoff = 5 * proto::kSecond;
// How often the lifecycle thread looks at the players count and the idle clock.
constexpr proto::Nanos kLifecyclePeriod = 100 * proto::kMillisecond;
// The Counter the server keeps (docker/agones/gameserver.yaml declares it).
const std::string kPlayersCounter = "players";

double seconds(proto::Nanos d) { return double(d) / double(proto::kSecond); }

std::string listed(const fleet::Metadata& m) {
  std::string s;
  for (const auto& [k, v] : m) s += (s.empty() ? "" : ", ") + k + "=" + v;
  return s.empty() ? "none" : s;
}

// The port players reach: the one named "game" (our manifests' name), else the first.
int player_port(const fleet::GameServerInfo& gs) {
  for (const auto& p : gs.ports)
    if (p.name == "game") return p.port;
  return gs.ports.empty() ? 0 : gs.ports.front().port;
}

}  // namespace

Allocation game_allocation(const fleet::GameServerInfo& gs, std::string& dropped) {
  dropped.clear();
  auto keep = [&](const fleet::Metadata& from, const char* what) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [k, v] : from) {
      if (out.size() < replay::kMaxAllocationEntries && k.size() <= replay::kMaxAllocationText && v.size() <= replay::kMaxAllocationText)
        out.emplace_back(k, v);
      else
        dropped += std::string(dropped.empty() ? "" : ", ") + what + " " + k.substr(0, 64);
    }
    return out;
  };
  Allocation a;
  a.labels = keep(gs.labels, "label");
  a.annotations = keep(gs.annotations, "annotation");
  return a;
}

AgonesAgent::AgonesAgent(AgonesOptions options, std::shared_ptr<spdlog::logger> log, AgonesHooks hooks)
    : options_(std::move(options)), log_(std::move(log)), hooks_(std::move(hooks)), sdk_(options_.host, options_.port, kCallTimeout) {}

AgonesAgent::~AgonesAgent() { stop_threads(); }

void AgonesAgent::stop_threads() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  sdk_.stop_watch();
  for (std::thread* t : {&lifecycle_, &health_, &watch_})
    if (t->joinable()) t->join();
}

void AgonesAgent::start() {
  {
    std::lock_guard lock(mutex_);
    last_tick_ = proto::steady_now();  // the first tick is a period away: not a stall
  }
  log_->info("agones: SDK sidecar at {}; health every {:.1f} s; idle shutdown {}", sdk_.where(), seconds(options_.health_interval),
             options_.idle_shutdown > 0 ? fmt::format("after {:.0f} s", seconds(options_.idle_shutdown)) : std::string("off"));
  lifecycle_ = std::thread([this] { lifecycle_loop(); });
  health_ = std::thread([this] { health_loop(); });
  watch_ = std::thread([this] { watch_loop(); });
}

void AgonesAgent::publish(proto::Nanos now, std::size_t clients) {
  std::lock_guard lock(mutex_);
  last_tick_ = now;
  clients_ = clients;
  if (clients > 0) last_occupied_ = now;
}

std::string AgonesAgent::state() const {
  std::lock_guard lock(mutex_);
  return state_;
}

bool AgonesAgent::sleep_for(proto::Nanos d) {
  std::unique_lock lock(mutex_);
  wake_.wait_for(lock, std::chrono::nanoseconds(d), [this] { return stopping_; });
  return stopping_;
}

void AgonesAgent::lifecycle_loop() {
  const proto::Nanos started = proto::steady_now();
  // Ready, never before the world is loaded and the socket bound (the program starts us after both),
  // and only after the GameServer's record is read: its address is then known to the tokens.
  for (proto::Nanos backoff = kFirstBackoff;; backoff = std::min(2 * backoff, kMaxBackoff)) {
    fleet::GameServerInfo gs;
    fleet::SdkResult r = sdk_.game_server(gs);
    if (r.ok) {
      on_game_server(gs);
      r = sdk_.ready();
    }
    if (r.ok) break;
    log_->warn("agones: the SDK sidecar at {} did not take Ready ({}); retrying in {:.2f} s", sdk_.where(), r.error, seconds(backoff));
    if (sleep_for(backoff)) return;
  }
  {
    std::lock_guard lock(mutex_);
    ready_ = true;
  }
  log_->info("agones: Ready, {:.0f} ms after the agent started", seconds(proto::steady_now() - started) * 1000);
  if (const fleet::SdkResult r = sdk_.set_counter_capacity(kPlayersCounter, options_.capacity); !r.ok) {
    has_counter_ = false;
    log_->warn("agones: no players Counter to keep ({}): declare counters.players in the GameServer spec", r.error);
  }
  while (!sleep_for(kLifecyclePeriod)) {
    sync_players();
    std::unique_lock lock(mutex_);
    const proto::Nanos idle = proto::steady_now() - last_occupied_;
    if (idle_stopped_ || !allocated_ || options_.idle_shutdown <= 0 || clients_ > 0 || idle < options_.idle_shutdown) continue;
    idle_stopped_ = true;
    lock.unlock();
    const std::string why = fmt::format("allocated, and no client for {:.0f} s (idle_shutdown)", seconds(idle));
    log_->info("agones: the match is over: {}", why);
    hooks_.stop(why);
  }
}

void AgonesAgent::sync_players() {
  if (!has_counter_) return;
  int64_t clients = 0;
  {
    std::lock_guard lock(mutex_);
    clients = int64_t(clients_);
  }
  if (clients == counted_) return;
  const fleet::SdkResult r = sdk_.set_counter_count(kPlayersCounter, clients);
  if (r.ok) {
    counted_ = clients;
  } else if (counted_ != -2) {
    log_->warn("agones: the players Counter was not updated ({}); trying again", r.error);
    counted_ = -2;  // logged once until it works again
  }
}

void AgonesAgent::health_loop() {
  bool withheld = false, failing = false;
  while (!sleep_for(options_.health_interval)) {
    proto::Nanos since_tick = 0;
    {
      std::lock_guard lock(mutex_);
      since_tick = proto::steady_now() - last_tick_;
    }
    if (since_tick > options_.stall_after) {
      if (!withheld) log_->error("agones: the tick loop has stalled ({:.1f} s without a tick): health withheld", seconds(since_tick));
      withheld = true;
      continue;
    }
    if (withheld) log_->warn("agones: the tick loop runs again: health resumed");
    withheld = false;
    const fleet::SdkResult r = sdk_.health();
    if (r.ok) {
      ++health_sent_;
      if (failing) log_->info("agones: health taken again");
      failing = false;
    } else if (!failing) {
      log_->warn("agones: health not taken ({}); trying every {:.1f} s", r.error, seconds(options_.health_interval));
      failing = true;
    }
  }
}

void AgonesAgent::watch_loop() {
  for (proto::Nanos backoff = kFirstBackoff;; backoff = std::min(2 * backoff, kMaxBackoff)) {
    const fleet::SdkResult r = sdk_.watch([this](const fleet::GameServerInfo& gs) { on_game_server(gs); });
    if (sleep_for(0)) return;
    log_->debug("agones: watching the GameServer: {}; again in {:.2f} s", r.error, seconds(backoff));
    if (sleep_for(backoff)) return;
  }
}

void AgonesAgent::on_game_server(const fleet::GameServerInfo& gs) {
  // The state goes into a metrics label and the log: letters only (Agones' states are words).
  std::string state;
  for (char c : gs.state.substr(0, 32))
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')) state.push_back(c);
  std::unique_lock lock(mutex_);
  if (state != state_) log_->info("agones: GameServer is {}", state);
  state_ = state;
  const int port = player_port(gs);
  const std::string address = gs.address.empty() || port == 0 ? std::string() : gs.address + ":" + std::to_string(port);
  const bool new_address = !address.empty() && address != address_;
  if (new_address) address_ = address;
  const bool now_allocated = gs.state == "Allocated" && !allocated_;
  if (now_allocated) {
    allocated_ = true;
    last_occupied_ = proto::steady_now();  // players get idle_shutdown to arrive
  }
  lock.unlock();
  if (new_address && hooks_.address) hooks_.address(gs.address, port);
  if (now_allocated) {
    log_->info("agones: allocated; labels: {}; annotations: {}", listed(gs.labels), listed(gs.annotations));
    if (hooks_.allocated) hooks_.allocated(gs);
  }
}

bool AgonesAgent::shutdown(proto::Nanos deadline) {
  stop_threads();  // no health after the drain began, and no watch to outlive us
  for (proto::Nanos backoff = kFirstBackoff;; backoff = std::min(2 * backoff, kMaxBackoff)) {
    const fleet::SdkResult r = sdk_.shutdown();
    if (r.ok) {
      log_->info("agones: Shutdown taken");
      return true;
    }
    const proto::Nanos now = proto::steady_now();
    if (now + backoff + proto::Nanos(kCallTimeout.count()) * proto::kMillisecond > deadline) {
      log_->error("agones: Shutdown not taken ({}), and the drain's time is up", r.error);
      return false;
    }
    log_->warn("agones: Shutdown not taken ({}); retrying in {:.2f} s", r.error, seconds(backoff));
    std::this_thread::sleep_for(std::chrono::nanoseconds(backoff));
  }
}

}  // namespace foothold::server
