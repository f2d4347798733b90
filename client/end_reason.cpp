#include "client/end_reason.h"

namespace foothold::client {

std::string_view to_string(EndReason r) {
  switch (r) {
    case EndReason::kNone: return "none";
    case EndReason::kClientQuit: return "client_quit";
    case EndReason::kNoServer: return "no_server";
    case EndReason::kNoAnswer: return "no_answer";
    case EndReason::kTokenExpired: return "token_expired";
    case EndReason::kHandshakeTimeout: return "handshake_timeout";
    case EndReason::kTimedOut: return "timed_out";
    case EndReason::kVersionMismatch: return "version_mismatch";
    case EndReason::kWorldMismatch: return "world_mismatch";
    case EndReason::kSettingsMismatch: return "settings_mismatch";
    case EndReason::kServerFull: return "server_full";
    case EndReason::kServerShutdown: return "server_shutdown";
    case EndReason::kKicked: return "kicked";
    case EndReason::kReplaced: return "replaced";
    case EndReason::kClientIdInUse: return "client_id_in_use";
    case EndReason::kWrongServer: return "wrong_server";
    case EndReason::kRejected: return "rejected";
    case EndReason::kMessages: return "messages";
  }
  return "unknown";
}

EndReason end_reason_for(proto::fb::RejectReason r) {
  using R = proto::fb::RejectReason;
  switch (r) {
    case R::VersionMismatch: return EndReason::kVersionMismatch;
    case R::ServerFull:
    case R::AddressFull: return EndReason::kServerFull;
    case R::WorldMismatch: return EndReason::kWorldMismatch;
    case R::SettingsMismatch: return EndReason::kSettingsMismatch;
    case R::ShuttingDown: return EndReason::kServerShutdown;
    case R::WrongServer: return EndReason::kWrongServer;
    case R::ClientIdInUse: return EndReason::kClientIdInUse;
    case R::Unknown:
    case R::BadCookie: return EndReason::kRejected;
  }
  return EndReason::kRejected;
}

EndReason end_reason_for(proto::fb::DisconnectReason r) {
  using D = proto::fb::DisconnectReason;
  switch (r) {
    case D::ClientQuit: return EndReason::kClientQuit;
    case D::ServerShutdown: return EndReason::kServerShutdown;
    case D::TimedOut: return EndReason::kTimedOut;
    case D::Replaced: return EndReason::kReplaced;
    case D::MessageViolation:
    case D::MessageTimeout: return EndReason::kMessages;
    case D::Removed: return EndReason::kKicked;
  }
  return EndReason::kRejected;
}

}  // namespace foothold::client
