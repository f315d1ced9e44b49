// tensor_split and its fixed-dim forms hsplit, vsplit, dsplit (views made by slice), and the
// stacking joins hstack, vstack, dstack and column_stack (cat after NumPy's atleast_Nd reshapes).
#include "core/tensor_factory.h"
#include "ember/ops.h"

namespace ember {

namespace {

int64_t split_dim(const Tensor& self, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, ValueError,
              "tensor_split expected at least a 1-dimensional tensor, but got a tensor with ",
              self.dim(), " dims");
  return wrap_dim(dim, self.dim(), "tensor_split");
}

// The fixed-dim splits need a tensor of at least `min_dims` dims; hsplit splits dim 0 of 1-D.
int64_t fixed_split_dim(const Tensor& self, const char* op, int64_t min_dims, int64_t dim) {
  EMBER_CHECK(self.dim() >= min_dims, ValueError, "torch.", op, " requires a tensor with at least ",
              min_dims, " dimension, but got a tensor with ", self.dim(), " dimensions!");
  return self.dim() == 1 ? 0 : dim;
}

std::vector<Tensor> fixed_split(const Tensor& self, int64_t sections, const char* op,
                                int64_t min_dims, int64_t dim) {
  const int64_t d = fixed_split_dim(self, op, min_dims, dim);
  EMBER_CHECK(sections != 0 && self.size(d) % sections == 0, ValueError, "torch.", op,
              " attempted to split along dimension ", d, ", but the size of the dimension ",
              self.size(d), " is not divisible by the split_size ", sections, "!");
  return tensor_split(self, sections, d);
}

// NumPy's atleast_1d/2d/3d: 0-dim tensors become [1], [1, 1] or [1, 1, 1]; 1-D ones [1, n] or
// [1, n, 1]; 2-D ones [m, n, 1].
Tensor at_least(const Tensor& t, int64_t dims) {
  if (t.dim() >= dims) return t;
  if (t.dim() == 0) return t.reshape(std::vector<int64_t>(dims, 1));
  if (t.dim() == 2) return t.unsqueeze(-1);  // dims 3
  if (dims == 2) return t.unsqueeze(0);      // 1-D
  return t.unsqueeze(0).unsqueeze(-1);       // 1-D, dims 3
}

std::vector<Tensor> all_at_least(TensorList tensors, int64_t dims, const char* op) {
  EMBER_CHECK(!tensors.empty(), ValueError, op, " expects a non-empty TensorList");
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(at_least(t, dims));
  return out;
}

}  // namespace

std::vector<Tensor> tensor_split(const Tensor& self, int64_t sections, int64_t dim) {
  const int64_t d = split_dim(self, dim);
  EMBER_CHECK(sections > 0, ValueError, "number of sections must be larger than 0, got ", sections);
  const int64_t size = self.size(d), base = size / sections, longer = size % sections;
  std::vector<Tensor> out;
  out.reserve(sections);
  int64_t start = 0;
  for (int64_t i = 0; i < sections; ++i) {
    const int64_t len = base + (i < longer ? 1 : 0);
    out.push_back(self.slice(d, start, start + len));
    start += len;
  }
  return out;
}

std::vector<Tensor> tensor_split(const Tensor& self, IntArrayRef indices, int64_t dim) {
  const int64_t d = split_dim(self, dim);
  std::vector<Tensor> out;
  out.reserve(indices.size() + 1);
  int64_t start = 0;
  for (int64_t end : indices) {
    out.push_back(self.slice(d, start, end));
    start = end;
  }
  out.push_back(self.slice(d, start, self.size(d)));
  return out;
}

std::vector<Tensor> tensor_split(const Tensor& self, const Tensor& tensor_indices_or_sections,
                                 int64_t dim) {
  const Tensor& t = tensor_indices_or_sections;
  EMBER_CHECK(t.is_cpu(), DeviceError,
              "tensor_split expected tensor_indices_or_sections to be on cpu, but it's on ",
              t.device());
  EMBER_CHECK(t.dtype() == kLong, TypeError,
              "tensor_split expected tensor_indices_or_sections to have dtype of long, but got ",
              python_name(t.dtype()));
  EMBER_CHECK(t.dim() <= 1, ValueError,
              "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
              "one-dimensional tensor, but got a tensor with ",
              t.dim(), " dims");
  if (t.dim() == 0) return tensor_split(self, t.item<int64_t>(), dim);
  return tensor_split(self, IntArrayRef(t.to_vector<int64_t>()), dim);
}

std::vector<Tensor> hsplit(const Tensor& self, int64_t sections) {
  return fixed_split(self, sections, "hsplit", 1, 1);
}
std::vector<Tensor> hsplit(const Tensor& self, IntArrayRef indices) {
  return tensor_split(self, indices, fixed_split_dim(self, "hsplit", 1, 1));
}
std::vector<Tensor> vsplit(const Tensor& self, int64_t sections) {
  return fixed_split(self, sections, "vsplit", 2, 0);
}
std::vector<Tensor> vsplit(const Tensor& self, IntArrayRef indices) {
  return tensor_split(self, indices, fixed_split_dim(self, "vsplit", 2, 0));
}
std::vector<Tensor> dsplit(const Tensor& self, int64_t sections) {
  return fixed_split(self, sections, "dsplit", 3, 2);
}
std::vector<Tensor> dsplit(const Tensor& self, IntArrayRef indices) {
  return tensor_split(self, indices, fixed_split_dim(self, "dsplit", 3, 2));
}

Tensor hstack(TensorList tensors) {
  std::vector<Tensor> ts = all_at_least(tensors, 1, "hstack");
  return cat(ts, ts[0].dim() == 1 ? 0 : 1);
}

Tensor vstack(TensorList tensors) {
  return cat(all_at_least(tensors, 2, "vstack"), 0);
}

Tensor dstack(TensorList tensors) {
  return cat(all_at_least(tensors, 3, "dstack"), 2);
}

Tensor column_stack(TensorList tensors) {
  EMBER_CHECK(!tensors.empty(), ValueError, "column_stack expects a non-empty TensorList");
  std::vector<Tensor> columns;
  columns.reserve(tensors.size());
  for (const Tensor& t : tensors) columns.push_back(t.dim() <= 1 ? t.reshape({t.numel(), 1}) : t);
  return cat(columns, 1);
}

std::vector<Tensor> Tensor::tensor_split(int64_t sections, int64_t dim) const {
  return ember::tensor_split(*this, sections, dim);
}
std::vector<Tensor> Tensor::tensor_split(IntArrayRef indices, int64_t dim) const {
  return ember::tensor_split(*this, indices, dim);
}
std::vector<Tensor> Tensor::tensor_split(const Tensor& tensor_indices_or_sections,
                                         int64_t dim) const {
  return ember::tensor_split(*this, tensor_indices_or_sections, dim);
}
std::vector<Tensor> Tensor::hsplit(int64_t sections) const {
  return ember::hsplit(*this, sections);
}
std::vector<Tensor> Tensor::hsplit(IntArrayRef indices) const {
  return ember::hsplit(*this, indices);
}
std::vector<Tensor> Tensor::vsplit(int64_t sections) const {
  return ember::vsplit(*this, sections);
}
std::vector<Tensor> Tensor::vsplit(IntArrayRef indices) const {
  return ember::vsplit(*this, indices);
}
std::vector<Tensor> Tensor::dsplit(int64_t sections) const {
  return ember::dsplit(*this, sections);
}
std::vector<Tensor> Tensor::dsplit(IntArrayRef indices) const {
  return ember::dsplit(*this, indices);
}

}  // namespace ember
