// ctc_loss and CTCLoss: connectionist temporal classification (Graves et al. 2006).
//
// The loss of a sample is -log of the summed probability of every alignment of its target to its
// input steps, computed in log space over the extended target l' = (blank, l1, blank, l2, ...,
// blank) of length 2S + 1. The forward variables alpha [T, N, 2S + 1] come from one step of
// device-agnostic ops per time step (all samples and positions at once), so the code runs on
// every device. The gradient is recorded by hand as PyTorch's ctc_loss_backward: the backward
// variables beta by the mirror recursion, then per step and class
//   grad = exp(lp) - sum over positions s with l'(s) = c of exp(alpha + beta + nll - lp),
// which is the gradient of the logits under log_softmax (what PyTorch reports for log_probs).
// Lengths and targets are read on the host (PyTorch does so on CUDA as well) to build the
// extended labels and the masks.
#include <limits>
#include <vector>

#include "autograd/record.h"
#include "ember/nn/modules/loss.h"
#include "ember/nn/ops.h"
#include "ember/ops.h"
#include "nn/reduction.h"

namespace ember {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// A host vector as a tensor of `sizes` on `device`.
Tensor host_tensor(std::vector<int64_t> values, IntArrayRef sizes, Device device) {
  return from_blob(values.data(), sizes, kLong).to(device, /*non_blocking=*/false, /*copy=*/true);
}

// log(exp(a) + exp(b) + exp(c)); -inf terms drop out and three -inf give -inf (no NaN).
Tensor log_add3(const Tensor& a, const Tensor& b, const Tensor& c) {
  Tensor m = maximum(maximum(a, b), c);
  Tensor shift = where(isinf(m), 0.0, m);
  return shift + log(exp(a - shift) + exp(b - shift) + exp(c - shift));
}

// x [N, L] moved k positions along dim 1 (right for k > 0, left for k < 0), -inf filled in.
Tensor shifted(const Tensor& x, int64_t k) {
  const int64_t N = x.size(0), L = x.size(1), n = k > 0 ? k : -k;
  if (n >= L) return full_like(x, kNegInf);
  Tensor fill = full({N, n}, kNegInf, x.options());
  return k > 0 ? cat({fill, x.narrow(1, 0, L - n)}, 1) : cat({x.narrow(1, n, L - n), fill}, 1);
}

// What the recursions need beyond log_probs, built once on the host.
struct CtcPlan {
  int64_t T = 0, N = 0, C = 0, L = 0;  // L = 2 * max target length + 1
  std::vector<int64_t> input_lengths, target_lengths;
  Tensor ext;        // [N, L] int64: the extended labels (blank past a target's end)
  Tensor skip_ok;    // [N, L] bool: alpha may come from s - 2 (a label unlike the one before)
  Tensor first;      // [N, L] bool: where alpha starts (s = 0, and s = 1 for a non-empty target)
  Tensor last;       // [N, L] bool: where beta starts (s = 2 tl, and s = 2 tl - 1 if tl > 0)
  Tensor end_index;  // [N] int64: (input_length - 1) * N + n, the row of alpha that ends a sample
};

CtcPlan make_plan(const Tensor& log_probs, const Tensor& targets,
                  std::vector<int64_t> input_lengths, std::vector<int64_t> target_lengths,
                  int64_t blank) {
  CtcPlan p;
  p.T = log_probs.size(0), p.N = log_probs.size(1), p.C = log_probs.size(2);
  const int64_t N = p.N;
  EMBER_CHECK(blank >= 0 && blank < p.C, Error, "blank must be in label range");
  EMBER_CHECK(static_cast<int64_t>(input_lengths.size()) == N, Error,
              "input_lengths must be of size batch_size");
  EMBER_CHECK(static_cast<int64_t>(target_lengths.size()) == N, Error,
              "target_lengths must be of size batch_size");
  EMBER_CHECK(targets.dtype() == kLong || targets.dtype() == kInt, TypeError,
              "ctc_loss(): targets must be int64 or int32, got ", to_string(targets.dtype()));
  int64_t max_target = 0, total_target = 0;
  for (int64_t n = 0; n < N; ++n) {
    EMBER_CHECK(input_lengths[n] >= 0, Error,
                "Expected input_lengths to have value at least 0, but got value ", input_lengths[n],
                " (while checking arguments for ctc_loss)");
    EMBER_CHECK(input_lengths[n] <= p.T, Error, "Expected input_lengths to have value at most ",
                p.T, ", but got value ", input_lengths[n],
                " (while checking arguments for ctc_loss)");
    EMBER_CHECK(target_lengths[n] >= 0, Error,
                "Expected target_lengths to have value at least 0, but got value ",
                target_lengths[n], " (while checking arguments for ctc_loss)");
    max_target = std::max(max_target, target_lengths[n]);
    total_target += target_lengths[n];
  }
  // Each sample's labels as (offset into the flat targets, stride 1).
  std::vector<int64_t> flat = targets.to_vector<int64_t>(), start(N);
  if (targets.dim() == 1) {
    EMBER_CHECK(targets.size(0) == total_target, Error, "Expected tensor to have size ",
                total_target, " at dimension 0, but got size ", targets.size(0),
                " for argument #2 'targets' (while checking arguments for ctc_loss)");
    for (int64_t n = 0, pos = 0; n < N; pos += target_lengths[n++]) start[n] = pos;
  } else {
    EMBER_CHECK(targets.dim() == 2 && targets.size(0) == N, Error,
                "ctc_loss(): targets must be [batch, max_target_length] or 1-d, got shape ",
                targets.sizes());
    EMBER_CHECK(targets.size(1) >= max_target, Error, "Expected tensor to have size at least ",
                max_target, " at dimension 1, but got size ", targets.size(1),
                " for argument #2 'targets' (while checking arguments for ctc_loss)");
    for (int64_t n = 0; n < N; ++n) start[n] = n * targets.size(1);
  }
  const int64_t L = 2 * max_target + 1;
  p.L = L;
  std::vector<int64_t> ext(N * L, blank), skip(N * L, 0), first(N * L, 0), last(N * L, 0),
      end_index(N);
  for (int64_t n = 0; n < N; ++n) {
    const int64_t tl = target_lengths[n];
    for (int64_t i = 0; i < tl; ++i) {
      const int64_t label = flat[start[n] + i];
      EMBER_CHECK(label >= 0 && label < p.C, IndexError, "ctc_loss(): target ", label,
                  " of sample ", n, " is out of range for ", p.C, " classes");
      ext[n * L + 2 * i + 1] = label;
      if (i > 0) skip[n * L + 2 * i + 1] = label != flat[start[n] + i - 1];
    }
    first[n * L] = 1;
    if (tl > 0) first[n * L + 1] = 1;
    last[n * L + 2 * tl] = 1;
    if (tl > 0) last[n * L + 2 * tl - 1] = 1;
    end_index[n] = std::max<int64_t>(input_lengths[n] - 1, 0) * N + n;
  }
  const Device device = log_probs.device();
  p.ext = host_tensor(ext, {N, L}, device);
  p.skip_ok = host_tensor(skip, {N, L}, device).to(kBool);
  p.first = host_tensor(first, {N, L}, device).to(kBool);
  p.last = host_tensor(last, {N, L}, device).to(kBool);
  p.end_index = host_tensor(end_index, {N}, device);
  p.input_lengths = std::move(input_lengths);
  p.target_lengths = std::move(target_lengths);
  return p;
}

// [N, 1] bool on the device: whether each sample's input length relates to t as `pick` says.
template <typename Pick>
Tensor per_sample_mask(const CtcPlan& p, Pick pick, Device device) {
  std::vector<int64_t> m(p.N);
  for (int64_t n = 0; n < p.N; ++n) m[n] = pick(p.input_lengths[n]);
  return host_tensor(m, {p.N, 1}, device).to(kBool);
}

// alpha [T, N, L] given lp_ext [T, N, L] (log_probs at each extended label).
Tensor forward_variables(const CtcPlan& p, const Tensor& lp_ext) {
  std::vector<Tensor> alpha;
  alpha.reserve(p.T);
  alpha.push_back(where(p.first, lp_ext[0], kNegInf));
  for (int64_t t = 1; t < p.T; ++t) {
    const Tensor& prev = alpha.back();
    Tensor from_skip = where(p.skip_ok, shifted(prev, 2), kNegInf);
    alpha.push_back(lp_ext[t] + log_add3(prev, shifted(prev, 1), from_skip));
  }
  return stack(alpha, 0);
}

// beta [T, N, L]: each sample's recursion starts at its own last step and is -inf after it.
Tensor backward_variables(const CtcPlan& p, const Tensor& lp_ext) {
  const Device device = lp_ext.device();
  std::vector<Tensor> beta(p.T);
  Tensor next = full({p.N, p.L}, kNegInf, lp_ext.options());
  for (int64_t t = p.T - 1; t >= 0; --t) {
    Tensor starts = per_sample_mask(
        p, [t](int64_t len) { return t == len - 1; }, device);
    Tensor inside = per_sample_mask(
        p, [t](int64_t len) { return t < len - 1; }, device);
    Tensor from_skip = shifted(where(p.skip_ok, next, kNegInf), -2);
    Tensor step = lp_ext[t] + log_add3(next, shifted(next, -1), from_skip);
    Tensor start = where(p.last, lp_ext[t], kNegInf);
    beta[t] = where(starts, start, where(inside, step, kNegInf));
    next = beta[t];
  }
  return stack(beta, 0);
}

// The negative log likelihood [N] of each sample (PyTorch's _ctc_loss), with its gradient.
Tensor ctc_negative_log_likelihood(const Tensor& log_probs, const CtcPlan& p, bool zero_infinity) {
  // 16-bit inputs run the recursions in float32: their sums of T steps would lose the ulps.
  const bool half = log_probs.dtype() == kHalf || log_probs.dtype() == kBFloat16;
  Tensor lp = (half ? log_probs.detach().to(kFloat) : log_probs.detach()).contiguous();
  Tensor ext_all = p.ext.unsqueeze(0).expand({p.T, p.N, p.L});
  Tensor nll;
  Tensor lp_ext, alpha;
  {
    NoGradGuard no_grad;
    lp_ext = gather(lp, 2, ext_all);
    alpha = forward_variables(p, lp_ext);
    Tensor ends = index_select(alpha.reshape({p.T * p.N, p.L}), 0, p.end_index);
    std::vector<int64_t> s_end(p.N), s_before(p.N), empty_input(p.N);
    for (int64_t n = 0; n < p.N; ++n) {
      s_end[n] = 2 * p.target_lengths[n];
      s_before[n] = std::max<int64_t>(s_end[n] - 1, 0);
      empty_input[n] = p.input_lengths[n] == 0;
    }
    const Device device = lp.device();
    Tensor a = gather(ends, 1, host_tensor(s_end, {p.N, 1}, device)).squeeze(1);
    Tensor b = gather(ends, 1, host_tensor(s_before, {p.N, 1}, device)).squeeze(1);
    std::vector<int64_t> has_label(p.N);
    for (int64_t n = 0; n < p.N; ++n) has_label[n] = p.target_lengths[n] > 0;
    b = where(host_tensor(has_label, {p.N}, device).to(kBool), b, kNegInf);
    Tensor neg_inf = full_like(a, kNegInf);
    nll = -log_add3(a, b, neg_inf);
    // No input steps: only the empty target has an alignment (PyTorch reads past its buffer).
    Tensor no_steps = host_tensor(empty_input, {p.N}, device).to(kBool);
    Tensor nothing_fits = where(host_tensor(has_label, {p.N}, device).to(kBool),
                                full_like(nll, std::numeric_limits<double>::infinity()), 0.0);
    nll = where(no_steps, nothing_fits, nll);
  }
  Tensor out = half ? nll.to(log_probs.dtype()) : nll;
  if (autograd::needs_grad({log_probs})) {
    // The backward keeps the values of nll, not nll itself: in float32/float64 nll *is* out, and
    // out holding the node that holds out would be a reference cycle (a leak ASan reports).
    nll = nll.detach();
    autograd::record(
        "CtcLossBackward0", out, {log_probs},
        [p, lp, lp_ext, alpha, nll, zero_infinity,
         dtype = log_probs.dtype()](const autograd::variable_list& g) {
          NoGradGuard no_grad;
          Tensor beta = backward_variables(p, lp_ext);
          Tensor infinite = isinf(nll);
          Tensor log_joint = alpha + beta;  // includes lp at t twice
          Tensor finite_nll = where(infinite, 0.0, nll);
          Tensor occupancy =
              where(isinf(log_joint), 0.0, exp(log_joint + finite_nll.view({1, p.N, 1}) - lp_ext));
          Tensor ext_all = p.ext.unsqueeze(0).expand({p.T, p.N, p.L});
          Tensor per_class = zeros_like(lp).scatter_add(2, ext_all, occupancy);
          Tensor grad = exp(lp) - per_class;
          // An impossible target: NaN (PyTorch's inf - inf), or zero with zero_infinity.
          grad = where(infinite.view({1, p.N, 1}),
                       zero_infinity ? 0.0 : std::numeric_limits<double>::quiet_NaN(), grad);
          std::vector<int64_t> steps(p.T * p.N);
          for (int64_t t = 0; t < p.T; ++t)
            for (int64_t n = 0; n < p.N; ++n) steps[t * p.N + n] = t < p.input_lengths[n];
          Tensor in_input = host_tensor(steps, {p.T, p.N, 1}, lp.device()).to(kBool);
          grad = where(in_input, grad * g[0].to(grad.dtype()).view({1, p.N, 1}), 0.0);
          return autograd::variable_list{grad.to(dtype)};
        });
  }
  return out;
}

// The meta device has shapes and no values: a loss of the right shape, differentiable in
// log_probs, without reading lengths or targets.
Tensor meta_loss(const Tensor& log_probs, int64_t reduction) {
  Tensor per_sample = log_probs.dim() == 3 ? log_probs.sum({0, 2}) : log_probs.sum();
  return nn::detail::reduce(per_sample, reduction, "ctc_loss");
}

}  // namespace

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                IntArrayRef target_lengths, int64_t blank, int64_t reduction, bool zero_infinity) {
  EMBER_CHECK(log_probs.dim() == 3 || log_probs.dim() == 2, ValueError,
              "ctc_loss(): log_probs must be [T, N, C] or unbatched [T, C], got shape ",
              log_probs.sizes());
  EMBER_CHECK(log_probs.is_floating_point(), TypeError,
              "ctc_loss(): log_probs must be floating point, got ", to_string(log_probs.dtype()));
  if (log_probs.is_meta()) return meta_loss(log_probs, reduction);
  const bool batched = log_probs.dim() == 3;
  Tensor lp = batched ? log_probs : log_probs.unsqueeze(1);
  Tensor tg = batched ? targets : targets.unsqueeze(0);
  CtcPlan plan =
      make_plan(lp, tg, std::vector<int64_t>(input_lengths.begin(), input_lengths.end()),
                std::vector<int64_t>(target_lengths.begin(), target_lengths.end()), blank);
  Tensor loss = ctc_negative_log_likelihood(lp, plan, zero_infinity);
  if (zero_infinity) loss = where(isinf(loss), zeros_like(loss), loss);
  if (reduction == Reduction::Mean) {
    std::vector<int64_t> lengths = plan.target_lengths;
    Tensor divisor = host_tensor(lengths, {plan.N}, lp.device()).clamp_min(1).to(loss.dtype());
    return (loss / divisor).mean();
  }
  loss = nn::detail::reduce(loss, reduction, "ctc_loss");
  return batched || reduction != Reduction::None ? loss : loss.squeeze(0);
}

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, int64_t blank, int64_t reduction,
                bool zero_infinity) {
  EMBER_CHECK(input_lengths.dim() <= 1 && target_lengths.dim() <= 1, ValueError,
              "ctc_loss(): input_lengths and target_lengths must be 0-d or 1-d, got shapes ",
              input_lengths.sizes(), " and ", target_lengths.sizes());
  EMBER_CHECK(!input_lengths.is_floating_point() && !target_lengths.is_floating_point(), TypeError,
              "ctc_loss(): input_lengths and target_lengths must be integers, got ",
              to_string(input_lengths.dtype()), " and ", to_string(target_lengths.dtype()));
  if (log_probs.is_meta()) return meta_loss(log_probs, reduction);
  std::vector<int64_t> in = input_lengths.to_vector<int64_t>();
  std::vector<int64_t> tl = target_lengths.to_vector<int64_t>();
  return ctc_loss(log_probs, targets, IntArrayRef(in), IntArrayRef(tl), blank, reduction,
                  zero_infinity);
}

namespace nn {

Tensor CTCLossImpl::forward(const Tensor& log_probs, const Tensor& targets,
                            const Tensor& input_lengths, const Tensor& target_lengths) {
  return ctc_loss(log_probs, targets, input_lengths, target_lengths, options.blank(),
                  reduction_code(options.reduction()), options.zero_infinity());
}

void CTCLossImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::CTCLoss()";
}

}  // namespace nn
}  // namespace ember
