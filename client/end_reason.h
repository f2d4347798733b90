#pragma once
// Why a client session ended, as a code a game can act on (#41): the session's reason_text() says
// it for people; this says it for code (retry, pick another server, tell the player to update).

#include <cstdint>
#include <string_view>

#include "proto/foothold_generated.h"

namespace foothold::client {

enum class EndReason : uint8_t {
  kNone = 0,          ///< still running, or never started
  kClientQuit,        ///< this client disconnected
  kNoServer,          ///< nothing listens at the address (its port refused the connect request)
  kNoAnswer,          ///< no answer to the connect request: no server there, a firewall, or a token it cannot open
  kTokenExpired,      ///< no answer, and the token has expired by this machine's clock (set by the C API)
  kHandshakeTimeout,  ///< the server answered the request, then went silent before accepting
  kTimedOut,          ///< connected, then no word from the server for the server time-out
  kVersionMismatch,   ///< the server speaks another protocol version
  kWorldMismatch,     ///< the server runs another world
  kSettingsMismatch,  ///< the server moves characters with other settings
  kServerFull,        ///< the server, or the players from this address, are at their limit
  kServerShutdown,    ///< the server is shutting down (refused, or the session ended by it)
  kKicked,            ///< the server's game removed the character
  kReplaced,          ///< the same player connected again from this address
  kClientIdInUse,     ///< the token's client id is playing from another address
  kWrongServer,       ///< the token does not name the address the server was reached at
  kRejected,          ///< refused for another reason (the server's message says which)
  kMessages,          ///< the message layer broke (either side), or stood still
};
inline constexpr int kEndReasons = int(EndReason::kMessages) + 1;

/// "none", "client_quit", "no_server", ...
std::string_view to_string(EndReason r);
/// The code for a Reject's reason, and for a Disconnect's.
EndReason end_reason_for(proto::fb::RejectReason r);
EndReason end_reason_for(proto::fb::DisconnectReason r);

}  // namespace foothold::client
