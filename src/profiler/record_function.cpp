// torch.profiler.record_function: a named range, nothing when no profile records.
#include "ember/profiler.h"
#include "profiler/range.h"

namespace ember::profiler {

record_function::record_function(const std::string& name) {
  if (detail::enabled()) range_ = std::make_unique<detail::Range>(name, EventKind::UserAnnotation);
}

record_function::~record_function() = default;

void record_function::end() {
  range_.reset();
}

bool is_enabled() {
  return detail::enabled();
}

}  // namespace ember::profiler
