#pragma once
// The linalg bindings span three files: ops_linalg.cpp (products, triangles, the LU and Cholesky
// functions), ops_linalg_decompositions.cpp (qr, eigh, svd) and ops_linalg_functions.cpp (norms,
// pinv, matrix_rank, matrix_exp, cholesky_solve). `linalg` is ember._C._linalg, which
// ember/linalg.py re-exports.
#include "common.h"

namespace ember::python {

void init_linalg_decompositions(nb::module_& m, nb::module_& linalg, nb::class_<Tensor>& cls);
void init_linalg_functions(nb::module_& m, nb::module_& linalg, nb::class_<Tensor>& cls);

}  // namespace ember::python
