#pragma once
// The names torch.save's pickle uses for tensors: storage classes and dtypes, both ways.
#include <string>

#include "ember/dtype.h"

namespace ember::pt_format {

// "FloatStorage" -> kFloat; false for a name Ember has no dtype for.
bool storage_dtype(const std::string& storage_class, ScalarType& out);
const char* storage_class(ScalarType t);
// "float32" (and aliases such as "float", "half") -> kFloat ...; false otherwise.
bool dtype_from_name(const std::string& name, ScalarType& out);
const char* dtype_name(ScalarType t);  // PyTorch's canonical name: "float32", "bfloat16", ...

// The limits of the reader, whatever the file says.
constexpr uint64_t kMaxPickleBytes = 512ull << 20;
constexpr int kMaxTensorDims = 64;

}  // namespace ember::pt_format
