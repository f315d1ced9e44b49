// Indexing front ends: index_select, gather and one_hot. They check dtypes, shapes and (for
// indices on the CPU, where it costs no device sync) bounds, then call the backend's index family.
#include <algorithm>
#include <limits>
#include <utility>

#include "autograd/record.h"
#include "core/backend.h"
#include "core/tensor_factory.h"
#include "ember/ops.h"
#include "ops/index_grad.h"

namespace ember {

using autograd::variable_list;

namespace {

// Smallest and largest entry of a non-empty int32/int64 tensor, read on the CPU.
std::pair<int64_t, int64_t> min_max(const Tensor& t) {
  Tensor c = (t.is_cpu() ? t : t.cpu()).contiguous();
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
  auto scan = [&](const auto* p) {
    for (int64_t i = 0; i < c.numel(); ++i) {
      lo = std::min<int64_t>(lo, p[i]);
      hi = std::max<int64_t>(hi, p[i]);
    }
  };
  if (c.dtype() == kInt) {
    scan(c.data_ptr<int32_t>());
  } else {
    scan(c.data_ptr<int64_t>());
  }
  return {lo, hi};
}

// Throws when an index on the CPU falls outside [-0, size): IndexError for index_select, and
// ValueError (Python's RuntimeError) for gather, as ATen checks them.
template <typename OutOfRange = IndexError>
void check_bounds(const Tensor& index, int64_t size, int64_t dim, const char* what) {
  if (!index.is_cpu() || index.numel() == 0) return;
  auto [lo, hi] = min_max(index);
  int64_t bad = lo < 0 ? lo : hi;
  if (lo < 0 || hi >= size) {
    throw OutOfRange(detail::str_cat(what, "index ", bad, " is out of bounds for dimension ", dim,
                                     " with size ", size));
  }
}

}  // namespace

Tensor index_select(const Tensor& a, int64_t dim, const Tensor& index) {
  EMBER_CHECK(index.dtype() == kLong || index.dtype() == kInt, TypeError,
              "index_select(): Expected dtype int32 or int64 for index, got ",
              python_name(index.dtype()));
  EMBER_CHECK(index.dim() <= 1, IndexError,
              "index_select(): Index is supposed to be a vector, got shape ", index.sizes());
  check_same_device(a, index, "index_select");
  if (a.dim() == 0) {
    // A 0-dim tensor behaves as one element along dim 0 and stays 0-dim.
    EMBER_CHECK(index.numel() == 1, IndexError,
                "index_select(): a 0-dim tensor takes exactly one index, got ", index.numel());
    return index_select(a.reshape({1}), dim, index).reshape({});
  }
  int64_t d = wrap_dim(dim, a.dim(), "index_select");
  check_bounds(index, a.sizes()[d], d, "index out of range in self: ");
  Tensor idx = index.reshape({index.numel()});
  if (idx.dtype() != kLong) idx = idx.to(kLong);

  DimVector sizes(a.sizes());
  sizes[d] = idx.numel();
  Tensor out = make_empty(sizes, a.dtype(), a.device());
  if (out.numel() > 0) backend_for(out).index_select(out, a, d, idx);

  if (autograd::needs_grad({a})) {
    DimVector in_sizes(a.sizes());
    autograd::record("IndexSelectBackward0", out, {a}, [=](const variable_list& g) {
      return variable_list{index_select_backward(g[0], in_sizes, d, idx)};
    });
  }
  return out;
}

Tensor Tensor::index_select(int64_t dim, const Tensor& index) const {
  return ember::index_select(*this, dim, index);
}

Tensor index_select_backward(const Tensor& grad, IntArrayRef in_sizes, int64_t dim,
                             const Tensor& index) {
  Tensor z = zeros(in_sizes, grad.options());
  if (grad.numel() > 0) backend_for(z).index_add(z, dim, index, grad);
  if (autograd::needs_grad({grad})) {  // create_graph: z is linear in grad
    autograd::record("IndexAddBackward0", z, {grad}, [dim, index](const variable_list& gz) {
      return variable_list{gz[0].index_select(dim, index)};
    });
  }
  return z;
}

Tensor gather_backward(const Tensor& grad, IntArrayRef in_sizes, int64_t dim, const Tensor& index) {
  Tensor z = zeros(in_sizes, grad.options());
  if (grad.numel() > 0) backend_for(z).scatter_add(z, dim, index, grad);
  if (autograd::needs_grad({grad})) {  // create_graph: z is linear in grad
    autograd::record("ScatterAddBackward0", z, {grad}, [dim, index](const variable_list& gz) {
      return variable_list{gather(gz[0], dim, index)};
    });
  }
  return z;
}

Tensor gather(const Tensor& a, int64_t dim, const Tensor& index) {
  EMBER_CHECK(index.dtype() == kLong, TypeError, "gather(): Expected dtype int64 for index, got ",
              python_name(index.dtype()));
  check_same_device(a, index, "gather");
  EMBER_CHECK(std::max<int64_t>(a.dim(), 1) == std::max<int64_t>(index.dim(), 1), IndexError,
              "Index tensor must have the same number of dimensions as input tensor (index ",
              index.sizes(), ", input ", a.sizes(), ")");
  if (a.dim() == 0 || index.dim() == 0) {
    Tensor r = gather(a.reshape({a.numel()}), dim, index.reshape({index.numel()}));
    return r.reshape(index.sizes());
  }
  int64_t d = wrap_dim(dim, a.dim(), "gather");
  for (int64_t k = 0; k < a.dim(); ++k) {
    EMBER_CHECK(k == d || index.sizes()[k] <= a.sizes()[k], ValueError,
                "Size does not match at dimension ", k, " expected index ", index.sizes(),
                " to be smaller than self ", a.sizes(), " apart from dimension ", d);
  }
  check_bounds<ValueError>(index, a.sizes()[d], d, "gather(): ");

  Tensor out = make_empty(index.sizes(), a.dtype(), a.device());
  if (out.numel() > 0) backend_for(out).gather(out, a, d, index);

  if (autograd::needs_grad({a})) {
    DimVector in_sizes(a.sizes());
    autograd::record("GatherBackward0", out, {a}, [=](const variable_list& g) {
      return variable_list{gather_backward(g[0], in_sizes, d, index)};
    });
  }
  return out;
}

Tensor one_hot(const Tensor& a, int64_t num_classes) {
  EMBER_CHECK(a.dtype() == kLong, TypeError,
              "one_hot is only applicable to index tensor (dtype torch.int64), got ",
              python_name(a.dtype()));
  EMBER_CHECK(num_classes >= -1, ValueError,
              "one_hot(): num_classes must be -1 or non-negative, got ", num_classes);
  if (a.numel() == 0) {
    EMBER_CHECK(num_classes != -1, ValueError,
                "Can not infer total number of classes from empty tensor.");
  } else {
    auto [lo, hi] = min_max(a);
    EMBER_CHECK(lo >= 0, ValueError, "Class values must be non-negative (got ", lo, ").");
    if (num_classes == -1) num_classes = hi + 1;
    EMBER_CHECK(hi < num_classes, ValueError, "Class values must be smaller than num_classes (got ",
                hi, " with num_classes=", num_classes, ").");
  }
  DimVector sizes(a.sizes());
  sizes.push_back(num_classes);
  Tensor out = make_empty(sizes, kLong, a.device());
  Backend& be = backend_for(out);
  be.fill(out, 0);
  if (out.numel() == 0) return out;
  DimVector one_sizes(a.sizes());
  one_sizes.push_back(1);
  Tensor ones_src = make_empty(one_sizes, kLong, a.device());
  be.fill(ones_src, 1);
  be.scatter_add(out, out.dim() - 1, a.detach().unsqueeze(-1), ones_src);
  return out;
}

}  // namespace ember
