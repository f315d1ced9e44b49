// Python's operators on ember.Tensor: arithmetic, modulo, power and bitwise operators with tensors
// and Python numbers (reflected and in place), comparisons, -x, +x, ~x, abs(x) and a @ b. Each
// runs its op without the GIL; the ops themselves are bound in their families' files.
#include "common.h"

namespace ember::python {
namespace {

using RG = nb::call_guard<nb::gil_scoped_release>;
using T = const Tensor&;
using S = const Scalar&;

}  // namespace

void init_ops_operators(nb::class_<Tensor>& cls) {
  cls.def(
         "__add__", [](T a, T b) { return a + b; }, RG())
      .def(
          "__add__", [](T a, S b) { return a + b; }, RG())
      .def(
          "__radd__", [](T a, S b) { return b + a; }, RG())
      .def(
          "__sub__", [](T a, T b) { return a - b; }, RG())
      .def(
          "__sub__", [](T a, S b) { return a - b; }, RG())
      .def(
          "__rsub__", [](T a, S b) { return b - a; }, RG())
      .def(
          "__mul__", [](T a, T b) { return a * b; }, RG())
      .def(
          "__mul__", [](T a, S b) { return a * b; }, RG())
      .def(
          "__rmul__", [](T a, S b) { return b * a; }, RG())
      .def(
          "__truediv__", [](T a, T b) { return a / b; }, RG())
      .def(
          "__truediv__", [](T a, S b) { return a / b; }, RG())
      .def(
          "__rtruediv__", [](T a, S b) { return b / a; }, RG())
      .def(
          "__floordiv__", [](T a, T b) { return floor_divide(a, b); }, RG())
      .def(
          "__floordiv__", [](T a, S b) { return floor_divide(a, b); }, RG())
      .def(
          "__mod__", [](T a, T b) { return a % b; }, RG())
      .def(
          "__mod__", [](T a, S b) { return a % b; }, RG())
      .def(
          "__rmod__", [](T a, S b) { return b % a; }, RG())
      .def(
          "__pow__", [](T a, T b) { return pow(a, b); }, RG())
      .def(
          "__pow__", [](T a, S b) { return pow(a, b); }, RG())
      .def(
          "__rpow__", [](T a, S b) { return pow(b, a); }, RG())
      .def(
          "__matmul__", [](T a, T b) { return matmul(a, b); }, RG())
      .def(
          "__and__", [](T a, T b) { return a & b; }, RG())
      .def(
          "__and__", [](T a, S b) { return a & b; }, RG())
      .def(
          "__or__", [](T a, T b) { return a | b; }, RG())
      .def(
          "__or__", [](T a, S b) { return a | b; }, RG())
      .def(
          "__xor__", [](T a, T b) { return a ^ b; }, RG())
      .def(
          "__xor__", [](T a, S b) { return a ^ b; }, RG())
      .def(
          "__invert__", [](T a) { return bitwise_not(a); }, RG())
      .def(
          "__neg__", [](T a) { return neg(a); }, RG())
      .def("__pos__", [](T a) { return a; })
      .def(
          "__abs__", [](T a) { return abs(a); }, RG())
      .def(
          "__eq__", [](T a, T b) { return eq(a, b); }, RG())
      .def(
          "__eq__", [](T a, S b) { return eq(a, b); }, RG())
      .def(
          "__ne__", [](T a, T b) { return ne(a, b); }, RG())
      .def(
          "__ne__", [](T a, S b) { return ne(a, b); }, RG())
      .def(
          "__lt__", [](T a, T b) { return lt(a, b); }, RG())
      .def(
          "__lt__", [](T a, S b) { return lt(a, b); }, RG())
      .def(
          "__le__", [](T a, T b) { return le(a, b); }, RG())
      .def(
          "__le__", [](T a, S b) { return le(a, b); }, RG())
      .def(
          "__gt__", [](T a, T b) { return gt(a, b); }, RG())
      .def(
          "__gt__", [](T a, S b) { return gt(a, b); }, RG())
      .def(
          "__ge__", [](T a, T b) { return ge(a, b); }, RG())
      .def(
          "__ge__", [](T a, S b) { return ge(a, b); }, RG())
      .def("__iadd__", [](nb::handle s, T b) { return inplace(s, [&](T a) { a.add_(b); }); })
      .def("__iadd__", [](nb::handle s, S b) { return inplace(s, [&](T a) { a.add_(b); }); })
      .def("__isub__", [](nb::handle s, T b) { return inplace(s, [&](T a) { a.sub_(b); }); })
      .def("__isub__", [](nb::handle s, S b) { return inplace(s, [&](T a) { a.sub_(b); }); })
      .def("__imul__", [](nb::handle s, T b) { return inplace(s, [&](T a) { a.mul_(b); }); })
      .def("__imul__", [](nb::handle s, S b) { return inplace(s, [&](T a) { a.mul_(b); }); })
      .def("__itruediv__", [](nb::handle s, T b) { return inplace(s, [&](T a) { a.div_(b); }); })
      .def("__itruediv__", [](nb::handle s, S b) { return inplace(s, [&](T a) { a.div_(b); }); });
}

}  // namespace ember::python
