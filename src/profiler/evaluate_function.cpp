// Backward nodes as ranges (see evaluate_function.h).
#include "profiler/evaluate_function.h"

#include "profiler/range.h"

namespace ember::profiler::detail {

void EvaluateFunctionRange::open(const autograd::Node& node) {
  range_ =
      new Range("autograd::engine::evaluate_function: " + node.name(), EventKind::UserAnnotation);
}

EvaluateFunctionRange::~EvaluateFunctionRange() {
  delete range_;
}

}  // namespace ember::profiler::detail
