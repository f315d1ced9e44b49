// linalg::vector_norm, matrix_norm and norm (include/ember/linalg.h) with PyTorch 1.13's
// arguments, checks and messages. Each is composed of ember ops (abs, pow, sum, amax, amin, the
// 2-norm of ember::norm, and svdvals for the spectral and nuclear norms), so autograd gives the
// gradients, twice as well, with no backward of its own. Where PyTorch's backward sets a 0/0 to 0
// (a zero vector, a zero element under a power below 1), the composition keeps the zeros out of
// the differentiated branch with `where`, so the gradient there is 0 as in PyTorch, not NaN.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "core/tensor_factory.h"
#include "ember/linalg.h"
#include "ember/ops.h"
#include "ops/linalg_helpers.h"

namespace ember::linalg {
namespace {

using linalg_helpers::is_16bit;

// "0 1 1", as ATen prints a std::vector in matrix_norm's message.
std::string spaced(IntArrayRef dims) {
  std::string s;
  for (int64_t d : dims) s += (s.empty() ? "" : " ") + std::to_string(d);
  return s;
}

// "[0, 1, 2]", as ATen prints an IntArrayRef.
std::string bracketed(IntArrayRef dims) {
  std::string s;
  for (int64_t d : dims) s += (s.empty() ? "" : ", ") + std::to_string(d);
  return "[" + s + "]";
}

void check_floating(const Tensor& x, const char* op) {
  EMBER_CHECK(is_floating_point(x.scalar_type()), TypeError, op,
              ": Expected a floating point or complex tensor as input. Got ", x.scalar_type());
}

// PyTorch's check_linalg_norm_dtype: a floating dtype the input widens to.
void check_dtype(std::optional<ScalarType> dtype, ScalarType input, const char* op) {
  if (!dtype) return;
  EMBER_CHECK(is_floating_point(*dtype), TypeError, op,
              ": dtype should be floating point or complex, but got ", *dtype);
  EMBER_CHECK(promote_types(input, *dtype) == *dtype, TypeError, op, ": the dtype of the input (",
              input, ") should be convertible without narrowing to the specified dtype (", *dtype,
              ")");
}

// The dims wrapped, every dim when none are given, each at most once.
std::vector<int64_t> reduced_dims(const Tensor& x, IntArrayRef dim) {
  std::vector<int64_t> dims;
  if (dim.empty()) {
    dims.resize(x.dim());
    std::iota(dims.begin(), dims.end(), 0);
    return dims;
  }
  for (int64_t d : dim) {
    const int64_t w = wrap_dim(d, x.dim());
    EMBER_CHECK(std::find(dims.begin(), dims.end(), w) == dims.end(), ValueError, "dim ", w,
                " appears multiple times in the list of dims");
    dims.push_back(w);
  }
  return dims;
}

// sum |x|^ord over dims, to the power 1/ord, for an ord that is not 0, 1, 2 or +-inf. Zero
// elements are held out of pow (its derivative there is 0 * inf for ord < 1), and a zero sum out
// of the root (its derivative is inf for ord > 1): both give PyTorch's zero gradient.
Tensor power_norm(const Tensor& x, double ord, IntArrayRef dims, bool keepdim) {
  const Tensor ax = ember::abs(x);
  const Tensor zero = ax.eq(0);
  const double at_zero = ord > 0 ? 0.0 : std::numeric_limits<double>::infinity();
  const Tensor powed = where(zero, at_zero, ember::pow(where(zero, 1.0, ax), ord));
  const Tensor s = ember::sum(powed, dims, keepdim);
  if (ord < 0) return ember::pow(s, 1.0 / ord);  // s > 0: inf where an element is 0, root 0
  const Tensor empty = s.eq(0);
  return where(empty, 0.0, ember::pow(where(empty, 1.0, s), 1.0 / ord));
}

// The matrix dims checked and wrapped (PyTorch's _linalg_matrix_norm_checks).
std::vector<int64_t> matrix_dims(const Tensor& A, IntArrayRef dim,
                                 std::optional<ScalarType> dtype) {
  EMBER_CHECK(A.dim() >= 2, ValueError,
              "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
  check_floating(A, "linalg.matrix_norm");
  EMBER_CHECK(dim.size() == 2, ValueError, "linalg.matrix_norm: dim must be a 2-tuple. Got ",
              spaced(dim));
  std::vector<int64_t> dims = {wrap_dim(dim[0], A.dim()), wrap_dim(dim[1], A.dim())};
  EMBER_CHECK(dims[0] != dims[1], ValueError, "linalg.matrix_norm: dims must be different. Got (",
              dims[0], ", ", dims[1], ")");
  check_dtype(dtype, A.scalar_type(), "linalg.matrix_norm");
  return dims;
}

// The largest or smallest (ord 2, -2) or the sum ("nuc") of the singular values of the matrices
// over dims, which are moved to the end for svdvals. 16-bit input (PyTorch refuses it) runs in
// float32.
Tensor singular_value_norm(const Tensor& A, std::vector<int64_t> dims, double ord, bool keepdim,
                           std::optional<ScalarType> dtype) {
  Tensor x = dtype ? A.to(*dtype) : A;
  const ScalarType out_type = x.scalar_type();
  if (is_16bit(x)) x = x.to(kFloat);
  std::vector<int64_t> order;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (d != dims[0] && d != dims[1]) order.push_back(d);
  }
  order.push_back(dims[0]);
  order.push_back(dims[1]);
  const Tensor S = linalg::svdvals(x.permute(order));
  Tensor r = ord == 0 ? S.sum({-1}) : ord > 0 ? S.amax({-1}) : S.amin({-1});
  if (keepdim) {
    std::sort(dims.begin(), dims.end());
    r = r.unsqueeze(dims[0]).unsqueeze(dims[1]);
  }
  return r.to(out_type);
}

}  // namespace

Tensor vector_norm(const Tensor& x, const Scalar& ord_scalar, IntArrayRef dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  check_floating(x, "linalg.vector_norm");
  check_dtype(dtype, x.scalar_type(), "linalg.vector_norm");
  const double ord = ord_scalar.toDouble();
  const std::vector<int64_t> dims = reduced_dims(x, dim);
  if (x.numel() == 0) {
    // No identity for the minimum, nor for the maximum over an empty dim (PyTorch's #52783).
    const bool no_identity = ord < 0 || (std::isinf(ord) && dim.empty());
    EMBER_CHECK(!no_identity, ValueError, "linalg.vector_norm cannot compute the ", ord,
                " norm on an empty tensor because the operation does not have an identity");
    for (int64_t d : dim) {
      EMBER_CHECK(!std::isinf(ord) || x.size(d) != 0, ValueError,
                  "linalg.vector_norm cannot compute the ", ord, " norm on the dimension ", d,
                  "because this dimension is empty and the operation does not have an identity");
    }
  }
  const ScalarType out_type = dtype.value_or(x.scalar_type());
  // 16-bit input accumulates in float32, as PyTorch's reduction does.
  const Tensor a = x.to(is_16bit(x) && out_type != kDouble ? kFloat : out_type);
  // Every reduced dim of size 1: the norm is |x| (x != 0 for ord 0), as PyTorch takes it, with
  // abs's gradient.
  const bool single = x.numel() > 0 && std::all_of(dims.begin(), dims.end(),
                                                   [&](int64_t d) { return x.size(d) == 1; });
  Tensor r;
  if (single) {
    r = ord == 0 ? a.ne(0).to(a.scalar_type()) : ember::abs(a);
    if (!keepdim) {
      std::vector<int64_t> shape;
      for (int64_t d = 0; d < a.dim(); ++d) {
        if (std::find(dims.begin(), dims.end(), d) == dims.end()) shape.push_back(a.size(d));
      }
      r = r.reshape(shape);
    }
  } else if (ord == 2) {
    r = ember::norm(a, 2.0, dims, keepdim);  // its backward is 0 at a zero vector
  } else if (std::isinf(ord)) {
    r = ord > 0 ? ember::abs(a).amax(dims, keepdim) : ember::abs(a).amin(dims, keepdim);
  } else if (ord == 0) {
    r = a.ne(0).sum(dims, keepdim, a.scalar_type());  // no gradient, as PyTorch's
  } else if (ord == 1) {
    r = ember::abs(a).sum(dims, keepdim);
  } else {
    r = power_norm(a, ord, dims, keepdim);
  }
  return r.to(out_type);
}

Tensor matrix_norm(const Tensor& A, const Scalar& ord_scalar, IntArrayRef dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  const double ord = ord_scalar.toDouble();
  const double abs_ord = std::abs(ord);
  EMBER_CHECK(abs_ord == 2 || abs_ord == 1 || std::isinf(abs_ord), ValueError,
              "linalg.matrix_norm: Order ", ord, " not supported.");
  std::vector<int64_t> dims = matrix_dims(A, dim, dtype);
  if (abs_ord == 2) return singular_value_norm(A, dims, ord, keepdim, dtype);
  // ord 1: the largest (-1: smallest) column sum, the vector 1-norm over dim[0] then the max over
  // dim[1]; inf swaps the dims (row sums).
  if (std::isinf(ord)) std::swap(dims[0], dims[1]);
  if (!keepdim && dims[0] < dims[1]) --dims[1];
  const Tensor sums = vector_norm(A, 1, {dims[0]}, keepdim, dtype);
  return ord > 0 ? sums.amax({dims[1]}, keepdim) : sums.amin({dims[1]}, keepdim);
}

Tensor matrix_norm(const Tensor& A, std::string_view ord, IntArrayRef dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  EMBER_CHECK(ord == "fro" || ord == "nuc", ValueError, "linalg.matrix_norm: Order ", ord,
              " not supported.");
  const std::vector<int64_t> dims = matrix_dims(A, dim, dtype);
  if (ord == "fro") return vector_norm(A, 2, dims, keepdim, dtype);
  return singular_value_norm(A, dims, 0, keepdim, dtype);
}

Tensor norm(const Tensor& A, const std::optional<Scalar>& ord, IntArrayRef dim, bool keepdim,
            std::optional<ScalarType> dtype) {
  if (!dim.empty()) {
    EMBER_CHECK(dim.size() == 1 || dim.size() == 2, ValueError,
                "linalg.norm: If dim is specified, it must be of length 1 or 2. Got ",
                bracketed(dim));
  } else if (ord) {
    EMBER_CHECK(A.dim() == 1 || A.dim() == 2, ValueError,
                "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                "Got ",
                A.dim(), "D.");
  }
  // ord unset: the 2-norm, which is also the Frobenius norm, through vector_norm.
  if (ord && (dim.size() == 2 || (dim.empty() && A.dim() == 2))) {
    const std::vector<int64_t> both = {0, 1};
    return matrix_norm(A, *ord, dim.empty() ? IntArrayRef(both) : dim, keepdim, dtype);
  }
  return vector_norm(A, ord.value_or(Scalar(2.0)), dim, keepdim, dtype);
}

Tensor norm(const Tensor& A, std::string_view ord, IntArrayRef dim, bool keepdim,
            std::optional<ScalarType> dtype) {
  // "it mut be": PyTorch 1.13's own spelling in this overload's message.
  if (!dim.empty()) {
    EMBER_CHECK(dim.size() == 1 || dim.size() == 2, ValueError,
                "linalg.norm: If dim is specified, it mut be of length 1 or 2. Got ",
                bracketed(dim));
  } else {
    EMBER_CHECK(A.dim() == 1 || A.dim() == 2, ValueError,
                "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                "Got ",
                A.dim(), "D.");
  }
  const std::vector<int64_t> both = {0, 1};
  return matrix_norm(A, ord, dim.empty() ? IntArrayRef(both) : dim, keepdim, dtype);
}

}  // namespace ember::linalg
