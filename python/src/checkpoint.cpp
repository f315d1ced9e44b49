// ember._C._checkpoint: ember.utils.checkpoint over the C++ ember::utils::checkpoint. The Python
// function is kept by the graph node (PyRef: dropped with the GIL on whatever thread frees it)
// and called with the GIL taken, in the forward and again in the backward's recomputation.
#include "ember/utils/checkpoint.h"
#include "common.h"
#include "py_ref.h"

namespace ember::python {

void init_checkpoint(nb::module_& parent) {
  nb::module_ m = parent.def_submodule("_checkpoint", "ember.utils.checkpoint's compiled half");
  m.def(
      "checkpoint",
      [](nb::callable function, const autograd::variable_list& inputs, bool preserve_rng_state) {
        auto ref = std::make_shared<PyRef>(function);
        const utils::CheckpointFunction call = [ref](const autograd::variable_list& in) {
          nb::gil_scoped_acquire gil;
          return nb::cast<autograd::variable_list>(nb::borrow<nb::callable>(ref->get())(in));
        };
        nb::gil_scoped_release release;  // the backward may run on an engine thread
        return utils::checkpoint(call, inputs, preserve_rng_state);
      },
      "function"_a, "inputs"_a, "preserve_rng_state"_a = true);
}

}  // namespace ember::python
