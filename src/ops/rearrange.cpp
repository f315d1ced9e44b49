// Ops that move elements around without changing them: roll, rot90, fliplr, flipud, and
// transpose's NumPy names swapaxes and swapdims. Each is composed from narrow, cat, flip and
// transpose, whose gradient rules give theirs.
#include "core/tensor_factory.h"
#include "ember/ops.h"

namespace ember {

namespace {

// One dim rolled: the last `shift` elements (shift wrapped into [0, size)) move to the front.
Tensor roll_one(const Tensor& a, int64_t shift, int64_t d) {
  const int64_t n = a.size(d);
  if (n == 0) return a.clone();
  const int64_t s = ((shift % n) + n) % n;
  if (s == 0) return a.clone();
  return cat({a.narrow(d, n - s, s), a.narrow(d, 0, n - s)}, d);
}

}  // namespace

Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  EMBER_CHECK(!shifts.empty(), ValueError, "roll(): `shifts` required");
  if (dims.empty() && shifts.size() == 1) {
    return roll_one(self.flatten(), shifts[0], 0).view(self.sizes());
  }
  EMBER_CHECK(shifts.size() == dims.size(), ValueError,
              "shifts and dimensions must align. shifts: ", shifts.size(), ", dims:", dims.size());
  Tensor out = self;
  for (size_t i = 0; i < dims.size(); ++i) {
    out = roll_one(out, shifts[i], wrap_dim(dims[i], self.dim(), "roll"));
  }
  return out;
}

Tensor rot90(const Tensor& self, int64_t k, IntArrayRef dims) {
  const int64_t n = self.dim();
  EMBER_CHECK(dims.size() == 2, ValueError,
              "expected total rotation dims == 2, but got dims = ", dims.size());
  EMBER_CHECK(n >= 2, ValueError, "expected total dims >= 2, but got total dims = ", n);
  EMBER_CHECK(dims[0] != dims[1] && std::abs(dims[0] - dims[1]) != n, ValueError,
              "expected rotation dims to be different, but got dim0 = ", dims[0],
              " and dim1 = ", dims[1]);
  EMBER_CHECK(dims[0] < n && dims[0] >= -n, ValueError,
              "Rotation dim0 out of range, dim0 = ", dims[0]);
  EMBER_CHECK(dims[1] < n && dims[1] >= -n, ValueError,
              "Rotation dim1 out of range, dim1 = ", dims[1]);
  switch (((k % 4) + 4) % 4) {
    case 1:
      return self.flip({dims[1]}).transpose(dims[0], dims[1]);
    case 2:
      return self.flip(dims);
    case 3:
      return self.flip({dims[0]}).transpose(dims[0], dims[1]);
    default:
      return self.clone();
  }
}

Tensor fliplr(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 2, ValueError, "Input must be >= 2-d. (fliplr of a tensor of shape ",
              self.sizes(), ")");
  return self.flip({1});
}

Tensor flipud(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 1, ValueError, "Input must be >= 1-d. (flipud of a tensor of shape ",
              self.sizes(), ")");
  return self.flip({0});
}

Tensor swapaxes(const Tensor& self, int64_t axis0, int64_t axis1) {
  return self.transpose(axis0, axis1);
}

Tensor swapdims(const Tensor& self, int64_t dim0, int64_t dim1) {
  return self.transpose(dim0, dim1);
}

Tensor Tensor::roll(IntArrayRef shifts, IntArrayRef dims) const {
  return ember::roll(*this, shifts, dims);
}
Tensor Tensor::rot90(int64_t k, IntArrayRef dims) const {
  return ember::rot90(*this, k, dims);
}
Tensor Tensor::fliplr() const {
  return ember::fliplr(*this);
}
Tensor Tensor::flipud() const {
  return ember::flipud(*this);
}
Tensor Tensor::swapaxes(int64_t axis0, int64_t axis1) const {
  return transpose(axis0, axis1);
}
Tensor Tensor::swapdims(int64_t dim0, int64_t dim1) const {
  return transpose(dim0, dim1);
}

}  // namespace ember
