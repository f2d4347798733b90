#pragma once
// A first-in, first-out queue whose slots are kept: popping leaves the element in its slot, and
// pushing hands back a slot with whatever it held before, so that elements owning buffers (a
// message's bytes) keep their capacity from use to use. Once it has grown to the most it ever held,
// a ring of such elements allocates nothing: what the message layer's "no allocation per frame"
// rests on (std::deque frees and allocates its blocks as it moves).

#include <cstddef>
#include <utility>
#include <vector>

namespace foothold::proto {

template <typename T>
class Ring {
 public:
  bool empty() const { return count_ == 0; }
  std::size_t size() const { return count_; }
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
    ++count_;
    return slot;
  }
  /// Drops the oldest element; its slot keeps it, to be handed out again by push().
  void pop_front() {
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
  std::vector<T> slots_;
  std::size_t head_ = 0, count_ = 0;
};

}  // namespace foothold::proto
