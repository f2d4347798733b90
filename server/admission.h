#pragma once
// Admission: who may become a client. Every clear (handshake) datagram ends here: status requests,
// connect requests and Connects, each judged on the connect token (sealed with the server's key,
// naming one of its addresses, within its times), a stateless cookie that proves the sender receives
// at its address, a cookie judged once (SpentCookies), the global, per-source and per-token budgets,
// and the server's room (slots, per-address caps). A Connect that passes creates the client's
// session and character in the roster; one refused gets a Reject only its token's holder can read.
// Nothing is kept for an address before it has shown a valid cookie (WIRE_FORMAT.md).

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "proto/codec.h"
#include "proto/datagram_reader.h"
#include "proto/endpoint.h"
#include "proto/secure.h"
#include "proto/token.h"
#include "server/cookie.h"
#include "server/game.h"
#include "server/core_config.h"
#include "server/counters.h"
#include "server/outbox.h"
#include "server/replication.h"
#include "server/roster.h"
#include "server/simulation.h"
#include "server/source_limiter.h"
#include "server/spent_cookies.h"
#include "server/token_bucket.h"

namespace foothold::server {

/// The handshake's side of the server. Not thread-safe.
class Admission {
 public:
  /// Everything is referenced and must outlive it. `cookies`: the jar to use (tests give a fixed key);
  /// null makes one with a random key. `now` starts the budgets.
  Admission(const CoreConfig& config, Roster& roster, Simulation& simulation, const Replication& replication,
            Outbox& outbox, Counters& counters, proto::Nanos now, std::unique_ptr<CookieJar> cookies);

  /// Handles a datagram of the clear layer (a handshake) from `from`.
  /// Called for every client admitted, its spawn state chosen, before its Accept is written: the
  /// game's join (it may choose another spawn state).
  void set_join_hook(std::function<void(Client&)> hook) { join_hook_ = std::move(hook); }
  /// The names of the game's attributes, which every Accept carries.
  void set_attribute_names(const GameSchema& schema) { attribute_names_ = schema; }
  void on_clear_datagram(proto::Nanos now, const proto::Endpoint& from, std::span<const uint8_t> bytes);
  /// Later Connects are refused with Reject(ShuttingDown).
  void shut() { shutting_down_ = true; }
  /// Tokens naming `address` are ours from now on, beside CoreConfig::addresses: where clients reach
  /// us once the fleet says (a GameServer's status address and port, learnt after start).
  void add_address(const proto::TokenAddress& address);
  /// UNIX time at `now`, in seconds, as token times are judged.
  uint64_t unix_time(proto::Nanos now) const;

 private:
  /// Seals a Packet as a reply to an attempt whose token opened, bound to the request `answers`
  /// names, if it is no larger than `limit`.
  bool send_reply(const proto::Endpoint& to, const proto::TokenContents& token, uint64_t client_salt,
                  const proto::RequestTag& answers, std::span<const uint8_t> packet, std::size_t limit);
  void reject(const proto::Endpoint& to, const proto::TokenContents& token, uint64_t client_salt,
              const proto::RequestTag& answers, proto::fb::RejectReason reason, const std::string& message,
              std::size_t limit);
  /// A hint in clear to a client of another protocol version, from its own budget.
  void hint_version(proto::Nanos now, const proto::Endpoint& from, uint32_t version, std::size_t limit);
  /// Opens a token and counts why it does not; `names_us` says whether it names an address of ours
  /// (a loopback one only counts for a sender on loopback, which no remote host can forge).
  bool open_token(proto::Nanos now, const proto::Endpoint& from, const flatbuffers::Vector<uint8_t>* token,
                  proto::TokenContents& out, bool& names_us);
  /// What a connect request and a status request both pass before any answer: a token that opens,
  /// a place in the request kind's own `budget` (else `over_budget` is counted), and an address of
  /// ours among those it names (else a reject, no larger than `limit`, that only its holder reads).
  bool admit_request(proto::Nanos now, const proto::Endpoint& from, const flatbuffers::Vector<uint8_t>* sealed,
                     uint64_t client_salt, TokenBucket& budget, Counter over_budget, std::size_t limit,
                     proto::TokenContents& token);
  void handle_connect_request(proto::Nanos now, const proto::Endpoint& from, const proto::Decoded& m);
  void handle_status_request(proto::Nanos now, const proto::Endpoint& from, const proto::Decoded& m);
  /// A Connect; `server_salt` is the one its cookie carries when the cookie is valid (checked before
  /// the per-source budgets), else null.
  void handle_connect(proto::Nanos now, const proto::Endpoint& from, const proto::Decoded& m, const uint64_t* server_salt);
  /// A valid cookie that was spent before: the same attempt repeated gets its answer again, anything
  /// else nothing. True when the cookie was spent (the Connect is handled).
  bool answer_spent_cookie(const proto::Endpoint& from, const proto::Decoded& m, uint64_t server_salt,
                           const proto::RequestTag& attempt, proto::Nanos now);
  /// A Connect whose proof opened: why the server cannot take it now (with the counter it adds to),
  /// or kUnknown when it can. `replacing` gets the sessions it would replace.
  proto::fb::RejectReason judge_room(const proto::Endpoint& from, const proto::TokenContents& token, uint64_t world_hash,
                                     uint64_t settings_hash, std::string& message, Client* (&replacing)[2]);
  /// Refuses a Connect whose proof opened: the verdict is remembered with its cookie.
  void refuse_connect(const proto::Endpoint& to, const proto::TokenContents& token, uint64_t client_salt,
                      const proto::RequestTag& attempt, std::span<const uint8_t> cookie, proto::fb::RejectReason reason,
                      const std::string& message, proto::Nanos now);
  /// Creates the session and the character of an admitted Connect and sends its Accept.
  void admit(proto::Nanos now, const proto::Endpoint& from, const proto::TokenContents& token, uint64_t salt,
             uint64_t server_salt, const proto::RequestTag& attempt);

  const CoreConfig& config_;
  Roster& roster_;
  Simulation& simulation_;
  const Replication& replication_;
  Outbox& outbox_;
  Counters& counters_;
  std::unique_ptr<CookieJar> cookies_;
  proto::Nanos started_;
  TokenBucket handshake_bucket_;
  TokenBucket status_bucket_;
  TokenBucket version_hint_bucket_;
  SpentCookies spent_cookies_;
  SourceLimiter source_limiter_;
  HashedBuckets token_limiter_;  // by the token's nonce
  proto::PacketWriter writer_;
  proto::DatagramReader reader_{proto::Direction::kToServer};
  proto::DatagramBuffer tx_;  // the reply being sealed
  bool shutting_down_ = false;
  std::vector<proto::TokenAddress> learnt_addresses_;  // add_address()'s
  std::function<void(Client&)> join_hook_;
  GameSchema attribute_names_;
};

}  // namespace foothold::server
