// use_deterministic_algorithms: a process-wide switch read by the kernels that accumulate with
// float atomics, whose sums depend on the order the hardware applies them.
#include <atomic>
#include <cstdio>
#include <mutex>
#include <set>

#include "ember/backends.h"
#include "ember/error.h"

namespace ember {
namespace {
std::atomic<bool> g_deterministic{false};
std::atomic<bool> g_warn_only{false};
}  // namespace

void use_deterministic_algorithms(bool mode, bool warn_only) {
  g_deterministic.store(mode);
  g_warn_only.store(warn_only);
}
bool are_deterministic_algorithms_enabled() {
  return g_deterministic.load();
}
bool is_deterministic_algorithms_warn_only_enabled() {
  return g_warn_only.load();
}

namespace detail {
void alert_not_deterministic(const std::string& caller) {
  if (!g_deterministic.load()) return;
  const std::string message =
      caller +
      " does not have a deterministic implementation, but you set "
      "'use_deterministic_algorithms(True)'. You can turn off determinism just for this "
      "operation, or you can use the 'warn_only=True' option, if that's acceptable for your "
      "application.";
  if (!g_warn_only.load()) throw Error(message);
  // Warn once per caller, as PyTorch's TORCH_WARN_ONCE does, so a training loop is not flooded.
  static std::mutex mutex;
  static std::set<std::string> warned;
  std::lock_guard<std::mutex> lock(mutex);
  if (warned.insert(caller).second) std::fprintf(stderr, "UserWarning: %s\n", message.c_str());
}
}  // namespace detail

}  // namespace ember
