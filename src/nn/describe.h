#pragma once
// How nn error messages and printouts name things: by its one-line printout without the namespace,
// e.g. "Linear(in_features=784, out_features=256, bias=true)".
#include <sstream>
#include <string>

#include "ember/nn/enum.h"
#include "ember/nn/module.h"

namespace ember::nn::detail {

inline std::string describe(const Module& m) {
  std::ostringstream os;
  m.pretty_print(os);
  std::string s = os.str();
  const std::string prefix = "ember::nn::";
  return s.compare(0, prefix.size(), prefix) == 0 ? s.substr(prefix.size()) : s;
}

// How libtorch prints an option's enum value: kReflect for ember::kReflect ("reflect").
template <typename... Tags>
std::string printed_enum_name(const std::variant<Tags...>& v) {
  std::string name = enum_name(v);
  name[0] = static_cast<char>(name[0] - 'a' + 'A');
  return "k" + name;
}

}  // namespace ember::nn::detail
