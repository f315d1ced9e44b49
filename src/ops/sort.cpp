// sort, argsort and topk. The sorted dim is moved last and made contiguous, the backend sorts
// each row (stable, NaN greatest: kernel_math/sort_order.h), and the results are moved back. topk
// is the first k of a sort. The gradient scatters back through the indices (gather's backward).
#include <tuple>

#include "autograd/record.h"
#include "core/backend.h"
#include "core/tensor_factory.h"
#include "ember/ops.h"
#include "ops/index_grad.h"

namespace ember {

using autograd::variable_list;

namespace {

// `t` with dims d and last swapped, as a new contiguous tensor.
Tensor dim_last(const Tensor& t, int64_t d) {
  return d == t.dim() - 1 ? t.contiguous() : t.transpose(d, -1).contiguous();
}

}  // namespace

std::tuple<Tensor, Tensor> sort(const Tensor& a, std::optional<bool> /*stable*/, int64_t dim,
                                bool descending) {
  // Every sort is stable here: equal keys keep their order, whether or not `stable` was asked for.
  if (a.dim() == 0) {
    wrap_dim(dim, 1, "sort");
    auto [v, i] = sort(a.reshape({1}), std::optional<bool>(false), 0, descending);
    return {v.reshape({}), i.reshape({})};
  }
  const int64_t d = wrap_dim(dim, a.dim(), "sort");
  Tensor x = dim_last(a.detach(), d);
  Tensor values = make_empty(x.sizes(), x.dtype(), x.device());
  Tensor indices = make_empty(x.sizes(), kLong, x.device());
  if (x.numel() > 0) backend_for(x).sort(values, indices, x, descending);
  if (d != a.dim() - 1) {
    values = values.transpose(d, -1).contiguous();
    indices = indices.transpose(d, -1).contiguous();
  }
  if (autograd::needs_grad({a})) {
    DimVector in_sizes(a.sizes());
    autograd::record("SortBackward0", values, {a}, [=](const variable_list& g) {
      return variable_list{gather_backward(g[0], in_sizes, d, indices)};
    });
  }
  return {values, indices};
}

std::tuple<Tensor, Tensor> sort(const Tensor& a, int64_t dim, bool descending) {
  return sort(a, std::optional<bool>(false), dim, descending);
}

Tensor argsort(const Tensor& a, int64_t dim, bool descending) {
  return std::get<1>(sort(a.detach(), std::optional<bool>(false), dim, descending));
}

Tensor argsort(const Tensor& a, bool stable, int64_t dim, bool descending) {
  return std::get<1>(sort(a.detach(), std::optional<bool>(stable), dim, descending));
}

std::tuple<Tensor, Tensor> topk(const Tensor& a, int64_t k, int64_t dim, bool largest,
                                bool sorted) {
  // `sorted == false` leaves the order unspecified in PyTorch; here it is the sorted order too.
  (void)sorted;
  const int64_t d = wrap_dim(dim, std::max<int64_t>(a.dim(), 1), "topk");
  const int64_t size = a.dim() == 0 ? 1 : a.size(d);
  EMBER_CHECK(k >= 0 && k <= size, ValueError, "topk(): selected index k out of range: k = ", k,
              " but dimension ", d, " of the input ", a.sizes(), " has size ", size);
  auto [values, indices] = sort(a, std::optional<bool>(false), d, largest);
  if (a.dim() == 0) return {values, indices};
  return {values.narrow(d, 0, k).contiguous(), indices.narrow(d, 0, k).contiguous()};
}

std::tuple<Tensor, Tensor> Tensor::sort(int64_t dim, bool descending) const {
  return ember::sort(*this, dim, descending);
}
std::tuple<Tensor, Tensor> Tensor::sort(std::optional<bool> stable, int64_t dim,
                                        bool descending) const {
  return ember::sort(*this, stable, dim, descending);
}
Tensor Tensor::argsort(int64_t dim, bool descending) const {
  return ember::argsort(*this, dim, descending);
}
Tensor Tensor::argsort(bool stable, int64_t dim, bool descending) const {
  return ember::argsort(*this, stable, dim, descending);
}
std::tuple<Tensor, Tensor> Tensor::topk(int64_t k, int64_t dim, bool largest, bool sorted) const {
  return ember::topk(*this, k, dim, largest, sorted);
}

}  // namespace ember
