// multinomial: indices drawn from the categories of each row of a probability tensor (weights
// that need not sum to 1), composed of ops that run on every device and draw from the default
// Philox generator, so one seed gives one draw on the CPU and on CUDA.
//   With replacement: the inverse of each row's cumulative sum at uniform points, u * total:
//     the index is the number of categories whose cumulative sum is <= the point.
//   Without replacement: the exponential race (Gumbel top-k): each category gets
//     p / E with E ~ Exp(1), and the num_samples largest keys win; sampling in that order is
//     sampling one by one without replacement.
// PyTorch checks the values (negative, inf or NaN weights, an all-zero row) on the CPU; so does
// Ember, on CPU tensors only: on CUDA the check would make the host wait for the device.
#include "ember/autograd.h"
#include "ember/ops.h"

#include <cmath>

namespace ember {
namespace {

void check_distribution(const Tensor& p, int64_t num_samples, bool replacement) {
  EMBER_CHECK(p.dim() == 1 || p.dim() == 2, ValueError, "prob_dist must be 1 or 2 dim");
  EMBER_CHECK(is_floating_point(p.scalar_type()), TypeError,
              "multinomial only supports floating-point dtypes for input, got: ", p.dtype());
  EMBER_CHECK(num_samples > 0, ValueError, "cannot sample n_sample <= 0 samples");
  const int64_t categories = p.size(-1);
  EMBER_CHECK(replacement || num_samples <= categories, ValueError,
              "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  EMBER_CHECK(categories <= (int64_t(1) << 24), ValueError,
              "number of categories cannot exceed 2^24");
  if (!p.device().is_cpu() || p.numel() == 0) return;
  NoGradGuard no_grad;
  const Tensor rows = p.dim() == 1 ? p.unsqueeze(0) : p;
  EMBER_CHECK(!(rows.isinf().any().item<bool>() || rows.isnan().any().item<bool>() ||
                (rows < 0).any().item<bool>()),
              ValueError, "probability tensor contains either `inf`, `nan` or element < 0");
  EMBER_CHECK(!(rows.sum(-1) <= 0).any().item<bool>(), ValueError,
              "invalid multinomial distribution (sum of probabilities <= 0)");
  if (!replacement) {
    const int64_t fewest = (rows > 0).sum(-1).min().item<int64_t>();
    EMBER_CHECK(fewest >= num_samples, ValueError,
                "invalid multinomial distribution (with replacement=False, not enough non-negative "
                "category to sample)");
  }
}

}  // namespace

Tensor multinomial(const Tensor& input, int64_t num_samples, bool replacement) {
  check_distribution(input, num_samples, replacement);
  NoGradGuard no_grad;
  const bool vector = input.dim() == 1;
  // Float64 for the arithmetic: a float32 cumulative sum of many categories loses the smallest.
  const Tensor p = (vector ? input.unsqueeze(0) : input).to(kDouble);
  const int64_t rows = p.size(0), categories = p.size(1);
  Tensor out;
  if (rows == 0) {
    out = empty({0, num_samples}, input.options().dtype(kLong));
  } else if (replacement) {
    const Tensor cdf = p.cumsum(1);  // [rows, K]
    const Tensor points = rand({rows, num_samples}, p.options()) * cdf.narrow(1, categories - 1, 1);
    // [rows, n, K]: how many cumulative sums lie at or below each point.
    out = (cdf.unsqueeze(1) <= points.unsqueeze(2)).sum(2).clamp_max(categories - 1);
    // A point can land on a zero-weight category only through the clamp: move it to the last
    // category with weight (the cumulative sum's last increase).
    const Tensor last_with_weight =
        (p > 0).to(kLong).mul(arange(categories, p.options().dtype(kLong))).amax(1, true);
    out = minimum(out, last_with_weight.expand_as(out));
  } else {
    const Tensor race = -(-rand(p.sizes(), p.options())).log1p();  // Exp(1), finite
    out = std::get<1>((p / race).topk(num_samples, 1));
  }
  return vector ? out.squeeze(0) : out;
}

Tensor Tensor::multinomial(int64_t num_samples, bool replacement) const {
  return ember::multinomial(*this, num_samples, replacement);
}

}  // namespace ember
