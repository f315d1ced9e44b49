#pragma once
// The range of one backward node while a profile records, named as PyTorch's profiler names it
// ("autograd::engine::evaluate_function: MulBackward0"), so backward ops are grouped by the node
// that ran them. One relaxed load otherwise.
#include "ember/autograd.h"
#include "profiler/session.h"

namespace ember::profiler::detail {

class Range;

class EvaluateFunctionRange {
 public:
  explicit EvaluateFunctionRange(const autograd::Node& node) {
    if (enabled()) open(node);
  }
  ~EvaluateFunctionRange();
  EvaluateFunctionRange(const EvaluateFunctionRange&) = delete;
  EvaluateFunctionRange& operator=(const EvaluateFunctionRange&) = delete;

 private:
  void open(const autograd::Node& node);
  Range* range_ = nullptr;  // owned; raw so that this inline constructor needs no ~Range
};

}  // namespace ember::profiler::detail
