#pragma once
// A loss's reduction (ember::Reduction::None / Mean / Sum), shared by the loss files.
#include "ember/error.h"
#include "ember/nn/enum.h"
#include "ember/tensor.h"

namespace ember::nn::detail {

inline Tensor reduce(const Tensor& loss, int64_t reduction, const char* op) {
  switch (reduction) {
    case Reduction::None:
      return loss;
    case Reduction::Mean:
      return loss.mean();
    case Reduction::Sum:
      return loss.sum();
    default:
      throw ValueError(::ember::detail::str_cat(
          op, "(): reduction must be None (0), Mean (1) or Sum (2), got ", reduction));
  }
}

}  // namespace ember::nn::detail
