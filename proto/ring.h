#pragma once
// A first-in, first-out queue whose slots are kept: popping leaves the element in its slot, and
// pushing hands back a slot with whatever it held before, so that elements owning buffers (a
// message's bytes) keep their capacity from use to use. Once it has grown to the most it ever held,
// a ring of such elements allocates nothing: what the message layer's "no allocation per frame"
// rests on (std::deque frees and allocates its blocks as it moves).
//
// What an emptied slot keeps is bounded (issue #63: a burst of tiny messages grew a ring to 16,384
// slots, then every 64 KiB message left its 64 KiB buffer behind in one, about 1 GiB a session): a
// slot keeps a buffer of at most RingBounds::keep bytes, and all emptied slots together at most
// RingBounds::keep_total; a buffer over either is freed as its slot empties. So the memory a ring
// holds beyond its live elements' bytes is at most 2 x keep_total plus its slots (a buffer taken
// from an emptied slot for a smaller element holds at most what the emptied slots held), and the
// owner bounds the slots by the number of elements it lets in (kMessageSlotBytes in
// message_channel.h).

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace foothold::proto {

/// What a ring's emptied slots may keep.
struct RingBounds {
  std::size_t keep = 1024;             ///< bytes of buffer one emptied slot keeps at most
  std::size_t keep_total = 64 * 1024;  ///< bytes of buffer all emptied slots keep at most together
};

/// The buffer an element of a Ring owns: the element itself for a byte vector; element types that
/// hold a buffer beside other fields give their own overload (found by argument-dependent lookup).
inline std::vector<uint8_t>& ring_buffer(std::vector<uint8_t>& bytes) { return bytes; }

template <typename T>
class Ring {
 public:
  explicit Ring(const RingBounds& bounds = {}) : bounds_(bounds) {}

  bool empty() const { return count_ == 0; }
  std::size_t size() const { return count_; }
  /// Slots allocated (a test's and a figure's measure).
  std::size_t slots() const { return slots_.size(); }
  /// Bytes of buffer the emptied slots keep now (at most RingBounds::keep_total).
  std::size_t kept_bytes() const { return kept_; }
  /// Bytes of memory the ring holds: its slots and every slot's buffer, live or kept.
  std::size_t memory_bytes() {
    std::size_t n = slots_.capacity() * sizeof(T);
    for (T& slot : slots_) n += ring_buffer(slot).capacity();
    return n;
  }
  /// The oldest element.
  T& front() { return slots_[head_]; }
  const T& front() const { return slots_[head_]; }
  /// The i-th oldest element.
  const T& operator[](std::size_t i) const { return slots_[(head_ + i) % slots_.size()]; }
  /// A slot at the back, holding what it held before (or a default T): the caller overwrites it,
  /// reusing its capacity. Doubles the slots when full (moving the elements, buffers and all).
  T& push() {
    if (count_ == slots_.size()) grow();
    T& slot = slots_[(head_ + count_) % slots_.size()];
    kept_ -= ring_buffer(slot).capacity();  // in use again: no longer kept
    ++count_;
    return slot;
  }
  /// Drops the oldest element; its slot keeps its buffer, to be handed out again by push(), if the
  /// bounds allow, and frees it otherwise.
  void pop_front() {
    std::vector<uint8_t>& buffer = ring_buffer(slots_[head_]);
    buffer.clear();
    if (buffer.capacity() > bounds_.keep || kept_ + buffer.capacity() > bounds_.keep_total)
      std::vector<uint8_t>().swap(buffer);
    kept_ += buffer.capacity();
    head_ = (head_ + 1) % slots_.size();
    --count_;
  }

 private:
  void grow() {
    std::vector<T> bigger(slots_.empty() ? 4 : 2 * slots_.size());
    for (std::size_t i = 0; i < slots_.size(); ++i) bigger[i] = std::move(slots_[(head_ + i) % slots_.size()]);
    slots_ = std::move(bigger);
    head_ = 0;
  }
  RingBounds bounds_;
  std::vector<T> slots_;
  std::size_t head_ = 0, count_ = 0;
  std::size_t kept_ = 0;  // capacity of the buffers in emptied slots
};

}  // namespace foothold::proto
