#pragma once
// Replication: what each client is told after a tick. For each one a snapshot of its own exact state
// (or a digest of it) and of the characters of interest to it (about the nearest proto::kMaxRemotes,
// found on a grid of proto::kInterestCell cells), as a delta against the newest view it acknowledged,
// within the snapshot budget: removals first, then the overdue, then by a priority that grows with
// nearness and with the ticks the client has lacked a change. Snapshots are built and sealed on the
// worker pool and sent in client order from the calling thread, so the datagrams are the same, in
// the same order, for any number of threads.

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "proto/codec.h"
#include "proto/compact.h"
#include "server/snapshot_choices.h"
#include "server/core_config.h"
#include "server/counters.h"
#include "server/outbox.h"
#include "server/roster.h"
#include "server/snapshot_phase.h"
#include "shared/cell_runs.h"
#include "shared/mover_frame.h"
#include "shared/workers/worker_pool.h"

namespace foothold::server {

/// The replication state of every client and the snapshots' working memory. Not thread-safe:
/// send_snapshots() spreads its own work over the pool.
class Replication {
 public:
  /// Remote characters in one snapshot at most (the wire's limit).
  static constexpr std::size_t kMaxOthers = proto::kMaxRemotes;
  /// Every character in a client's view that changed goes into its snapshots at least this often.
  static constexpr proto::Nanos kMaxStaleness = proto::kMaxStalenessMs * proto::kMillisecond;

  /// `config` and `pool` are referenced (they must outlive it); `tick_rate` in ticks per second.
  Replication(const CoreConfig& config, int tick_rate, WorkerPool& pool);
  ~Replication();
  Replication(const Replication&) = delete;
  Replication& operator=(const Replication&) = delete;

  /// Gives a client that just joined its (empty) history of snapshots sent.
  void welcome(Client& c) const;
  /// The acknowledgement and the request for the full state of client `c`'s newest inputs message
  /// (`h`); `tick` is the last tick simulated: an acknowledgement of a later one is a lie, counted.
  void acknowledge(Client& c, const proto::InputsHeader& h, uint32_t tick, Counters& counters) const;
  /// Builds, seals and sends the snapshots of tick `tick` (just simulated) of the clients due one
  /// on it (snapshot_phase.h: called every tick, it sends to each client every snapshot interval),
  /// with the attributes of `match` and of each client's own character that the client may not hold yet,
  /// and the nearest characters in full for its prediction (`movers`: as tick `tick` placed them), and
  /// the movers' clocks the game changed (`clocks`; null: none) that the client may not hold yet.
  void send_snapshots(Roster& roster, const GameMatch& match, const MoverFrame& movers, uint32_t tick, proto::Nanos now,
                      Outbox& outbox, Counters& counters, const MoverClocks* clocks = nullptr);
  /// How near (centre to centre, metres) a character must be to go in full (CoreConfig::neighbours,
  /// by default the nearest four: a crowd's pushes reach the client's own character through the
  /// nearest few; in 16 riders stepped on a client as the server steps them, the nearest four within
  /// 2 m predicted nearly as well as all fifteen, the nearest two much worse).
  static constexpr double kNeighbourReach = 2.0;

 private:
  // One worker thread's working memory (index 0 is the calling thread's).
  struct Worker;
  struct Published {
    proto::RemoteState remote;  // as snapshots carry it
    FixedVec3 position;         // exact, for priorities
  };
  struct GridEntry {
    int64_t key = 0;       // cell
    uint32_t index = 0;    // into the roster
    int32_t x = 0, z = 0;  // position, 1/1024 m
    bool operator<(const GridEntry& o) const { return key != o.key ? key < o.key : index < o.index; }
  };
  struct Outgoing {
    uint32_t worker = 0, index = 0;  // the Worker and the entry of its `out` that holds the snapshot
    bool built = false;
  };
  /// Attributes others see take at most this share of the budget, in quarters of it, when the
  /// view's changes would take it all: they never starve, nor starve the view.
  static constexpr std::size_t kSeenShareQuarters = 1;
  /// Below this count per thread, fewer threads are woken (waking one costs microseconds).
  static constexpr std::size_t kMinSnapshotsPerThread = 32;
  static constexpr std::size_t kSentHistory = proto::kBaseHistory;
  /// Released views a worker keeps for the next snapshots it builds, any client's (release_history()).
  static constexpr std::size_t kSpareViews = 256;

  void build_grid(const Roster& roster);
  /// Whether character `id` is in the match this tick (published_, in ascending id).
  bool playing(uint32_t id) const;
  void select_others(const Roster& roster, std::size_t self, std::vector<uint32_t>& out,
                     std::vector<std::pair<int64_t, uint32_t>>& candidates) const;
  const SentSnapshot* delta_base(const Client& c) const;
  void prefetch_client(const Client& c) const;
  void prefetch_history(const Client& c) const;
  void prefetch_snapshot(const Client& c) const;
  void build_snapshot(Roster& roster, std::size_t index, proto::Nanos now, Worker& ws);
  proto::SnapshotHeader snapshot_header(const Client& c, const SentSnapshot* base, proto::Nanos now) const;
  void carry_attributes(Client& c, proto::SnapshotHeader& h, std::size_t budget_bits, std::size_t base_size) const;
  // The movers' clocks the game changed that client `c` may not hold (the attributes' run rule),
  // up to proto::kMaxSnapshotMovers, taking turns, within the budget.
  void carry_movers(Client& c, proto::SnapshotHeader& h, std::size_t budget_bits, std::size_t base_size) const;
  std::size_t seen_reserve(const Client& c, const Roster& roster) const;
  void next_view_ids(std::span<const proto::RemotePose> base_view, Worker& ws) const;
  std::size_t taken_bits(const Worker& ws) const;
  void carry_seen(Client& c, const Roster& roster, std::size_t room, Worker& ws) const;
  void gather_choices(const Client& c, const SentSnapshot* base, std::span<const proto::RemotePose> base_view, Worker& ws) const;
  std::size_t choose_neighbours(std::size_t room, Worker& ws) const;
  void take_choices(const Client& c, std::size_t room, std::size_t view_size, Worker& ws) const;
  void write_choices(Worker& ws) const;
  void release_history(Client& c, Worker& ws) const;
  void balance_spares();
  void record_sent(Client& c, std::span<const proto::RemotePose> base_view, Worker& ws) const;

  const CoreConfig& config_;
  WorkerPool& pool_;
  SnapshotSchedule schedule_;  // which clients are sent a snapshot on which tick
  uint32_t stale_ticks_ = 1;  // kMaxStaleness in ticks
  uint32_t tick_ = 0;          // the tick being sent
  const GameMatch* match_ = nullptr;  // the match's attributes, during send_snapshots()
  const MoverClocks* clocks_ = nullptr;  // the movers' clocks, during send_snapshots()
  std::vector<uint16_t> changed_movers_;  // the movers whose clocks a game changed, ascending
  uint64_t roster_version_ = 0;
  std::vector<GridEntry> grid_;         // sorted by (cell, index), for interest
  CellRuns grid_runs_;                  // where each cell's run of grid_ begins
  std::vector<Pose> to_local_;          // each mover's pose at this tick, inverted (platform_offset_guess())
  struct Full {
    CharacterState state;
    InputCmd last_input;
    std::array<InputCmd, kMaxInputsAhead> ahead;  // the first ahead_count: those it holds
    uint8_t ahead_count;
  };
  std::vector<Full> full_;              // every character in full, by roster index: what neighbours are
                                        // told, copied in the pass that publishes them (read scattered,
                                        // from the clients themselves it was a cache miss each)
  std::vector<Published> published_;    // every character after this tick's step, by roster index:
                                        // snapshots read 48 others each, so from one array
  std::vector<uint32_t> due_;           // roster indices of the clients sent a snapshot this tick
  std::vector<Outgoing> outgoing_;      // by roster index: each snapshot built this tick, whoever built it
  std::vector<std::unique_ptr<Worker>> workers_;  // one per thread of pool_
  std::vector<SentSnapshot> balance_;  // spares on their way between workers (balance_spares())
};

}  // namespace foothold::server
