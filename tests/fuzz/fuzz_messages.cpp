// libFuzzer: the message layer's reassembly (proto/message_channel.h) from untrusted bytes. The input
// is a run of records, each a length byte and that many bytes: read as a block of fragments by a
// receiver (with small limits, so the window, the message cap and the held-bytes cap are all
// reached), or, when the length byte's top bit is set, as an acknowledgement to a sender holding a
// few messages. Nothing may crash; the receiver never holds more than its cap, never delivers a
// message over the cap or an empty one, and after a violation the input is done with (the session
// would end).
//
// The same records are then read a second way: each as a whole message section
// (proto/message_endpoint.h: flags, acknowledgement, reliable and unreliable blocks) handed to a
// MessageEndpoint, with time moving on between them; its bytes held stay within its caps, and every
// message it hands over is within its channel's size.

#include <cstdint>
#include <span>
#include <vector>

#include "proto/message_channel.h"
#include "proto/message_endpoint.h"

namespace {

using namespace foothold::proto;

MessageLimits limits() {
  MessageLimits l;
  l.max_message = 600;
  l.queue_bytes = 2000;
  l.fragment = 200;
  l.window = 16;
  return l;
}

// The records as message sections to an endpoint with small limits.
void sections(const uint8_t* data, std::size_t size) {
  MessageConfig config;
  config.limits = limits();
  config.limits.overflow_is_violation = (size & 1) != 0;
  config.unreliable_queue = 1500;
  MessageEndpoint endpoint(config);
  for (int i = 0; i < 2; ++i) endpoint.send(Channel::kReliable, std::vector<uint8_t>(450, 3));
  std::vector<uint8_t> out(300);
  ReceivedMessage m;
  Nanos now = 0;
  std::size_t at = 0;
  while (at < size) {
    const uint8_t head = data[at++];
    const std::size_t n = std::min<std::size_t>(head, size - at);
    now += 5 * kMillisecond;
    const Violation v = endpoint.on_section(now, {data + at, n});
    at += n;
    // Held: at most two windows of fragments (the receiver's floor) and the unreliable cap, each way.
    if (endpoint.held_bytes() > 2 * std::size_t(config.limits.window) * config.limits.fragment + 2 * 1500) __builtin_trap();
    while (endpoint.receive(m))
      if (m.bytes.empty() || m.bytes.size() > (m.channel == Channel::kReliable ? config.limits.max_message : kMaxUnreliableMessage))
        __builtin_trap();
    if (v != Violation::kNone) return;
    endpoint.write_section(now, out);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  sections(data, size);
  const MessageLimits l = limits();
  ReliableReceiver receiver(l);
  ReliableSender sender(l);
  const std::vector<uint8_t> message(450, 7);
  for (int i = 0; i < 3; ++i) sender.send(message);
  std::vector<uint8_t> out(400);
  sender.write(0, 1, out);
  std::vector<uint8_t> got;
  std::size_t at = 0;
  while (at < size) {
    const uint8_t head = data[at++];
    const std::size_t n = std::min<std::size_t>(head & 0x7f, size - at);
    const std::span<const uint8_t> record(data + at, n);
    at += n;
    if (head & 0x80) {
      MessageAck ack;
      if (read_ack(record, ack) && sender.on_ack(ack) != Violation::kNone) break;
      if (sender.queued_bytes() > l.queue_bytes) __builtin_trap();
      continue;
    }
    const Violation v = read_fragments(record, [&](const Fragment& f) { return receiver.on_fragment(f); });
    if (receiver.held_bytes() > l.queue_bytes) __builtin_trap();
    while (receiver.receive(got))
      if (got.empty() || got.size() > l.max_message) __builtin_trap();
    if (v != Violation::kNone) break;
    const MessageAck a = receiver.ack();
    if ((a.beyond >> (l.window - 1)) != 0) __builtin_trap();  // never past the window
  }
  return 0;
}
