// Argument checks of the collectives, with messages that name the values.
#include "distributed/tensor_checks.h"

namespace ember::distributed {

const Tensor& single_tensor(const std::vector<Tensor>& tensors, const char* op) {
  EMBER_CHECK(tensors.size() == 1, ValueError, op, ": expected a list of exactly 1 tensor, got ",
              tensors.size(), " (one tensor per process: use one process per device)");
  return tensors[0];
}

void check_collective_tensor(const Tensor& t, const char* op, const char* what) {
  EMBER_CHECK(t.defined(), ValueError, op, ": the ", what, " is undefined");
  EMBER_CHECK(t.is_contiguous(), ValueError, op, ": the ", what, " must be contiguous (sizes ",
              t.sizes(), ", strides ", t.strides(), "); call .contiguous() first");
}

void check_same_layout(const Tensor& t, const Tensor& like, const char* op, const char* what) {
  check_collective_tensor(t, op, what);
  EMBER_CHECK(t.dtype() == like.dtype() && t.sizes() == like.sizes() && t.device() == like.device(),
              ValueError, op, ": the ", what, " must have the input's dtype, shape and device (",
              to_string(like.dtype()), " ", like.sizes(), " on ", like.device(), "), got ",
              to_string(t.dtype()), " ", t.sizes(), " on ", t.device());
}

void check_reduce_dtype(const Tensor& t, ReduceOp op, const char* op_name) {
  EMBER_CHECK(op != ReduceOp::AVG || is_floating_point(t.dtype()), TypeError, op_name,
              ": ReduceOp::AVG needs a floating-point tensor, got ", to_string(t.dtype()));
}

void check_peer_rank(int peer, int rank, int size, const char* op, const char* what) {
  EMBER_CHECK(peer >= 0 && peer < size, ValueError, op, ": ", what, " rank ", peer,
              " is out of range for a group of size ", size, " (ranks 0..", size - 1, ")");
  EMBER_CHECK(peer != rank, ValueError, op, ": ", what, " rank ", peer,
              " is this process's own rank");
}

}  // namespace ember::distributed
