// ember._C._nn_utils: nn::utils's parameters_to_vector / vector_to_parameters for ember.nn.utils.
#include "common.h"
#include "ember/nn/utils/convert_parameters.h"

namespace ember::python {

void init_nn_utils(nb::module_& parent) {
  nb::module_ m = parent.def_submodule("_nn_utils", "ember.nn.utils' compiled half");
  m.def("parameters_to_vector", &nn::utils::parameters_to_vector, "parameters"_a);
  m.def("vector_to_parameters", &nn::utils::vector_to_parameters, "vec"_a, "parameters"_a);
}

}  // namespace ember::python
