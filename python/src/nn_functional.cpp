// ember._C._nn: the C++ kernels behind ember.nn.functional and the layers (include/ember/nn/ops.h),
// one bound call per layer forward. Argument spelling (reduction strings, None for a missing
// tensor, ints or pairs for sizes) is PyTorch's; ember/nn/functional.py adds the rest.
#include <nanobind/stl/tuple.h>

#include "common.h"

namespace ember::python {
namespace {

using RG = nb::call_guard<nb::gil_scoped_release>;
using T = const Tensor&;
using OptT = const std::optional<Tensor>&;

Tensor or_undefined(OptT t) {
  return t ? *t : Tensor();
}

// A size argument of a 2-d op: an int or a pair (kernel_size=3, stride=(2, 1)).
ExpandingArray<2> pair_arg(nb::handle h, const char* what) {
  std::vector<int64_t> v = int_list(h, what);
  if (v.size() == 1) return ExpandingArray<2>(v[0]);
  EMBER_CHECK(v.size() == 2, ValueError, what, " must be an int or a pair of ints, got ", v.size(),
              " values");
  return ExpandingArray<2>(v);
}

std::optional<ExpandingArray<2>> opt_pair_arg(nb::handle h, const char* what) {
  if (h.is_none()) return std::nullopt;
  // PyTorch treats an empty stride (stride=[]) as "the kernel size".
  if (PySequence_Check(h.ptr()) && PySequence_Size(h.ptr()) == 0) return std::nullopt;
  return pair_arg(h, what);
}

int64_t reduction_code(const std::string& r) {
  if (r == "mean") return Reduction::Mean;
  if (r == "sum") return Reduction::Sum;
  if (r == "none") return Reduction::None;
  throw ValueError(r + " is not a valid value for reduction");
}

void def_layers(nb::module_& m) {
  m.def(
      "linear", [](T x, T w, OptT b) { return linear(x, w, or_undefined(b)); }, "input"_a,
      "weight"_a, "bias"_a = nb::none(), RG());
  m.def(
      "conv2d",
      [](T x, T w, OptT b, nb::handle stride, nb::handle padding, nb::handle dilation,
         int64_t groups) {
        auto s = pair_arg(stride, "stride"), p = pair_arg(padding, "padding"),
             d = pair_arg(dilation, "dilation");
        nb::gil_scoped_release release;
        return conv2d(x, w, or_undefined(b), s, p, d, groups);
      },
      "input"_a, "weight"_a, "bias"_a = nb::none(), "stride"_a = 1, "padding"_a = 0,
      "dilation"_a = 1, "groups"_a = 1);
  m.def(
      "max_pool2d",
      [](T x, nb::handle kernel, nb::handle stride, nb::handle padding, nb::handle dilation,
         bool ceil_mode, bool return_indices) -> nb::object {
        auto k = pair_arg(kernel, "kernel_size");
        auto s = opt_pair_arg(stride, "stride");
        auto p = pair_arg(padding, "padding"), d = pair_arg(dilation, "dilation");
        if (return_indices) {
          std::tuple<Tensor, Tensor> r;
          {
            nb::gil_scoped_release release;
            r = max_pool2d_with_indices(x, k, s, p, d, ceil_mode);
          }
          return nb::make_tuple(std::get<0>(r), std::get<1>(r));
        }
        Tensor r;
        {
          nb::gil_scoped_release release;
          r = max_pool2d(x, k, s, p, d, ceil_mode);
        }
        return nb::cast(r);
      },
      "input"_a, "kernel_size"_a, "stride"_a = nb::none(), "padding"_a = 0, "dilation"_a = 1,
      "ceil_mode"_a = false, "return_indices"_a = false);
  m.def(
      "avg_pool2d",
      [](T x, nb::handle kernel, nb::handle stride, nb::handle padding, bool ceil_mode,
         bool count_include_pad, std::optional<int64_t> divisor_override) {
        auto k = pair_arg(kernel, "kernel_size");
        auto s = opt_pair_arg(stride, "stride");
        auto p = pair_arg(padding, "padding");
        nb::gil_scoped_release release;
        return avg_pool2d(x, k, s, p, ceil_mode, count_include_pad, divisor_override);
      },
      "input"_a, "kernel_size"_a, "stride"_a = nb::none(), "padding"_a = 0, "ceil_mode"_a = false,
      "count_include_pad"_a = true, "divisor_override"_a = nb::none());
  m.def(
      "adaptive_avg_pool2d",
      [](T x, nb::handle size) {
        auto o = pair_arg(size, "output_size");
        nb::gil_scoped_release release;
        return adaptive_avg_pool2d(x, o);
      },
      "input"_a, "output_size"_a);
  m.def(
      "batch_norm",
      [](T x, OptT mean, OptT var, OptT w, OptT b, bool training, double momentum, double eps) {
        return batch_norm(x, or_undefined(w), or_undefined(b), or_undefined(mean),
                          or_undefined(var), training, momentum, eps);
      },
      "input"_a, "running_mean"_a.none(), "running_var"_a.none(), "weight"_a = nb::none(),
      "bias"_a = nb::none(), "training"_a = false, "momentum"_a = 0.1, "eps"_a = 1e-5, RG());
  m.def(
      "layer_norm",
      [](T x, nb::handle shape, OptT w, OptT b, double eps) {
        auto s = int_list(shape, "normalized_shape");
        nb::gil_scoped_release release;
        return layer_norm(x, s, or_undefined(w), or_undefined(b), eps);
      },
      "input"_a, "normalized_shape"_a, "weight"_a = nb::none(), "bias"_a = nb::none(),
      "eps"_a = 1e-5);
  m.def(
      "dropout",
      [](T x, double p, bool training) {
        EMBER_CHECK(p >= 0 && p <= 1, ValueError,
                    "dropout probability has to be between 0 and 1, but got ", p);
        return dropout(x, p, training);
      },
      "input"_a, "p"_a = 0.5, "training"_a = true, RG());
  m.def(
      "embedding",
      [](T indices, T weight, std::optional<int64_t> padding_idx) {
        int64_t pad = padding_idx.value_or(-1);
        if (pad < 0 && padding_idx) pad += weight.size(0);
        return embedding(weight, indices, pad);
      },
      "input"_a, "weight"_a, "padding_idx"_a = nb::none(), RG());
  m.def(
      "pad",
      [](T x, std::vector<int64_t> p, const std::string& mode, std::optional<double> value) {
        return pad(x, p, mode, value);
      },
      "input"_a, "pad"_a, "mode"_a = "constant", "value"_a = nb::none(), RG());
}

void def_activations(nb::module_& m) {
  m.def(
      "gelu", [](T x, const std::string& approximate) { return gelu(x, approximate); }, "input"_a,
      "approximate"_a = "none", RG());
  m.def(
      "leaky_relu", [](T x, double slope) { return leaky_relu(x, slope); }, "input"_a,
      "negative_slope"_a = 0.01, RG());
  m.def(
      "elu", [](T x, double alpha) { return elu(x, alpha); }, "input"_a, "alpha"_a = 1.0, RG());
  m.def(
      "softplus", [](T x, double beta, double threshold) { return softplus(x, beta, threshold); },
      "input"_a, "beta"_a = 1.0, "threshold"_a = 20.0, RG());
  m.def(
      "hardtanh", [](T x, double lo, double hi) { return hardtanh(x, lo, hi); }, "input"_a,
      "min_val"_a = -1.0, "max_val"_a = 1.0, RG());
  m.def(
      "softmax",
      [](T x, int64_t dim, nb::handle dtype) {
        auto dt = dtype_arg(dtype);
        nb::gil_scoped_release release;
        return softmax(x, dim, dt);
      },
      "input"_a, "dim"_a, "dtype"_a = nb::none());
  m.def(
      "log_softmax",
      [](T x, int64_t dim, nb::handle dtype) {
        auto dt = dtype_arg(dtype);
        nb::gil_scoped_release release;
        return log_softmax(x, dim, dt);
      },
      "input"_a, "dim"_a, "dtype"_a = nb::none());
  m.def(
      "one_hot", [](T x, int64_t n) { return one_hot(x, n); }, "tensor"_a, "num_classes"_a = -1,
      RG());
  m.def(
      "cosine_similarity",
      [](T a, T b, int64_t dim, double eps) { return cosine_similarity(a, b, dim, eps); }, "x1"_a,
      "x2"_a, "dim"_a = 1, "eps"_a = 1e-8, RG());
}

void def_losses(nb::module_& m) {
  m.def(
      "nll_loss",
      [](T x, T y, OptT w, int64_t ignore_index, const std::string& reduction) {
        int64_t r = reduction_code(reduction);
        nb::gil_scoped_release release;
        return nll_loss(x, y, or_undefined(w), r, ignore_index);
      },
      "input"_a, "target"_a, "weight"_a = nb::none(), "ignore_index"_a = -100,
      "reduction"_a = "mean");
  m.def(
      "cross_entropy",
      [](T x, T y, OptT w, int64_t ignore_index, const std::string& reduction, double smoothing) {
        int64_t r = reduction_code(reduction);
        nb::gil_scoped_release release;
        return cross_entropy_loss(x, y, or_undefined(w), r, ignore_index, smoothing);
      },
      "input"_a, "target"_a, "weight"_a = nb::none(), "ignore_index"_a = -100,
      "reduction"_a = "mean", "label_smoothing"_a = 0.0);
  // The two-operand losses: loss(input, target, reduction=).
  using Loss2 = Tensor (*)(const Tensor&, const Tensor&, int64_t);
  auto def2 = [&m](const char* name, Loss2 f) {
    m.def(
        name,
        [f](T x, T y, const std::string& reduction) {
          int64_t r = reduction_code(reduction);
          nb::gil_scoped_release release;
          return f(x, y, r);
        },
        "input"_a, "target"_a, "reduction"_a = "mean");
  };
  def2("mse_loss", [](T x, T y, int64_t r) { return mse_loss(x, y, r); });
  def2("l1_loss", [](T x, T y, int64_t r) { return l1_loss(x, y, r); });
  m.def(
      "smooth_l1_loss",
      [](T x, T y, const std::string& reduction, double beta) {
        int64_t r = reduction_code(reduction);
        EMBER_CHECK(beta >= 0, Error,
                    "smooth_l1_loss does not support negative values for beta, got ", beta);
        nb::gil_scoped_release release;
        return smooth_l1_loss(x, y, r, beta);
      },
      "input"_a, "target"_a, "reduction"_a = "mean", "beta"_a = 1.0);
  m.def(
      "binary_cross_entropy",
      [](T x, T y, OptT w, const std::string& reduction) {
        int64_t r = reduction_code(reduction);
        nb::gil_scoped_release release;
        return binary_cross_entropy(x, y, or_undefined(w), r);
      },
      "input"_a, "target"_a, "weight"_a = nb::none(), "reduction"_a = "mean");
  m.def(
      "binary_cross_entropy_with_logits",
      [](T x, T y, OptT w, const std::string& reduction, OptT pos_weight) {
        int64_t r = reduction_code(reduction);
        nb::gil_scoped_release release;
        return binary_cross_entropy_with_logits(x, y, or_undefined(w), or_undefined(pos_weight), r);
      },
      "input"_a, "target"_a, "weight"_a = nb::none(), "reduction"_a = "mean",
      "pos_weight"_a = nb::none());
  m.def(
      "kl_div",
      [](T x, T y, const std::string& reduction, bool log_target) {
        int64_t r = reduction_code(reduction);
        nb::gil_scoped_release release;
        return kl_div(x, y, r, log_target);
      },
      "input"_a, "target"_a, "reduction"_a = "mean", "log_target"_a = false);
}

}  // namespace

void init_nn_functional(nb::module_& m) {
  nb::module_ nn = m.def_submodule("_nn", "the kernels of ember.nn.functional");
  def_layers(nn);
  def_activations(nn);
  def_losses(nn);
}

}  // namespace ember::python
