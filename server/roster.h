#pragma once
// Who is connected: the clients in ascending id (the order every tick, snapshot and datagram burst
// is made in), found by address, and the joins and leaves the next tick will record.

#include <cstdint>
#include <memory>
#include <utility>
#include <unordered_map>
#include <vector>

#include "proto/endpoint.h"
#include "server/client.h"
#include "server/tick_observer.h"

namespace foothold::server {

/// The connected clients. Not thread-safe.
/// A loopback address, also as a dual-stack socket reports an IPv4 peer (::ffff:127.x.y.z): this
/// host's own senders (bots, tools), which no remote attacker can pose as, so no per-address cap.
bool is_loopback(const proto::Endpoint& e);

class Roster {
 public:
  /// Reserves room for `capacity` clients.
  explicit Roster(std::size_t capacity);

  /// Clients now, ascending id, the game's NPCs among them (Client::npc); indices move when one
  /// leaves (see version()).
  std::size_t size() const { return clients_.size(); }
  /// Of them, the NPCs, and the players (clients with a session: what max_clients bounds).
  std::size_t npcs() const { return npcs_; }
  std::size_t players() const { return clients_.size() - npcs_; }
  Client& operator[](std::size_t index) { return *clients_[index]; }
  const Client& operator[](std::size_t index) const { return *clients_[index]; }
  /// The client whose session is at `endpoint`, or null (a hash lookup: never iterated).
  Client* at(const proto::Endpoint& endpoint) const;
  /// The client playing as the token's `client_id`, or null.
  Client* playing(uint64_t client_id) const;
  /// The client whose session has `route`, or null.
  Client* by_route(uint32_t route) const;
  /// A route no session has: random, non-zero (so that it tells nothing about other sessions).
  uint32_t new_route() const;
  /// Moves client `c`'s session to `to` (path validation passed); false, nothing moved, when another
  /// session is at `to`.
  bool move(Client& c, const proto::Endpoint& to);
  /// Sessions whose address is `at`'s IP address (any port), leaving out `aside` and `also_aside`.
  int sessions_at_address(const proto::Endpoint& at, const Client* aside = nullptr, const Client* also_aside = nullptr) const;
  /// Client `id`, or null.
  const Client* by_id(uint32_t id) const;
  Client* by_id(uint32_t id) { return const_cast<Client*>(std::as_const(*this).by_id(id)); }
  /// Changes whenever a client joins or leaves (indices into the roster move).
  uint64_t version() const { return version_; }

  /// The id the next add() gives (ids are never reused).
  uint32_t next_id() const { return next_id_; }
  /// Makes the next add() give `id` when it is later than next_id() (a replay's recorded ids, whose
  /// gaps are clients that came and went between two ticks).
  void skip_ids_to(uint32_t id) { next_id_ = id > next_id_ ? id : next_id_; }
  /// Adds `client` with the id next_id() named (returned) at `client->session.endpoint`; its join is
  /// recorded for the next tick with its character's state.
  uint32_t add(std::unique_ptr<Client> client);
  /// Takes the id next_id() names for an NPC the game spawns now and adds at the next tick boundary
  /// (add_npc()): a client admitted meanwhile gets a later one.
  uint32_t reserve_id() { return next_id_++; }
  /// Adds the NPC `npc` (Client::npc; its id reserved by reserve_id() or, replaying, skip_ids_to()) in
  /// its place by id; its join is recorded for the next tick with its character's state.
  void add_npc(std::unique_ptr<Client> npc);
  /// Removes client `id` (nothing if there is none). One that joined since the last tick never existed
  /// for the simulation; any other's leave is recorded for the next tick.
  void remove(uint32_t id);

  /// Moves the joins and leaves since the last call into `joins` and `leaves` (each ascending id: an
  /// NPC's reserved id may be below a client's admitted since), for the tick about to run.
  void take_changes(std::vector<JoinRecord>& joins, std::vector<uint32_t>& leaves);
  /// Moves every id removed since the last call into `gone` (ascending), those that joined since the
  /// last tick too: the game was told of their joins, so it is told of their leaves.
  void take_departures(std::vector<uint32_t>& gone);

 private:
  std::vector<std::unique_ptr<Client>> clients_;  // ascending id
  std::unordered_map<proto::Endpoint, Client*, proto::EndpointHash> by_endpoint_;
  std::unordered_map<uint32_t, Client*> by_route_;  // looked up, never iterated
  uint32_t next_id_ = 1;
  uint64_t version_ = 0;
  std::size_t npcs_ = 0;
  std::vector<JoinRecord> pending_joins_;
  std::vector<uint32_t> pending_leaves_;
  std::vector<uint32_t> departed_;
};

}  // namespace foothold::server
