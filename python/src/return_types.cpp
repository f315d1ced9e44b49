// How ops that return several tensors hand them to Python: a tuple (split, chunk, nonzero's
// as_tuple), or a (values, indices) pair as ember.return_types.<name> (max(dim), sort, topk).
#include "common.h"

namespace ember::python {
namespace {

PyObject* g_return_types = nullptr;  // ember.return_types.make, set by ember/__init__.py

}  // namespace

nb::object values_indices(const char* name, std::tuple<Tensor, Tensor> r) {
  nb::object v = nb::cast(std::get<0>(r)), i = nb::cast(std::get<1>(r));
  if (!g_return_types) return nb::make_tuple(v, i);
  return nb::borrow(g_return_types)(name, v, i);
}

nb::tuple tuple_of(std::vector<Tensor> ts) {
  nb::list out;
  for (Tensor& t : ts) out.append(nb::cast(std::move(t)));
  return nb::tuple(out);
}

void init_return_types(nb::module_& m) {
  m.def("_set_return_types", [](nb::handle f) { g_return_types = f.ptr(); });
}

}  // namespace ember::python
