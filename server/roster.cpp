#include "server/roster.h"

#include <algorithm>

namespace foothold::server {

Roster::Roster(std::size_t capacity) {
  clients_.reserve(capacity);
  by_endpoint_.reserve(capacity * 2);
}

Client* Roster::at(const proto::Endpoint& endpoint) const {
  const auto it = by_endpoint_.find(endpoint);
  return it == by_endpoint_.end() ? nullptr : it->second;
}

Client* Roster::playing(uint64_t client_id) const {
  for (const auto& c : clients_)
    if (!c->npc && c->session.client_id == client_id) return c.get();
  return nullptr;
}

const Client* Roster::by_id(uint32_t id) const {
  const auto it = std::lower_bound(clients_.begin(), clients_.end(), id, [](const auto& c, uint32_t v) { return c->id < v; });
  return it != clients_.end() && (*it)->id == id ? it->get() : nullptr;
}

uint32_t Roster::add(std::unique_ptr<Client> client) {
  client->id = next_id_++;
  pending_joins_.push_back({client->id, client->character.state, client->session.client_id,
                            {client->session.user_data.data(), client->session.user_data_size}});
  by_endpoint_[client->session.endpoint] = client.get();
  if (client->session.route != 0) by_route_[client->session.route] = client.get();
  clients_.push_back(std::move(client));
  ++version_;
  return clients_.back()->id;
}

void Roster::add_npc(std::unique_ptr<Client> npc) {
  npc->npc = true;
  skip_ids_to(npc->id + 1);
  pending_joins_.push_back({npc->id, npc->character.state, 0, {}});
  const auto at = std::lower_bound(clients_.begin(), clients_.end(), npc->id, [](const auto& c, uint32_t v) { return c->id < v; });
  clients_.insert(at, std::move(npc));
  ++npcs_;
  ++version_;
}

void Roster::remove(uint32_t id) {
  const auto it = std::find_if(clients_.begin(), clients_.end(), [&](const auto& c) { return c->id == id; });
  if (it == clients_.end()) return;
  if ((*it)->npc) {
    --npcs_;
  } else {  // an NPC has no address nor route (and must not take a client's entry with it)
    by_endpoint_.erase((*it)->session.endpoint);
    by_route_.erase((*it)->session.route);
  }
  // A client that joins and leaves between two ticks never existed for the simulation.
  const auto join = std::find_if(pending_joins_.begin(), pending_joins_.end(), [&](const auto& j) { return j.id == id; });
  if (join != pending_joins_.end()) {
    pending_joins_.erase(join);
  } else {
    pending_leaves_.push_back(id);
  }
  departed_.push_back(id);
  clients_.erase(it);
  ++version_;
}

void Roster::take_departures(std::vector<uint32_t>& gone) {
  gone.swap(departed_);
  departed_.clear();
  std::sort(gone.begin(), gone.end());
}

Client* Roster::by_route(uint32_t route) const {
  const auto it = by_route_.find(route);
  return it != by_route_.end() ? it->second : nullptr;
}

uint32_t Roster::new_route() const {
  while (true) {
    const uint32_t r = uint32_t(proto::random_u64());
    if (r != 0 && !by_route_.count(r)) return r;
  }
}

bool Roster::move(Client& c, const proto::Endpoint& to) {
  if (by_endpoint_.count(to)) return false;
  by_endpoint_.erase(c.session.endpoint);
  by_endpoint_[to] = &c;
  c.session.endpoint = to;
  return true;
}

int Roster::sessions_at_address(const proto::Endpoint& at, const Client* aside, const Client* also_aside) const {
  int n = 0;
  for (const auto& c : clients_)
    n += !c->npc && c->session.endpoint.address() == at.address() && c.get() != aside && c.get() != also_aside;
  return n;
}

bool is_loopback(const proto::Endpoint& e) {
  const auto a = e.address();
  if (a.is_v6() && a.to_v6().is_v4_mapped()) return asio::ip::make_address_v4(asio::ip::v4_mapped, a.to_v6()).is_loopback();
  return a.is_loopback();
}

void Roster::take_changes(std::vector<JoinRecord>& joins, std::vector<uint32_t>& leaves) {
  joins.swap(pending_joins_);
  leaves.swap(pending_leaves_);
  pending_joins_.clear();
  pending_leaves_.clear();
  std::sort(joins.begin(), joins.end(), [](const JoinRecord& a, const JoinRecord& b) { return a.id < b.id; });
  std::sort(leaves.begin(), leaves.end());
}

}  // namespace foothold::server
