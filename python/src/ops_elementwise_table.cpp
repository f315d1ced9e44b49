// The uniform elementwise ops, bound from the rows of ember/op_table.h: a row added there is an
// ember.name function, a Tensor.name method and, where the row has one, Tensor.name_, with no
// line here. The names bound are listed in ember._C.op_table_unary and op_table_binary (the tests
// compare each against PyTorch). The irregular elementwise ops are in ops_elementwise.cpp.
#include "common.h"

namespace ember::python {
namespace {

using RG = nb::call_guard<nb::gil_scoped_release>;
using UnaryFn = Tensor (*)(const Tensor&);
using BinaryFn = Tensor (*)(const Tensor&, const Tensor&);
using BinaryScalarFn = Tensor (*)(const Tensor&, const Scalar&);
using UnaryMethod = Tensor (Tensor::*)() const;
using BinaryMethod = Tensor (Tensor::*)(const Tensor&) const;
using BinaryScalarMethod = Tensor (Tensor::*)(const Scalar&) const;

}  // namespace

void init_ops_elementwise_table(nb::module_& m, nb::class_<Tensor>& cls) {
  nb::list unary, binary;
  // clang-format off
#define EMBER_PY_UNARY(name, Prim, method, inplace_flag)                                       \
  m.def(#name, static_cast<UnaryFn>(&ember::name), "input"_a, RG());                           \
  EMBER_OP_IF(method, cls.def(#name, static_cast<UnaryMethod>(&Tensor::name), RG());)          \
  EMBER_OP_IF(inplace_flag, cls.def(#name "_", inplace_method<Tensor& (Tensor::*)() const>(    \
                                                   &Tensor::name##_));)                        \
  unary.append(#name);
#define EMBER_PY_BINARY(name, Prim, scalar, inplace_flag)                                      \
  m.def(#name, static_cast<BinaryFn>(&ember::name), "input"_a, "other"_a, RG());               \
  EMBER_OP_IF(scalar, m.def(#name, static_cast<BinaryScalarFn>(&ember::name), "input"_a,       \
                            "other"_a, RG());)                                                 \
  cls.def(#name, static_cast<BinaryMethod>(&Tensor::name), "other"_a, RG());                   \
  EMBER_OP_IF(scalar, cls.def(#name, static_cast<BinaryScalarMethod>(&Tensor::name), "other"_a, \
                              RG());)                                                          \
  EMBER_OP_IF(inplace_flag,                                                                    \
              cls.def(#name "_", inplace_method<Tensor& (Tensor::*)(const Tensor&) const,      \
                                                const Tensor&>(&Tensor::name##_));)            \
  EMBER_OP_IF(inplace_flag, EMBER_OP_IF(scalar,                                                \
              cls.def(#name "_", inplace_method<Tensor& (Tensor::*)(const Scalar&) const,      \
                                                const Scalar&>(&Tensor::name##_));))           \
  binary.append(#name);
#define EMBER_PY_ALIAS(alias, target, method, inplace_flag)                                    \
  m.def(#alias, static_cast<UnaryFn>(&ember::alias), "input"_a, RG());                         \
  EMBER_OP_IF(method, cls.def(#alias, static_cast<UnaryMethod>(&Tensor::alias), RG());)        \
  EMBER_OP_IF(inplace_flag, cls.def(#alias "_", inplace_method<Tensor& (Tensor::*)() const>(   \
                                                    &Tensor::alias##_));)                      \
  unary.append(#alias);
  EMBER_OP_TABLE_UNARY(EMBER_PY_UNARY)
  EMBER_OP_TABLE_BINARY(EMBER_PY_BINARY)
  EMBER_OP_TABLE_UNARY_ALIASES(EMBER_PY_ALIAS)
#undef EMBER_PY_UNARY
#undef EMBER_PY_BINARY
#undef EMBER_PY_ALIAS
  // clang-format on
  m.attr("op_table_unary") = nb::tuple(unary);
  m.attr("op_table_binary") = nb::tuple(binary);
}

}  // namespace ember::python
