// float32 convolutions through oneDNN's convolution primitives. Each primitive is asked for its
// preferred layouts (format `any`: blocked ones such as nChw16c on AVX-512), and the NCHW tensors
// are reordered into them and the results back, as libtorch's CPU convolution does. oneDNN caches
// the primitives by shape; only the descriptors are built per call.
#include <string>
#include <unordered_map>

#include "cpu/dnnl_convolution.h"
#include "cpu_dnnl/dnnl_engine.h"

namespace ember::cpu {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;

// The shapes oneDNN takes for one convolution: 2-D when in is 4-D, 3-D when it is 5-D.
struct ConvShape {
  memory::dims src, weights, bias, dst, strides, dilates, padding_l, padding_r;
  Tag data_tag, weights_tag;
};

// oneDNN's right padding is whatever makes its output size formula give ours (the window may stop
// short of the bottom or run past it), and its dilation counts the gaps (PyTorch's minus one).
int64_t padding_after(int64_t size, int64_t k, int64_t stride, int64_t before, int64_t dilation,
                      int64_t out) {
  const int64_t extent = (k - 1) * dilation + 1;
  const int64_t needed = (out - 1) * stride - (size - extent + before);
  return needed > 0 ? needed : 0;
}

ConvShape conv_shape(const Tensor& in, const Tensor& weight, const Window& g, int64_t groups) {
  const bool volume = in.dim() == 5;
  const int64_t N = in.size(0), C = in.size(1), O = weight.size(0);
  ConvShape s;
  s.src = {N, C};
  s.dst = {N, O};
  s.weights = groups > 1 ? memory::dims{groups, O / groups, C / groups} : memory::dims{O, C};
  if (volume) {
    s.src.push_back(g.depth);
    s.dst.push_back(g.out_d);
    s.weights.push_back(g.kd);
    s.strides.push_back(g.sd);
    s.dilates.push_back(g.dd - 1);
    s.padding_l.push_back(g.pd);
    s.padding_r.push_back(padding_after(g.depth, g.kd, g.sd, g.pd, g.dd, g.out_d));
  }
  s.src.insert(s.src.end(), {g.height, g.width});
  s.dst.insert(s.dst.end(), {g.out_h, g.out_w});
  s.weights.insert(s.weights.end(), {g.kh, g.kw});
  s.strides.insert(s.strides.end(), {g.sh, g.sw});
  s.dilates.insert(s.dilates.end(), {g.dh - 1, g.dw - 1});
  s.padding_l.insert(s.padding_l.end(), {g.ph, g.pw});
  s.padding_r.insert(s.padding_r.end(), {padding_after(g.height, g.kh, g.sh, g.ph, g.dh, g.out_h),
                                         padding_after(g.width, g.kw, g.sw, g.pw, g.dw, g.out_w)});
  s.bias = {O};
  s.data_tag = volume ? Tag::ncdhw : Tag::nchw;
  s.weights_tag =
      groups > 1 ? (volume ? Tag::goidhw : Tag::goihw) : (volume ? Tag::oidhw : Tag::oihw);
  return s;
}

memory::desc any(const memory::dims& dims) {
  return memory::desc(dims, memory::data_type::f32, Tag::any);
}

// A tensor's data as oneDNN memory in its plain layout.
memory plain(const Tensor& t, const memory::dims& dims, Tag tag) {
  return memory(memory::desc(dims, memory::data_type::f32, tag), dnnl_cpu_engine(), t.data_ptr());
}

// `user` in the layout `wanted`: itself when it already is, else a reordered copy.
memory in_layout(memory user, const memory::desc& wanted, dnnl::stream& stream) {
  if (user.get_desc() == wanted) return user;
  memory converted(wanted, dnnl_cpu_engine());
  dnnl::reorder(user, converted).execute(stream, user, converted);
  return converted;
}

// Where a primitive writes a result that belongs in `user`: `user` itself when the layouts agree,
// else a scratch memory that finish() reorders into `user`.
struct Output {
  memory user, target;
  Output(const memory& u, const memory::desc& wanted)
      : user(u), target(u.get_desc() == wanted ? u : memory(wanted, dnnl_cpu_engine())) {}
  void finish(dnnl::stream& stream) {
    if (target != user) dnnl::reorder(target, user).execute(stream, target, user);
  }
};

dnnl::convolution_forward::primitive_desc forward_pd(const ConvShape& s, bool bias) {
  const dnnl::convolution_forward::desc d(
      dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct, any(s.src),
      any(s.weights), bias ? memory::desc(s.bias, memory::data_type::f32, Tag::x) : memory::desc(),
      any(s.dst), s.strides, s.dilates, s.padding_l, s.padding_r);
  return dnnl::convolution_forward::primitive_desc(d, dnnl_cpu_engine());
}

}  // namespace

bool dnnl_convolution_available() {
  return true;
}

void dnnl_convolution(const Tensor& out, const Tensor& in, const Tensor& weight, const Tensor& bias,
                      const Window& g, int64_t groups) {
  const ConvShape s = conv_shape(in, weight, g, groups);
  const auto pd = forward_pd(s, bias.defined());
  dnnl::stream stream(dnnl_cpu_engine());
  const memory src = in_layout(plain(in, s.src, s.data_tag), pd.src_desc(), stream);
  const memory weights =
      in_layout(plain(weight, s.weights, s.weights_tag), pd.weights_desc(), stream);
  Output dst(plain(out, s.dst, s.data_tag), pd.dst_desc());
  std::unordered_map<int, memory> args{
      {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst.target}};
  if (bias.defined()) args.emplace(DNNL_ARG_BIAS, plain(bias, s.bias, Tag::x));
  dnnl::convolution_forward(pd).execute(stream, args);
  dst.finish(stream);
  stream.wait();
}

void dnnl_convolution_backward(const Tensor& grad_in, const Tensor& grad_weight,
                               const Tensor& grad_bias, const Tensor& grad_out, const Tensor& in,
                               const Tensor& weight, const Window& g, int64_t groups) {
  const ConvShape s = conv_shape(in, weight, g, groups);
  const auto hint = forward_pd(s, grad_bias.defined());
  dnnl::stream stream(dnnl_cpu_engine());
  const memory user_grad_out = plain(grad_out, s.dst, s.data_tag);
  if (grad_in.defined()) {
    const dnnl::convolution_backward_data::desc d(dnnl::algorithm::convolution_direct, any(s.src),
                                                  any(s.weights), any(s.dst), s.strides, s.dilates,
                                                  s.padding_l, s.padding_r);
    const dnnl::convolution_backward_data::primitive_desc pd(d, dnnl_cpu_engine(), hint);
    const memory dy = in_layout(user_grad_out, pd.diff_dst_desc(), stream);
    const memory w = in_layout(plain(weight, s.weights, s.weights_tag), pd.weights_desc(), stream);
    Output dx(plain(grad_in, s.src, s.data_tag), pd.diff_src_desc());
    dnnl::convolution_backward_data(pd).execute(
        stream, {{DNNL_ARG_DIFF_DST, dy}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DIFF_SRC, dx.target}});
    dx.finish(stream);
  }
  if (grad_weight.defined() || grad_bias.defined()) {
    const memory::desc bias_md =
        grad_bias.defined() ? memory::desc(s.bias, memory::data_type::f32, Tag::x) : memory::desc();
    const dnnl::convolution_backward_weights::desc d(
        dnnl::algorithm::convolution_direct, any(s.src), any(s.weights), bias_md, any(s.dst),
        s.strides, s.dilates, s.padding_l, s.padding_r);
    const dnnl::convolution_backward_weights::primitive_desc pd(d, dnnl_cpu_engine(), hint);
    const memory x = in_layout(plain(in, s.src, s.data_tag), pd.src_desc(), stream);
    const memory dy = in_layout(user_grad_out, pd.diff_dst_desc(), stream);
    // The weight gradient is always computed (oneDNN computes the bias gradient beside it); it
    // lands in scratch memory when only the bias gradient was asked for.
    Output dw(grad_weight.defined() ? plain(grad_weight, s.weights, s.weights_tag)
                                    : memory(pd.diff_weights_desc(), dnnl_cpu_engine()),
              pd.diff_weights_desc());
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, x}, {DNNL_ARG_DIFF_DST, dy}, {DNNL_ARG_DIFF_WEIGHTS, dw.target}};
    if (grad_bias.defined()) args.emplace(DNNL_ARG_DIFF_BIAS, plain(grad_bias, s.bias, Tag::x));
    dnnl::convolution_backward_weights(pd).execute(stream, args);
    dw.finish(stream);
  }
  stream.wait();
}

std::string dnnl_convolution_kernel(const Tensor& in, const Tensor& weight, const Window& g,
                                    int64_t groups) {
  return forward_pd(conv_shape(in, weight, g, groups), false).impl_info_str();
}

}  // namespace ember::cpu
