// The margin, ranking, embedding and count losses of PyTorch's list (huber, soft margin,
// multilabel soft margin, margin ranking, hinge embedding, cosine embedding, triplet margin,
// multi margin, multilabel margin, Poisson and Gaussian NLL), composed from elementwise ops and
// reductions as PyTorch writes them, so every device runs them and autograd differentiates them.
#include <cmath>
#include <numbers>

#include "ember/autograd.h"
#include "ember/nn/modules/loss.h"
#include "ember/nn/ops.h"
#include "ember/ops.h"
#include "nn/reduction.h"

namespace ember {
namespace {

using nn::detail::reduce;

// A [N, C] (or [C]) input and its [N] (or []) class targets, as multi_margin_loss takes them.
void check_class_targets(const Tensor& input, const Tensor& target, const char* op) {
  EMBER_CHECK(input.dim() == 1 || input.dim() == 2, ValueError, op,
              ": expected a 1-D or 2-D input, got shape ", input.sizes());
  EMBER_CHECK(target.dtype() == kLong, TypeError, op, ": expected a target of dtype int64, got ",
              python_name(target.dtype()));
  EMBER_CHECK(target.numel() == (input.dim() == 2 ? input.size(0) : 1), ValueError, op,
              ": inconsistent target size: ", target.sizes(),
              " for input of size: ", input.sizes());
}

}  // namespace

Tensor huber_loss(const Tensor& input, const Tensor& target, int64_t reduction, double delta) {
  EMBER_CHECK(delta > 0, ValueError, "huber_loss does not support non-positive values for delta.");
  Tensor diff = (input - target).abs();
  return reduce(where(diff < delta, diff * diff * 0.5, (diff - 0.5 * delta) * delta), reduction,
                "huber_loss");
}

Tensor soft_margin_loss(const Tensor& input, const Tensor& target, int64_t reduction) {
  return reduce(log1p(exp(-target * input)), reduction, "soft_margin_loss");
}

Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target, const Tensor& weight,
                                   int64_t reduction) {
  EMBER_CHECK(input.dim() >= 1, ValueError,
              "multilabel_soft_margin_loss: expected an input of at least 1 dim, got shape ",
              input.sizes());
  Tensor loss = -(target * log_sigmoid(input) + (1 - target) * log_sigmoid(-input));
  if (weight.defined()) loss = loss * weight;
  const int64_t class_dim = input.dim() - 1;
  loss = loss.sum(class_dim) / input.size(class_dim);
  return reduce(loss, reduction, "multilabel_soft_margin_loss");
}

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           double margin, int64_t reduction) {
  EMBER_CHECK(input1.dim() == input2.dim() && input1.dim() == target.dim(), ValueError,
              "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
              "input1: ",
              input1.sizes(), ", input2: ", input2.sizes(), ", target: ", target.sizes());
  return reduce((-target * (input1 - input2) + margin).clamp_min(0), reduction,
                "margin_ranking_loss");
}

Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, double margin,
                            int64_t reduction) {
  Tensor zeros = zeros_like(input);
  Tensor margin_part = where(target != 1, (margin - input).clamp_min(0), zeros);
  Tensor self_part = where(target != -1, input, zeros);
  return reduce(margin_part + self_part, reduction, "hinge_embedding_loss");
}

Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             double margin, int64_t reduction) {
  EMBER_CHECK(input1.dim() == input2.dim() && (input1.dim() == 1 || input1.dim() == 2), ValueError,
              "cosine_embedding_loss: expected 1-D or 2-D inputs of the same dimension, got "
              "input1: ",
              input1.sizes(), ", input2: ", input2.sizes());
  EMBER_CHECK(target.dim() == input1.dim() - 1, ValueError,
              "cosine_embedding_loss: ", input1.dim() - 1,
              "D target tensor expected, got target of size ", target.sizes());
  // PyTorch's arithmetic: the squared magnitudes get 1e-12 before the square root.
  const int64_t dim = input1.dim() - 1;
  constexpr double kEpsilon = 1e-12;
  Tensor dot = (input1 * input2).sum(dim);
  Tensor norms =
      sqrt(((input1 * input1).sum(dim) + kEpsilon) * ((input2 * input2).sum(dim) + kEpsilon));
  Tensor cos = dot / norms;
  Tensor zeros = zeros_like(cos);
  Tensor loss =
      where(target == 1, 1 - cos, zeros) + where(target == -1, (cos - margin).clamp_min(0), zeros);
  return reduce(loss, reduction, "cosine_embedding_loss");
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  const int64_t dims = std::max(x1.dim(), x2.dim());
  const int64_t last = std::max<int64_t>(dims - 1, 0);
  const Tensor d = x1 - x2 + eps;
  const std::vector<int64_t> dim{last};
  if (p == 2) return sqrt((d * d).sum(dim, keepdim));
  if (p == 1) return d.abs().sum(dim, keepdim);
  if (std::isinf(p)) return p > 0 ? d.abs().amax(dim, keepdim) : d.abs().amin(dim, keepdim);
  EMBER_CHECK(p > 0, ValueError, "pairwise_distance: p must be positive, got ", p);
  return pow(pow(d.abs(), p).sum(dim, keepdim), 1.0 / p);
}

Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           double margin, double p, double eps, bool swap, int64_t reduction) {
  EMBER_CHECK(anchor.dim() == positive.dim() && anchor.dim() == negative.dim(), ValueError,
              "The anchor, positive, and negative tensors are expected to have the same number of "
              "dimensions, but got: anchor ",
              anchor.dim(), "D, positive ", positive.dim(), "D, and negative ", negative.dim(),
              "D inputs");
  Tensor d_ap = pairwise_distance(anchor, positive, p, eps);
  Tensor d_an = pairwise_distance(anchor, negative, p, eps);
  if (swap) d_an = minimum(d_an, pairwise_distance(positive, negative, p, eps));
  return reduce((d_ap - d_an + margin).clamp_min(0), reduction, "triplet_margin_loss");
}

Tensor triplet_margin_with_distance_loss(
    const Tensor& anchor, const Tensor& positive, const Tensor& negative,
    std::optional<std::function<Tensor(const Tensor&, const Tensor&)>> distance_function,
    double margin, bool swap, int64_t reduction) {
  auto distance = [&](const Tensor& a, const Tensor& b) {
    return distance_function ? (*distance_function)(a, b) : pairwise_distance(a, b);
  };
  Tensor positive_distance = distance(anchor, positive);
  Tensor negative_distance = distance(anchor, negative);
  if (swap) negative_distance = minimum(negative_distance, distance(positive, negative));
  Tensor loss = clamp(positive_distance - negative_distance + margin, 0.0);
  return reduce(loss, reduction, "triplet_margin_with_distance_loss");
}

Tensor multi_margin_loss(const Tensor& input, const Tensor& target, int64_t p, double margin,
                         const Tensor& weight, int64_t reduction) {
  EMBER_CHECK(p == 1 || p == 2, ValueError, "only p == 1 and p == 2 supported");
  check_class_targets(input, target, "multi_margin_loss");
  const bool batched = input.dim() == 2;
  const Tensor x = batched ? input : input.unsqueeze(0);
  const Tensor y = target.reshape({x.size(0), 1});
  const int64_t C = x.size(1);
  EMBER_CHECK(!weight.defined() || (weight.dim() == 1 && weight.numel() == C), ValueError,
              "multi_margin_loss: weight must be a 1-D tensor of ", C, " elements, got shape ",
              weight.sizes());
  Tensor z = (x - x.gather(1, y) + margin).clamp_min(0);
  if (p == 2) z = z * z;
  if (weight.defined()) z = z * weight.index_select(0, y.reshape({-1})).unsqueeze(1);
  // The target's own class does not count (a comparison, not one_hot, which reads the targets).
  z = z * (y != arange(C, y.options())).to(z.dtype());
  Tensor loss = z.sum(1) / C;
  return reduce(batched ? loss : loss.squeeze(0), reduction, "multi_margin_loss");
}

Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target, int64_t reduction) {
  EMBER_CHECK(input.dim() <= 2 && input.sizes() == target.sizes(), ValueError,
              "multilabel_margin_loss: expected input and target of the same shape [C] or [N, C], "
              "got input ",
              input.sizes(), " and target ", target.sizes());
  EMBER_CHECK(target.dtype() == kLong, TypeError,
              "multilabel_margin_loss: expected a target of dtype int64, got ",
              python_name(target.dtype()));
  const bool batched = input.dim() == 2;
  const Tensor x = batched ? input : input.reshape({1, -1});
  const Tensor t = batched ? target : target.reshape({1, -1});
  const int64_t C = x.size(1);
  Tensor is_target;
  {
    NoGradGuard no_grad;
    // Entries up to the first -1 name the sample's classes.
    Tensor listed = (t >= 0).to(kLong).cumprod(1);
    Tensor hits = (t.clamp_min(0).unsqueeze(2) == arange(C, t.options())).to(kLong);
    is_target = (hits * listed.unsqueeze(2)).sum(1).gt(0).to(x.dtype());
  }
  // hinge[n, j, i] = max(0, 1 - (x[n, j] - x[n, i])) for listed j and unlisted i.
  Tensor hinge = (1 - (x.unsqueeze(2) - x.unsqueeze(1))).clamp_min(0);
  Tensor pairs = is_target.unsqueeze(2) * (1 - is_target).unsqueeze(1);
  Tensor loss = (hinge * pairs).sum({1, 2}) / C;
  return reduce(batched ? loss : loss.squeeze(0), reduction, "multilabel_margin_loss");
}

Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input, bool full,
                        double eps, int64_t reduction) {
  Tensor loss = log_input ? exp(input) - target * input : input - target * log(input + eps);
  if (full) {
    // Stirling: target * log(target) - target + log(2 pi target) / 2, where target > 1.
    Tensor stirling = target * log(target) - target + 0.5 * log(2 * std::numbers::pi * target);
    loss = loss + where(target > 1, stirling, zeros_like(stirling));
  }
  return reduce(loss, reduction, "poisson_nll_loss");
}

Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var, bool full,
                         double eps, int64_t reduction) {
  Tensor v = var;
  if (var.sizes() != input.sizes()) {
    // A var with one dim fewer (homoscedastic over the last dim) or a last dim of 1.
    if (input.sizes().vec() == [&] {
          auto s = var.sizes().vec();
          s.push_back(1);
          return s;
        }()) {
      v = var.unsqueeze(-1);
    } else {
      EMBER_CHECK(var.dim() == input.dim() && var.size(-1) == 1, ValueError,
                  "var is of incorrect size");
    }
  }
  EMBER_CHECK(eps >= 0, ValueError, "gaussian_nll_loss: eps must be non-negative, got ", eps);
  if (v.is_cpu()) {
    EMBER_CHECK(!(v < 0).any().item<bool>(), ValueError, "var has negative entry/entries");
  }
  // The clamp is not part of the graph: gradients reach var as if unclamped (PyTorch's rule).
  Tensor clamped = v.clone();
  {
    NoGradGuard no_grad;
    clamped.clamp_(eps);
  }
  Tensor loss = 0.5 * (log(clamped) + (input - target) * (input - target) / clamped);
  if (full) loss = loss + 0.5 * std::log(2 * std::numbers::pi);
  return reduce(loss, reduction, "gaussian_nll_loss");
}

namespace nn {

Tensor HuberLossImpl::forward(const Tensor& input, const Tensor& target) {
  return huber_loss(input, target, reduction_code(options.reduction()), options.delta());
}
Tensor SoftMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return soft_margin_loss(input, target, reduction_code(options.reduction()));
}
Tensor MultiLabelSoftMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return multilabel_soft_margin_loss(input, target, options.weight(),
                                     reduction_code(options.reduction()));
}
Tensor MultiLabelMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return multilabel_margin_loss(input, target, reduction_code(options.reduction()));
}
Tensor HingeEmbeddingLossImpl::forward(const Tensor& input, const Tensor& target) {
  return hinge_embedding_loss(input, target, options.margin(), reduction_code(options.reduction()));
}
Tensor MultiMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return multi_margin_loss(input, target, options.p(), options.margin(), options.weight(),
                           reduction_code(options.reduction()));
}
Tensor PoissonNLLLossImpl::forward(const Tensor& log_input, const Tensor& target) {
  return poisson_nll_loss(log_input, target, options.log_input(), options.full(), options.eps(),
                          reduction_code(options.reduction()));
}
Tensor MarginRankingLossImpl::forward(const Tensor& input1, const Tensor& input2,
                                      const Tensor& target) {
  return margin_ranking_loss(input1, input2, target, options.margin(),
                             reduction_code(options.reduction()));
}
Tensor CosineEmbeddingLossImpl::forward(const Tensor& input1, const Tensor& input2,
                                        const Tensor& target) {
  return cosine_embedding_loss(input1, input2, target, options.margin(),
                               reduction_code(options.reduction()));
}
Tensor TripletMarginLossImpl::forward(const Tensor& anchor, const Tensor& positive,
                                      const Tensor& negative) {
  return triplet_margin_loss(anchor, positive, negative, options.margin(), options.p(),
                             options.eps(), options.swap(), reduction_code(options.reduction()));
}
Tensor GaussianNLLLossImpl::forward(const Tensor& input, const Tensor& target, const Tensor& var) {
  return gaussian_nll_loss(input, target, var, options.full(), options.eps(),
                           reduction_code(options.reduction()));
}

Tensor TripletMarginWithDistanceLossImpl::forward(const Tensor& anchor, const Tensor& positive,
                                                  const Tensor& negative) {
  return triplet_margin_with_distance_loss(anchor, positive, negative, options.distance_function(),
                                           options.margin(), options.swap(),
                                           reduction_code(options.reduction()));
}
void TripletMarginWithDistanceLossImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::TripletMarginWithDistanceLoss(margin=" << options.margin()
         << ", swap=" << options.swap() << ")";
}

// libtorch 1.13's printouts.
void HuberLossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::HuberLoss()";
}
void SoftMarginLossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::SoftMarginLoss()";
}
void MultiLabelSoftMarginLossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::MultiLabelSoftMarginLoss()";
}
void MultiLabelMarginLossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::MultiLabelMarginLoss()";
}
void HingeEmbeddingLossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::HingeEmbeddingLoss(margin=" << options.margin() << ")";
}
void MultiMarginLossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::MultiMarginLoss(p=" << options.p() << ", margin=" << options.margin()
         << ")";
}
void PoissonNLLLossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::PoissonNLLLoss()";
}
void MarginRankingLossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::MarginRankingLoss()";
}
void CosineEmbeddingLossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::CosineEmbeddingLoss()";
}
void TripletMarginLossImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::TripletMarginLoss(margin=" << options.margin()
         << ", p=" << options.p() << ", eps=" << options.eps() << ", swap=" << options.swap()
         << ")";
}
void GaussianNLLLossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::GaussianNLLLoss()";
}

}  // namespace nn
}  // namespace ember
