// torch.linalg's functions that compose other ops (include/ember/linalg.h, "Compositions of
// other ops"): cross, diagonal, matmul, matrix_power, multi_dot, vecdot, vander, tensorinv,
// tensorsolve and cond. Each is written with differentiable ember ops, as PyTorch 1.13 writes it,
// so autograd needs no backward of its own; the checks come first, in PyTorch's order, with its
// messages.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/tensor_factory.h"
#include "ember/linalg.h"
#include "ember/ops.h"
#include "ops/linalg_helpers.h"

namespace ember::linalg {
namespace {

using namespace linalg_helpers;

int64_t product(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

// float32, float64 and the 16-bit dtypes: checkFloatingOrComplex's test.
void check_floating(const Tensor& t, const char* op) {
  EMBER_CHECK(is_floating_point(t.scalar_type()), TypeError, op,
              ": Expected a floating point or complex tensor as input. Got ", t.scalar_type());
}

// The chain order of matrices [p0 x p1], [p1 x p2], ...: split[i][j] is the k at which the
// cheapest product of matrices i..j splits into (i..k)(k+1..j). PyTorch's dynamic programme, so
// that float results round as PyTorch's do.
std::vector<std::vector<size_t>> chain_order(const std::vector<Tensor>& m) {
  const size_t n = m.size();
  std::vector<int64_t> p(n + 1);
  for (size_t i = 0; i < n; ++i) p[i] = m[i].size(0);
  p[n] = m[n - 1].size(1);
  std::vector<std::vector<int64_t>> cost(n, std::vector<int64_t>(n, 0));
  std::vector<std::vector<size_t>> split(n, std::vector<size_t>(n, 0));
  for (size_t length = 1; length < n; ++length) {
    for (size_t i = 0; i + length < n; ++i) {
      const size_t j = i + length;
      cost[i][j] = std::numeric_limits<int64_t>::max();
      for (size_t k = i; k < j; ++k) {
        const int64_t q = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1];
        if (q < cost[i][j]) {
          cost[i][j] = q;
          split[i][j] = k;
        }
      }
    }
  }
  return split;
}

Tensor chain_product(const std::vector<Tensor>& m, const std::vector<std::vector<size_t>>& split,
                     size_t i, size_t j) {
  if (i == j) return m[i];
  return mm(chain_product(m, split, i, split[i][j]), chain_product(m, split, split[i][j] + 1, j));
}

// The matrices of a multi_dot, checked; the first and last vectors as a row and a column.
std::vector<Tensor> chain_matrices(TensorList tensors, std::vector<int64_t>& out_shape) {
  const size_t n = tensors.size();
  EMBER_CHECK(n >= 2, ValueError, "multi_dot(): expected at least 2 tensors but got ", n);
  std::vector<Tensor> m(tensors.begin(), tensors.end());
  const Tensor &first = tensors[0], &last = tensors[n - 1];
  EMBER_CHECK(first.dim() == 1 || first.dim() == 2, ValueError,
              "multi_dot(): the first tensor must be 1D or 2D but got ", first.dim(), "D");
  EMBER_CHECK(last.dim() == 1 || last.dim() == 2, ValueError,
              "multi_dot(): the last tensor must be 1D or 2D but got ", last.dim(), "D");
  if (first.dim() == 1) {
    m[0] = first.unsqueeze(0);
  } else {
    out_shape.push_back(first.size(0));
  }
  if (last.dim() == 1) {
    m[n - 1] = last.unsqueeze(-1);
  } else {
    out_shape.push_back(last.size(1));
  }
  for (size_t i = 1; i + 1 < n; ++i) {
    EMBER_CHECK(tensors[i].dim() == 2, ValueError, "multi_dot(): tensor ", i,
                " must be 2D but got ", tensors[i].dim(), "D");
  }
  for (size_t i = 1; i < n; ++i) {
    // PyTorch names the dtypes as caffe2's TypeMeta prints them ("float", "long int").
    EMBER_CHECK(m[i].dtype() == m[0].dtype(), TypeError,
                "multi_dot(): all tensors must have be the same dtype but tensor 0 is ",
                cpp_type_name(m[0].scalar_type()), " and tensor ", i, " ",
                cpp_type_name(m[i].scalar_type()));
    EMBER_CHECK(m[i].device() == m[0].device(), DeviceError,
                "multi_dot(): all tensors must be on the same device but tensor 0 is on ",
                m[0].device(), " and tensor ", i, " on ", m[i].device());
    EMBER_CHECK(m[i - 1].size(-1) == m[i].size(0), ValueError, "multi_dot(): tensors ", i - 1,
                " and ", i, " with shapes ", tensors[i - 1].sizes(), " and ", tensors[i].sizes(),
                " cannot be multiplied");
  }
  return m;
}

// The norms of A and of A^-1 multiplied (ord 1, -1, inf, -inf, "fro"). A singular matrix's
// inverse is taken as all inf, so that its condition number is inf, as PyTorch's is.
template <typename Ord>
Tensor cond_by_inverse(const Tensor& A, const Ord& ord) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  check_floating(A, "linalg.inv");
  // inv_ex, not inv: a singular matrix is an answer here, not an error (and no host sync).
  auto [inverse, info] = linalg::inv_ex(A);
  inverse = where(info.gt(0).unsqueeze(-1).unsqueeze(-1), inf, inverse);
  const Tensor result = matrix_norm(A, ord) * matrix_norm(inverse, ord);
  // 0 * inf (a zero matrix) is NaN; NumPy's condition number is inf there.
  return result.nan_to_num(inf, inf, -inf);
}

// NumPy has no condition number of a 0x0 matrix; PyTorch gives 0 for each.
Tensor cond_of_empty(const Tensor& A) {
  return zeros(batch_of(A), A.options());
}

void check_square_for(const Tensor& A, const std::string& op) {
  EMBER_CHECK(A.size(-1) == A.size(-2), ValueError, op,
              ": A must be batches of square matrices, but they are ", A.size(-2), " by ",
              A.size(-1), " matrices");
}

}  // namespace

Tensor cross(const Tensor& input, const Tensor& other, int64_t dim) {
  // Unlike the old torch.cross: dim -1 by default, the same number of dims, and no broadcasting
  // of dim itself.
  EMBER_CHECK(input.dim() == other.dim(), ValueError,
              "linalg.cross: inputs must have the same number of dimensions.");
  const int64_t d = wrap_dim(dim, input.dim());
  EMBER_CHECK(input.size(d) == 3 && other.size(d) == 3, ValueError,
              "linalg.cross: inputs dimension ", dim, " must have length 3. Got ", input.size(d),
              " and ", other.size(d));
  broadcast_shapes(input.sizes(), other.sizes());  // the size error comes before the dtype one
  EMBER_CHECK(input.scalar_type() == other.scalar_type(), TypeError, "expected scalar type ",
              input.scalar_type(), " but found ", other.scalar_type());
  EMBER_CHECK(input.scalar_type() != kBool, TypeError, "\"cross\" not implemented for 'Bool'");
  return ember::cross(input, other, d);
}

Tensor diagonal(const Tensor& A, int64_t offset, int64_t dim1, int64_t dim2) {
  // Checked here so that a bad dim gets PyTorch's message, which names no op.
  const int64_t d1 = wrap_dim(dim1, A.dim()), d2 = wrap_dim(dim2, A.dim());
  EMBER_CHECK(d1 != d2, ValueError, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  return ember::diagonal(A, offset, d1, d2);
}

Tensor matmul(const Tensor& input, const Tensor& other) {
  return ember::matmul(input, other);
}

Tensor matrix_power(const Tensor& A, int64_t n) {
  return ember::matrix_power(A, n);
}

Tensor multi_dot(TensorList tensors) {
  std::vector<int64_t> out_shape;
  std::vector<Tensor> m = chain_matrices(tensors, out_shape);
  // 16-bit chains round once, not at each product.
  if (is_16bit(m[0])) {
    std::vector<Tensor> wide;
    for (const Tensor& t : tensors) wide.push_back(t.to(kFloat));
    return multi_dot(wide).to(m[0].scalar_type());
  }
  Tensor result;
  const size_t n = m.size();
  if (n == 2) {
    result = mm(m[0], m[1]);
  } else if (n == 3) {
    // (a x b)(b x c)(c x d): PyTorch's direct comparison of the two orders.
    const int64_t a = m[0].size(0), b = m[1].size(0), c = m[2].size(0), d = m[2].size(1);
    const int64_t left_first = (a * c) * (b + d), right_first = (b * d) * (a + c);
    result = left_first > right_first ? mm(m[0], mm(m[1], m[2])) : mm(mm(m[0], m[1]), m[2]);
  } else {
    result = chain_product(m, chain_order(m), 0, n - 1);
  }
  return result.reshape(out_shape);
}

Tensor vecdot(const Tensor& x, const Tensor& y, int64_t dim) {
  check_floating(x, "linalg.vecdot");
  EMBER_CHECK(x.scalar_type() == y.scalar_type(), TypeError,
              "linalg.vecdot: Expected x and y to have the same dtype, but found x of type ",
              x.scalar_type(), " and y of type ", y.scalar_type(), " instead");
  const Tensor products = x * y;
  return sum(products, {wrap_dim(dim, products.dim())});  // PyTorch's message names no op
}

Tensor vander(const Tensor& x, std::optional<int64_t> N) {
  const ScalarType t = x.scalar_type();
  EMBER_CHECK(t == kFloat || t == kDouble || is_16bit(x) || is_integral(t), TypeError,
              "linalg.vander supports floating point, complex, and integer tensors, but got ", t);
  const Tensor x_ = x.dim() == 0 ? x.unsqueeze(-1) : x;
  std::vector<int64_t> shape(x_.sizes().begin(), x_.sizes().end());
  const int64_t n = N.value_or(shape.back());
  EMBER_CHECK(n > 1, ValueError, "N must be greater than 1.");
  // PyTorch refuses 16-bit inputs; Ember runs them in float32 and rounds each power once.
  if (is_16bit(x)) return vander(x.to(kFloat), N).to(t);
  // x^1 .. x^(n-1) as a running product (integers in int64, as cumprod gives them), after ones.
  shape.push_back(n - 1);
  const Tensor powers = cumprod(x_.unsqueeze(-1).expand(shape), -1);
  shape.back() = 1;
  return cat({ones(shape, powers.options()), powers}, -1);
}

Tensor tensorinv(const Tensor& A, int64_t ind) {
  EMBER_CHECK(ind > 0, ValueError, "Expected a strictly positive integer for 'ind', but got ", ind);
  // PyTorch 1.13 fails here with "cannot create std::vector larger than max_size()".
  EMBER_CHECK(ind <= A.dim(), ValueError, "Expected 'ind' to be at most the number of dimensions (",
              A.dim(), "), but got ", ind);
  const IntArrayRef sizes = A.sizes();
  const std::vector<int64_t> front(sizes.begin(), sizes.begin() + ind);
  std::vector<int64_t> shape(sizes.begin() + ind, sizes.end());
  const int64_t rows = product(front), cols = product(shape);
  EMBER_CHECK(cols == rows, ValueError,
              "Expected self to satisfy the requirement prod(self.shape[ind:]) == "
              "prod(self.shape[:ind]), but got ",
              cols, " != ", rows);
  shape.insert(shape.end(), front.begin(), front.end());  // self.shape[ind:] + self.shape[:ind]
  const Tensor square = A.reshape({rows, rows});
  check_square(square, "linalg.inv");
  auto [inverse, info] = linalg::inv_ex(square);
  // PyTorch names the failing function "inv" here, not "linalg.inv".
  check_factorised(info, false, "inv", [](int32_t i) {
    return detail::str_cat("The diagonal element ", i,
                           " is zero, the inversion could not be completed because the input "
                           "matrix is singular.");
  });
  return inverse.reshape(shape);
}

Tensor tensorsolve(const Tensor& A, const Tensor& B, IntArrayRef dims) {
  const int64_t ndim = A.dim();
  Tensor A_ = A;
  if (!dims.empty()) {
    std::vector<int64_t> from, to_end;
    for (int64_t d : dims) {
      from.push_back(wrap_dim(d, ndim));  // PyTorch's message names no op
      to_end.push_back(ndim - int64_t(dims.size()) + int64_t(to_end.size()));
    }
    A_ = movedim(A, from, to_end);
  }
  // PyTorch 1.13 fails here with "cannot create std::vector larger than max_size()".
  EMBER_CHECK(B.dim() <= ndim, ValueError, "Expected B to have at most as many dimensions as A (",
              ndim, "), but got ", B.dim());
  const std::vector<int64_t> shape(A_.sizes().begin() + B.dim(), A_.sizes().end());
  const int64_t n = product(shape);
  EMBER_CHECK(n == B.numel(), ValueError,
              "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
              "prod(self.shape[:other.ndim]), but got ",
              n, " != ", B.numel());
  return linalg::solve(A_.reshape({n, n}), B.flatten()).reshape(shape);
}

Tensor cond(const Tensor& A, const std::optional<Scalar>& p) {
  EMBER_CHECK(A.dim() >= 2, ValueError,
              "linalg.cond: The input tensor must have at least 2 dimensions.");
  const Scalar ord = p.value_or(Scalar(2));
  const double o = ord.toDouble();
  EMBER_CHECK(std::abs(o) == 2 || std::abs(o) == 1 || std::isinf(o), ValueError,
              "linalg.cond got an invalid norm type: ", o);
  if (A.numel() == 0) return cond_of_empty(A);
  if (std::abs(o) == 2) {
    if (is_16bit(A)) return cond(A.to(kFloat), p).to(A.scalar_type());
    // The ratio of the extreme singular values (svdvals sorts them descending).
    const Tensor s = svdvals(A);
    const Tensor largest = s.select(-1, 0), smallest = s.select(-1, s.size(-1) - 1);
    return o < 0 ? smallest / largest : largest / smallest;
  }
  // PyTorch's name of ord: std::to_string of the number ("1.000000" for 1.0, "inf").
  const std::string name = ord.isFloatingPoint() ? std::to_string(o) : std::to_string(ord.toLong());
  check_square_for(A, "linalg.cond(ord=" + name + ")");
  if (is_16bit(A)) return cond(A.to(kFloat), p).to(A.scalar_type());
  return cond_by_inverse(A, ord);
}

Tensor cond(const Tensor& A, std::string_view p) {
  const std::string op = detail::str_cat("linalg.cond(ord=", p, ")");
  EMBER_CHECK(A.dim() >= 2, ValueError, op,
              ": The input tensor A must have at least 2 dimensions.");
  check_square_for(A, op);
  EMBER_CHECK(p == "fro" || p == "nuc", ValueError, "linalg.cond got an invalid norm type: ", p);
  if (A.numel() == 0) return cond_of_empty(A);
  if (is_16bit(A)) return cond(A.to(kFloat), p).to(A.scalar_type());
  if (p == "nuc") {
    // PyTorch 1.13 writes the nuclear norms through the singular values: sum(s) * sum(1/s).
    const Tensor s = svdvals(A);
    return sum(s, {-1}) * sum(s.pow(-1), {-1});
  }
  return cond_by_inverse(A, p);
}

}  // namespace ember::linalg
