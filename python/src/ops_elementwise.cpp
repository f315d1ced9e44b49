// The elementwise ops whose signature the op table (ops_elementwise_table.cpp) cannot say: add and
// sub with alpha, clamp and its alias clip with optional bounds, where with a condition, and the
// three-operand lerp, addcmul and addcdiv. Each is
// ember.f(input, ...) and Tensor.f(...), and Tensor.f_(...) where PyTorch has one; kernels run
// without the GIL.
#include "common.h"

namespace ember::python {
namespace {

using RG = nb::call_guard<nb::gil_scoped_release>;
using T = const Tensor&;
using S = const Scalar&;

void def_add_sub(nb::module_& m, nb::class_<Tensor>& cls) {
  m.def(
      "add", [](T a, T b, S alpha) { return add(a, b, alpha); }, "input"_a, "other"_a,
      nb::kw_only(), "alpha"_a = 1, RG());
  m.def(
      "add", [](T a, S b, S alpha) { return add(a, b, alpha); }, "input"_a, "other"_a,
      nb::kw_only(), "alpha"_a = 1, RG());
  m.def(
      "sub", [](T a, T b, S alpha) { return sub(a, b, alpha); }, "input"_a, "other"_a,
      nb::kw_only(), "alpha"_a = 1, RG());
  m.def(
      "sub", [](T a, S b, S alpha) { return sub(a, b, alpha); }, "input"_a, "other"_a,
      nb::kw_only(), "alpha"_a = 1, RG());
  cls.def(
         "add", [](T a, T b, S alpha) { return a.add(b, alpha); }, "other"_a, nb::kw_only(),
         "alpha"_a = 1, RG())
      .def(
          "add", [](T a, S b, S alpha) { return a.add(b, alpha); }, "other"_a, nb::kw_only(),
          "alpha"_a = 1, RG())
      .def(
          "sub", [](T a, T b, S alpha) { return a.sub(b, alpha); }, "other"_a, nb::kw_only(),
          "alpha"_a = 1, RG())
      .def(
          "sub", [](T a, S b, S alpha) { return a.sub(b, alpha); }, "other"_a, nb::kw_only(),
          "alpha"_a = 1, RG())
      .def(
          "add_",
          [](nb::handle s, T b, S alpha) { return inplace(s, [&](T a) { a.add_(b, alpha); }); },
          "other"_a, nb::kw_only(), "alpha"_a = 1)
      .def(
          "add_",
          [](nb::handle s, S b, S alpha) { return inplace(s, [&](T a) { a.add_(b, alpha); }); },
          "other"_a, nb::kw_only(), "alpha"_a = 1)
      .def(
          "sub_",
          [](nb::handle s, T b, S alpha) { return inplace(s, [&](T a) { a.sub_(b, alpha); }); },
          "other"_a, nb::kw_only(), "alpha"_a = 1)
      .def(
          "sub_",
          [](nb::handle s, S b, S alpha) { return inplace(s, [&](T a) { a.sub_(b, alpha); }); },
          "other"_a, nb::kw_only(), "alpha"_a = 1);
}

// clip is PyTorch's alias of clamp; clamp_ and clip_ write in place.
void def_clamp(nb::module_& m, nb::class_<Tensor>& cls) {
  both(
      m, cls, "clamp",
      [](T t, std::optional<Scalar> min, std::optional<Scalar> max) { return t.clamp(min, max); },
      "min"_a = nb::none(), "max"_a = nb::none(), RG());
  auto clamp_args = [] { return std::make_tuple("min"_a = nb::none(), "max"_a = nb::none()); };
  auto clamp_ = [](nb::handle s, std::optional<Scalar> lo, std::optional<Scalar> hi) {
    return inplace(s, [&](T t) { t.clamp_(lo, hi); });
  };
  std::apply(
      [&](auto... a) {
        both(
            m, cls, "clip",
            [](T t, std::optional<Scalar> lo, std::optional<Scalar> hi) {
              return clamp(t, lo, hi);
            },
            a..., RG());
        cls.def("clamp_", clamp_, a...);
        cls.def("clip_", clamp_, a...);
      },
      clamp_args());
}

// ember.where(condition, input, other) and input.where(condition, other).
void def_where(nb::module_& m, nb::class_<Tensor>& cls) {
  m.def(
      "where", [](T c, T a, T b) { return where(c, a, b); }, RG());
  m.def(
      "where", [](T c, T a, S b) { return where(c, a, b); }, RG());
  m.def(
      "where", [](T c, S a, T b) { return where(c, a, b); }, RG());
  cls.def(
         "where", [](T t, T condition, T other) { return where(condition, t, other); },
         "condition"_a, "other"_a, RG())
      .def(
          "where", [](T t, T condition, S other) { return where(condition, t, other); },
          "condition"_a, "other"_a, RG());
}

// lerp, addcmul and addcdiv (three operands), and their in-place forms: the result written back
// through copy_ (EMA updates call ema.lerp_(param, 1 - decay)).
void def_ternary(nb::module_& m, nb::class_<Tensor>& cls) {
  m.def(
      "lerp", [](T a, T b, T w) { return lerp(a, b, w); }, "input"_a, "end"_a, "weight"_a, RG());
  m.def(
      "lerp", [](T a, T b, S w) { return lerp(a, b, w); }, "input"_a, "end"_a, "weight"_a, RG());
  cls.def(
         "lerp", [](T a, T b, S w) { return a.lerp(b, w); }, "end"_a, "weight"_a, RG())
      .def(
          "lerp", [](T a, T b, T w) { return a.lerp(b, w); }, "end"_a, "weight"_a, RG())
      .def(
          "lerp_",
          [](nb::handle s, T b, S w) { return inplace(s, [&](T t) { t.copy_(t.lerp(b, w)); }); },
          "end"_a, "weight"_a)
      .def(
          "lerp_",
          [](nb::handle s, T b, T w) { return inplace(s, [&](T t) { t.copy_(t.lerp(b, w)); }); },
          "end"_a, "weight"_a);
  both(
      m, cls, "addcmul", [](T a, T b, T c, S v) { return addcmul(a, b, c, v); }, "tensor1"_a,
      "tensor2"_a, nb::kw_only(), "value"_a = 1, RG());
  both(
      m, cls, "addcdiv", [](T a, T b, T c, S v) { return addcdiv(a, b, c, v); }, "tensor1"_a,
      "tensor2"_a, nb::kw_only(), "value"_a = 1, RG());
  cls.def(
         "addcmul_",
         [](nb::handle s, T b, T c, S v) {
           return inplace(s, [&](T t) { t.copy_(addcmul(t, b, c, v)); });
         },
         "tensor1"_a, "tensor2"_a, nb::kw_only(), "value"_a = 1)
      .def(
          "addcdiv_",
          [](nb::handle s, T b, T c, S v) {
            return inplace(s, [&](T t) { t.copy_(addcdiv(t, b, c, v)); });
          },
          "tensor1"_a, "tensor2"_a, nb::kw_only(), "value"_a = 1);
}

}  // namespace

void init_ops_elementwise(nb::module_& m, nb::class_<Tensor>& cls) {
  def_ternary(m, cls);
  def_add_sub(m, cls);
  def_clamp(m, cls);
  def_where(m, cls);
}

}  // namespace ember::python
