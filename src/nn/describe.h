#pragma once
// How nn error messages name a layer: by its one-line printout, e.g.
// "Linear(in_features=784, out_features=256, bias=true)".
#include <sstream>
#include <string>

#include "ember/nn/module.h"

namespace ember::nn::detail {

inline std::string describe(const Module& m) {
  std::ostringstream os;
  m.pretty_print(os);
  return os.str();
}

}  // namespace ember::nn::detail
