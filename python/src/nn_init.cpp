// ember._C._nn_init: the initialisers of ember.nn.init whose C++ form is more than a one-line
// draw (trunc_normal_, dirac_, orthogonal_, sparse_), so both languages share one implementation.
#include "common.h"
#include "ember/nn/init.h"

namespace ember::python {
namespace {
using RG = nb::call_guard<nb::gil_scoped_release>;
}  // namespace

void init_nn_init(nb::module_& parent) {
  nb::module_ m = parent.def_submodule("_nn_init", "ember.nn.init's compiled half");
  namespace init = nn::init;
  m.def("trunc_normal_", &init::trunc_normal_, "tensor"_a, "mean"_a, "std"_a, "a"_a, "b"_a, RG());
  m.def("dirac_", &init::dirac_, "tensor"_a, "groups"_a, RG());
  m.def("orthogonal_", &init::orthogonal_, "tensor"_a, "gain"_a, RG());
  m.def("sparse_", &init::sparse_, "tensor"_a, "sparsity"_a, "std"_a, RG());
}

}  // namespace ember::python
