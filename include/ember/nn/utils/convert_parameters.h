#pragma once
// Flattening parameters to one vector and back (libtorch's torch::nn::utils::parameters_to_vector
// and vector_to_parameters), for optimizers and analyses that treat a model as one vector.
#include <vector>

#include "ember/tensor.h"

namespace ember::nn::utils {

// The parameters' values, each flattened, concatenated in order (one device for all).
EMBER_API Tensor parameters_to_vector(const std::vector<Tensor>& parameters);

// Copies consecutive slices of the 1-D `vec` into the parameters (shapes in order; vec must have
// exactly as many elements as they have together). PyTorch makes each parameter a view of vec;
// Ember copies, so later writes to vec do not reach the parameters.
EMBER_API void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters);

}  // namespace ember::nn::utils
