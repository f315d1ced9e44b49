// The attached listener (see listener.h) and what backend_for() hands out while one listens.
#include "core/listener.h"

#include "core/backend.h"

namespace ember {
namespace audit {

std::atomic<Listener*> g_listener{nullptr};

void attach_listener(Listener* l) {
  g_listener.store(l, std::memory_order_release);
}

}  // namespace audit

Backend& recording_backend(Backend& b) {
  audit::Listener* l = audit::listener();
  return l ? l->wrap_backend(b) : b;
}

}  // namespace ember
