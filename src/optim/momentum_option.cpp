// Reading and writing a group's momentum (or beta1) by its option name.
#include "momentum_option.h"

#include <map>

namespace ember::optim::detail {

std::string momentum_name(const OptimizerOptions& options) {
  for (const auto& [name, value] : options.values()) {
    if (name == "momentum" || name == "beta1") return name;
  }
  return "";
}

double get_momentum(const OptimizerOptions& options, const std::string& name) {
  for (const auto& [key, value] : options.values()) {
    if (key == name) return value;
  }
  EMBER_CHECK(false, ValueError, options.type_name(), " has no option ", name);
  return 0;
}

void set_momentum(OptimizerOptions& options, const std::string& name, double value) {
  std::map<std::string, double> values;
  for (const auto& [key, v] : options.values()) values[key] = v;
  values[name] = value;
  options.set_values(values);
}

}  // namespace ember::optim::detail
