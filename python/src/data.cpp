// What ember.utils.data needs of the tensor: index_select (a TensorDataset batch in one call per
// tensor), pin_memory/is_pinned (DataLoader(pin_memory=True)) and randperm.
#include "common.h"

namespace ember::python {

void init_data(nb::module_& m, nb::class_<Tensor>& cls) {
  using RG = nb::call_guard<nb::gil_scoped_release>;
  cls.def(
         "index_select",
         [](const Tensor& t, int64_t dim, const Tensor& index) {
           return t.index_select(dim, index);
         },
         "dim"_a, "index"_a, RG())
      .def("pin_memory", &Tensor::pin_memory, RG())
      .def("is_pinned", &Tensor::is_pinned);
  m.def(
      "index_select",
      [](const Tensor& t, int64_t dim, const Tensor& index) { return t.index_select(dim, index); },
      "input"_a, "dim"_a, "index"_a, RG());
  m.def(
      "randperm",
      [](int64_t n, nb::handle dtype, nb::handle device, bool requires_grad) {
        TensorOptions o = options_from(dtype, device, requires_grad);
        if (dtype.is_none()) o = o.dtype(kLong);
        nb::gil_scoped_release release;
        return randperm(n, o);
      },
      "n"_a, nb::kw_only(), "dtype"_a = nb::none(), "device"_a = nb::none(),
      "requires_grad"_a = false);
}

}  // namespace ember::python
