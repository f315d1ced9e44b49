// View ops: O(1) tensors that share the base's storage, each with its gradient rule. reshape
// falls back to a contiguous copy only when the strides cannot express the new shape.
#include <algorithm>
#include <optional>
#include <vector>

#include "autograd/record.h"
#include "core/backend.h"
#include "core/broadcast.h"
#include "core/checked_size.h"
#include "core/tensor_factory.h"
#include "ember/ops.h"

namespace ember {

using autograd::variable_list;
using detail::str_cat;

namespace {

// Resolves one -1 in `shape` against `numel` (PyTorch's infer_size).
DimVector infer_size(IntArrayRef shape, int64_t numel) {
  DimVector res(shape);
  int64_t known = 1;
  std::optional<size_t> infer;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1) {
      EMBER_CHECK(!infer, ValueError, "only one dimension can be inferred");
      infer = d;
    } else {
      EMBER_CHECK(shape[d] >= 0, ValueError, "invalid shape dimension ", shape[d], " in shape ",
                  shape);
      EMBER_CHECK(checked::mul(known, shape[d], &known), ValueError, "shape '", shape,
                  "' is invalid for input of size ", numel,
                  " (numel: integer multiplication overflow)");
    }
  }
  if (numel == known || (infer && known > 0 && numel % known == 0)) {
    if (infer) {
      EMBER_CHECK(known != 0, ValueError, "cannot reshape tensor of 0 elements into shape ", shape,
                  " because the unspecified dimension size -1 can be any value and is ambiguous");
      res[*infer] = numel / known;
    }
    return res;
  }
  throw ValueError(str_cat("shape '", shape, "' is invalid for input of size ", numel));
}

// Strides that let a tensor of (sizes, strides) be seen as `shape` without copying, or nothing
// when some new dim would span two separately strided chunks of the old layout.
std::optional<DimVector> view_strides(IntArrayRef sizes, IntArrayRef strides, IntArrayRef shape) {
  if (sizes.empty()) return DimVector(shape.size(), 1);
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  if (numel == 0 && sizes == shape) return DimVector(strides);
  DimVector out(shape.size());
  if (numel == 0) return contiguous_strides(shape);

  // Walk old dims right to left, grouping them into chunks that are contiguous among themselves;
  // each chunk must be covered exactly by a run of new dims.
  int64_t view_d = static_cast<int64_t>(shape.size()) - 1;
  int64_t chunk_base = strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= sizes[d];
    bool chunk_ends = d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_base);
    if (!chunk_ends) continue;
    while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
      out[view_d] = view_numel * chunk_base;
      view_numel *= shape[view_d];
      --view_d;
    }
    if (view_numel != tensor_numel) return std::nullopt;
    if (d > 0) {
      chunk_base = strides[d - 1];
      tensor_numel = 1;
      view_numel = 1;
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

// Gradient of a view that picked out part of `in`: zeros of in's shape with `g` copied into the
// same part (the part is re-created by `take`, a plain view). Under create_graph the result is
// itself differentiable in `g`: its gradient is the same part of the incoming gradient.
template <typename Take>
autograd::BackwardFn scatter_into_zeros(IntArrayRef in_sizes, Take take) {
  DimVector sizes(in_sizes);
  return [sizes, take](const variable_list& g) {
    Tensor z = zeros(sizes, g[0].options());
    backend_for(z).copy(take(z), g[0], false);
    if (autograd::needs_grad({g[0]})) {
      autograd::record("CopySlices", z, {g[0]}, [take](const variable_list& gz) {
        return variable_list{take(gz[0]).clone()};
      });
    }
    return variable_list{z};
  };
}

// The storage offset of element `index` along dim d. It lies in the storage for a tensor with
// elements; in an empty one (another dim of size 0) any stride is allowed and index * stride may
// overflow, and then any offset is right: the view has no elements to address.
int64_t offset_along(const Tensor& t, int64_t d, int64_t index) {
  int64_t step, offset;
  if (checked::mul(index, t.strides()[d], &step) && checked::add(t.storage_offset(), step, &offset))
    return offset;
  return t.storage_offset();
}

// 0 <= start <= end <= size, step > 0.
Tensor slice_view(const Tensor& t, int64_t d, int64_t start, int64_t end, int64_t step) {
  DimVector sizes(t.sizes()), strides(t.strides());
  int64_t offset = offset_along(t, d, start);
  sizes[d] = end > start ? (end - start - 1) / step + 1 : 0;  // no end - start + step overflow
  // stride * step fits when the slice has two elements or more; with one (a step beyond the
  // dim) or none, the stride is never used and the old one is kept.
  strides[d] = checked::mul_or(strides[d], step, strides[d]);
  return make_view(t, sizes, strides, offset);
}

Tensor select_view(const Tensor& t, int64_t d, int64_t index) {
  DimVector sizes(t.sizes()), strides(t.strides());
  int64_t offset = offset_along(t, d, index);
  sizes.erase(d);
  strides.erase(d);
  return make_view(t, sizes, strides, offset);
}

Tensor transpose_view(const Tensor& t, int64_t d0, int64_t d1) {
  DimVector sizes(t.sizes()), strides(t.strides());
  std::swap(sizes[d0], sizes[d1]);
  std::swap(strides[d0], strides[d1]);
  return make_view(t, sizes, strides, t.storage_offset());
}

Tensor narrow_piece(const Tensor& t, int64_t d, int64_t start, int64_t length, const char* name) {
  Tensor out = slice_view(t, d, start, start + length, 1);
  if (autograd::needs_grad({t})) {
    autograd::record(name, out, {t}, scatter_into_zeros(t.sizes(), [=](const Tensor& z) {
                       return slice_view(z, d, start, start + length, 1);
                     }));
  }
  return out;
}

// One node for all the pieces of a split or an unbind (PyTorch's SplitBackward0 and
// UnbindBackward0): its backward joins the pieces' gradients with one cat or stack, zeros for the
// pieces that got none. A node per piece would fill a zeros tensor of the whole input for each
// piece: quadratic work for an RNN that unbinds its time steps.
void record_pieces(const char* name, const Tensor& self, const std::vector<Tensor>& pieces,
                   int64_t d, bool stacked) {
  if (pieces.empty() || !autograd::needs_grad({self})) return;
  std::vector<DimVector> shapes;
  shapes.reserve(pieces.size());
  for (const Tensor& p : pieces) shapes.emplace_back(p.sizes());
  autograd::record(name, pieces, {self}, [shapes, d, stacked](const variable_list& g) {
    const Tensor* any = nullptr;
    for (const Tensor& t : g) {
      if (t.defined()) {
        any = &t;
        break;
      }
    }
    if (!any) return variable_list{Tensor()};
    std::vector<Tensor> parts;
    parts.reserve(shapes.size());
    for (size_t i = 0; i < shapes.size(); ++i) {
      parts.push_back(i < g.size() && g[i].defined() ? g[i] : zeros(shapes[i], any->options()));
    }
    return variable_list{stacked ? stack(parts, d) : cat(parts, d)};
  });
}

// Room for n views; a count no vector can hold (chunk(2^62) of an empty dim, unbind of an
// expanded dim of 2^62) is an OutOfMemoryError rather than std::length_error or std::bad_alloc.
void reserve_pieces(std::vector<Tensor>& out, int64_t n, const char* op) {
  try {
    out.reserve(static_cast<size_t>(n));
  } catch (const std::exception&) {
    throw OutOfMemoryError(str_cat(op, ": ", n, " pieces do not fit in memory"));
  }
}

void check_not_scalar(const Tensor& t, const char* op) {
  EMBER_CHECK(t.dim() > 0, IndexError, op, "() cannot be applied to a 0-dim tensor.");
}

}  // namespace

Tensor Tensor::view(IntArrayRef sizes) const {
  DimVector shape = infer_size(sizes, numel());
  auto st = view_strides(this->sizes(), strides(), shape);
  EMBER_CHECK(st, Error,
              "view size is not compatible with input tensor's size and stride (at least one "
              "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  Tensor out = make_view(*this, shape, *st, storage_offset());
  if (autograd::needs_grad({*this})) {
    DimVector in_sizes(this->sizes());
    autograd::record("ViewBackward0", out, {*this}, [in_sizes](const variable_list& g) {
      return variable_list{g[0].reshape(in_sizes)};
    });
  }
  return out;
}

Tensor Tensor::reshape(IntArrayRef sizes) const {
  DimVector shape = infer_size(sizes, numel());
  DimVector in_sizes(this->sizes());
  if (auto st = view_strides(in_sizes, strides(), shape)) {
    Tensor out = make_view(*this, shape, *st, storage_offset());
    if (autograd::needs_grad({*this})) {
      autograd::record("ReshapeAliasBackward0", out, {*this}, [in_sizes](const variable_list& g) {
        return variable_list{g[0].reshape(in_sizes)};
      });
    }
    return out;
  }
  Tensor c = contiguous();  // records CloneBackward0
  Tensor out = make_view(c, shape, contiguous_strides(shape), c.storage_offset());
  if (autograd::needs_grad({c})) {
    autograd::record("UnsafeViewBackward0", out, {c}, [in_sizes](const variable_list& g) {
      return variable_list{g[0].reshape(in_sizes)};
    });
  }
  return out;
}

Tensor Tensor::t() const {
  EMBER_CHECK(dim() <= 2, ValueError, "t() expects a tensor with <= 2 dimensions, but self is ",
              dim(), "D");
  Tensor out = dim() == 2 ? transpose_view(*this, 0, 1)
                          : make_view(*this, sizes(), strides(), storage_offset());
  if (autograd::needs_grad({*this})) {
    autograd::record("TBackward0", out, {*this},
                     [](const variable_list& g) { return variable_list{g[0].t()}; });
  }
  return out;
}

Tensor Tensor::transpose(int64_t d0, int64_t d1) const {
  int64_t a = wrap_dim(d0, dim(), "transpose"), b = wrap_dim(d1, dim(), "transpose");
  Tensor out = dim() == 0 ? make_view(*this, sizes(), strides(), storage_offset())
                          : transpose_view(*this, a, b);
  if (autograd::needs_grad({*this})) {
    autograd::record("TransposeBackward0", out, {*this}, [a, b](const variable_list& g) {
      return variable_list{g[0].transpose(a, b)};
    });
  }
  return out;
}

Tensor Tensor::permute(IntArrayRef dims) const {
  int64_t n = dim();
  EMBER_CHECK(static_cast<int64_t>(dims.size()) == n, ValueError,
              "permute(): number of dimensions in the tensor input does not match the length of "
              "the desired ordering of dimensions i.e. input.dim() = ",
              n, " is not equal to len(dims) = ", dims.size());
  DimVector sizes(n), strides(n), inverse(n);
  std::vector<bool> seen(n, false);
  for (int64_t i = 0; i < n; ++i) {
    int64_t d = wrap_dim(dims[i], n, "permute");
    EMBER_CHECK(!seen[d], ValueError, "permute(): duplicate dims are not allowed (dims ", dims,
                ")");
    seen[d] = true;
    sizes[i] = this->sizes()[d];
    strides[i] = this->strides()[d];
    inverse[d] = i;
  }
  Tensor out = make_view(*this, sizes, strides, storage_offset());
  if (autograd::needs_grad({*this})) {
    autograd::record("PermuteBackward0", out, {*this}, [inverse](const variable_list& g) {
      return variable_list{g[0].permute(inverse)};
    });
  }
  return out;
}

Tensor Tensor::unsqueeze(int64_t dim) const {
  int64_t d = wrap_dim(dim, this->dim() + 1, "unsqueeze");
  DimVector sizes(this->sizes()), strides(this->strides());
  // Any stride is right for a dim of size 1; size * stride may overflow in an empty tensor.
  int64_t stride = d >= this->dim() ? 1 : checked::mul_or(sizes[d], strides[d], 1);
  sizes.insert(d, 1);
  strides.insert(d, stride);
  Tensor out = make_view(*this, sizes, strides, storage_offset());
  if (autograd::needs_grad({*this})) {
    autograd::record("UnsqueezeBackward0", out, {*this},
                     [d](const variable_list& g) { return variable_list{g[0].squeeze(d)}; });
  }
  return out;
}

Tensor Tensor::squeeze() const {
  DimVector sizes, strides;
  for (int64_t d = 0; d < dim(); ++d) {
    if (this->sizes()[d] == 1) continue;
    sizes.push_back(this->sizes()[d]);
    strides.push_back(this->strides()[d]);
  }
  Tensor out = make_view(*this, sizes, strides, storage_offset());
  if (autograd::needs_grad({*this})) {
    DimVector in_sizes(this->sizes());
    autograd::record("SqueezeBackward0", out, {*this}, [in_sizes](const variable_list& g) {
      return variable_list{g[0].reshape(in_sizes)};
    });
  }
  return out;
}

Tensor Tensor::squeeze(int64_t dim) const {
  int64_t d = wrap_dim(dim, this->dim(), "squeeze");
  bool squeezes = this->dim() > 0 && sizes()[d] == 1;
  DimVector sizes(this->sizes()), strides(this->strides());
  if (squeezes) {
    sizes.erase(d);
    strides.erase(d);
  }
  Tensor out = make_view(*this, sizes, strides, storage_offset());
  if (autograd::needs_grad({*this})) {
    autograd::record("SqueezeBackward1", out, {*this}, [d, squeezes](const variable_list& g) {
      return variable_list{squeezes ? g[0].unsqueeze(d) : g[0]};
    });
  }
  return out;
}

Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  if (dim() == 0) return reshape({1});
  int64_t s = wrap_dim(start_dim, dim(), "flatten"), e = wrap_dim(end_dim, dim(), "flatten");
  EMBER_CHECK(s <= e, ValueError,
              "flatten() has invalid args: start_dim cannot come after end_dim (start_dim=", s,
              ", end_dim=", e, ")");
  if (s == e) return *this;
  DimVector shape;
  int64_t merged = 1;
  for (int64_t d = 0; d < dim(); ++d) {
    if (d < s || d > e) {
      shape.push_back(sizes()[d]);
    } else {
      merged *= sizes()[d];
      if (d == e) shape.push_back(merged);
    }
  }
  return reshape(shape);
}

Tensor Tensor::expand(IntArrayRef target) const {
  int64_t n = static_cast<int64_t>(target.size()), td = dim();
  EMBER_CHECK(n >= td, ValueError, "expand(tensor of size ", sizes(), ", size=", target,
              "): the number of sizes provided (", n,
              ") must be greater or equal to the number of dimensions in the tensor (", td, ")");
  DimVector sizes(n), strides(n);
  for (int64_t i = n - 1; i >= 0; --i) {
    int64_t d = td - n + i;  // the matching dim of this tensor, < 0 for new leading dims
    int64_t size = d >= 0 ? this->sizes()[d] : 1;
    // A new leading dim ends up of size 1 or expanded (stride 0): its stride is never used.
    int64_t stride = d >= 0 ? this->strides()[d]
                            : (i == n - 1 ? 1 : checked::mul_or(sizes[i + 1], strides[i + 1], 1));
    int64_t want = target[i];
    if (want == -1) {
      EMBER_CHECK(d >= 0, ValueError,
                  "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
                  "dimension ",
                  i);
      want = size;
    }
    EMBER_CHECK(want >= 0, ValueError, "The expanded size of the tensor (", want,
                ") is negative.  Target sizes: ", target, ".  Tensor sizes: ", this->sizes());
    if (size != want) {
      EMBER_CHECK(size == 1, ValueError, "The expanded size of the tensor (", want,
                  ") must match the existing size (", size, ") at non-singleton dimension ", i,
                  ".  Target sizes: ", target, ".  Tensor sizes: ", this->sizes());
      size = want;
      stride = 0;
    }
    sizes[i] = size;
    strides[i] = stride;
  }
  Tensor out = make_view(*this, sizes, strides, storage_offset());
  if (autograd::needs_grad({*this})) {
    DimVector in_sizes(this->sizes());
    autograd::record("ExpandBackward0", out, {*this}, [in_sizes](const variable_list& g) {
      return variable_list{autograd::sum_to(g[0], in_sizes)};
    });
  }
  return out;
}

Tensor Tensor::as_strided(IntArrayRef size, IntArrayRef stride,
                          std::optional<int64_t> storage_offset) const {
  const int64_t offset = storage_offset.value_or(this->storage_offset());
  const size_t itemsize = element_size();
  // Negative sizes, strides or offset and counts beyond int64 are refused here; then every
  // element must lie in the storage (PyTorch's setStorage check).
  const size_t need = checked::strided_nbytes(size, stride, offset, itemsize, "as_strided");
  const size_t have = impl()->storage()->nbytes;
  EMBER_CHECK(need <= have, ValueError, "as_strided: sizes ", size, ", strides ", stride,
              ", storage offset ", offset, ", and itemsize ", itemsize,
              " requiring a storage size of ", need, " are out of bounds for storage of size ",
              have);
  const bool grad = autograd::needs_grad({*this});
  // The gradient scatters into this tensor's elements, which a contiguous tensor lays out as the
  // storage range [storage_offset, storage_offset + numel): the view must lie inside it.
  const int64_t rel = offset - this->storage_offset();
  EMBER_CHECK(!grad || (is_contiguous() && rel >= 0 &&
                        need <= static_cast<size_t>(this->storage_offset() + numel()) * itemsize),
              NotImplementedError,
              "as_strided: the gradient is implemented for a view that lies within a contiguous "
              "input; this input (sizes ",
              sizes(), ", strides ", strides(), ", storage offset ", this->storage_offset(),
              ") requires grad. Call it on .contiguous() or under NoGradGuard.");
  Tensor out = make_view(*this, size, stride, offset);
  if (grad) {
    DimVector in_sizes(sizes()), sz(size), st(stride);
    const int64_t n = numel();
    autograd::record("AsStridedBackward0", out, {*this}, [=](const variable_list& g) {
      // Each output element's position in the input, then a sum over the positions.
      Tensor pos = arange(n, TensorOptions(kLong).device(g[0].device())).as_strided(sz, st, rel);
      Tensor flat = zeros({n}, g[0].options()).index_add(0, pos.reshape({-1}), g[0].reshape({-1}));
      return variable_list{flat.view(in_sizes)};
    });
  }
  return out;
}

Tensor Tensor::slice(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
                     int64_t step) const {
  check_not_scalar(*this, "slice");
  int64_t d = wrap_dim(dim, this->dim(), "slice");
  EMBER_CHECK(step > 0, ValueError, "slice step must be positive, got ", step);
  int64_t size = sizes()[d];
  int64_t s = start.value_or(0), e = end.value_or(size);
  if (s < 0) s += size;
  if (e < 0) e += size;
  s = std::clamp<int64_t>(s, 0, size);
  e = std::clamp<int64_t>(e, s, size);
  Tensor out = slice_view(*this, d, s, e, step);
  if (autograd::needs_grad({*this})) {
    autograd::record(
        "SliceBackward0", out, {*this},
        scatter_into_zeros(sizes(), [=](const Tensor& z) { return slice_view(z, d, s, e, step); }));
  }
  return out;
}

Tensor Tensor::select(int64_t dim, int64_t index) const {
  check_not_scalar(*this, "select");
  int64_t d = wrap_dim(dim, this->dim(), "select");
  int64_t size = sizes()[d];
  EMBER_CHECK(index >= -size && index < size, IndexError, "index ", index,
              " is out of bounds for dimension ", d, " with size ", size);
  int64_t i = index < 0 ? index + size : index;
  Tensor out = select_view(*this, d, i);
  if (autograd::needs_grad({*this})) {
    autograd::record(
        "SelectBackward0", out, {*this},
        scatter_into_zeros(sizes(), [=](const Tensor& z) { return select_view(z, d, i); }));
  }
  return out;
}

Tensor Tensor::narrow(int64_t dim, int64_t start, int64_t length) const {
  check_not_scalar(*this, "narrow");
  int64_t d = wrap_dim(dim, this->dim(), "narrow");
  int64_t size = sizes()[d];
  EMBER_CHECK(length >= 0, ValueError, "narrow(): length must be non-negative, got ", length);
  EMBER_CHECK(start >= -size && start <= size, IndexError,
              "narrow(): start out of range (expected to be in range of [", -size, ", ", size,
              "], but got ", start, ")");
  if (start < 0) start += size;
  EMBER_CHECK(start <= size - length, ValueError, "start (", start, ") + length (", length,
              ") exceeds dimension size (", size, ").");
  return narrow_piece(*this, d, start, length, "SliceBackward0");
}

std::vector<Tensor> Tensor::split(int64_t split_size, int64_t dim) const {
  EMBER_CHECK(this->dim() > 0, ValueError, "split expects at least a 1-dimensional tensor");
  EMBER_CHECK(split_size >= 0, ValueError,
              "split expects split_size be non-negative, but got split_size=", split_size);
  int64_t d = wrap_dim(dim, this->dim(), "split");
  int64_t size = sizes()[d];
  EMBER_CHECK(split_size > 0 || size == 0, ValueError,
              "split_size can only be 0 if dimension size is 0, but got dimension size of ", size);
  // ceil(size / split_size) without size + split_size overflowing (split(INT64_MAX)).
  int64_t pieces = split_size == 0 || size == 0 ? 1 : (size - 1) / split_size + 1;
  std::vector<Tensor> out;
  reserve_pieces(out, pieces, "split");
  for (int64_t i = 0; i < pieces; ++i) {
    int64_t start = i * split_size;
    out.push_back(slice_view(*this, d, start, start + std::min(split_size, size - start), 1));
  }
  record_pieces("SplitBackward0", *this, out, d, false);
  return out;
}

std::vector<Tensor> Tensor::chunk(int64_t chunks, int64_t dim) const {
  EMBER_CHECK(this->dim() > 0, ValueError, "chunk expects at least a 1-dimensional tensor");
  EMBER_CHECK(chunks > 0, ValueError, "chunk expects `chunks` to be greater than 0, got: ", chunks);
  int64_t d = wrap_dim(dim, this->dim(), "chunk");
  int64_t size = sizes()[d];
  if (size == 0) {
    // PyTorch returns `chunks` empty pieces here rather than one.
    std::vector<Tensor> out;
    reserve_pieces(out, chunks, "chunk");
    for (int64_t i = 0; i < chunks; ++i)
      out.push_back(narrow_piece(*this, d, 0, 0, "SplitBackward0"));
    return out;
  }
  return split((size - 1) / chunks + 1, d);  // ceil(size / chunks), size > 0
}

std::vector<Tensor> Tensor::unbind(int64_t dim) const {
  EMBER_CHECK(this->dim() > 0, IndexError, "Dimension specified as ", dim,
              " but tensor has no dimensions");
  int64_t d = wrap_dim(dim, this->dim(), "unbind");
  bool grad = autograd::needs_grad({*this});
  std::vector<Tensor> out;
  reserve_pieces(out, sizes()[d], "unbind");
  for (int64_t i = 0; i < sizes()[d]; ++i) out.push_back(select_view(*this, d, i));
  if (grad) record_pieces("UnbindBackward0", *this, out, d, true);
  return out;
}

std::vector<Tensor> Tensor::split_with_sizes(IntArrayRef split_sizes, int64_t dim) const {
  EMBER_CHECK(this->dim() > 0, ValueError,
              "split_with_sizes expects at least a 1-dimensional tensor");
  const int64_t d = wrap_dim(dim, this->dim(), "split_with_sizes");
  const int64_t size = sizes()[d];
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    EMBER_CHECK(s >= 0, ValueError,
                "split_with_sizes expects split_sizes have only non-negative entries, but got "
                "split_sizes=",
                split_sizes);
    EMBER_CHECK(checked::add(total, s, &total), ValueError,
                "split_with_sizes: split_sizes=", split_sizes, " overflow int64 when summed");
  }
  EMBER_CHECK(total == size, ValueError, "split_with_sizes expects split_sizes to sum exactly to ",
              size, " (input tensor's size at dimension ", d,
              "), but got split_sizes=", split_sizes);
  std::vector<Tensor> out;
  reserve_pieces(out, static_cast<int64_t>(split_sizes.size()), "split_with_sizes");
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    out.push_back(slice_view(*this, d, start, start + s, 1));
    start += s;
  }
  record_pieces("SplitWithSizesBackward0", *this, out, d, false);
  return out;
}

std::vector<Tensor> Tensor::split(IntArrayRef split_sizes, int64_t dim) const {
  return split_with_sizes(split_sizes, dim);
}

namespace {

// 0 <= d1 != d2 < t.dim(): the diagonal as the last dim, the two dims removed.
Tensor diagonal_view(const Tensor& t, int64_t offset, int64_t d1, int64_t d2) {
  const int64_t n1 = t.sizes()[d1], n2 = t.sizes()[d2];
  // Its first element: (0, offset) above the main diagonal, (-offset, 0) below it.
  const int64_t row = offset >= 0 ? 0 : -offset, col = offset >= 0 ? offset : 0;
  const int64_t length = std::max<int64_t>(0, std::min(n1 - row, n2 - col));
  DimVector sizes, strides;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (d == d1 || d == d2) continue;
    sizes.push_back(t.sizes()[d]);
    strides.push_back(t.strides()[d]);
  }
  sizes.push_back(length);
  strides.push_back(t.strides()[d1] + t.strides()[d2]);
  // An empty diagonal addresses nothing: its offset stays the base's.
  const int64_t storage_offset =
      length == 0 ? t.storage_offset()
                  : t.storage_offset() + row * t.strides()[d1] + col * t.strides()[d2];
  return make_view(t, sizes, strides, storage_offset);
}

}  // namespace

Tensor Tensor::diagonal(int64_t offset, int64_t dim1, int64_t dim2) const {
  // A tensor of fewer than 2 dims fails here, with PyTorch's IndexError.
  const int64_t d1 = wrap_dim(dim1, this->dim(), "diagonal");
  const int64_t d2 = wrap_dim(dim2, this->dim(), "diagonal");
  EMBER_CHECK(d1 != d2, ValueError, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  Tensor out = diagonal_view(*this, offset, d1, d2);
  if (autograd::needs_grad({*this})) {
    autograd::record("DiagonalBackward0", out, {*this},
                     scatter_into_zeros(sizes(), [=](const Tensor& z) {
                       return diagonal_view(z, offset, d1, d2);
                     }));
  }
  return out;
}

Tensor Tensor::movedim(IntArrayRef source, IntArrayRef destination) const {
  EMBER_CHECK(source.size() == destination.size(), ValueError,
              "movedim: Invalid source or destination dims: source (", source,
              " dims) should contain the same number of dims as destination (", destination,
              " dims)");
  const int64_t n = dim();
  // order[d]: the input dim that lands at d; the unnamed dims fill the free places in order.
  std::vector<int64_t> order(n, -1);
  std::vector<bool> moved(n, false);
  for (size_t i = 0; i < source.size(); ++i) {
    const int64_t s = wrap_dim(source[i], n, "movedim"), d = wrap_dim(destination[i], n, "movedim");
    EMBER_CHECK(!moved[s], ValueError, "movedim: repeated dim in `source` (", source, ")");
    EMBER_CHECK(order[d] == -1, ValueError, "movedim: repeated dim in `destination` (", destination,
                ")");
    moved[s] = true;
    order[d] = s;
  }
  int64_t next = 0;
  for (int64_t& o : order) {
    if (o != -1) continue;
    while (moved[next]) ++next;
    o = next++;
  }
  return permute(order);
}

Tensor Tensor::movedim(int64_t source, int64_t destination) const {
  return movedim(IntArrayRef{source}, IntArrayRef{destination});
}

Tensor Tensor::unflatten(int64_t dim, IntArrayRef sizes) const {
  check_not_scalar(*this, "unflatten");
  const int64_t d = wrap_dim(dim, this->dim(), "unflatten");
  EMBER_CHECK(!sizes.empty(), ValueError, "unflatten: sizes must be non-empty");
  // The sizes (one may be -1) must multiply up to the dim's size exactly: infer_size's check,
  // reported in unflatten's words.
  const int64_t n = this->sizes()[d];
  DimVector inferred;
  try {
    inferred = infer_size(sizes, n);
  } catch (const ValueError&) {
    throw ValueError(str_cat("unflatten: Provided sizes ", sizes,
                             " don't multiply up to the size of dim ", dim, " (", n,
                             ") in the input tensor"));
  }
  DimVector shape;
  for (int64_t i = 0; i < this->dim(); ++i) {
    if (i != d) {
      shape.push_back(this->sizes()[i]);
      continue;
    }
    for (int64_t s : inferred) shape.push_back(s);
  }
  return view(shape);
}

Tensor Tensor::repeat(IntArrayRef repeats) const {
  const int64_t n = static_cast<int64_t>(repeats.size());
  EMBER_CHECK(n >= dim(), ValueError,
              "Number of dimensions of repeat dims can not be smaller than number of dimensions "
              "of tensor (repeat dims ",
              repeats, ", tensor sizes ", sizes(), ")");
  for (int64_t r : repeats) {
    EMBER_CHECK(r >= 0, ValueError, "Trying to create tensor with negative dimension ", r, ": ",
                repeats);
  }
  // The tensor as [1, s0, 1, s1, ...] expanded to [r0, s0, r1, s1, ...] is the tiling in row-major
  // order: one copy, at the final reshape (expand's gradient sums the tiles back).
  DimVector pairs, expanded, tiled;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t s = i < n - dim() ? 1 : sizes()[i - (n - dim())];
    int64_t t = 0;
    EMBER_CHECK(checked::mul(repeats[i], s, &t), ValueError, "repeat: ", repeats, " times sizes ",
                sizes(), " overflows int64");
    pairs.push_back(1);
    pairs.push_back(s);
    expanded.push_back(repeats[i]);
    expanded.push_back(s);
    tiled.push_back(t);
  }
  return reshape(pairs).expand(expanded).reshape(tiled);
}

// ---- free-function forms ----

Tensor flatten(const Tensor& a, int64_t start_dim, int64_t end_dim) {
  return a.flatten(start_dim, end_dim);
}
Tensor reshape(const Tensor& a, IntArrayRef sizes) {
  return a.reshape(sizes);
}
Tensor transpose(const Tensor& a, int64_t d0, int64_t d1) {
  return a.transpose(d0, d1);
}
Tensor permute(const Tensor& a, IntArrayRef dims) {
  return a.permute(dims);
}
Tensor unsqueeze(const Tensor& a, int64_t dim) {
  return a.unsqueeze(dim);
}
Tensor squeeze(const Tensor& a) {
  return a.squeeze();
}
Tensor squeeze(const Tensor& a, int64_t dim) {
  return a.squeeze(dim);
}
Tensor narrow(const Tensor& a, int64_t dim, int64_t start, int64_t length) {
  return a.narrow(dim, start, length);
}
Tensor select(const Tensor& a, int64_t dim, int64_t index) {
  return a.select(dim, index);
}
Tensor as_strided(const Tensor& a, IntArrayRef size, IntArrayRef stride,
                  std::optional<int64_t> storage_offset) {
  return a.as_strided(size, stride, storage_offset);
}
Tensor diagonal(const Tensor& a, int64_t offset, int64_t dim1, int64_t dim2) {
  return a.diagonal(offset, dim1, dim2);
}
Tensor movedim(const Tensor& a, IntArrayRef source, IntArrayRef destination) {
  return a.movedim(source, destination);
}
Tensor movedim(const Tensor& a, int64_t source, int64_t destination) {
  return a.movedim(source, destination);
}
Tensor unflatten(const Tensor& a, int64_t dim, IntArrayRef sizes) {
  return a.unflatten(dim, sizes);
}
std::vector<Tensor> split_with_sizes(const Tensor& a, IntArrayRef split_sizes, int64_t dim) {
  return a.split_with_sizes(split_sizes, dim);
}

std::vector<int64_t> broadcast_shapes(IntArrayRef a, IntArrayRef b) {
  return broadcast_dims(a, b).ref().vec();
}

}  // namespace ember
