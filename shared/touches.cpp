#include "shared/touches.h"

namespace foothold {

void TouchList::add(const Touch& touch) {
  int pos = 0;
  while (pos < count_ && items_[size_t(pos)].triangle < touch.triangle) ++pos;
  if (pos < count_ && items_[size_t(pos)].triangle == touch.triangle) {
    items_[size_t(pos)].floor |= touch.floor;
    items_[size_t(pos)].blocked |= touch.blocked;
    return;
  }
  if (count_ == kCapacity) {
    ++dropped_;
    if (pos == kCapacity) return;  // the highest index of all: it is the one dropped
    --count_;                      // drop the last (highest index) to make room
  }
  for (int i = count_; i > pos; --i) items_[size_t(i)] = items_[size_t(i - 1)];
  items_[size_t(pos)] = touch;
  ++count_;
}

}  // namespace foothold
