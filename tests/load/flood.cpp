// foothold-flood: hostile traffic for load measurements and the flood test.
//
//   foothold-flood --server 127.0.0.1:PORT [--spoof-rate PPS] [--spoof-kind forged|replayed]
//                  [--input-rate PPS] [--key-file KEY] [--duration S]
//
// Spoofed handshakes: ConnectRequests, evenly spread in time (a batch every millisecond), each from a
// random loopback address and port (any 127/8 address is this host's; the source is chosen per
// datagram with IP_PKTINFO), as an attacker forging source addresses would send them. `forged`
// carries a made-up token (what anyone can send); `replayed` carries one valid token, minted with
// the key, sent again and again (what an attacker who sniffed one can send). Replies go to the
// spoofed addresses, where nobody listens.
//
// --input-rate: one real client (a full handshake with a token) that then sends authenticated
// inputs messages far faster than the server allows one client.
//
// The last line is key=value pairs.

#include <netinet/in.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/udp.hpp>

#include "proto/codec.h"
#include "proto/handshake.h"
#include "proto/secure.h"
#include "proto/token.h"
#include "server/udp_server.h"
#include "shared/settings.h"
#include "shared/world.h"
#include "shared/formats/world_file.h"

using namespace foothold;

namespace {

uint64_t unix_now() {
  return uint64_t(std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

// A real client's handshake, done by hand with the protocol's pieces; returns its session keys.
bool connect_client(asio::ip::udp::socket& socket, const proto::Endpoint& server, const proto::ConnectToken& token,
                    proto::SessionKeys& keys, uint32_t& tick) {
  server::UdpSink sink(socket);
  proto::PacketWriter w;
  proto::DatagramBuffer tx, rx;
  const auto arena = load_world("arena");
  const uint64_t salt = proto::random_u64();
  std::vector<uint8_t> cookie;
  bool connected = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  std::vector<uint8_t> connect;  // sealed once per attempt: every reply to it is bound to its proof
  proto::ConnectAttempt attempt;
  while (!connected && std::chrono::steady_clock::now() < deadline) {
    if (cookie.empty()) {
      sink.send(server, proto::frame_clear(w.connect_request(token.sealed, salt), tx));
    } else {
      sink.send(server, connect);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    server::drain_socket(socket, 64, [&](const proto::Endpoint&, std::span<const uint8_t> b) {
      std::span<const uint8_t> packet;
      if (cookie.empty() && proto::layer_of(b) == proto::Layer::kSealed &&
          proto::open_reply(token.server_to_client, proto::kNoRequestTag, b, rx, packet) == proto::OpenError::kNone) {
        const auto d = proto::decode(packet, proto::Direction::kToClient, proto::Layer::kSealed);
        if (d.ok() && d.message.type == proto::fb::Body::Challenge) {
          const auto c = proto::bytes_of(d.message.packet->body_as_Challenge()->cookie());
          cookie.assign(c.begin(), c.end());
          const auto proof = proto::seal_proof(token.client_to_server, cookie, arena.world->hash(), MoveSettings{}.hash());
          const auto datagram = proto::frame_clear(w.connect(token.sealed, salt, cookie, proof), tx);
          connect.assign(datagram.begin(), datagram.end());
          attempt = proto::connect_attempt(salt, cookie, proof);
        }
      } else if (!cookie.empty() && !connected) {
        if (const proto::fb::Accept* a = proto::open_accept(token, attempt, b, rx, keys)) {
          tick = a->tick();
          connected = true;
        }
      }
    });
  }
  return connected;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"foothold-flood: spoofed handshakes and a client over its packet rate, for load measurements"};
  std::string server_text, key_file, spoof_kind = "forged";
  double input_rate = 0, spoof_rate = 20000, duration = 10;
  app.add_option("--server", server_text, "HOST:PORT (loopback)")->required();
  app.add_option("--spoof-rate", spoof_rate, "spoofed ConnectRequests per second, evenly spread (default 20000)");
  app.add_option("--spoof-kind", spoof_kind, "forged (a made-up token, default) or replayed (one valid token again and again)");
  app.add_option("--input-rate", input_rate, "inputs messages per second from one connected client (default 0: none)");
  app.add_option("--key-file", key_file, "the server's private key (default: the public development key)");
  app.add_option("--duration", duration, "seconds (default 10)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  std::string err;
  const proto::Endpoint server = proto::parse_endpoint(server_text, err);
  if (err.empty() && !server.address().is_v4()) err = "the flood spoofs IPv4 loopback sources: give an IPv4 server";
  if (err.empty() && !(spoof_kind == "forged" || spoof_kind == "replayed")) err = "--spoof-kind must be forged or replayed";
  if (err.empty() && !(spoof_rate >= 0 && spoof_rate <= 1e6 && input_rate >= 0 && input_rate <= 1e6))
    err = "rates must be in [0, 1e6] per second";
  if (err.empty() && !(duration > 0 && duration <= 3600)) err = "--duration must be in (0, 3600] seconds";
  proto::Key key = proto::development_key();
  if (err.empty() && !key_file.empty() && !proto::read_key_file(key_file, key, err)) err = "--key-file: " + err;
  if (!err.empty()) {
    std::fprintf(stderr, "foothold-flood: %s\n", err.c_str());
    return 2;
  }
  const proto::TokenAddress address = proto::to_token_address(server);
  auto mint = [&](uint64_t client_id) {
    proto::ConnectToken t;
    std::string e;
    proto::mint_token(key, client_id, std::span(&address, 1), unix_now(), 600, t, e);
    return t;
  };

  asio::io_context io;
  asio::ip::udp::socket client(io);
  client.open(asio::ip::udp::v4());
  client.bind(proto::Endpoint(asio::ip::make_address("127.0.0.1"), 0));
  client.non_blocking(true);
  proto::SessionKeys keys;
  uint32_t tick = 0;
  if (input_rate > 0 && !connect_client(client, server, mint(proto::random_u64()), keys, tick)) {
    std::fprintf(stderr, "foothold-flood: the over-rate client could not connect to %s\n", server_text.c_str());
    return 1;
  }

  // The spoofed datagram: the same bytes every time (only the source changes), as a replay would be.
  std::mt19937_64 rng(12345);
  proto::PacketWriter w;
  proto::DatagramBuffer spoof_buf;
  proto::ConnectToken spoof_token = mint(proto::random_u64());
  if (spoof_kind == "forged") {
    for (auto& b : spoof_token.sealed) b = uint8_t(rng());
    // A forgery that looks the part: magic, an expiry within token_max_ahead and a not-before time
    // of now, so that it passes every check before the seal (random times would mostly be dropped as
    // too early or too far ahead, and the flood would never reach the decryption it means to load).
    // A replayed token is left as minted: rewriting its times a second later would break its seal.
    for (int i = 0; i < 4; ++i) spoof_token.sealed[i] = "FHT3"[i];
    proto::put_u64(spoof_token.sealed.data() + 4, unix_now() + 600);
    proto::put_u64(spoof_token.sealed.data() + 12, unix_now());
  }
  const auto spoof_view = proto::frame_clear(w.connect_request(spoof_token.sealed, proto::random_u64()), spoof_buf);
  const std::vector<uint8_t> spoof(spoof_view.begin(), spoof_view.end());

  const int raw = ::socket(AF_INET, SOCK_DGRAM, 0);
  int one = 1;
  ::setsockopt(raw, SOL_IP, IP_FREEBIND, &one, sizeof one);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(server.port());
  const auto server_bytes = server.address().to_v4().to_bytes();
  std::memcpy(&to.sin_addr, server_bytes.data(), 4);

  proto::DatagramBuffer tx;
  uint64_t sequence = 0;
  const auto t0 = std::chrono::steady_clock::now();
  uint64_t inputs_sent = 0, spoofed_sent = 0, spoof_errors = 0;
  while (true) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (elapsed >= duration) break;
    while (inputs_sent < uint64_t(elapsed * input_rate)) {
      const InputCmd in = encode_move(1, 0, 0, ++tick);
      std::array<uint8_t, 64> message{};
      const auto bytes = proto::seal_session(
          keys.send, ++sequence, proto::write_inputs({0, in.tick, false}, std::span<const InputCmd>(&in, 1), message), tx,
          proto::Payload::kCompact);
      asio::error_code ec;
      client.send_to(asio::buffer(bytes.data(), bytes.size()), server, 0, ec);
      ++inputs_sent;
    }
    while (spoofed_sent < uint64_t(elapsed * spoof_rate)) {
      // Each datagram from a random 127/8 address and port: the source is set per datagram.
      alignas(cmsghdr) char control[CMSG_SPACE(sizeof(in_pktinfo))] = {};
      iovec iov{const_cast<uint8_t*>(spoof.data()), spoof.size()};
      msghdr msg{};
      msg.msg_name = &to;
      msg.msg_namelen = sizeof to;
      msg.msg_iov = &iov;
      msg.msg_iovlen = 1;
      msg.msg_control = control;
      msg.msg_controllen = sizeof control;
      cmsghdr* c = CMSG_FIRSTHDR(&msg);
      c->cmsg_level = IPPROTO_IP;
      c->cmsg_type = IP_PKTINFO;
      c->cmsg_len = CMSG_LEN(sizeof(in_pktinfo));
      in_pktinfo info{};
      const uint32_t source = 0x7f000000u | uint32_t(rng() & 0xffffff);
      info.ipi_spec_dst.s_addr = htonl(source == 0x7f000001u ? 0x7f000002u : source);
      std::memcpy(CMSG_DATA(c), &info, sizeof info);
      if (::sendmsg(raw, &msg, 0) < 0) ++spoof_errors;
      ++spoofed_sent;
    }
    // Only the over-rate client's socket is emptied: the spoofed sources have no sockets.
    server::drain_socket(client, 256, [](const proto::Endpoint&, std::span<const uint8_t>) {});
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("flood: %llu spoofed %s connect requests (%.0f/s, %llu send errors), %llu input packets (%.0f/s) in %.1f s\n",
              static_cast<unsigned long long>(spoofed_sent), spoof_kind.c_str(), double(spoofed_sent) / secs,
              static_cast<unsigned long long>(spoof_errors), static_cast<unsigned long long>(inputs_sent),
              double(inputs_sent) / secs, secs);
  std::printf("spoofed=%llu spoofed_per_s=%.0f spoof_errors=%llu inputs=%llu seconds=%.1f\n",
              static_cast<unsigned long long>(spoofed_sent), double(spoofed_sent) / secs,
              static_cast<unsigned long long>(spoof_errors), static_cast<unsigned long long>(inputs_sent), secs);
  return spoof_errors > spoofed_sent / 100 ? 1 : 0;
}
