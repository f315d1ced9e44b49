// The structured initialisers of nn::init: eye_, dirac_, orthogonal_ and sparse_ (libtorch's
// torch/nn/init.cpp). Each builds its values on the CPU in float64 and copies them into the
// tensor, which converts to its dtype and device; the random draws are ember's (randn, randperm).
#include <algorithm>
#include <cmath>
#include <vector>

#include "ember/autograd.h"
#include "ember/nn/init.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"

namespace ember::nn::init {
namespace {

// Q of the thin QR factorisation of the m x n (m >= n) row-major matrix `a`, by Householder
// reflections, with each column multiplied by the sign of R's diagonal (so that R's diagonal is
// non-negative, which makes Q unique: the same Q as torch.linalg.qr followed by that fix).
std::vector<double> orthonormal_columns(std::vector<double> a, int64_t m, int64_t n) {
  std::vector<std::vector<double>> reflectors;
  std::vector<double> r_diag;
  for (int64_t k = 0; k < n; ++k) {
    std::vector<double> v(static_cast<size_t>(m - k));
    double norm = 0;
    for (int64_t i = k; i < m; ++i) {
      v[i - k] = a[i * n + k];
      norm += v[i - k] * v[i - k];
    }
    norm = std::sqrt(norm);
    const double alpha = v[0] > 0 ? -norm : norm;
    r_diag.push_back(alpha);
    v[0] -= alpha;
    double vnorm = 0;
    for (double x : v) vnorm += x * x;
    vnorm = std::sqrt(vnorm);
    if (vnorm > 0) {
      for (double& x : v) x /= vnorm;
    }
    // A[k:, k:] -= 2 v (v^T A[k:, k:])
    for (int64_t j = k; j < n; ++j) {
      double s = 0;
      for (int64_t i = k; i < m; ++i) s += v[i - k] * a[i * n + j];
      for (int64_t i = k; i < m; ++i) a[i * n + j] -= 2 * v[i - k] * s;
    }
    reflectors.push_back(std::move(v));
  }
  // Q = H_0 ... H_{n-1} applied to the first n columns of the identity.
  std::vector<double> q(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < n; ++i) q[i * n + i] = 1;
  for (int64_t k = n - 1; k >= 0; --k) {
    const auto& v = reflectors[k];
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t i = k; i < m; ++i) s += v[i - k] * q[i * n + j];
      for (int64_t i = k; i < m; ++i) q[i * n + j] -= 2 * v[i - k] * s;
    }
  }
  for (int64_t j = 0; j < n; ++j) {
    const double sign = r_diag[j] > 0 ? 1.0 : r_diag[j] < 0 ? -1.0 : 0.0;
    for (int64_t i = 0; i < m; ++i) q[i * n + j] *= sign;
  }
  return q;
}

// Copies float64 CPU `values` into `tensor` (its dtype and device).
Tensor fill_from(Tensor& tensor, const Tensor& values) {
  NoGradGuard no_grad;
  tensor.copy_(values.reshape(tensor.sizes()));
  return tensor;
}

}  // namespace

Tensor eye_(Tensor matrix) {
  EMBER_CHECK(matrix.dim() == 2, ValueError,
              "eye_: Only tensors with 2 dimensions are supported, got shape ", matrix.sizes());
  return fill_from(matrix, eye(matrix.size(0), matrix.size(1), kDouble));
}

Tensor dirac_(Tensor tensor, int64_t groups) {
  EMBER_CHECK(tensor.dim() >= 3 && tensor.dim() <= 5, ValueError,
              "dirac_: Only tensors with 3, 4, or 5 dimensions are supported, got shape ",
              tensor.sizes());
  EMBER_CHECK(groups >= 1 && tensor.size(0) % groups == 0, ValueError,
              "dirac_: dim 0 must be divisible by groups, got shape ", tensor.sizes(),
              " and groups=", groups);
  std::vector<double> values(static_cast<size_t>(tensor.numel()), 0.0);
  const std::vector<int64_t> sizes = tensor.sizes().vec();
  const int64_t per_group = sizes[0] / groups;
  for (int64_t g = 0; g < groups; ++g) {
    for (int64_t d = 0; d < std::min(per_group, sizes[1]); ++d) {
      // Element [g * per_group + d, d, centre...] of the row-major layout.
      int64_t offset = (g * per_group + d) * sizes[1] + d;
      for (size_t k = 2; k < sizes.size(); ++k) offset = offset * sizes[k] + sizes[k] / 2;
      values[static_cast<size_t>(offset)] = 1;
    }
  }
  return fill_from(tensor, ember::tensor(values, kDouble));
}

Tensor orthogonal_(Tensor tensor, double gain) {
  EMBER_CHECK(tensor.dim() >= 2, ValueError,
              "orthogonal_: Only tensors with 2 or more dimensions are supported, got shape ",
              tensor.sizes());
  const int64_t rows = tensor.size(0);
  const int64_t columns = rows == 0 ? 0 : tensor.numel() / rows;
  if (tensor.numel() == 0) return tensor;
  // As libtorch: a float32 normal [rows, columns] draw, transposed when wide.
  Tensor flattened = randn({rows, columns}).to(kDouble);
  if (rows < columns) flattened = flattened.t();
  const int64_t m = flattened.size(0), n = flattened.size(1);
  std::vector<double> q = orthonormal_columns(flattened.contiguous().to_vector<double>(), m, n);
  Tensor result = ember::tensor(q, kDouble).reshape({m, n});
  if (rows < columns) result = result.t();
  return fill_from(tensor, result.contiguous() * gain);
}

Tensor sparse_(Tensor tensor, double sparsity, double std) {
  EMBER_CHECK(tensor.dim() == 2, ValueError,
              "sparse_: Only tensors with 2 dimensions are supported, got shape ", tensor.sizes());
  EMBER_CHECK(sparsity >= 0 && sparsity <= 1, ValueError,
              "sparse_: sparsity must be in [0, 1], got ", sparsity);
  const int64_t rows = tensor.size(0), columns = tensor.size(1);
  const auto num_zeros = static_cast<int64_t>(std::ceil(sparsity * static_cast<double>(rows)));
  NoGradGuard no_grad;
  tensor.normal_(0, std);
  // Zero num_zeros randomly chosen rows of every column.
  std::vector<double> mask(static_cast<size_t>(rows * columns), 1.0);
  for (int64_t c = 0; c < columns; ++c) {
    std::vector<int64_t> order = randperm(rows).to_vector<int64_t>();
    for (int64_t i = 0; i < num_zeros; ++i) mask[order[i] * columns + c] = 0;
  }
  Tensor keep = ember::tensor(mask, kDouble).reshape({rows, columns}).to(tensor.device()) > 0.5;
  tensor.copy_(where(keep, tensor, Scalar(0.0)));
  return tensor;
}

}  // namespace ember::nn::init
