// parameters_to_vector / vector_to_parameters with libtorch's checks: one device for every
// parameter (PyTorch's message), and a vector that is 1-D and exactly as long as the parameters.
#include "ember/nn/utils/convert_parameters.h"

#include "ember/autograd.h"
#include "ember/ops.h"

namespace ember::nn::utils {
namespace {

void check_same_device(const std::vector<Tensor>& parameters) {
  for (const Tensor& p : parameters) {
    EMBER_CHECK(p.device() == parameters.front().device(), DeviceError,
                "Found two parameters on different devices, this is currently not supported. (",
                parameters.front().device().str(), " and ", p.device().str(), ")");
  }
}

}  // namespace

Tensor parameters_to_vector(const std::vector<Tensor>& parameters) {
  EMBER_CHECK(!parameters.empty(), ValueError, "parameters_to_vector: no parameters given");
  check_same_device(parameters);
  std::vector<Tensor> flat;
  flat.reserve(parameters.size());
  for (const Tensor& p : parameters) flat.push_back(p.reshape({-1}));
  return cat(flat);
}

void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters) {
  EMBER_CHECK(vec.dim() == 1, ValueError, "vector_to_parameters: expected a 1-D vector, got shape ",
              vec.sizes());
  check_same_device(parameters);
  int64_t total = 0;
  for (const Tensor& p : parameters) total += p.numel();
  EMBER_CHECK(total == vec.numel(), ValueError, "vector_to_parameters: the vector has ",
              vec.numel(), " elements but the parameters have ", total);
  NoGradGuard no_grad;
  int64_t offset = 0;
  for (const Tensor& p : parameters) {
    p.copy_(vec.slice(0, offset, offset + p.numel()).view(p.sizes()));
    offset += p.numel();
  }
}

}  // namespace ember::nn::utils
