// Parts of matrices over the last two dims: the triangles (tril, triu) and their coordinates
// (tril_indices, triu_indices), diag, diag_embed, block_diag and trace. Composed from masks,
// masked_fill, cat and the diagonal view, so their gradients are those ops' gradients.
#include "core/tensor_factory.h"
#include "ember/autograd.h"
#include "ember/ops.h"
#include "ops/promotion.h"

namespace ember {
namespace {

// True where column - row <= diagonal (lower) or >= diagonal (upper), on a rows x cols grid.
Tensor band_mask(int64_t rows, int64_t cols, Device device, int64_t diagonal, bool lower) {
  const TensorOptions opts = TensorOptions(kLong).device(device);
  const Tensor offset = arange(cols, opts).unsqueeze(0) - arange(rows, opts).unsqueeze(1);
  return lower ? offset.le(diagonal) : offset.ge(diagonal);
}

// The mask of what tril/triu zero in `a` (broadcast over its leading dims).
Tensor outside_triangle(const Tensor& a, int64_t diagonal, bool lower) {
  // Fewer than 2 dims: PyTorch's IndexError for dim -2.
  wrap_dim(-2, a.dim(), lower ? "tril" : "triu");
  return band_mask(a.size(-2), a.size(-1), a.device(), diagonal, lower).logical_not();
}

}  // namespace

Tensor tril(const Tensor& a, int64_t diagonal) {
  return masked_fill(a, outside_triangle(a, diagonal, true), 0);
}
Tensor triu(const Tensor& a, int64_t diagonal) {
  return masked_fill(a, outside_triangle(a, diagonal, false), 0);
}
Tensor Tensor::tril(int64_t diagonal) const {
  return ember::tril(*this, diagonal);
}
Tensor Tensor::triu(int64_t diagonal) const {
  return ember::triu(*this, diagonal);
}
Tensor& Tensor::tril_(int64_t diagonal) const {
  return masked_fill_(outside_triangle(*this, diagonal, true), 0);
}
Tensor& Tensor::triu_(int64_t diagonal) const {
  return masked_fill_(outside_triangle(*this, diagonal, false), 0);
}

Tensor diag(const Tensor& a, int64_t diagonal) {
  EMBER_CHECK(a.dim() == 1 || a.dim() == 2, ValueError, "diag: matrix or a vector expected, got a ",
              a.dim(), "-D tensor (sizes ", a.sizes(), ")");
  if (a.dim() == 2) return a.diagonal(diagonal).clone();
  // An n x n matrix, n = len + |diagonal|: above the main diagonal row i holds a[i], below it
  // column j holds a[j]; the band of `diagonal` keeps exactly those.
  const int64_t k = diagonal >= 0 ? diagonal : -diagonal;
  const int64_t n = a.size(0) + k;
  const Tensor padded = k ? cat({a, zeros({k}, a.options())}) : a;
  const Tensor values = (diagonal >= 0 ? padded.unsqueeze(1) : padded.unsqueeze(0)).expand({n, n});
  const Tensor on_band = logical_and(band_mask(n, n, a.device(), diagonal, true),
                                     band_mask(n, n, a.device(), diagonal, false));
  return masked_fill(values, on_band.logical_not(), 0);
}
Tensor Tensor::diag(int64_t diagonal) const {
  return ember::diag(*this, diagonal);
}

// As diag of a vector, for each vector along self's last dim; the matrix dims then move to dim1
// and dim2.
Tensor diag_embed(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t dims = self.dim() + 1;
  const int64_t d1 = wrap_dim(dim1, dims, "diag_embed"), d2 = wrap_dim(dim2, dims, "diag_embed");
  EMBER_CHECK(d1 != d2, ValueError, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  const Tensor a = self.dim() == 0 ? self.reshape({1}) : self;
  const int64_t k = offset >= 0 ? offset : -offset;
  const int64_t n = a.size(-1) + k;
  std::vector<int64_t> pad = a.sizes().vec();
  pad.back() = k;
  const Tensor padded = k ? cat({a, zeros(pad, a.options())}, -1) : a;
  std::vector<int64_t> square = a.sizes().vec();
  square.back() = n;
  square.push_back(n);
  const Tensor values = (offset >= 0 ? padded.unsqueeze(-1) : padded.unsqueeze(-2)).expand(square);
  const Tensor on_band = logical_and(band_mask(n, n, a.device(), offset, true),
                                     band_mask(n, n, a.device(), offset, false));
  return masked_fill(values, on_band.logical_not(), 0).movedim({-2, -1}, {d1, d2});
}
Tensor Tensor::diag_embed(int64_t offset, int64_t dim1, int64_t dim2) const {
  return ember::diag_embed(*this, offset, dim1, dim2);
}

// Each block padded with zeros to the full width, the rows then stacked.
Tensor block_diag(TensorList tensors) {
  if (tensors.empty()) return empty({1, 0});
  std::vector<Tensor> blocks;
  int64_t cols = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK(t.dim() <= 2, ValueError,
                "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input ", i,
                " has ", t.dim(), " dimensions");
    EMBER_CHECK(t.device() == tensors[0].device(), DeviceError,
                "torch.block_diag: input tensors must all be on the same device. Input 0 is on "
                "device ",
                tensors[0].device(), " and input ", i, " is on device ", t.device());
    blocks.push_back(t.dim() == 2 ? t : t.reshape({1, t.numel()}));
    cols += blocks.back().size(1);
  }
  const TensorOptions opts = tensors[0].options().dtype(result_type(tensors));
  std::vector<Tensor> rows;
  int64_t before = 0;
  for (const Tensor& b : blocks) {
    const int64_t r = b.size(0), w = b.size(1);
    rows.push_back(cat(
        {zeros({r, before}, opts), b.to(opts.dtype()), zeros({r, cols - before - w}, opts)}, 1));
    before += w;
  }
  return cat(rows, 0);
}

namespace {

// [2, n]: the coordinates of the band mask's true elements, row-major.
Tensor triangle_indices(int64_t row, int64_t col, int64_t offset, const TensorOptions& options,
                        bool lower) {
  const char* op = lower ? "tril_indices" : "triu_indices";
  EMBER_CHECK(row >= 0, ValueError, op, ": row must be non-negative, got", row);
  EMBER_CHECK(col >= 0, ValueError, op, ": col must be non-negative, got", col);
  const ScalarType dtype = options.dtype().toScalarType();
  EMBER_CHECK(dtype == kLong || dtype == kInt, TypeError, "\"", op, "\" not implemented for '",
              to_string(dtype), "'");
  const TensorOptions longs = TensorOptions(kLong).device(options.device());
  const Tensor mask = band_mask(row, col, options.device(), offset, lower);
  const Tensor rows = arange(row, longs).unsqueeze(1).expand({row, col});
  const Tensor cols = arange(col, longs).unsqueeze(0).expand({row, col});
  return stack({rows.index({mask}), cols.index({mask})}).to(dtype);
}

}  // namespace

Tensor tril_indices(int64_t row, int64_t col, int64_t offset, const TensorOptions& options) {
  return triangle_indices(row, col, offset, options, true);
}
Tensor triu_indices(int64_t row, int64_t col, int64_t offset, const TensorOptions& options) {
  return triangle_indices(row, col, offset, options, false);
}

Tensor trace(const Tensor& a) {
  EMBER_CHECK(a.dim() == 2, ValueError, "trace: expected a matrix, but got tensor with dim ",
              a.dim());
  return a.diagonal().sum();
}
Tensor Tensor::trace() const {
  return ember::trace(*this);
}

}  // namespace ember
