// Built without oneDNN: no direct convolutions. has_convolution() says no, so the front end
// composes im2col and a GEMM and the two families are never called.
#include "cpu/dnnl_convolution.h"
#include "ember/error.h"

namespace ember::cpu {

bool dnnl_convolution_available() {
  return false;
}

void dnnl_convolution(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Window&,
                      int64_t) {
  throw Error(
      "convolution: this build of Ember has no oneDNN (EMBER_DNNL); has_convolution() is "
      "false and the front end composes im2col and a GEMM instead");
}

void dnnl_convolution_backward(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                               const Tensor&, const Tensor&, const Window&, int64_t) {
  throw Error("convolution_backward: this build of Ember has no oneDNN (EMBER_DNNL)");
}

std::string dnnl_convolution_kernel(const Tensor&, const Tensor&, const Window&, int64_t) {
  return "";
}

}  // namespace ember::cpu
