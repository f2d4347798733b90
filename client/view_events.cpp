#include "client/view_events.h"

#include <algorithm>

namespace foothold::client {

void ViewEvents::update(const proto::RemoteView& before, const proto::RemoteView& now, std::span<const uint32_t> gone,
                        uint32_t tick) {
  // Both ascending by id: one walk finds the ids either lacks.
  std::size_t b = 0, n = 0;
  while (b < before.size() || n < now.size()) {
    if (n == now.size() || (b < before.size() && before[b].id < now[n].id)) {
      const bool left_match = std::binary_search(gone.begin(), gone.end(), before[b].id);
      push({left_match ? ViewEvent::Kind::kLeftMatch : ViewEvent::Kind::kLeftView, before[b].id, before[b].client_id,
            tick, before[b].npc});
      ++b;
    } else if (b == before.size() || now[n].id < before[b].id) {
      push({ViewEvent::Kind::kAppeared, now[n].id, now[n].client_id, tick, now[n].npc});
      ++n;
    } else {
      ++b;
      ++n;
    }
  }
}

void ViewEvents::push(const ViewEvent& e) {
  if (size_ == ring_.size()) {
    head_ = (head_ + 1) % ring_.size();
    --size_;
    ++dropped_;
  }
  ring_[(head_ + size_) % ring_.size()] = e;
  ++size_;
}

bool ViewEvents::take(ViewEvent& out) {
  if (size_ == 0) return false;
  out = ring_[head_];
  head_ = (head_ + 1) % ring_.size();
  --size_;
  return true;
}

}  // namespace foothold::client
