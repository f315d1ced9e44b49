#pragma once
// Names as PyTorch's Python shows them, where libtorch's C++ differs (for the Python bindings).
#include <string>

#include "ember/macros.h"

namespace ember::detail {

// A grad_fn's name. libtorch's follow the C++ overload (`x + 2` is add(Tensor, Scalar):
// AddBackward1); Python wraps the number in a tensor first (AddBackward0).
EMBER_API std::string python_node_name(const std::string& cpp_name);

}  // namespace ember::detail
