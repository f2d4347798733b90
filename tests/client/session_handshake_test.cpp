// The client's side of the handshake against a server played by hand: it takes only replies bound to
// the request it sent (a Reject that an attacker's Connect earned does not end its handshake), starts
// a new attempt on BadCookie, derives its keys from the server's random, and never lets a peer's text
// reach a terminal as it came.

#include <algorithm>

#include <gtest/gtest.h>

#include "proto/cookie_layout.h"
#include "proto/handshake.h"
#include "support/scenario_support.h"
#include "support/sim_harness.h"

namespace foothold::test {
namespace {

using client::ClientSession;

struct Capture : client::ServerSink {
  void send(std::span<const uint8_t> bytes) override { sent.emplace_back(bytes.begin(), bytes.end()); }
  std::vector<std::vector<uint8_t>> sent;
};

struct Still : client::InputSource {
  InputCmd next(uint32_t tick, const CharacterState&) override { return encode_move(0, 0, 0, tick); }
};

bool printable_ascii(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c <= 0x7e; });
}

// The server's side, by hand: reads what the client sent and seals replies as a server would.
struct HandServer {
  proto::ConnectToken token;
  proto::PacketWriter w;
  proto::DatagramBuffer rx, tx;
  std::vector<uint8_t> cookie = [] {
    const auto b = proto::write_cookie({123, 0x5a5a5a5a5a5a5a5aull, {}});
    return std::vector<uint8_t>(b.begin(), b.end());
  }();

  const proto::fb::Packet* clear(const std::vector<uint8_t>& datagram) {
    const auto d = proto::decode(proto::unframe_clear(datagram, rx), proto::Direction::kToServer, proto::Layer::kClear);
    return d.ok() ? d.message.packet : nullptr;
  }
  std::vector<uint8_t> reply(uint64_t salt, const proto::RequestTag& answers, std::span<const uint8_t> packet) {
    const auto b = proto::seal_reply(token.server_to_client, salt, answers, packet, tx);
    return {b.begin(), b.end()};
  }
  std::vector<uint8_t> challenge(uint64_t salt) { return reply(salt, proto::kNoRequestTag, w.challenge(cookie)); }
};

struct Handshake {
  SimHarness h{arena_world(), HarnessOptions{}};
  Capture sink;
  HandServer server;
  std::unique_ptr<ClientSession> session;
  uint64_t salt = 0;
  Handshake() {
    server.token = h.mint(1);
    client::SessionOptions o;
    o.connect_timeout = 5 * proto::kSecond;
    session = std::make_unique<ClientSession>(arena_world(), MoveSettings{}, sink, server.token, o);
    session->start(0);
  }
  // Answers the newest ConnectRequest with a Challenge; returns the Connect the client sent.
  const proto::fb::Connect* challenge() {
    const proto::fb::Packet* p = server.clear(sink.sent.back());
    EXPECT_TRUE(p && p->body_type() == proto::fb::Body::ConnectRequest);
    if (!p || p->body_type() != proto::fb::Body::ConnectRequest) return nullptr;
    salt = p->body_as_ConnectRequest()->client_salt();
    session->on_datagram(proto::kMillisecond, server.challenge(salt));
    EXPECT_EQ(session->phase(), ClientSession::Phase::kConnecting);
    p = server.clear(sink.sent.back());
    return p && p->body_type() == proto::fb::Body::Connect ? p->body_as_Connect() : nullptr;
  }
};

TEST(ClientHandshake, ARejectBoundToAnotherConnectIsIgnored) {
  Handshake hs;
  const proto::fb::Connect* connect = hs.challenge();
  ASSERT_NE(connect, nullptr);
  const proto::RequestTag mine = proto::request_tag(proto::bytes_of(connect->proof()));
  // What the server answers an attacker's Connect with the victim's token and salt and a proof of its
  // own: sealed under the victim's token key, to the victim's salt, but bound to that other proof.
  const auto other_proof = proto::seal_proof(proto::Key{}, hs.server.cookie, 1, 2);
  for (const auto& answers : {proto::request_tag(other_proof), proto::kNoRequestTag}) {
    hs.session->on_datagram(2 * proto::kMillisecond,
                            hs.server.reply(hs.salt, answers, hs.server.w.reject(proto::fb::RejectReason::BadCookie, "x")));
    EXPECT_EQ(hs.session->phase(), ClientSession::Phase::kConnecting);
  }
  EXPECT_EQ(hs.session->stats().unauthenticated, 2u);
  // The real verdict, bound to our Connect, is taken.
  hs.session->on_datagram(3 * proto::kMillisecond,
                          hs.server.reply(hs.salt, mine, hs.server.w.reject(proto::fb::RejectReason::ServerFull, "full")));
  EXPECT_EQ(hs.session->phase(), ClientSession::Phase::kRejected);
  EXPECT_EQ(hs.session->reject_reason(), proto::fb::RejectReason::ServerFull);
}

TEST(ClientHandshake, TheConnectIsResentAsItWasSoEveryReplyNamesIt) {
  Handshake hs;
  ASSERT_NE(hs.challenge(), nullptr);
  const auto first = hs.sink.sent.back();
  Still still;
  hs.session->update(400 * proto::kMillisecond, still);
  ASSERT_GE(hs.sink.sent.size(), 3u);
  EXPECT_EQ(hs.sink.sent.back(), first) << "the same proof, so a reply to either copy opens";
}

TEST(ClientHandshake, BadCookieStartsAFreshAttemptWithANewSalt) {
  Handshake hs;
  std::vector<uint64_t> salts;
  for (int attempt = 1; attempt <= ClientSession::kMaxAttempts; ++attempt) {
    const proto::fb::Connect* connect = hs.challenge();
    ASSERT_NE(connect, nullptr);
    salts.push_back(hs.salt);
    const auto tag = proto::request_tag(proto::bytes_of(connect->proof()));
    hs.session->on_datagram(4 * proto::kMillisecond,
                            hs.server.reply(hs.salt, tag, hs.server.w.reject(proto::fb::RejectReason::BadCookie, "expired")));
    if (attempt < ClientSession::kMaxAttempts) {
      ASSERT_EQ(hs.session->phase(), ClientSession::Phase::kRequesting) << "attempt " << attempt;
      const proto::fb::Packet* p = hs.server.clear(hs.sink.sent.back());
      ASSERT_TRUE(p && p->body_type() == proto::fb::Body::ConnectRequest);
      EXPECT_NE(p->body_as_ConnectRequest()->client_salt(), hs.salt) << "a fresh salt";
    }
  }
  // It does not loop for ever: after kMaxAttempts it reports the server's word.
  EXPECT_EQ(hs.session->phase(), ClientSession::Phase::kRejected);
  EXPECT_EQ(hs.session->reject_reason(), proto::fb::RejectReason::BadCookie);
  std::sort(salts.begin(), salts.end());
  EXPECT_EQ(std::unique(salts.begin(), salts.end()), salts.end());
}

TEST(ClientHandshake, TheAcceptGivesKeysFromTheServersRandom) {
  Handshake hs;
  const proto::fb::Connect* connect = hs.challenge();
  ASSERT_NE(connect, nullptr);
  const auto proof = proto::bytes_of(connect->proof());
  const proto::ConnectAttempt attempt = proto::connect_attempt(hs.salt, hs.server.cookie, proof);
  const proto::ServerRandom random = proto::random_server_contribution();
  // An Accept bound to another attempt (a replay from an earlier one) is ignored.
  const auto old_tag = proto::request_tag(proto::seal_proof(proto::Key{}, hs.server.cookie, 1, 2));
  const auto accept = hs.server.w.accept(7, 100, 60, 1, CharacterState{}, random);
  const std::vector<uint8_t> accept_packet(accept.begin(), accept.end());
  hs.session->on_datagram(5 * proto::kMillisecond, hs.server.reply(hs.salt, old_tag, accept_packet));
  EXPECT_EQ(hs.session->phase(), ClientSession::Phase::kConnecting);
  hs.session->on_datagram(6 * proto::kMillisecond, hs.server.reply(hs.salt, attempt.connect, accept_packet));
  ASSERT_EQ(hs.session->phase(), ClientSession::Phase::kConnected);
  EXPECT_EQ(hs.session->character_id(), 7u);
  const proto::SessionKeys server = proto::server_session_keys(
      hs.server.token.client_to_server, hs.server.token.server_to_client,
      {hs.salt, attempt.server_salt, attempt.connect, random});
  EXPECT_EQ(hs.session->session_keys().send, server.receive);
  EXPECT_EQ(hs.session->session_keys().receive, server.send);
}

TEST(ClientHandshake, APeersTextReachesNoTerminalAsItCame) {
  // A sealed Reject's message and a clear version hint, both with escape sequences and newlines that
  // would rewrite a terminal or forge log lines.
  const std::string nasty = "\x1b[2J\x1b[H\nall bots connected OK\r\n\x07\x1b]0;pwned\x07" + std::string(300, 'z');
  {
    Handshake hs;
    const proto::fb::Connect* connect = hs.challenge();
    ASSERT_NE(connect, nullptr);
    const auto tag = proto::request_tag(proto::bytes_of(connect->proof()));
    hs.session->on_datagram(2 * proto::kMillisecond,
                            hs.server.reply(hs.salt, tag, hs.server.w.reject(proto::fb::RejectReason::ServerFull, nasty)));
    ASSERT_EQ(hs.session->phase(), ClientSession::Phase::kRejected);
    EXPECT_TRUE(printable_ascii(hs.session->reason_text())) << hs.session->reason_text();
    EXPECT_LE(hs.session->reason_text().size(), proto::kMaxRejectMessage);
    EXPECT_NE(hs.session->reason_text().find("all bots connected OK"), std::string::npos) << "the text itself is kept";
  }
  {
    Handshake hs;
    proto::PacketWriter w;
    proto::DatagramBuffer b;
    const auto hint = proto::frame_clear(w.reject(proto::fb::RejectReason::VersionMismatch, nasty), b);
    hs.session->on_datagram(proto::kMillisecond, hint);
    Still still;
    for (proto::Nanos t = 0; t <= 6 * proto::kSecond; t += 100 * proto::kMillisecond) hs.session->update(t, still);
    ASSERT_EQ(hs.session->phase(), ClientSession::Phase::kFailed);
    EXPECT_TRUE(printable_ascii(hs.session->reason_text())) << hs.session->reason_text();
    EXPECT_NE(hs.session->reason_text().find("unauthenticated"), std::string::npos);
    EXPECT_EQ(hs.session->end_reason(), client::EndReason::kVersionMismatch)
        << "no authenticated answer after the hint: the code says what the server said";
  }
}

}  // namespace
}  // namespace foothold::test
