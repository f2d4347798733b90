#pragma once
// A connected client, split by the part of the server that owns each piece: the session (admission
// creates it: keys, address, rate), the simulated character (the tick: its state, its inputs) and
// the replication state (which snapshots it was sent, which characters it sees). Each part reads
// the others' pieces but writes only its own.

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "proto/compact.h"
#include "proto/endpoint.h"
#include "proto/handshake.h"
#include "proto/message_endpoint.h"
#include "proto/secure.h"
#include "server/input_buffer.h"
#include "server/token_bucket.h"
#include "shared/character_state.h"
#include "shared/contact_queries.h"

namespace foothold::server {

/// Most replicated attributes per character, and per match (the wire's kCharacterAttributes and
/// kMatchAttributes; the game API's kMaxGameAttributes).
inline constexpr int kMaxAttributes = 16;

/// The session: who the client is and how its datagrams are sealed (server/admission.h).
struct Session {
  proto::Endpoint endpoint;
  uint64_t client_id = 0;                     ///< the token's
  std::array<uint8_t, proto::kMaxUserData> user_data{};  ///< the token's user data (the first user_data_size bytes)
  uint16_t user_data_size = 0;
  uint64_t client_salt = 0, server_salt = 0;  ///< the connection attempt (a repeated Connect has both...
  proto::RequestTag attempt{};                ///< ...and the same proof)
  proto::SessionKeys keys;
  proto::ReplayWindow window;
  uint64_t send_sequence = 0;
  std::vector<uint8_t> accept_datagram;  ///< sent again, byte for byte, if the Connect is repeated
  proto::Nanos last_heard = 0;
  TokenBucket rate;                      ///< its datagrams per second
  uint32_t route = 0;                    ///< the route its datagrams carry (given in the Accept; unique, non-zero)
  // Path validation: the address its authentic datagrams newly came from, and the challenge sent
  // there; the session moves only when that address answers it (ServerCore).
  proto::Endpoint path_to;
  uint64_t path_challenge = 0;           ///< 0: none outstanding
  proto::Nanos path_sent_at = 0;
  /// Challenges it may cause, whatever addresses its datagrams claim (kPathChallengeRate).
  TokenBucket challenges;
};

/// Path challenges one session may cause per second, and at once: a rebinding takes one (and its
/// retries, ServerCore::kPathRetry apart). The retry limit alone was per address, so a token holder
/// spoofing alternating source addresses had an 80-byte challenge sent anywhere for each 23-byte
/// datagram (issue #63); now a session causes 4 a second whatever addresses it names.
inline constexpr double kPathChallengeRate = 4;
inline constexpr double kPathChallengeBurst = 4;

/// The simulated character and its inputs (server/simulation.h).
struct SimulatedCharacter {
  CharacterState state;
  CandidateCache candidates;     ///< the character's triangles from step to step (speed only)
  InputBuffer inputs;
  uint32_t repeated_bits = 0;     ///< bit i: tick (current - i) was simulated with a repeated input
  uint32_t interaction_bits = 0;  ///< bit i: in tick (current - i) its step met another character
  proto::Nanos echo_received = 0; ///< when the newest input tick (InputBuffer::newest_received) arrived
  uint32_t owed_tick = 0;         ///< the newest tick whose state may differ from the client's prediction
  uint32_t server_bits = 0;       ///< bit i: at the start of tick (current - i) a game command changed its state
  bool commanded = false;         ///< a game command changed its state at this boundary (taken by the next tick)
  InputCmd last_input;            ///< the input its last step took (its own or a repeat): what snapshots tell its neighbours
};

/// What the game keeps of the match (server/game_host.h): its replicated attributes.
struct GameMatch {
  std::array<int32_t, kMaxAttributes> attributes{};
  /// Per attribute: the tick at whose start it last changed (0: never).
  std::array<uint32_t, kMaxAttributes> changed{};
  /// Bit i: character attribute i is seen by every client that sees the character (the schema's
  /// seen_by_all; 0 when none is: then snapshots carry no one else's attributes).
  uint32_t seen_by_all = 0;
};

/// What the game keeps of the character (server/game_host.h): its replicated attributes.
struct GameCharacter {
  std::array<int32_t, kMaxAttributes> attributes{};
  /// Per attribute: the tick at whose start it last changed (0: never).
  std::array<uint32_t, kMaxAttributes> changed{};
};

/// One snapshot sent, as the client reconstructs its view from it.
struct SentSnapshot {
  uint32_t tick = 0;
  proto::PoseView view;  ///< sorted by id
  /// Per view entry: the last tick at which its value was the character's own (sent, or unchanged).
  std::vector<uint32_t> fresh;
};

/// What the client was sent and sees (server/replication.h).
struct ClientView {
  uint32_t acked_snapshot = 0;     ///< the newest snapshot tick it acknowledged
  bool wants_state = false;        ///< the newest inputs message asked for the full own state
  std::vector<SentSnapshot> sent;  ///< ring of the last proto::kBaseHistory snapshots, for deltas
  /// The newest snapshot tick whose slot was released (0: none): slots older than the acknowledged
  /// snapshot can never be a delta base again (acknowledgements only move forward), so their storage
  /// goes back to the worker that builds snapshots, for anyone's next (Replication::release_history).
  uint32_t released_through = 0;
  std::vector<uint32_t> interest;  ///< roster indices of the characters in its snapshots, ascending
  uint64_t interest_roster = ~0ull;  ///< Roster::version() when `interest` was chosen
  uint32_t newest_sent = 0;        ///< the newest snapshot tick sent to it
  /// Per attribute slot (proto::kAttributeSlots: its own character's, then the match's): the tick of
  /// the first snapshot that carried the slot's current value (0: none yet). The client holds the
  /// value once it acknowledges a snapshot that late (Replication::attributes_for).
  std::array<uint32_t, 2 * kMaxAttributes> attribute_carried{};
  /// Per mover (sized when a game first changes a mover's clock): as attribute_carried, for the
  /// mover's newest clock segment (Replication::carry_movers).
  std::vector<uint32_t> mover_carried;
  /// Per character of the newest view sent (ascending id; only when the game has attributes seen by
  /// all): per character attribute, as attribute_carried for its own. A character's record goes when
  /// a snapshot's view lacks it: the client forgets its values then (Replication::carry_seen).
  struct Seen {
    uint32_t id = 0;
    std::array<uint32_t, kMaxAttributes> carried{};
  };
  std::vector<Seen> seen;
};

/// A connected client: its character id and the three parts. Or a character the game drives (an
/// NPC, GameControl::spawn): `npc`, no session (no address, no keys, never sent anything), its inputs
/// set by the game; it steps, is seen and is recorded as a client's character is.
struct Client {
  uint32_t id = 0;  ///< its character's id (ascending in order of joining, never reused)
  bool npc = false;  ///< a character the game drives: no client behind it
  Session session;
  SimulatedCharacter character;
  GameCharacter game;
  ClientView view;
  /// Its messages both ways, made when the first one is sent or arrives (most clients of a
  /// movement-only game never have any, and a channel's windows cost kilobytes).
  std::unique_ptr<proto::MessageEndpoint> messages;
};

}  // namespace foothold::server
