#pragma once
// How nn error messages name a layer: by its one-line printout without the namespace, e.g.
// "Linear(in_features=784, out_features=256, bias=true)".
#include <sstream>
#include <string>

#include "ember/nn/module.h"

namespace ember::nn::detail {

inline std::string describe(const Module& m) {
  std::ostringstream os;
  m.pretty_print(os);
  std::string s = os.str();
  const std::string prefix = "ember::nn::";
  return s.compare(0, prefix.size(), prefix) == 0 ? s.substr(prefix.size()) : s;
}

}  // namespace ember::nn::detail
