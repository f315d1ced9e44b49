#pragma once
// The names ops have in the profiler ("ember::exp", "ember::add", "ember::sum"), made from the
// enum names of kernel_math/ops_list.h, so a new op is named without touching the profiler.
#include "kernel_math/ops_list.h"

namespace ember::profiler::detail {

const char* op_name(UnaryOp op);
const char* op_name(BinaryOp op);
const char* op_name(ReduceOp op);

}  // namespace ember::profiler::detail
