// Losses, composed from differentiable primitives (log_softmax, gather, index_select, where,
// sums), except binary_cross_entropy_with_logits, which records its own backward so the gradient
// is exact (sigmoid(x) - t) where the stable forward has kinks (|x| at 0).
#include <limits>

#include "autograd/record.h"
#include "core/autocast_hook.h"
#include "ember/nn/functional.h"
#include "ember/nn/modules/loss.h"
#include "ember/nn/ops.h"
#include "ember/ops.h"
#include "nn/reduction.h"

namespace ember {
namespace {

using nn::detail::reduce;

// Every target that is not ignore_index must be a class in [0, C). Read on the CPU only: for a
// CUDA target the check would cost a device synchronisation every step.
void check_targets(const Tensor& target, int64_t C, int64_t ignore_index, const char* op) {
  if (!target.is_cpu() || target.numel() == 0) return;
  Tensor t = target.contiguous();
  const int64_t* p = t.data_ptr<int64_t>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    EMBER_CHECK(p[i] == ignore_index || (p[i] >= 0 && p[i] < C), IndexError, op, "(): Target ",
                p[i], " is out of bounds: the input has ", C,
                " classes, so targets must be in [0, ", C, ") or equal ignore_index (",
                ignore_index, ")");
  }
}

struct ClassProblem {
  Tensor input;   // [M, C]
  Tensor target;  // [M]
  DimVector target_shape;
};

// Flattens [C] / [N, C] / [N, C, d1, ...] inputs and their targets to [M, C] and [M].
ClassProblem flatten_classes(const Tensor& input, const Tensor& target, const char* op) {
  EMBER_CHECK(target.dtype() == kLong, TypeError, op,
              "(): expected a target of dtype int64 (class indices), got ",
              python_name(target.dtype()));
  EMBER_CHECK(input.dim() >= 1, ValueError, op, "(): input must have at least 1 dim, got shape ",
              input.sizes());
  ClassProblem p;
  p.target_shape = DimVector(target.sizes());
  if (input.dim() == 1) {
    EMBER_CHECK(target.dim() == 0, ValueError, op,
                "(): for an unbatched input of shape [C], expected a 0-dim target, got shape ",
                target.sizes());
    p.input = input.unsqueeze(0);
    p.target = target.reshape({1});
    return p;
  }
  EMBER_CHECK(input.size(0) == target.size(0) || target.dim() == 0, ValueError, op,
              "(): Expected input batch_size (", input.size(0), ") to match target batch_size (",
              target.dim() ? target.size(0) : 0, ") (input shape ", input.sizes(),
              ", target shape ", target.sizes(), ")");
  DimVector expected(input.sizes());
  expected.erase(1);
  EMBER_CHECK(target.sizes() == IntArrayRef(expected), ValueError, op,
              "(): expected target of shape ", IntArrayRef(expected), " for input of shape ",
              input.sizes(), ", got ", target.sizes());
  const int64_t C = input.size(1);
  if (input.dim() == 2) {
    p.input = input;
  } else {
    DimVector perm;
    perm.push_back(0);
    for (int64_t d = 2; d < input.dim(); ++d) perm.push_back(d);
    perm.push_back(1);
    p.input = input.permute(perm).reshape({-1, C});
  }
  p.target = target.reshape({-1});
  return p;
}

Tensor nll_impl(const Tensor& logp, const Tensor& target, const Tensor& weight, int64_t reduction,
                int64_t ignore_index, const char* op) {
  ClassProblem p = flatten_classes(logp, target, op);
  const int64_t C = p.input.size(1);
  EMBER_CHECK(!weight.defined() || (weight.dim() == 1 && weight.size(0) == C), ValueError, op,
              "(): weight tensor should be defined either for all ", C,
              " classes or no classes but got weight tensor of shape: ", weight.sizes());
  check_targets(p.target, C, ignore_index, op);
  Tensor valid = p.target.ne(ignore_index);
  Tensor safe = where(valid, p.target, Scalar(int64_t{0}));
  Tensor picked = gather(p.input, 1, safe.unsqueeze(1)).squeeze(1);
  Tensor w = valid.to(p.input.dtype());
  if (weight.defined()) w = w * index_select(weight.to(p.input.dtype()), 0, safe);
  Tensor loss = -picked * w;
  switch (reduction) {
    case Reduction::None:
      return loss.reshape(p.target_shape);
    case Reduction::Sum:
      return loss.sum();
    case Reduction::Mean:
      return loss.sum() / w.sum();
    default:
      return reduce(loss, reduction, op);
  }
}

}  // namespace

Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t reduction,
                int64_t ignore_index) {
  if (amp::autocast_applies(input)) {
    amp::AutocastScope ac(amp::AutocastOp::nll_loss, input);
    return nll_loss(ac.cast(input), target, ac.cast(weight), reduction, ignore_index);
  }
  return nll_impl(input, target, weight, reduction, ignore_index, "nll_loss");
}

Tensor cross_entropy_loss(const Tensor& input, const Tensor& target, const Tensor& weight,
                          int64_t reduction, int64_t ignore_index, double label_smoothing) {
  if (amp::autocast_applies(input)) {
    amp::AutocastScope ac(amp::AutocastOp::cross_entropy, input);
    return cross_entropy_loss(ac.cast(input), ac.cast(target), ac.cast(weight), reduction,
                              ignore_index, label_smoothing);
  }
  EMBER_CHECK(
      label_smoothing >= 0 && label_smoothing <= 1, ValueError,
      "cross_entropy(): label_smoothing must be between 0.0 and 1.0. Got: ", label_smoothing);
  EMBER_CHECK(input.dim() >= 1, ValueError, "cross_entropy(): input must have at least 1 dim");
  const int64_t class_dim = input.dim() == 1 ? 0 : 1;
  const int64_t C = input.size(class_dim);
  Tensor logp = log_softmax(input, class_dim);
  DimVector wshape(input.dim(), 1);
  wshape[class_dim] = C;

  if (target.is_floating_point()) {
    // Class probabilities.
    EMBER_CHECK(target.sizes() == input.sizes(), ValueError,
                "cross_entropy(): a floating point target holds class probabilities and must "
                "have the input's shape ",
                input.sizes(), ", got ", target.sizes());
    Tensor t = label_smoothing > 0 ? target * (1 - label_smoothing) + label_smoothing / C : target;
    Tensor lw = weight.defined() ? logp * weight.reshape(wshape) : logp;
    Tensor loss = -(lw * t).sum({class_dim});
    if (reduction == Reduction::Mean) return loss.sum() / static_cast<double>(input.numel() / C);
    return reduce(loss, reduction, "cross_entropy");
  }

  Tensor nll = nll_impl(logp, target, weight, reduction, ignore_index, "cross_entropy");
  if (label_smoothing <= 0) return nll;
  // PyTorch's label smoothing: mix the NLL with the mean negative log-probability over classes.
  Tensor valid = target.ne(ignore_index);
  Tensor smooth = -(weight.defined() ? logp * weight.reshape(wshape) : logp).sum({class_dim});
  smooth = smooth * valid.to(smooth.dtype());
  Tensor smooth_red;
  if (reduction == Reduction::Mean) {
    if (weight.defined()) {
      Tensor safe = where(valid, target, Scalar(int64_t{0}));
      Tensor wsum = (index_select(weight.to(logp.dtype()), 0, safe.reshape({-1})) *
                     valid.reshape({-1}).to(logp.dtype()))
                        .sum();
      smooth_red = smooth.sum() / wsum;
    } else {
      smooth_red = smooth.sum() / valid.sum().to(smooth.dtype());  // over non-ignored targets
    }
  } else {
    smooth_red = reduce(smooth, reduction, "cross_entropy");
  }
  return nll * (1 - label_smoothing) + smooth_red * (label_smoothing / C);
}

Tensor mse_loss(const Tensor& input, const Tensor& target, int64_t reduction) {
  if (amp::autocast_applies(input)) {
    amp::AutocastScope ac(amp::AutocastOp::mse_loss, input);
    return mse_loss(ac.cast(input), ac.cast(target), reduction);
  }
  return reduce((input - target).square(), reduction, "mse_loss");
}

Tensor l1_loss(const Tensor& input, const Tensor& target, int64_t reduction) {
  if (amp::autocast_applies(input)) {
    amp::AutocastScope ac(amp::AutocastOp::l1_loss, input);
    return l1_loss(ac.cast(input), ac.cast(target), reduction);
  }
  return reduce((input - target).abs(), reduction, "l1_loss");
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const Tensor& weight, const Tensor& pos_weight,
                                        int64_t reduction) {
  if (amp::autocast_applies(input)) {
    amp::AutocastScope ac(amp::AutocastOp::binary_cross_entropy_with_logits, input);
    return binary_cross_entropy_with_logits(ac.cast(input), ac.cast(target), ac.cast(weight),
                                            ac.cast(pos_weight), reduction);
  }
  EMBER_CHECK(target.sizes() == input.sizes(), ValueError, "Target size (", target.sizes(),
              ") must be the same as input size (", input.sizes(), ")");
  EMBER_CHECK(input.is_floating_point() && target.is_floating_point(), TypeError,
              "binary_cross_entropy_with_logits(): expected floating point input and target, got ",
              python_name(input.dtype()), " and ", python_name(target.dtype()));
  Tensor loss;
  {
    NoGradGuard no_grad;
    // softplus(-x) = max(-x, 0) + log(1 + exp(-|x|)) never overflows.
    Tensor sp = relu(-input) + log(exp(-input.abs()) + 1);
    Tensor lw = pos_weight.defined() ? (pos_weight - 1) * target + 1 : Tensor();
    loss = (1 - target) * input + (lw.defined() ? lw * sp : sp);
    if (weight.defined()) loss = loss * weight;
  }
  if (autograd::needs_grad({input, target})) {
    autograd::record("BinaryCrossEntropyWithLogitsBackward0", loss, {input, target},
                     [x = autograd::SavedTensor(input), t = autograd::SavedTensor(target), weight,
                      pos_weight](const autograd::variable_list& g) {
                       Tensor xi = x.unpack(), ti = t.unpack();
                       Tensor gx, gt;
                       if (pos_weight.defined()) {
                         Tensor lw = (pos_weight - 1) * ti + 1;
                         gx = (1 - ti) - lw * sigmoid(-xi);
                         gt = -xi + (pos_weight - 1) * (relu(-xi) + log(exp(-xi.abs()) + 1));
                       } else {
                         gx = sigmoid(xi) - ti;
                         gt = -xi;
                       }
                       if (weight.defined()) {
                         gx = gx * weight;
                         gt = gt * weight;
                       }
                       return autograd::variable_list{autograd::sum_to(g[0] * gx, xi.sizes()),
                                                      autograd::sum_to(g[0] * gt, ti.sizes())};
                     });
  }
  return reduce(loss, reduction, "binary_cross_entropy_with_logits");
}

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight,
                            int64_t reduction) {
  EMBER_CHECK(target.sizes() == input.sizes(), ValueError, "binary_cross_entropy: Using a target ",
              "size (", target.sizes(), ") that is different to the input size (", input.sizes(),
              ") is deprecated. Please ensure they have the same size.");
  EMBER_CHECK(input.is_floating_point() && target.is_floating_point(), TypeError,
              "binary_cross_entropy: expected floating point input and target, got ",
              python_name(input.dtype()), " and ", python_name(target.dtype()));
  if (input.is_cpu() && input.numel() > 0) {
    // Read on the CPU only: for a CUDA input the check would synchronise every step.
    NoGradGuard no_grad;
    EMBER_CHECK(!logical_or(input<0, input> 1).any().item<bool>(), ValueError,
                "binary_cross_entropy: all elements of input should be between 0 and 1");
  }
  // PyTorch clamps each log at -100, so a probability of exactly 0 or 1 costs 100, not inf.
  Tensor loss =
      -(target * log(input).clamp_min(-100) + (1 - target) * log(1 - input).clamp_min(-100));
  if (weight.defined()) loss = loss * weight;
  return reduce(loss, reduction, "binary_cross_entropy");
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, int64_t reduction, double beta) {
  EMBER_CHECK(beta >= 0, ValueError,
              "smooth_l1_loss does not support negative values for beta, got ", beta);
  if (beta == 0) return l1_loss(input, target, reduction);
  Tensor d = (input - target).abs();
  Tensor loss = where(d < beta, d.square() * (0.5 / beta), d - 0.5 * beta);
  return reduce(loss, reduction, "smooth_l1_loss");
}

Tensor kl_div(const Tensor& input, const Tensor& target, int64_t reduction, bool log_target) {
  Tensor loss;
  if (log_target) {
    loss = exp(target) * (target - input);
  } else {
    // target * log(target), defined as 0 where target is 0; the log reads 1 there so that the
    // branch `where` drops has a finite gradient.
    Tensor positive = target > 0;
    Tensor xlogx = where(positive, target * log(where(positive, target, Scalar(1.0))), Scalar(0.0));
    loss = xlogx - target * input;
  }
  return reduce(loss, reduction, "kl_div");
}

namespace nn {

CrossEntropyLossImpl::CrossEntropyLossImpl(const CrossEntropyLossOptions& options_)
    : options(options_) {
  if (options.weight().defined()) weight = register_buffer("weight", options.weight());
}
Tensor CrossEntropyLossImpl::forward(const Tensor& input, const Tensor& target) {
  return ember::cross_entropy_loss(input, target, weight, reduction_code(options.reduction()),
                                   options.ignore_index(), options.label_smoothing());
}
void CrossEntropyLossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::CrossEntropyLoss()";
}

NLLLossImpl::NLLLossImpl(const NLLLossOptions& options_) : options(options_) {
  if (options.weight().defined()) weight = register_buffer("weight", options.weight());
}
Tensor NLLLossImpl::forward(const Tensor& input, const Tensor& target) {
  return ember::nll_loss(input, target, weight, reduction_code(options.reduction()),
                         options.ignore_index());
}
void NLLLossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::NLLLoss()";
}

MSELossImpl::MSELossImpl(const MSELossOptions& options_) : options(options_) {}
Tensor MSELossImpl::forward(const Tensor& input, const Tensor& target) {
  return ember::mse_loss(input, target, reduction_code(options.reduction()));
}
void MSELossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::MSELoss()";
}

L1LossImpl::L1LossImpl(const L1LossOptions& options_) : options(options_) {}
Tensor L1LossImpl::forward(const Tensor& input, const Tensor& target) {
  return ember::l1_loss(input, target, reduction_code(options.reduction()));
}
void L1LossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::L1Loss()";
}

BCEWithLogitsLossImpl::BCEWithLogitsLossImpl(const BCEWithLogitsLossOptions& options_)
    : options(options_) {
  if (options.weight().defined()) weight = register_buffer("weight", options.weight());
  if (options.pos_weight().defined()) {
    pos_weight = register_buffer("pos_weight", options.pos_weight());
  }
}
Tensor BCEWithLogitsLossImpl::forward(const Tensor& input, const Tensor& target) {
  return ember::binary_cross_entropy_with_logits(input, target, weight, pos_weight,
                                                 reduction_code(options.reduction()));
}
void BCEWithLogitsLossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::BCEWithLogitsLoss()";
}

BCELossImpl::BCELossImpl(const BCELossOptions& options_) : options(options_) {
  if (options.weight().defined()) weight = register_buffer("weight", options.weight());
}
Tensor BCELossImpl::forward(const Tensor& input, const Tensor& target) {
  return ember::binary_cross_entropy(input, target, weight, reduction_code(options.reduction()));
}
void BCELossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::BCELoss()";
}

SmoothL1LossImpl::SmoothL1LossImpl(const SmoothL1LossOptions& options_) : options(options_) {}
Tensor SmoothL1LossImpl::forward(const Tensor& input, const Tensor& target) {
  return ember::smooth_l1_loss(input, target, reduction_code(options.reduction()), options.beta());
}
void SmoothL1LossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::SmoothL1Loss";  // no parentheses, as libtorch
}

KLDivLossImpl::KLDivLossImpl(const KLDivLossOptions& options_) : options(options_) {}
Tensor KLDivLossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::kl_div(input, target, options);
}
void KLDivLossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::KLDivLoss()";
}

}  // namespace nn
}  // namespace ember
