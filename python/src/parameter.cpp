// What ember.nn needs of the Tensor class: a constructor from a tensor (so that the Python
// subclass ember.nn.Parameter can be built around one), `data` assignment (Module.to() converts
// parameters in place, keeping the Parameter objects) and the in-place random fills nn.init uses.
#include "common.h"

namespace ember::python {

void init_parameter(nb::class_<Tensor>& cls) {
  // Shares `data`'s TensorImpl, as a C++ Tensor copy does.
  cls.def(nb::init<const Tensor&>(), "data"_a);
  cls.def_prop_rw(
      "data", [](const Tensor& t) { return t.detach(); },
      [](nb::handle self, const Tensor& value) {
        Tensor* t = nb::inst_ptr<Tensor>(self);
        bool requires_grad = t->requires_grad();
        Tensor replaced = value.detach();
        if (requires_grad) replaced.requires_grad_(true);
        *t = replaced;
      });
  cls.def(
      "uniform_",
      [](nb::handle self, double from, double to) {
        const Tensor& t = nb::cast<const Tensor&>(self);
        {
          nb::gil_scoped_release release;
          t.uniform_(from, to);
        }
        return nb::borrow(self);
      },
      "from_"_a = 0.0, "to"_a = 1.0);
  cls.def(
      "normal_",
      [](nb::handle self, double mean, double std) {
        const Tensor& t = nb::cast<const Tensor&>(self);
        {
          nb::gil_scoped_release release;
          t.normal_(mean, std);
        }
        return nb::borrow(self);
      },
      "mean"_a = 0.0, "std"_a = 1.0);
}

}  // namespace ember::python
