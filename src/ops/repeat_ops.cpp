// tile (repeat with NumPy's padding of the repeats) and repeat_interleave, which is an
// index_select with the index 0, 0, 1, 2, 2, ... (each position repeated its count), so the
// gradient sums each element's copies back through index_select's rule.
#include <algorithm>

#include "core/tensor_factory.h"
#include "ember/ops.h"

namespace ember {

Tensor tile(const Tensor& self, IntArrayRef dims) {
  std::vector<int64_t> reps(dims.begin(), dims.end());
  if (static_cast<int64_t>(reps.size()) < self.dim()) {
    reps.insert(reps.begin(), self.dim() - static_cast<int64_t>(reps.size()), 1);
  }
  return self.repeat(reps);
}

Tensor Tensor::tile(IntArrayRef dims) const {
  return ember::tile(*this, dims);
}

Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size) {
  EMBER_CHECK(repeats.dim() == 1, ValueError,
              "repeat_interleave only accept 1D vector as repeat (got repeats of shape ",
              repeats.sizes(), ")");
  EMBER_CHECK(repeats.dtype() == kLong || repeats.dtype() == kInt, TypeError,
              "repeats has to be Long or Int tensor (got ", python_name(repeats.dtype()), ")");
  if (repeats.numel() == 0) return empty({0}, repeats.options());
  const TensorOptions longs = TensorOptions().dtype(kLong).device(repeats.device());
  Tensor ends = repeats.to(kLong).cumsum(0);
  int64_t total = 0;
  if (output_size) {
    EMBER_CHECK(*output_size >= 0, ValueError, "repeat_interleave: output_size must be >= 0, got ",
                *output_size);
    total = *output_size;
  } else {
    EMBER_CHECK(repeats.ge(0).all().item<bool>(), ValueError, "repeats can not be negative (got ",
                IntArrayRef(repeats.to(Device(kCPU)).to(kLong).to_vector<int64_t>()), ")");
    total = ends[-1].item<int64_t>();
  }
  // Position j of the result belongs to the first i whose end exceeds j: one marker at each end
  // (clamped to the output), summed cumulatively.
  const int64_t n = repeats.size(0);
  Tensor markers =
      zeros({total + 1}, longs)
          .index_add(0, ends.narrow(0, 0, n - 1).clamp(0, total), ones({n - 1}, longs));
  return markers.narrow(0, 0, total).cumsum(0).to(repeats.dtype());
}

Tensor repeat_interleave(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  const Tensor input = dim ? self : self.flatten();
  const int64_t d = dim ? wrap_dim(*dim, input.dim(), "repeat_interleave") : 0;
  const int64_t n = input.dim() == 0 ? 1 : input.size(d);
  Tensor reps = repeats;
  if (repeats.dim() == 0 || (repeats.dim() == 1 && repeats.size(0) == 1)) {
    reps = repeats.reshape({1}).expand({n});
  } else {
    EMBER_CHECK(repeats.dim() == 1, ValueError,
                "repeats must be 0-dim or 1-dim tensor (got repeats of shape ", repeats.sizes(),
                ")");
    EMBER_CHECK(repeats.size(0) == n, ValueError,
                "repeats must have the same size as input along dim (repeats ", repeats.size(0),
                ", input ", n, " along dim ", d, ")");
  }
  check_same_device(input, repeats, "repeat_interleave");
  Tensor index = repeat_interleave(reps.contiguous(), output_size).to(kLong);
  return (input.dim() == 0 ? input.reshape({1}) : input).index_select(d, index);
}

// One count for every element: the index is known without reading any tensor (no device sync).
Tensor repeat_interleave(const Tensor& self, int64_t repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  EMBER_CHECK(repeats >= 0, ValueError, "repeats can not be negative (got ", repeats, ")");
  const Tensor input = dim ? self : self.flatten();
  const int64_t d = dim ? wrap_dim(*dim, input.dim(), "repeat_interleave") : 0;
  const int64_t n = input.dim() == 0 ? 1 : input.size(d);
  Tensor index = arange(n, TensorOptions().dtype(kLong).device(self.device()))
                     .unsqueeze(1)
                     .expand({n, repeats})
                     .reshape({n * repeats});
  if (output_size) {
    EMBER_CHECK(*output_size == n * repeats, ValueError, "repeat_interleave: output_size ",
                *output_size, " is not the repeated size ", n * repeats);
  }
  return (input.dim() == 0 ? input.reshape({1}) : input).index_select(d, index);
}

Tensor Tensor::repeat_interleave(const Tensor& repeats, std::optional<int64_t> dim,
                                 std::optional<int64_t> output_size) const {
  return ember::repeat_interleave(*this, repeats, dim, output_size);
}
Tensor Tensor::repeat_interleave(int64_t repeats, std::optional<int64_t> dim,
                                 std::optional<int64_t> output_size) const {
  return ember::repeat_interleave(*this, repeats, dim, output_size);
}

}  // namespace ember
