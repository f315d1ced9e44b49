// Sliding-window ops: the im2col/col2im pair with their gradients, max pooling, and the index
// tables of adaptive pooling (cached per geometry and device: building one costs as much as the
// gather itself, and training loops reuse the same few shapes).
#include "nn/window.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>

#include "autograd/record.h"
#include "core/backend.h"
#include "core/tensor_factory.h"
#include "ember/ops.h"
#include "ops/index_grad.h"

namespace ember::nn::detail {
namespace {

using Key = std::vector<int64_t>;

struct IndexCache {
  std::mutex mutex;
  std::map<Key, Tensor> tables;
};

IndexCache& cache() {
  static IndexCache* c = new IndexCache();  // never destroyed: tensors may outlive backends
  return *c;
}

template <typename Build>
Tensor cached(Key key, Device device, Build build) {
  key.push_back(static_cast<int64_t>(device.type()));
  key.push_back(device.index());
  IndexCache& c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    auto it = c.tables.find(key);
    if (it != c.tables.end()) return it->second;
  }
  Tensor t = build();
  if (!device.is_cpu()) t = t.to(device);
  std::lock_guard<std::mutex> lock(c.mutex);
  if (c.tables.size() >= 64) c.tables.clear();  // bounded: shapes rarely vary this much
  c.tables.emplace(std::move(key), t);
  return t;
}

}  // namespace

int64_t window_output_size(int64_t in, int64_t kernel, int64_t pad_before, int64_t pad_total,
                           int64_t stride, int64_t dilation, bool ceil_mode) {
  const int64_t span = in + pad_total - dilation * (kernel - 1) - 1;
  if (span < 0) return 0;
  int64_t out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  // The last window must start inside the input or the leading padding.
  if (ceil_mode && (out - 1) * stride >= in + pad_before) --out;
  return out;
}

Tensor im2col_columns(const Tensor& x, const Window2d& g) {
  const int64_t N = x.size(0);
  Tensor in = x.contiguous();
  Tensor cols = make_empty({N, g.columns(), g.positions()}, x.dtype(), x.device());
  if (cols.numel() > 0) backend_for(cols).im2col(cols, in, g);
  if (autograd::needs_grad({x})) {
    autograd::record("Im2ColBackward0", cols, {x}, [g](const autograd::variable_list& grad) {
      return autograd::variable_list{col2im_columns(grad[0], g)};
    });
  }
  return cols;
}

Tensor col2im_columns(const Tensor& cols, const Window2d& g) {
  const int64_t N = cols.size(0);
  Tensor in = cols.contiguous();
  Tensor out = make_empty({N, g.channels, g.height, g.width}, cols.dtype(), cols.device());
  if (out.numel() > 0) backend_for(out).col2im(out, in, g);
  if (autograd::needs_grad({cols})) {
    autograd::record("Col2ImBackward0", out, {cols}, [g](const autograd::variable_list& grad) {
      return autograd::variable_list{im2col_columns(grad[0], g)};
    });
  }
  return out;
}

std::tuple<Tensor, Tensor> max_pool_planes(const Tensor& planes, const Window2d& g) {
  const int64_t P = planes.size(0);
  Tensor in = planes.contiguous();
  Tensor values = make_empty({P, g.out_h, g.out_w}, planes.dtype(), planes.device());
  Tensor indices = make_empty({P, g.out_h, g.out_w}, kLong, planes.device());
  if (values.numel() > 0) backend_for(values).max_pool2d(values, indices, in, g);
  if (autograd::needs_grad({planes})) {
    // The maxima are a gather of the input at their indices: the gradient is scattered back
    // to them, by a backend kernel, or with gather's differentiable rule under create_graph.
    autograd::record(
        "MaxPool2DWithIndicesBackward0", values, {planes},
        [saved = autograd::SavedTensor(indices), g, P](const autograd::variable_list& grad) {
          const Tensor idx = saved.unpack();
          if (GradMode::is_enabled()) {
            const Tensor flat = gather_backward(grad[0].reshape({P, g.positions()}), {P, g.plane()},
                                                1, idx.view({P, g.positions()}));
            return autograd::variable_list{flat.view({P, g.height, g.width})};
          }
          const Tensor go = grad[0].contiguous();
          Tensor gin = make_empty({P, g.height, g.width}, go.dtype(), go.device());
          backend_for(gin).max_pool2d_backward(gin, go, idx, g);
          return autograd::variable_list{gin};
        });
  }
  return {values, indices};
}

Tensor adaptive_window_index(int64_t height, int64_t width, int64_t out_h, int64_t out_w,
                             Device device, std::vector<double>* window_sizes) {
  auto start = [](int64_t o, int64_t in, int64_t out) { return (o * in) / out; };
  auto end = [](int64_t o, int64_t in, int64_t out) { return ((o + 1) * in + out - 1) / out; };
  int64_t kh = 0, kw = 0;
  for (int64_t o = 0; o < out_h; ++o)
    kh = std::max(kh, end(o, height, out_h) - start(o, height, out_h));
  for (int64_t o = 0; o < out_w; ++o)
    kw = std::max(kw, end(o, width, out_w) - start(o, width, out_w));
  window_sizes->clear();
  for (int64_t oh = 0; oh < out_h; ++oh) {
    for (int64_t ow = 0; ow < out_w; ++ow) {
      window_sizes->push_back(
          static_cast<double>((end(oh, height, out_h) - start(oh, height, out_h)) *
                              (end(ow, width, out_w) - start(ow, width, out_w))));
    }
  }
  return cached(Key{1, height, width, out_h, out_w}, device, [&] {
    const int64_t pad_slot = height * width;
    Tensor t = empty({out_h * out_w * kh * kw}, kLong);
    int64_t* p = t.data_ptr<int64_t>();
    for (int64_t oh = 0; oh < out_h; ++oh) {
      const int64_t h0 = start(oh, height, out_h), h1 = end(oh, height, out_h);
      for (int64_t ow = 0; ow < out_w; ++ow) {
        const int64_t w0 = start(ow, width, out_w), w1 = end(ow, width, out_w);
        for (int64_t i = 0; i < kh; ++i) {
          for (int64_t j = 0; j < kw; ++j) {
            const int64_t h = h0 + i, w = w0 + j;
            *p++ = (h < h1 && w < w1) ? h * width + w : pad_slot;
          }
        }
      }
    }
    return t;
  });
}

Tensor gather_windows(const Tensor& flat, const Tensor& index, int64_t L, int64_t K,
                      double pad_value) {
  const int64_t B = flat.size(0);
  Tensor pad = full({B, 1}, pad_value, flat.options());
  Tensor padded = cat({flat, pad}, 1);
  return index_select(padded, 1, index).view({B, L, K});
}

}  // namespace ember::nn::detail
