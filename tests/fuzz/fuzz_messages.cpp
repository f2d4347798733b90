// libFuzzer: the message layer's reassembly (proto/message_channel.h) from untrusted bytes. The input
// is a run of records, each a length byte and that many bytes: read as a block of fragments by a
// receiver (with small limits, so the window, the message cap and the held-bytes cap are all
// reached), or, when the length byte's top bit is set, as an acknowledgement to a sender holding a
// few messages. Nothing may crash; the receiver never holds more than its cap, never delivers a
// message over the cap or an empty one, and after a violation the input is done with (the session
// would end).

#include <cstdint>
#include <span>
#include <vector>

#include "proto/message_channel.h"

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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
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
