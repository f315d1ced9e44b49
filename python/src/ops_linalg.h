#pragma once
// The linalg bindings span four files: ops_linalg.cpp (products, triangles, the LU and Cholesky
// functions), ops_linalg_decompositions.cpp (qr, eigh, svd, the public LU functions),
// ops_linalg_functions.cpp (norms, pinv, matrix_rank, matrix_exp, cholesky_solve) and
// ops_linalg_composites.cpp (cross, diagonal, matmul, matrix_power, multi_dot, vecdot, vander,
// tensorinv, tensorsolve, cond). `linalg` is ember._C._linalg, which ember/linalg.py re-exports.
#include "common.h"

namespace ember::python {

void init_linalg_decompositions(nb::module_& m, nb::module_& linalg, nb::class_<Tensor>& cls);
void init_linalg_functions(nb::module_& m, nb::module_& linalg, nb::class_<Tensor>& cls);
void init_linalg_composites(nb::module_& linalg);

}  // namespace ember::python
