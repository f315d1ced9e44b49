// ember._C._nn: the C++ kernels behind ember.nn.functional and the layers (include/ember/nn/ops.h),
// one bound call per layer forward. Argument spelling (reduction strings, None for a missing
// tensor, ints or pairs for sizes) is PyTorch's; ember/nn/functional.py adds the rest.
#include <nanobind/stl/tuple.h>

#include "common.h"
#include "ember/nn/attention.h"
#include "ember/nn/modules/multihead_attention.h"
#include "ember/nn/modules/transformer.h"
#include "ember/optim/clip_grad.h"

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

// A size argument of a d-dimensional op: an int, or d ints.
template <size_t D>
ExpandingArray<D> sizes_arg(nb::handle h, const char* what) {
  std::vector<int64_t> v = int_list(h, what);
  if (v.size() == 1) return ExpandingArray<D>(v[0]);
  EMBER_CHECK(v.size() == D, ValueError, what, " must be an int or ", D, " ints, got ", v.size(),
              " values");
  return ExpandingArray<D>(v);
}

// A convolution's padding: sizes, or the strings 'valid' and 'same'.
template <size_t D>
nn::conv_padding_nd_t<D> conv_padding_arg(nb::handle h) {
  if (nb::isinstance<nb::str>(h)) {
    const std::string s = nb::cast<std::string>(h);
    if (s == "valid") return kValid;
    if (s == "same") return kSame;
    throw ValueError("Invalid padding string '" + s + "', should be one of {'valid', 'same'}");
  }
  return sizes_arg<D>(h, "padding");
}

// A stride that may be None (or empty): the kernel size.
template <size_t D>
std::optional<ExpandingArray<D>> opt_sizes_arg(nb::handle h, const char* what) {
  if (h.is_none()) return std::nullopt;
  if (PySequence_Check(h.ptr()) && PySequence_Size(h.ptr()) == 0) return std::nullopt;
  return sizes_arg<D>(h, what);
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

// Max pooling's result in Python: the values, or (values, indices) with return_indices.
nb::object values_or_pair(std::tuple<Tensor, Tensor> r, bool return_indices) {
  if (return_indices) return nb::make_tuple(std::get<0>(r), std::get<1>(r));
  return nb::cast(std::get<0>(r));
}

void def_pools(nb::module_& m) {
  m.def(
      "max_pool1d",
      [](T x, nb::handle kernel, nb::handle stride, nb::handle padding, nb::handle dilation,
         bool ceil_mode, bool return_indices) {
        auto k = sizes_arg<1>(kernel, "kernel_size"), p = sizes_arg<1>(padding, "padding"),
             d = sizes_arg<1>(dilation, "dilation");
        std::optional<ExpandingArray<1>> s;
        if (!stride.is_none() &&
            !(PySequence_Check(stride.ptr()) && PySequence_Size(stride.ptr()) == 0)) {
          s = sizes_arg<1>(stride, "stride");
        }
        std::tuple<Tensor, Tensor> r;
        {
          nb::gil_scoped_release release;
          r = max_pool1d_with_indices(x, k, s, p, d, ceil_mode);
        }
        return values_or_pair(r, return_indices);
      },
      "input"_a, "kernel_size"_a, "stride"_a = nb::none(), "padding"_a = 0, "dilation"_a = 1,
      "ceil_mode"_a = false, "return_indices"_a = false);
  m.def(
      "avg_pool1d",
      [](T x, nb::handle kernel, nb::handle stride, nb::handle padding, bool ceil_mode,
         bool count_include_pad) {
        auto k = sizes_arg<1>(kernel, "kernel_size"), p = sizes_arg<1>(padding, "padding");
        std::optional<ExpandingArray<1>> s;
        if (!stride.is_none() &&
            !(PySequence_Check(stride.ptr()) && PySequence_Size(stride.ptr()) == 0)) {
          s = sizes_arg<1>(stride, "stride");
        }
        nb::gil_scoped_release release;
        return avg_pool1d(x, k, s, p, ceil_mode, count_include_pad);
      },
      "input"_a, "kernel_size"_a, "stride"_a = nb::none(), "padding"_a = 0, "ceil_mode"_a = false,
      "count_include_pad"_a = true);
  m.def(
      "adaptive_avg_pool1d",
      [](T x, nb::handle size) {
        auto o = sizes_arg<1>(size, "output_size");
        nb::gil_scoped_release release;
        return adaptive_avg_pool1d(x, o);
      },
      "input"_a, "output_size"_a);
  m.def(
      "adaptive_max_pool1d",
      [](T x, nb::handle size, bool return_indices) {
        auto o = sizes_arg<1>(size, "output_size");
        std::tuple<Tensor, Tensor> r;
        {
          nb::gil_scoped_release release;
          r = adaptive_max_pool1d(x, o);
        }
        return values_or_pair(r, return_indices);
      },
      "input"_a, "output_size"_a, "return_indices"_a = false);
  m.def(
      "adaptive_max_pool2d",
      [](T x, nb::handle size, bool return_indices) {
        auto o = pair_arg(size, "output_size");
        std::tuple<Tensor, Tensor> r;
        {
          nb::gil_scoped_release release;
          r = adaptive_max_pool2d(x, o);
        }
        return values_or_pair(r, return_indices);
      },
      "input"_a, "output_size"_a, "return_indices"_a = false);
  // fractional_max_pool2d/3d: (output, indices) always; F picks what to return.
  auto fractional = [](auto tag, T x, nb::handle kernel, nb::handle output_size,
                       nb::handle output_ratio, std::optional<Tensor> samples) {
    constexpr size_t D = decltype(tag)::value;
    nn::FractionalMaxPoolOptions<D> o(sizes_arg<D>(kernel, "kernel_size"));
    if (!output_size.is_none()) o.output_size(sizes_arg<D>(output_size, "output_size"));
    if (!output_ratio.is_none()) {
      std::vector<double> r;
      if (PySequence_Check(output_ratio.ptr())) {
        for (nb::handle v : nb::borrow<nb::sequence>(output_ratio))
          r.push_back(nb::cast<double>(v));
      } else {
        r.assign(D, nb::cast<double>(output_ratio));
      }
      EMBER_CHECK(r.size() == D, ValueError, "output_ratio must be a float or ", D, " floats");
      o.output_ratio(ExpandingArray<D, double>(r));
    }
    if (samples) o._random_samples(*samples);
    nb::gil_scoped_release release;
    if constexpr (D == 2) {
      return nn::functional::fractional_max_pool2d_with_indices(x, o);
    } else {
      return nn::functional::fractional_max_pool3d_with_indices(x, o);
    }
  };
  m.def(
      "fractional_max_pool2d",
      [fractional](T x, nb::handle k, nb::handle size, nb::handle ratio,
                   std::optional<Tensor> samples) {
        return fractional(std::integral_constant<size_t, 2>(), x, k, size, ratio, samples);
      },
      "input"_a, "kernel_size"_a, "output_size"_a = nb::none(), "output_ratio"_a = nb::none(),
      "_random_samples"_a = nb::none());
  m.def(
      "fractional_max_pool3d",
      [fractional](T x, nb::handle k, nb::handle size, nb::handle ratio,
                   std::optional<Tensor> samples) {
        return fractional(std::integral_constant<size_t, 3>(), x, k, size, ratio, samples);
      },
      "input"_a, "kernel_size"_a, "output_size"_a = nb::none(), "output_ratio"_a = nb::none(),
      "_random_samples"_a = nb::none());
  m.def(
      "max_pool3d",
      [](T x, nb::handle kernel, nb::handle stride, nb::handle padding, nb::handle dilation,
         bool ceil_mode, bool return_indices) {
        auto k = sizes_arg<3>(kernel, "kernel_size"), p = sizes_arg<3>(padding, "padding"),
             d = sizes_arg<3>(dilation, "dilation");
        auto s = opt_sizes_arg<3>(stride, "stride");
        std::tuple<Tensor, Tensor> r;
        {
          nb::gil_scoped_release release;
          r = max_pool3d_with_indices(x, k, s, p, d, ceil_mode);
        }
        return values_or_pair(r, return_indices);
      },
      "input"_a, "kernel_size"_a, "stride"_a = nb::none(), "padding"_a = 0, "dilation"_a = 1,
      "ceil_mode"_a = false, "return_indices"_a = false);
  m.def(
      "avg_pool3d",
      [](T x, nb::handle kernel, nb::handle stride, nb::handle padding, bool ceil_mode,
         bool count_include_pad, std::optional<int64_t> divisor_override) {
        auto k = sizes_arg<3>(kernel, "kernel_size"), p = sizes_arg<3>(padding, "padding");
        auto s = opt_sizes_arg<3>(stride, "stride");
        nb::gil_scoped_release release;
        return avg_pool3d(x, k, s, p, ceil_mode, count_include_pad, divisor_override);
      },
      "input"_a, "kernel_size"_a, "stride"_a = nb::none(), "padding"_a = 0, "ceil_mode"_a = false,
      "count_include_pad"_a = true, "divisor_override"_a = nb::none());
  m.def(
      "adaptive_avg_pool3d",
      [](T x, nb::handle size) {
        auto o = sizes_arg<3>(size, "output_size");
        nb::gil_scoped_release release;
        return adaptive_avg_pool3d(x, o);
      },
      "input"_a, "output_size"_a);
  m.def(
      "adaptive_max_pool3d",
      [](T x, nb::handle size, bool return_indices) {
        auto o = sizes_arg<3>(size, "output_size");
        std::tuple<Tensor, Tensor> r;
        {
          nb::gil_scoped_release release;
          r = adaptive_max_pool3d(x, o);
        }
        return values_or_pair(r, return_indices);
      },
      "input"_a, "output_size"_a, "return_indices"_a = false);
  // max_unpool1d/2d/3d with the spatial output size already chosen (ember/nn/functional.py
  // computes it from the kernel, stride, padding and output_size as PyTorch does).
  m.def(
      "max_unpool1d",
      [](T x, T indices, nb::handle size) {
        auto o = sizes_arg<1>(size, "output_size");
        nb::gil_scoped_release release;
        return max_unpool1d(x, indices, o);
      },
      "input"_a, "indices"_a, "output_size"_a);
  m.def(
      "max_unpool2d",
      [](T x, T indices, nb::handle size) {
        auto o = sizes_arg<2>(size, "output_size");
        nb::gil_scoped_release release;
        return max_unpool2d(x, indices, o);
      },
      "input"_a, "indices"_a, "output_size"_a);
  m.def(
      "max_unpool3d",
      [](T x, T indices, nb::handle size) {
        auto o = sizes_arg<3>(size, "output_size");
        nb::gil_scoped_release release;
        return max_unpool3d(x, indices, o);
      },
      "input"_a, "indices"_a, "output_size"_a);
}

void def_layers(nb::module_& m) {
  m.def(
      "linear", [](T x, T w, OptT b) { return linear(x, w, or_undefined(b)); }, "input"_a,
      "weight"_a, "bias"_a = nb::none(), RG());
  m.def(
      "bilinear", [](T a, T b, T w, OptT bias) { return bilinear(a, b, w, or_undefined(bias)); },
      "input1"_a, "input2"_a, "weight"_a, "bias"_a = nb::none(), RG());
  m.def(
      "fold",
      [](T x, nb::handle output_size, nb::handle kernel, nb::handle dilation, nb::handle padding,
         nb::handle stride) {
        auto o =
            nn::FoldOptions(pair_arg(output_size, "output_size"), pair_arg(kernel, "kernel_size"))
                .dilation(pair_arg(dilation, "dilation"))
                .padding(pair_arg(padding, "padding"))
                .stride(pair_arg(stride, "stride"));
        nb::gil_scoped_release release;
        return nn::functional::fold(x, o);
      },
      "input"_a, "output_size"_a, "kernel_size"_a, "dilation"_a = 1, "padding"_a = 0,
      "stride"_a = 1);
  m.def(
      "unfold",
      [](T x, nb::handle kernel, nb::handle dilation, nb::handle padding, nb::handle stride) {
        auto o = nn::UnfoldOptions(pair_arg(kernel, "kernel_size"))
                     .dilation(pair_arg(dilation, "dilation"))
                     .padding(pair_arg(padding, "padding"))
                     .stride(pair_arg(stride, "stride"));
        nb::gil_scoped_release release;
        return nn::functional::unfold(x, o);
      },
      "input"_a, "kernel_size"_a, "dilation"_a = 1, "padding"_a = 0, "stride"_a = 1);
  m.def(
      "local_response_norm",
      [](T x, int64_t size, double alpha, double beta, double k) {
        return nn::functional::local_response_norm(
            x, nn::LocalResponseNormOptions(size).alpha(alpha).beta(beta).k(k));
      },
      "input"_a, "size"_a, "alpha"_a = 1e-4, "beta"_a = 0.75, "k"_a = 1.0, RG());
  m.def(
      "conv1d",
      [](T x, T w, OptT b, nb::handle stride, nb::handle padding, nb::handle dilation,
         int64_t groups) {
        auto s = sizes_arg<1>(stride, "stride"), d = sizes_arg<1>(dilation, "dilation");
        auto p = conv_padding_arg<1>(padding);
        nb::gil_scoped_release release;
        return nn::conv1d_with_padding(x, w, or_undefined(b), s, p, d, groups);
      },
      "input"_a, "weight"_a, "bias"_a = nb::none(), "stride"_a = 1, "padding"_a = 0,
      "dilation"_a = 1, "groups"_a = 1);
  m.def(
      "conv2d",
      [](T x, T w, OptT b, nb::handle stride, nb::handle padding, nb::handle dilation,
         int64_t groups) {
        auto s = pair_arg(stride, "stride"), d = pair_arg(dilation, "dilation");
        auto p = conv_padding_arg<2>(padding);
        nb::gil_scoped_release release;
        return nn::conv2d_with_padding(x, w, or_undefined(b), s, p, d, groups);
      },
      "input"_a, "weight"_a, "bias"_a = nb::none(), "stride"_a = 1, "padding"_a = 0,
      "dilation"_a = 1, "groups"_a = 1);
  m.def(
      "conv_transpose1d",
      [](T x, T w, OptT b, nb::handle stride, nb::handle padding, nb::handle output_padding,
         int64_t groups, nb::handle dilation) {
        auto s = sizes_arg<1>(stride, "stride"), p = sizes_arg<1>(padding, "padding"),
             op = sizes_arg<1>(output_padding, "output_padding"),
             d = sizes_arg<1>(dilation, "dilation");
        nb::gil_scoped_release release;
        return conv_transpose1d(x, w, or_undefined(b), s, p, op, groups, d);
      },
      "input"_a, "weight"_a, "bias"_a = nb::none(), "stride"_a = 1, "padding"_a = 0,
      "output_padding"_a = 0, "groups"_a = 1, "dilation"_a = 1);
  m.def(
      "conv_transpose2d",
      [](T x, T w, OptT b, nb::handle stride, nb::handle padding, nb::handle output_padding,
         int64_t groups, nb::handle dilation) {
        auto s = pair_arg(stride, "stride"), p = pair_arg(padding, "padding"),
             op = pair_arg(output_padding, "output_padding"), d = pair_arg(dilation, "dilation");
        nb::gil_scoped_release release;
        return conv_transpose2d(x, w, or_undefined(b), s, p, op, groups, d);
      },
      "input"_a, "weight"_a, "bias"_a = nb::none(), "stride"_a = 1, "padding"_a = 0,
      "output_padding"_a = 0, "groups"_a = 1, "dilation"_a = 1);
  m.def(
      "conv3d",
      [](T x, T w, OptT b, nb::handle stride, nb::handle padding, nb::handle dilation,
         int64_t groups) {
        auto s = sizes_arg<3>(stride, "stride"), d = sizes_arg<3>(dilation, "dilation");
        auto p = conv_padding_arg<3>(padding);
        nb::gil_scoped_release release;
        return nn::conv3d_with_padding(x, w, or_undefined(b), s, p, d, groups);
      },
      "input"_a, "weight"_a, "bias"_a = nb::none(), "stride"_a = 1, "padding"_a = 0,
      "dilation"_a = 1, "groups"_a = 1);
  m.def(
      "conv_transpose3d",
      [](T x, T w, OptT b, nb::handle stride, nb::handle padding, nb::handle output_padding,
         int64_t groups, nb::handle dilation) {
        auto s = sizes_arg<3>(stride, "stride"), p = sizes_arg<3>(padding, "padding"),
             op = sizes_arg<3>(output_padding, "output_padding"),
             d = sizes_arg<3>(dilation, "dilation");
        nb::gil_scoped_release release;
        return conv_transpose3d(x, w, or_undefined(b), s, p, op, groups, d);
      },
      "input"_a, "weight"_a, "bias"_a = nb::none(), "stride"_a = 1, "padding"_a = 0,
      "output_padding"_a = 0, "groups"_a = 1, "dilation"_a = 1);
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
      "group_norm",
      [](T x, int64_t num_groups, OptT w, OptT b, double eps) {
        return group_norm(x, num_groups, or_undefined(w), or_undefined(b), eps);
      },
      "input"_a, "num_groups"_a, "weight"_a = nb::none(), "bias"_a = nb::none(), "eps"_a = 1e-5,
      RG());
  m.def(
      "instance_norm",
      [](T x, OptT mean, OptT var, OptT w, OptT b, bool use_input_stats, double momentum,
         double eps) {
        return instance_norm(x, or_undefined(w), or_undefined(b), or_undefined(mean),
                             or_undefined(var), use_input_stats, momentum, eps);
      },
      "input"_a, "running_mean"_a = nb::none(), "running_var"_a = nb::none(),
      "weight"_a = nb::none(), "bias"_a = nb::none(), "use_input_stats"_a = true,
      "momentum"_a = 0.1, "eps"_a = 1e-5, RG());
  for (auto [name, f] :
       std::initializer_list<std::pair<const char*, Tensor (*)(const Tensor&, double, bool)>>{
           {"feature_dropout", feature_dropout},
           {"alpha_dropout", alpha_dropout},
           {"feature_alpha_dropout", feature_alpha_dropout}}) {
    m.def(
        name, [f = f](T x, double p, bool training) { return f(x, p, training); }, "input"_a,
        "p"_a = 0.5, "training"_a = true, RG());
  }
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
      [](T indices, T weight, std::optional<int64_t> padding_idx, std::optional<double> max_norm,
         double norm_type, bool scale_grad_by_freq, bool sparse) {
        return nn::functional::embedding(indices, weight,
                                         nn::functional::EmbeddingFuncOptions()
                                             .padding_idx(padding_idx)
                                             .max_norm(max_norm)
                                             .norm_type(norm_type)
                                             .scale_grad_by_freq(scale_grad_by_freq)
                                             .sparse(sparse));
      },
      "input"_a, "weight"_a, "padding_idx"_a = nb::none(), "max_norm"_a = nb::none(),
      "norm_type"_a = 2.0, "scale_grad_by_freq"_a = false, "sparse"_a = false, RG());
  m.def(
      "pad",
      [](T x, std::vector<int64_t> p, const std::string& mode, std::optional<double> value) {
        return pad(x, p, mode, value);
      },
      "input"_a, "pad"_a, "mode"_a = "constant", "value"_a = nb::none(), RG());
}

// A scale factor: one number for every spatial dim, or one per dim.
std::vector<double> scale_list(nb::handle h, int64_t spatial) {
  if (nb::isinstance<nb::float_>(h) || nb::isinstance<nb::int_>(h)) {
    return std::vector<double>(static_cast<size_t>(std::max<int64_t>(spatial, 0)),
                               nb::cast<double>(h));
  }
  std::vector<double> v;
  for (nb::handle item : nb::iter(h)) v.push_back(nb::cast<double>(item));
  return v;
}

void def_resampling(nb::module_& m) {
  m.def(
      "interpolate",
      [](T x, nb::handle size, nb::handle scale_factor, const std::string& mode,
         std::optional<bool> align_corners, std::optional<bool> recompute_scale_factor,
         bool antialias) {
        nn::functional::InterpolateFuncOptions o;
        const int64_t spatial = x.dim() - 2;
        if (!size.is_none()) {
          std::vector<int64_t> v = int_list(size, "size");
          if (v.size() == 1 && spatial > 1) v.assign(static_cast<size_t>(spatial), v[0]);
          o.size(v);
        }
        if (!scale_factor.is_none()) o.scale_factor(scale_list(scale_factor, spatial));
        if (mode == "nearest") {
          o.mode(kNearest);
        } else if (mode == "nearest-exact") {
          o.mode(kNearestExact);
        } else if (mode == "linear") {
          o.mode(kLinear);
        } else if (mode == "bilinear") {
          o.mode(kBilinear);
        } else if (mode == "trilinear") {
          o.mode(kTrilinear);
        } else if (mode == "bicubic") {
          o.mode(kBicubic);
        } else if (mode == "area") {
          o.mode(kArea);
        } else {
          throw NotImplementedError(
              "Input Error: Only 3D, 4D and 5D input Tensors supported (got " +
              std::to_string(x.dim()) +
              "D) for the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
              "nearest-exact (got " +
              mode + ")");
        }
        o.align_corners(align_corners)
            .recompute_scale_factor(recompute_scale_factor)
            .antialias(antialias);
        nb::gil_scoped_release release;
        return nn::functional::interpolate(x, o);
      },
      "input"_a, "size"_a = nb::none(), "scale_factor"_a = nb::none(), "mode"_a = "nearest",
      "align_corners"_a = nb::none(), "recompute_scale_factor"_a = nb::none(),
      "antialias"_a = false);
  m.def(
      "pixel_shuffle", [](T x, int64_t r) { return pixel_shuffle(x, r); }, "input"_a,
      "upscale_factor"_a, RG());
  m.def(
      "pixel_unshuffle", [](T x, int64_t r) { return pixel_unshuffle(x, r); }, "input"_a,
      "downscale_factor"_a, RG());
  m.def(
      "channel_shuffle", [](T x, int64_t groups) { return channel_shuffle(x, groups); }, "input"_a,
      "groups"_a, RG());
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
  // The activations of one tensor without options.
  for (auto [name, f] : std::initializer_list<std::pair<const char*, Tensor (*)(const Tensor&)>>{
           {"relu6", relu6},
           {"hardswish", hardswish},
           {"hardsigmoid", hardsigmoid},
           {"mish", mish},
           {"selu", selu},
           {"softsign", softsign},
           {"tanhshrink", tanhshrink},
           {"logsigmoid", log_sigmoid}}) {
    m.def(
        name, [f = f](T x) { return f(x); }, "input"_a, RG());
  }
  m.def(
      "celu", [](T x, double alpha) { return celu(x, alpha); }, "input"_a, "alpha"_a = 1.0, RG());
  m.def(
      "hardshrink", [](T x, double lambd) { return hardshrink(x, lambd); }, "input"_a,
      "lambd"_a = 0.5, RG());
  m.def(
      "softshrink", [](T x, double lambd) { return softshrink(x, lambd); }, "input"_a,
      "lambd"_a = 0.5, RG());
  m.def(
      "threshold",
      [](T x, double threshold, double value) { return ember::threshold(x, threshold, value); },
      "input"_a, "threshold"_a, "value"_a, RG());
  m.def(
      "glu", [](T x, int64_t dim) { return glu(x, dim); }, "input"_a, "dim"_a = -1, RG());
  m.def(
      "prelu", [](T x, T w) { return prelu(x, w); }, "input"_a, "weight"_a, RG());
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
  m.def(
      "grid_sample",
      [](T input, T grid, const std::string& mode, const std::string& padding, bool align) {
        nn::functional::GridSampleFuncOptions o;
        o.align_corners(align);
        if (mode == "nearest") o.mode(kNearest);
        if (padding == "border") o.padding_mode(kBorder);
        if (padding == "reflection") o.padding_mode(kReflection);
        nb::gil_scoped_release release;
        return nn::functional::grid_sample(input, grid, o);
      },
      "input"_a, "grid"_a, "mode"_a, "padding_mode"_a, "align_corners"_a);
  m.def(
      "affine_grid",
      [](T theta, const std::vector<int64_t>& size, bool align) {
        return nn::functional::affine_grid(theta, size, align);
      },
      "theta"_a, "size"_a, "align_corners"_a, RG());
  m.def(
      "normalize",
      [](T input, double p, int64_t dim, double eps, OptT out) {
        return nn::functional::normalize(
            input, nn::functional::NormalizeFuncOptions().p(p).dim(dim).eps(eps).out(out));
      },
      "input"_a, "p"_a = 2.0, "dim"_a = 1, "eps"_a = 1e-12, "out"_a = nb::none(), RG());
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
  // The losses added with the catalogue: PyTorch's argument order, the reduction last.
  auto reduced = [](const std::string& r) { return reduction_code(r); };
  m.def(
      "huber_loss",
      [reduced](T x, T y, const std::string& r, double delta) {
        return huber_loss(x, y, reduced(r), delta);
      },
      "input"_a, "target"_a, "reduction"_a = "mean", "delta"_a = 1.0);
  m.def(
      "soft_margin_loss",
      [reduced](T x, T y, const std::string& r) { return soft_margin_loss(x, y, reduced(r)); },
      "input"_a, "target"_a, "reduction"_a = "mean");
  m.def(
      "multilabel_soft_margin_loss",
      [reduced](T x, T y, OptT w, const std::string& r) {
        return multilabel_soft_margin_loss(x, y, or_undefined(w), reduced(r));
      },
      "input"_a, "target"_a, "weight"_a = nb::none(), "reduction"_a = "mean");
  m.def(
      "multilabel_margin_loss",
      [reduced](T x, T y, const std::string& r) {
        return multilabel_margin_loss(x, y, reduced(r));
      },
      "input"_a, "target"_a, "reduction"_a = "mean");
  m.def(
      "hinge_embedding_loss",
      [reduced](T x, T y, double margin, const std::string& r) {
        return hinge_embedding_loss(x, y, margin, reduced(r));
      },
      "input"_a, "target"_a, "margin"_a = 1.0, "reduction"_a = "mean");
  m.def(
      "multi_margin_loss",
      [reduced](T x, T y, int64_t p, double margin, OptT w, const std::string& r) {
        return multi_margin_loss(x, y, p, margin, or_undefined(w), reduced(r));
      },
      "input"_a, "target"_a, "p"_a = 1, "margin"_a = 1.0, "weight"_a = nb::none(),
      "reduction"_a = "mean");
  m.def(
      "poisson_nll_loss",
      [reduced](T x, T y, bool log_input, bool full, double eps, const std::string& r) {
        return poisson_nll_loss(x, y, log_input, full, eps, reduced(r));
      },
      "input"_a, "target"_a, "log_input"_a = true, "full"_a = false, "eps"_a = 1e-8,
      "reduction"_a = "mean");
  m.def(
      "margin_ranking_loss",
      [reduced](T a, T b, T y, double margin, const std::string& r) {
        return margin_ranking_loss(a, b, y, margin, reduced(r));
      },
      "input1"_a, "input2"_a, "target"_a, "margin"_a = 0.0, "reduction"_a = "mean");
  m.def(
      "cosine_embedding_loss",
      [reduced](T a, T b, T y, double margin, const std::string& r) {
        return cosine_embedding_loss(a, b, y, margin, reduced(r));
      },
      "input1"_a, "input2"_a, "target"_a, "margin"_a = 0.0, "reduction"_a = "mean");
  m.def(
      "triplet_margin_loss",
      [reduced](T a, T pos, T neg, double margin, double p, double eps, bool swap,
                const std::string& r) {
        return triplet_margin_loss(a, pos, neg, margin, p, eps, swap, reduced(r));
      },
      "anchor"_a, "positive"_a, "negative"_a, "margin"_a = 1.0, "p"_a = 2.0, "eps"_a = 1e-6,
      "swap"_a = false, "reduction"_a = "mean");
  m.def(
      "gaussian_nll_loss",
      [reduced](T x, T y, T var, bool full, double eps, const std::string& r) {
        return gaussian_nll_loss(x, y, var, full, eps, reduced(r));
      },
      "input"_a, "target"_a, "var"_a, "full"_a = false, "eps"_a = 1e-6, "reduction"_a = "mean");
  m.def(
      "pairwise_distance",
      [](T a, T b, double p, double eps, bool keepdim) {
        return pairwise_distance(a, b, p, eps, keepdim);
      },
      "x1"_a, "x2"_a, "p"_a = 2.0, "eps"_a = 1e-6, "keepdim"_a = false, RG());
}

// The options of a recurrent layer as the Python modules hold them.
nn::detail::RNNOptionsBase rnn_options(const std::string& mode, int64_t input_size,
                                       int64_t hidden_size, int64_t num_layers, bool bias,
                                       double dropout, bool bidirectional, int64_t proj_size) {
  using Mode = nn::detail::RNNOptionsBase::rnn_options_base_mode_t;
  Mode m = kLSTM;
  if (mode == "RNN_TANH") {
    m = kRNN_TANH;
  } else if (mode == "RNN_RELU") {
    m = kRNN_RELU;
  } else if (mode == "GRU") {
    m = kGRU;
  } else if (mode != "LSTM") {
    throw ValueError("Unknown mode '" + mode + "'");
  }
  return nn::detail::RNNOptionsBase(m, input_size, hidden_size)
      .num_layers(num_layers)
      .bias(bias)
      .dropout(dropout)
      .bidirectional(bidirectional)
      .proj_size(proj_size);
}

// The layers of ember.nn.RNN/LSTM/GRU: the Python module holds the parameters and the argument
// handling, C++ (nn::detail::run_rnn, the code of the C++ modules) runs the steps.
void def_recurrent(nb::module_& m) {
  // One step of the cells (ember.nn.RNNCell/LSTMCell/GRUCell): the C++ cell modules' functions.
  m.def(
      "lstm_cell",
      [](T x, T h, T c, T w_ih, T w_hh, OptT b_ih, OptT b_hh) {
        return lstm_cell(x, {h, c}, w_ih, w_hh, or_undefined(b_ih), or_undefined(b_hh));
      },
      "input"_a, "h"_a, "c"_a, "w_ih"_a, "w_hh"_a, "b_ih"_a.none(), "b_hh"_a.none(), RG());
  m.def(
      "gru_cell",
      [](T x, T h, T w_ih, T w_hh, OptT b_ih, OptT b_hh) {
        return gru_cell(x, h, w_ih, w_hh, or_undefined(b_ih), or_undefined(b_hh));
      },
      "input"_a, "hx"_a, "w_ih"_a, "w_hh"_a, "b_ih"_a.none(), "b_hh"_a.none(), RG());
  m.def(
      "rnn_tanh_cell",
      [](T x, T h, T w_ih, T w_hh, OptT b_ih, OptT b_hh) {
        return rnn_tanh_cell(x, h, w_ih, w_hh, or_undefined(b_ih), or_undefined(b_hh));
      },
      "input"_a, "hx"_a, "w_ih"_a, "w_hh"_a, "b_ih"_a.none(), "b_hh"_a.none(), RG());
  m.def(
      "rnn_relu_cell",
      [](T x, T h, T w_ih, T w_hh, OptT b_ih, OptT b_hh) {
        return rnn_relu_cell(x, h, w_ih, w_hh, or_undefined(b_ih), or_undefined(b_hh));
      },
      "input"_a, "hx"_a, "w_ih"_a, "w_hh"_a, "b_ih"_a.none(), "b_hh"_a.none(), RG());
  m.def(
      "rnn",
      [](const std::string& mode, T x, T h0, OptT c0, const std::vector<Tensor>& weights,
         int64_t hidden_size, int64_t num_layers, bool bias, double dropout, bool bidirectional,
         bool training, int64_t proj_size) {
        auto o = rnn_options(mode, x.size(-1), hidden_size, num_layers, bias, dropout,
                             bidirectional, proj_size);
        nb::gil_scoped_release release;
        auto [out, h_n, c_n] = nn::detail::run_rnn(o, weights, training, x, h0, or_undefined(c0));
        return std::make_tuple(out, h_n, c_n.defined() ? std::optional<Tensor>(c_n) : std::nullopt);
      },
      "mode"_a, "input"_a, "h0"_a, "c0"_a.none(), "weights"_a, "hidden_size"_a, "num_layers"_a,
      "bias"_a, "dropout"_a, "bidirectional"_a, "training"_a, "proj_size"_a = 0);
  m.def(
      "rnn_packed",
      [](const std::string& mode, T data, T batch_sizes, OptT sorted, OptT unsorted, OptT hx,
         OptT cx, const std::vector<Tensor>& weights, int64_t hidden_size, int64_t num_layers,
         bool bias, double dropout, bool bidirectional, bool training, int64_t proj_size) {
        auto o = rnn_options(mode, data.size(-1), hidden_size, num_layers, bias, dropout,
                             bidirectional, proj_size);
        nb::gil_scoped_release release;
        nn::utils::rnn::PackedSequence packed(data, batch_sizes, or_undefined(sorted),
                                              or_undefined(unsorted));
        auto [out, h_n, c_n] = nn::detail::run_rnn_packed(
            o, weights, training, packed, or_undefined(hx), or_undefined(cx), mode.c_str());
        return std::make_tuple(out.data(), h_n,
                               c_n.defined() ? std::optional<Tensor>(c_n) : std::nullopt);
      },
      "mode"_a, "data"_a, "batch_sizes"_a, "sorted_indices"_a.none(), "unsorted_indices"_a.none(),
      "hx"_a.none(), "cx"_a.none(), "weights"_a, "hidden_size"_a, "num_layers"_a, "bias"_a,
      "dropout"_a, "bidirectional"_a, "training"_a, "proj_size"_a = 0);
  // nn.utils.rnn: a PackedSequence travels as its four tensors (None for absent indices).
  using Packed = std::tuple<Tensor, Tensor, std::optional<Tensor>, std::optional<Tensor>>;
  auto as_tuple = [](const nn::utils::rnn::PackedSequence& p) {
    auto opt = [](const Tensor& t) {
      return t.defined() ? std::optional<Tensor>(t) : std::nullopt;
    };
    return Packed(p.data(), p.batch_sizes(), opt(p.sorted_indices()), opt(p.unsorted_indices()));
  };
  m.def(
      "pack_padded_sequence",
      [as_tuple](T input, T lengths, bool batch_first, bool enforce_sorted) {
        return as_tuple(
            nn::utils::rnn::pack_padded_sequence(input, lengths, batch_first, enforce_sorted));
      },
      "input"_a, "lengths"_a, "batch_first"_a = false, "enforce_sorted"_a = true, RG());
  m.def(
      "pad_packed_sequence",
      [](T data, T batch_sizes, OptT sorted, OptT unsorted, bool batch_first, double padding_value,
         std::optional<int64_t> total_length) {
        return nn::utils::rnn::pad_packed_sequence(
            nn::utils::rnn::PackedSequence(data, batch_sizes, or_undefined(sorted),
                                           or_undefined(unsorted)),
            batch_first, padding_value, total_length);
      },
      "data"_a, "batch_sizes"_a, "sorted_indices"_a.none(), "unsorted_indices"_a.none(),
      "batch_first"_a = false, "padding_value"_a = 0.0, "total_length"_a = nb::none(), RG());
  m.def(
      "pad_sequence",
      [](const std::vector<Tensor>& sequences, bool batch_first, double padding_value) {
        return nn::utils::rnn::pad_sequence(sequences, batch_first, padding_value);
      },
      "sequences"_a, "batch_first"_a = false, "padding_value"_a = 0.0, RG());
}

// Attention: F.scaled_dot_product_attention (PyTorch 2.x's keywords),
// F.multi_head_attention_forward (PyTorch 1.13's) and torch.nn.attention's backend choice.
struct SdpaKernel {
  explicit SdpaKernel(const std::vector<nn::attention::SDPBackend>& backends)
      : guard(std::make_unique<nn::attention::SdpaKernelGuard>(backends)) {}
  void close() { guard.reset(); }
  std::unique_ptr<nn::attention::SdpaKernelGuard> guard;
};

void def_attention(nb::module_& m) {
  using nn::attention::SDPBackend;
  nb::enum_<SDPBackend>(m, "SDPBackend")
      .value("ERROR", SDPBackend::ERROR)
      .value("MATH", SDPBackend::MATH)
      .value("FLASH_ATTENTION", SDPBackend::FLASH_ATTENTION)
      .value("EFFICIENT_ATTENTION", SDPBackend::EFFICIENT_ATTENTION)
      .value("CUDNN_ATTENTION", SDPBackend::CUDNN_ATTENTION);
  nb::class_<SdpaKernel>(m, "_SdpaKernelGuard")
      .def(nb::init<const std::vector<SDPBackend>&>(), "backends"_a)
      .def("close", &SdpaKernel::close);
  m.def("_sdpa_enabled_backends", &nn::attention::enabled_backends);
  m.def("_sdpa_last_choice", [] {
    auto c = nn::attention::last_choice();
    return std::make_tuple(c.backend, c.refused);
  });
  m.def(
      "scaled_dot_product_attention",
      [](T q, T k, T v, OptT mask, double dropout_p, bool is_causal, std::optional<double> scale,
         bool enable_gqa) {
        return scaled_dot_product_attention(q, k, v, or_undefined(mask), dropout_p, is_causal,
                                            scale, enable_gqa);
      },
      "query"_a, "key"_a, "value"_a, "attn_mask"_a = nb::none(), "dropout_p"_a = 0.0,
      "is_causal"_a = false, "scale"_a = nb::none(), nb::kw_only(), "enable_gqa"_a = false, RG());
  m.def(
      "multi_head_attention_forward",
      [](T query, T key, T value, int64_t embed_dim_to_check, int64_t num_heads,
         OptT in_proj_weight, OptT in_proj_bias, OptT bias_k, OptT bias_v, bool add_zero_attn,
         double dropout_p, T out_proj_weight, OptT out_proj_bias, bool training,
         OptT key_padding_mask, bool need_weights, OptT attn_mask, bool use_separate_proj_weight,
         OptT q_proj_weight, OptT k_proj_weight, OptT v_proj_weight, OptT static_k, OptT static_v,
         bool average_attn_weights) -> nb::object {
        std::tuple<Tensor, Tensor> r;
        {
          nb::gil_scoped_release release;
          r = nn::functional::multi_head_attention_forward(
              query, key, value,
              nn::functional::MultiheadAttentionForwardFuncOptions(
                  embed_dim_to_check, num_heads, or_undefined(in_proj_weight),
                  or_undefined(in_proj_bias), or_undefined(bias_k), or_undefined(bias_v),
                  add_zero_attn, dropout_p, out_proj_weight, or_undefined(out_proj_bias))
                  .training(training)
                  .key_padding_mask(or_undefined(key_padding_mask))
                  .need_weights(need_weights)
                  .attn_mask(or_undefined(attn_mask))
                  .use_separate_proj_weight(use_separate_proj_weight)
                  .q_proj_weight(or_undefined(q_proj_weight))
                  .k_proj_weight(or_undefined(k_proj_weight))
                  .v_proj_weight(or_undefined(v_proj_weight))
                  .static_k(or_undefined(static_k))
                  .static_v(or_undefined(static_v))
                  .average_attn_weights(average_attn_weights));
        }
        const Tensor& w = std::get<1>(r);
        return nb::make_tuple(std::get<0>(r), w.defined() ? nb::cast(w) : nb::none());
      },
      "query"_a, "key"_a, "value"_a, "embed_dim_to_check"_a, "num_heads"_a,
      "in_proj_weight"_a.none(), "in_proj_bias"_a.none(), "bias_k"_a.none(), "bias_v"_a.none(),
      "add_zero_attn"_a, "dropout_p"_a, "out_proj_weight"_a, "out_proj_bias"_a.none(),
      "training"_a = true, "key_padding_mask"_a = nb::none(), "need_weights"_a = true,
      "attn_mask"_a = nb::none(), "use_separate_proj_weight"_a = false,
      "q_proj_weight"_a = nb::none(), "k_proj_weight"_a = nb::none(),
      "v_proj_weight"_a = nb::none(), "static_k"_a = nb::none(), "static_v"_a = nb::none(),
      "average_attn_weights"_a = true);
  m.def(
      "generate_square_subsequent_mask",
      [](int64_t sz) { return nn::TransformerImpl::generate_square_subsequent_mask(sz); }, "sz"_a,
      RG());
}

// ember.nn.utils.clip_grad_norm_ / clip_grad_value_: the C++ functions (ember/optim/clip_grad.h).
void def_clip_grad(nb::module_& m) {
  m.def(
      "clip_grad_norm_",
      [](const std::vector<Tensor>& parameters, double max_norm, double norm_type,
         bool error_if_nonfinite) {
        return nn::utils::clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite);
      },
      "parameters"_a, "max_norm"_a, "norm_type"_a, "error_if_nonfinite"_a, RG());
  m.def(
      "clip_grad_value_",
      [](const std::vector<Tensor>& parameters, double clip_value) {
        nn::utils::clip_grad_value_(parameters, clip_value);
      },
      "parameters"_a, "clip_value"_a, RG());
}

// Lengths of ctc_loss: a tensor, or a sequence of ints.
std::vector<int64_t> lengths_arg(nb::handle h, const char* what) {
  if (nb::isinstance<Tensor>(h)) return nb::cast<Tensor>(h).to_vector<int64_t>();
  return int_list(h, what);
}

// The catalogue's layers (issue 34): ctc_loss, embedding_bag, the random activations, lp pools,
// CrossMapLRN2d's computation.
void def_catalogue(nb::module_& m) {
  m.def(
      "ctc_loss",
      [](T log_probs, T targets, nb::handle input_lengths, nb::handle target_lengths, int64_t blank,
         const std::string& reduction, bool zero_infinity) {
        if (nb::isinstance<Tensor>(input_lengths) && nb::isinstance<Tensor>(target_lengths)) {
          Tensor in = nb::cast<Tensor>(input_lengths), tl = nb::cast<Tensor>(target_lengths);
          nb::gil_scoped_release release;
          return ctc_loss(log_probs, targets, in, tl, blank, reduction_code(reduction),
                          zero_infinity);
        }
        std::vector<int64_t> in = lengths_arg(input_lengths, "input_lengths");
        std::vector<int64_t> tl = lengths_arg(target_lengths, "target_lengths");
        nb::gil_scoped_release release;
        return ctc_loss(log_probs, targets, IntArrayRef(in), IntArrayRef(tl), blank,
                        reduction_code(reduction), zero_infinity);
      },
      "log_probs"_a, "targets"_a, "input_lengths"_a, "target_lengths"_a, "blank"_a = 0,
      "reduction"_a = "mean", "zero_infinity"_a = false);
  // The GIL stays held: a Python distance function is called back from C++.
  m.def(
      "triplet_margin_with_distance_loss",
      [](T anchor, T positive, T negative, nb::object distance_function, double margin, bool swap,
         const std::string& reduction) {
        std::optional<std::function<Tensor(const Tensor&, const Tensor&)>> distance;
        if (!distance_function.is_none()) {
          distance = [distance_function](const Tensor& a, const Tensor& b) {
            return nb::cast<Tensor>(distance_function(a, b));
          };
        }
        return triplet_margin_with_distance_loss(anchor, positive, negative, distance, margin, swap,
                                                 reduction_code(reduction));
      },
      "anchor"_a, "positive"_a, "negative"_a, "distance_function"_a = nb::none(), "margin"_a = 1.0,
      "swap"_a = false, "reduction"_a = "mean");
  m.def(
      "embedding_renorm_",
      [](T weight, T indices, double max_norm, double norm_type) {
        return embedding_renorm_(weight, indices, max_norm, norm_type);
      },
      "weight"_a, "input"_a, "max_norm"_a, "norm_type"_a, RG());
  m.def(
      "embedding_bag",
      [](T input, T weight, OptT offsets, std::optional<double> max_norm, double norm_type,
         bool scale_grad_by_freq, const std::string& mode, bool sparse, OptT per_sample_weights,
         bool include_last_offset, std::optional<int64_t> padding_idx) {
        nn::EmbeddingBagMode bag_mode = kMean;
        if (mode == "sum") {
          bag_mode = kSum;
        } else if (mode == "max") {
          bag_mode = kMax;
        } else if (mode != "mean") {
          throw ValueError("mode has to be one of sum, mean or max");
        }
        return nn::functional::embedding_bag(
            input, weight,
            nn::functional::EmbeddingBagFuncOptions()
                .offsets(or_undefined(offsets))
                .max_norm(max_norm)
                .norm_type(norm_type)
                .scale_grad_by_freq(scale_grad_by_freq)
                .mode(bag_mode)
                .sparse(sparse)
                .per_sample_weights(or_undefined(per_sample_weights))
                .include_last_offset(include_last_offset)
                .padding_idx(padding_idx));
      },
      "input"_a, "weight"_a, "offsets"_a = nb::none(), "max_norm"_a = nb::none(),
      "norm_type"_a = 2.0, "scale_grad_by_freq"_a = false, "mode"_a = "mean", "sparse"_a = false,
      "per_sample_weights"_a = nb::none(), "include_last_offset"_a = false,
      "padding_idx"_a = nb::none(), RG());
  m.def(
      "rrelu",
      [](T x, double lower, double upper, bool training, bool inplace) {
        return inplace ? rrelu_(x, lower, upper, training) : rrelu(x, lower, upper, training);
      },
      "input"_a, "lower"_a = 1.0 / 8.0, "upper"_a = 1.0 / 3.0, "training"_a = false,
      "inplace"_a = false, RG());
  m.def(
      "gumbel_softmax",
      [](T logits, double tau, bool hard, int64_t dim) {
        return gumbel_softmax(logits, tau, hard, dim);
      },
      "logits"_a, "tau"_a = 1.0, "hard"_a = false, "dim"_a = -1, RG());
  m.def(
      "cross_map_lrn2d",
      [](T x, int64_t size, double alpha, double beta, double k) {
        EMBER_CHECK(k == static_cast<double>(static_cast<int64_t>(k)), ValueError,
                    "CrossMapLRN2d: k must be an integer (libtorch's int64 option), got ", k);
        return nn::functional::cross_map_lrn2d(
            x, nn::CrossMapLRN2dOptions(size).alpha(alpha).beta(beta).k(static_cast<int64_t>(k)));
      },
      "input"_a, "size"_a, "alpha"_a = 1e-4, "beta"_a = 0.75, "k"_a = 1.0, RG());
  m.def(
      "lp_pool1d",
      [](T x, double norm_type, nb::handle kernel, nb::handle stride, bool ceil_mode) {
        auto k = sizes_arg<1>(kernel, "kernel_size");
        std::optional<ExpandingArray<1>> s;
        if (!stride.is_none()) s = sizes_arg<1>(stride, "stride");
        nb::gil_scoped_release release;
        return lp_pool1d(x, norm_type, k, s, ceil_mode);
      },
      "input"_a, "norm_type"_a, "kernel_size"_a, "stride"_a = nb::none(), "ceil_mode"_a = false);
  m.def(
      "lp_pool2d",
      [](T x, double norm_type, nb::handle kernel, nb::handle stride, bool ceil_mode) {
        auto k = pair_arg(kernel, "kernel_size");
        std::optional<ExpandingArray<2>> s;
        if (!stride.is_none()) s = pair_arg(stride, "stride");
        nb::gil_scoped_release release;
        return lp_pool2d(x, norm_type, k, s, ceil_mode);
      },
      "input"_a, "norm_type"_a, "kernel_size"_a, "stride"_a = nb::none(), "ceil_mode"_a = false);
}

}  // namespace

void init_nn_functional(nb::module_& m) {
  nb::module_ nn = m.def_submodule("_nn", "the kernels of ember.nn.functional");
  def_layers(nn);
  def_pools(nn);
  def_activations(nn);
  def_resampling(nn);
  def_recurrent(nn);
  def_losses(nn);
  def_attention(nn);
  def_clip_grad(nn);
  def_catalogue(nn);
}

}  // namespace ember::python
