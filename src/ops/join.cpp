// cat and stack: allocate the joined output once, then copy each input into its slice of it
// through the backend's copy (which also casts to the promoted dtype).
#include <vector>

#include "autograd/record.h"
#include "core/autocast_hook.h"
#include "core/backend.h"
#include "core/checked_size.h"
#include "core/tensor_factory.h"
#include "ember/ops.h"

namespace ember {

using autograd::variable_list;

namespace {

// The part [start, start + length) of `t` along `d`, as a plain view (no autograd).
Tensor part(const Tensor& t, int64_t d, int64_t start, int64_t length) {
  DimVector sizes(t.sizes());
  sizes[d] = length;
  return make_view(t, sizes, t.strides(), t.storage_offset() + start * t.strides()[d]);
}

// PyTorch's legacy rule: 1-D tensors of size 0 may be joined with anything and are skipped.
bool skipped_in_cat(const Tensor& t) {
  return t.dim() == 1 && t.sizes()[0] == 0;
}

bool any_needs_grad(TensorList tensors) {
  if (!autograd::GradMode::is_enabled()) return false;
  for (const Tensor& t : tensors) {
    if (autograd::requires_grad_fast(t)) return true;
  }
  return false;
}

}  // namespace

Tensor cat(TensorList tensors, int64_t dim) {
  if (!tensors.empty() && amp::autocast_applies(tensors[0])) {
    amp::AutocastScope ac(amp::AutocastOp::cat, tensors[0]);
    for (const Tensor& t : tensors) ac.include(t);
    std::vector<Tensor> cast;
    for (const Tensor& t : tensors) cast.push_back(ac.cast(t));
    return cat(cast, dim);
  }
  EMBER_CHECK(!tensors.empty(), ValueError, "torch.cat(): expected a non-empty list of Tensors");
  const Tensor* ref = nullptr;  // the first tensor that takes part in the shape checks
  ScalarType dtype = tensors[0].dtype();
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK(t.defined(), ValueError, "torch.cat(): tensor number ", i, " is undefined");
    check_same_device(tensors[0], t, "cat");
    dtype = promote_types(dtype, t.dtype());
    if (!ref && !skipped_in_cat(t)) ref = &t;
  }
  if (!ref) ref = &tensors[0];
  EMBER_CHECK(ref->dim() > 0, ValueError,
              "zero-dimensional tensor cannot be concatenated (tensor number ", ref - &tensors[0],
              ")");
  int64_t d = wrap_dim(dim, ref->dim(), "cat");

  DimVector sizes(ref->sizes());
  int64_t total = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (skipped_in_cat(t)) continue;
    EMBER_CHECK(t.dim() == ref->dim(), ValueError,
                "Tensors must have same number of dimensions: got ", ref->dim(), " and ", t.dim(),
                " (tensor number ", i, " has shape ", t.sizes(), ")");
    for (int64_t k = 0; k < t.dim(); ++k) {
      EMBER_CHECK(k == d || t.sizes()[k] == sizes[k], ValueError,
                  "Sizes of tensors must match except in dimension ", d, ". Expected size ",
                  sizes[k], " but got size ", t.sizes()[k], " for tensor number ", i,
                  " in the list.");
    }
    EMBER_CHECK(checked::add(total, t.sizes()[d], &total), ValueError,
                "cat: the sizes along dimension ", d, " overflow int64 (tensor number ", i,
                " of shape ", t.sizes(), " takes the sum past 2^63 - 1)");
  }
  sizes[d] = total;

  Tensor out = make_empty(sizes, dtype, ref->device());
  Backend& be = backend_for(out);
  std::vector<int64_t> offsets(tensors.size()), lengths(tensors.size());
  int64_t offset = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    offsets[i] = offset;
    lengths[i] = skipped_in_cat(t) ? -1 : t.sizes()[d];
    if (lengths[i] <= 0) continue;
    be.copy(part(out, d, offset, lengths[i]), t, false);
    offset += lengths[i];
  }

  if (any_needs_grad(tensors)) {
    std::vector<ScalarType> dtypes;
    for (const Tensor& t : tensors) dtypes.push_back(t.dtype());
    autograd::record("CatBackward0", out, tensors.vec(), [=](const variable_list& g) {
      variable_list grads(offsets.size());
      for (size_t i = 0; i < offsets.size(); ++i) {
        if (lengths[i] < 0) {
          grads[i] = zeros({0}, g[0].options().dtype(dtypes[i]));
        } else {
          grads[i] = g[0].narrow(d, offsets[i], lengths[i]).to(dtypes[i]);
        }
      }
      return grads;
    });
  }
  return out;
}

Tensor stack(TensorList tensors, int64_t dim) {
  if (!tensors.empty() && amp::autocast_applies(tensors[0])) {
    amp::AutocastScope ac(amp::AutocastOp::stack, tensors[0]);
    for (const Tensor& t : tensors) ac.include(t);
    std::vector<Tensor> cast;
    for (const Tensor& t : tensors) cast.push_back(ac.cast(t));
    return stack(cast, dim);
  }
  EMBER_CHECK(!tensors.empty(), ValueError, "stack expects a non-empty TensorList");
  const Tensor& first = tensors[0];
  ScalarType dtype = first.dtype();
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK(t.defined(), ValueError, "stack(): tensor number ", i, " is undefined");
    EMBER_CHECK(t.sizes() == first.sizes(), ValueError,
                "stack expects each tensor to be equal size, but got ", first.sizes(),
                " at entry 0 and ", t.sizes(), " at entry ", i);
    check_same_device(first, t, "stack");
    dtype = promote_types(dtype, t.dtype());
  }
  int64_t d = wrap_dim(dim, first.dim() + 1, "stack");
  DimVector sizes(first.sizes());
  sizes.insert(d, static_cast<int64_t>(tensors.size()));
  Tensor out = make_empty(sizes, dtype, first.device());
  Backend& be = backend_for(out);
  // out.select(d, i) as a plain view.
  DimVector part_sizes(first.sizes()), part_strides(out.strides());
  part_strides.erase(d);
  for (size_t i = 0; i < tensors.size(); ++i) {
    int64_t off = out.storage_offset() + static_cast<int64_t>(i) * out.strides()[d];
    be.copy(make_view(out, part_sizes, part_strides, off), tensors[i], false);
  }

  if (any_needs_grad(tensors)) {
    std::vector<ScalarType> dtypes;
    for (const Tensor& t : tensors) dtypes.push_back(t.dtype());
    autograd::record("StackBackward0", out, tensors.vec(), [=](const variable_list& g) {
      variable_list grads(dtypes.size());
      for (size_t i = 0; i < dtypes.size(); ++i) {
        grads[i] = g[0].select(d, static_cast<int64_t>(i)).to(dtypes[i]);
      }
      return grads;
    });
  }
  return out;
}

}  // namespace ember
