#pragma once
// Every bot of a fleet on one UDP socket (foothold-bot --one-socket): a load tool's bots, not a
// game's client. With a socket each, a bot makes a system call for every datagram it sends and
// receives, and a fleet of hundreds spends a fifth of its time in them. On one socket the fleet
// sends what its bots queued in one sendmmsg per 64 datagrams, and receives 64 at a time with
// recvmmsg.
//
// The server tells clients apart by their address, so each bot sends from an address of its own,
// chosen per datagram (IP_PKTINFO): bot i is 127.1.(i >> 8).(i & 255), all on the socket's port.
// Linux routes all of 127.0.0.0/8 to the host itself, so the server's answers to those addresses
// come back to this socket (bound to every address, on an ephemeral port), and the address each
// datagram was sent to says which bot it is for. Hence IPv4 loopback servers only. Datagrams from
// anyone but the server are dropped.

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "proto/asio.h"

#include "proto/endpoint.h"

namespace foothold::bots {

class SharedSocket {
 public:
  /// Most bots one socket serves (their addresses are 127.1.0.0 up to 127.1.255.255).
  static constexpr std::size_t kMaxBots = 65536;
  /// Datagrams per sendmmsg and recvmmsg.
  static constexpr std::size_t kBatch = 64;
  /// receive()'s max_batches for everything waiting (a whole socket buffer's worth).
  static constexpr int kDrain = 1024;

  /// Why a server cannot be reached this way ("" when it can): it must be an IPv4 loopback address.
  static std::string unusable(const proto::Endpoint& server);

  /// Opens the socket for `bots` bots (at most kMaxBots) of a server that unusable() accepts. On
  /// failure ok() is false and error() says why.
  SharedSocket(asio::io_context& io, const proto::Endpoint& server, std::size_t bots);
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  /// The socket, for waiting until it can be read (asio's async_wait).
  asio::ip::udp::socket& socket() { return socket_; }

  /// Queues a datagram from bot `bot` to the server (copied); it goes at the next flush(), or at
  /// once when kBatch are queued.
  void queue(uint32_t bot, std::span<const uint8_t> bytes);
  /// Sends everything queued. A datagram the kernel refuses (a full send buffer) is lost, as the
  /// network may lose it.
  void flush();

  /// Called with the bot a datagram is for and the datagram (valid during the call).
  using Receiver = std::function<void(uint32_t bot, std::span<const uint8_t> bytes)>;
  /// Receives the datagrams waiting (all of them, up to `max_batches` times kBatch) and hands each
  /// one from the server to a bot to `receiver`. Returns how many it handed on.
  std::size_t receive(const Receiver& receiver, int max_batches = kDrain);

  /// Bot `bot`'s address (host byte order).
  static uint32_t address_of(uint32_t bot) { return (127u << 24) | (1u << 16) | bot; }

 private:
  asio::ip::udp::socket socket_;
  proto::Endpoint server_;
  std::size_t bots_ = 0;
  std::string error_;
  // What queue() holds until flush(): the bytes one after another, and each datagram's bot and span.
  std::vector<uint8_t> bytes_;
  struct Queued {
    uint32_t bot = 0, offset = 0, size = 0;
  };
  std::vector<Queued> queued_;
  std::vector<uint8_t> in_;  // kBatch receive buffers
};

}  // namespace foothold::bots
