// cosine_similarity and F::normalize, composed from reductions and elementwise ops. The norms
// take their square root (or 1/p-th power) only where the sum is positive, so an all-zero vector
// gets a zero gradient instead of 0 * inf = NaN, as PyTorch's norm backward does.
#include <cmath>
#include <limits>

#include "ember/nn/functional.h"
#include "ember/nn/modules/distance.h"
#include "ember/ops.h"

namespace ember {
namespace {

// sum(|x|^p)^(1/p) over `dim`, kept.
Tensor p_norm(const Tensor& x, double p, int64_t dim) {
  if (std::isinf(p) && p > 0) return amax(abs(x), {dim}, true);
  Tensor powered = p == 2 ? x * x : p == 1 ? abs(x) : pow(abs(x), p);
  Tensor s = powered.sum({dim}, true);
  if (p == 1) return s;
  Tensor positive = s > 0;
  Tensor safe = where(positive, s, Scalar(1.0));
  Tensor root = p == 2 ? sqrt(safe) : pow(safe, 1.0 / p);
  return where(positive, root, Scalar(0.0));
}

int64_t wrap_dim(int64_t dim, int64_t rank, const char* op, IntArrayRef shape) {
  EMBER_CHECK(dim >= -std::max<int64_t>(rank, 1) && dim < std::max<int64_t>(rank, 1), IndexError,
              op, ": Dimension out of range (expected to be in range of [",
              -std::max<int64_t>(rank, 1), ", ", std::max<int64_t>(rank, 1) - 1, "], but got ", dim,
              ") for the input of shape ", shape);
  return dim < 0 ? dim + rank : dim;
}

}  // namespace

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps) {
  std::vector<int64_t> shape = broadcast_shapes(x1.sizes(), x2.sizes());
  const int64_t d = wrap_dim(dim, static_cast<int64_t>(shape.size()), "cosine_similarity", shape);
  Tensor a = x1.expand(shape), b = x2.expand(shape);
  Tensor w12 = (a * b).sum({d});
  Tensor w1 = (a * a).sum({d});
  Tensor w2 = (b * b).sum({d});
  return w12 / sqrt((w1 * w2).clamp_min(eps * eps));
}

namespace nn::functional {

Tensor normalize(const Tensor& input, NormalizeFuncOptions options) {
  EMBER_CHECK(options.p() > 0, ValueError, "normalize: p must be positive, got ", options.p());
  const int64_t d = wrap_dim(options.dim(), input.dim(), "normalize", input.sizes());
  Tensor denom = p_norm(input, options.p(), d).clamp_min(options.eps()).expand_as(input);
  Tensor result = input / denom;
  if (options.out().has_value()) {
    NoGradGuard no_grad;
    options.out()->copy_(result);
    return *options.out();
  }
  return result;
}

}  // namespace nn::functional
}  // namespace ember

namespace ember::nn {

CosineSimilarityImpl::CosineSimilarityImpl(const CosineSimilarityOptions& options_)
    : options(options_) {}
Tensor CosineSimilarityImpl::forward(const Tensor& x1, const Tensor& x2) {
  return functional::cosine_similarity(x1, x2, options);
}
void CosineSimilarityImpl::pretty_print(std::ostream& stream) const {
  // libtorch leaves the stream in boolalpha here too.
  stream << std::boolalpha << "ember::nn::CosineSimilarity(dim=" << options.dim()
         << ", eps=" << options.eps() << ")";
}

Tensor PairwiseDistanceImpl::forward(const Tensor& x1, const Tensor& x2) {
  return ember::pairwise_distance(x1, x2, options.p(), options.eps(), options.keepdim());
}
void PairwiseDistanceImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::PairwiseDistance(p=" << options.p()
         << ", eps=" << options.eps() << ", keepdim=" << options.keepdim() << ")";
}

}  // namespace ember::nn
