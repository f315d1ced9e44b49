// Backward nodes as ranges (see evaluate_function.h).
#include "profiler/evaluate_function.h"

#include "profiler/range.h"
#include "profiler/session.h"

namespace ember::profiler::detail {

void* begin_node_range(const autograd::Node& node) {
  if (!enabled()) return nullptr;
  return new Range("autograd::engine::evaluate_function: " + node.name(),
                   EventKind::UserAnnotation);
}

void end_node_range(void* range) {
  delete static_cast<Range*>(range);
}

}  // namespace ember::profiler::detail
