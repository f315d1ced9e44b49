#pragma once
// torch.distributed.ReduceOp: how all_reduce and reduce_scatter combine the ranks' tensors.
#include <string>

namespace ember::distributed {

enum class ReduceOp { SUM, AVG, PRODUCT, MIN, MAX };

inline const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM:
      return "SUM";
    case ReduceOp::AVG:
      return "AVG";
    case ReduceOp::PRODUCT:
      return "PRODUCT";
    case ReduceOp::MIN:
      return "MIN";
    case ReduceOp::MAX:
      return "MAX";
  }
  return "?";
}

}  // namespace ember::distributed
