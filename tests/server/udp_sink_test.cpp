// The server's sink on a real socket (server/udp_sink.h), on loopback: the datagrams a client is
// sent arrive as they were queued, byte for byte and in order, whether a run of them went to the
// kernel as one segmented send (UDP GSO), one by one, or one by one because the kernel refused to
// segment (a socket with UDP checksums off, SO_NO_CHECK).

#include <poll.h>
#include <sys/socket.h>

#include <chrono>
#include <vector>

#include <gtest/gtest.h>

#include "server/udp_sink.h"

namespace foothold::test {
namespace {

using Datagram = std::vector<uint8_t>;

asio::ip::udp::socket open_socket(asio::io_context& io) {
  asio::ip::udp::socket s(io);
  s.open(asio::ip::udp::v4());
  s.bind({asio::ip::make_address("127.0.0.1"), 0});
  s.non_blocking(true);
  return s;
}

// `size` bytes that say which datagram they are.
Datagram datagram(std::size_t size, uint8_t tag) {
  Datagram d(size);
  for (std::size_t i = 0; i < size; ++i) d[i] = uint8_t(tag * 31 + i);
  return d;
}

// Every datagram `s` receives until `count` have come or two seconds pass.
std::vector<Datagram> receive(asio::ip::udp::socket& s, std::size_t count) {
  std::vector<Datagram> got;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  std::array<uint8_t, 70000> buffer;
  while (got.size() < count && std::chrono::steady_clock::now() < deadline) {
    pollfd p{s.native_handle(), POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    asio::ip::udp::endpoint from;
    asio::error_code ec;
    const std::size_t n = s.receive_from(asio::buffer(buffer), from, 0, ec);
    if (!ec) got.emplace_back(buffer.begin(), buffer.begin() + long(n));
  }
  return got;
}

struct Sent {
  std::vector<Datagram> to_a, to_b;
};

// A tick's worth for two clients: runs of one size to a (five, the last shorter; then two),
// three small ones to b between them, and a lone one to b.
Sent send_mixed(server::UdpSink& sink, const proto::Endpoint& a, const proto::Endpoint& b) {
  Sent s;
  auto to = [&](const proto::Endpoint& e, std::vector<Datagram>& log, std::size_t size) {
    log.push_back(datagram(size, uint8_t(s.to_a.size() + s.to_b.size())));
    sink.send(e, log.back());
  };
  for (int i = 0; i < 4; ++i) to(a, s.to_a, 1200);
  to(a, s.to_a, 500);
  for (int i = 0; i < 3; ++i) to(b, s.to_b, 300);
  for (int i = 0; i < 2; ++i) to(a, s.to_a, 800);
  to(b, s.to_b, 1200);
  sink.flush();
  sink.drain();
  return s;
}

TEST(UdpSink, ARunOfDatagramsToOneClientGoesAsOneSegmentedSendAndArrivesAsTheSameDatagrams) {
  asio::io_context io;
  asio::ip::udp::socket server = open_socket(io), a = open_socket(io), b = open_socket(io);
  for (const bool gso : {true, false}) {
    SCOPED_TRACE(gso ? "segmented" : "one by one");
    server::UdpSink sink(server, true, gso);
    const Sent sent = send_mixed(sink, a.local_endpoint(), b.local_endpoint());
    EXPECT_EQ(receive(a, sent.to_a.size()), sent.to_a);
    EXPECT_EQ(receive(b, sent.to_b.size()), sent.to_b);
    EXPECT_EQ(sink.errors(), 0u);
    EXPECT_EQ(sink.gso(), gso) << "Linux 4.18 on segments UDP on loopback";
    // a's five and two, b's three; b's lone one went by itself.
    EXPECT_EQ(sink.gso_sends(), gso ? 3u : 0u);
    EXPECT_EQ(sink.gso_datagrams(), gso ? 10u : 0u);
  }
}

TEST(UdpSink, WhereTheKernelRefusesToSegmentEveryDatagramGoesOnItsOwnAndNoneIsLost) {
  asio::io_context io;
  asio::ip::udp::socket server = open_socket(io), a = open_socket(io), b = open_socket(io);
  const int off = 1;  // no UDP checksums: the kernel then refuses segmented sends (EINVAL)
  ASSERT_EQ(::setsockopt(server.native_handle(), SOL_SOCKET, SO_NO_CHECK, &off, sizeof(off)), 0);
  server::UdpSink sink(server, true, true);
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const Sent sent = send_mixed(sink, a.local_endpoint(), b.local_endpoint());
    EXPECT_EQ(receive(a, sent.to_a.size()), sent.to_a) << "the refused run too";
    EXPECT_EQ(receive(b, sent.to_b.size()), sent.to_b);
    EXPECT_EQ(sink.errors(), 0u);
    EXPECT_FALSE(sink.gso()) << "refused once, never asked again";
    EXPECT_EQ(sink.gso_sends(), 0u);
  }
}

}  // namespace
}  // namespace foothold::test
