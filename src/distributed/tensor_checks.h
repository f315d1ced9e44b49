#pragma once
// Argument checks shared by the backends; they run on the calling thread, so a bad argument is a
// synchronous ValueError/TypeError, never a failed Work.
#include <string>
#include <vector>

#include "ember/distributed/reduce_op.h"
#include "ember/tensor.h"

namespace ember::distributed {

// The single tensor of a c10d-style list (multi-device lists are not supported).
const Tensor& single_tensor(const std::vector<Tensor>& tensors, const char* op);
// Defined and contiguous.
void check_collective_tensor(const Tensor& t, const char* op, const char* what = "tensor");
// Same dtype, shape and device as `like`.
void check_same_layout(const Tensor& t, const Tensor& like, const char* op, const char* what);
// AVG needs a floating dtype; bool supports SUM/MAX (or) and PRODUCT/MIN (and).
void check_reduce_dtype(const Tensor& t, ReduceOp op, const char* op_name);
void check_peer_rank(int peer, int rank, int size, const char* op, const char* what);

}  // namespace ember::distributed
