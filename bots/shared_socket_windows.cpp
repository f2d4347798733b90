// SharedSocket on Windows: not available. It sends each datagram from a bot's own loopback address
// with sendmmsg and IP_PKTINFO, and receives them back by recvmmsg; Winsock has neither call, and a
// fleet on Windows is a developer's dozen bots, a socket each. unusable() says so, and
// foothold-bot refuses --one-socket with that (exit 2).
#include "bots/shared_socket.h"

namespace foothold::bots {

std::string SharedSocket::unusable(const proto::Endpoint&) {
  return "--one-socket is Linux's (sendmmsg, recvmmsg and a source address per datagram): on Windows each bot "
         "has a socket of its own, so leave it out";
}

SharedSocket::SharedSocket(asio::io_context& io, const proto::Endpoint& server, std::size_t bots)
    : socket_(io), server_(server), bots_(bots), error_(unusable(server)) {}

void SharedSocket::queue(uint32_t, std::span<const uint8_t>) {}

void SharedSocket::flush() {}

std::size_t SharedSocket::receive(const Receiver&, int) { return 0; }

}  // namespace foothold::bots
