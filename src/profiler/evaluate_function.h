#pragma once
// The range of one backward node while a profile records, named as PyTorch's profiler names it
// ("autograd::engine::evaluate_function: MulBackward0"), so backward ops are grouped by the node
// that ran them. The autograd engine opens it through the attached listener (core/listener.h).
#include "ember/autograd.h"

namespace ember::profiler::detail {

// The node's range (an owned Range*), or null when the profiler is off.
void* begin_node_range(const autograd::Node& node);
void end_node_range(void* range);

}  // namespace ember::profiler::detail
