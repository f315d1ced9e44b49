// Window arithmetic: output sizes, and the index tables of adaptive pooling (cached per geometry
// and device: building one costs as much as the gather itself, and training loops reuse the same
// few shapes). The window kernels themselves are front ends in src/ops (ops/window_ops.h).
#include "nn/window.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "ember/ops.h"

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

Window volume_window(int64_t channels, const int64_t in[3], const int64_t kernel[3],
                     const int64_t stride[3], const int64_t pad_before[3],
                     const int64_t pad_total[3], const int64_t dilation[3], bool ceil_mode) {
  Window g{channels,      in[1],         in[2],       kernel[1],   kernel[2], stride[1], stride[2],
           pad_before[1], pad_before[2], dilation[1], dilation[2], 0,         0};
  g.depth = in[0];
  g.kd = kernel[0];
  g.sd = stride[0];
  g.pd = pad_before[0];
  g.dd = dilation[0];
  g.out_d = window_output_size(in[0], kernel[0], pad_before[0], pad_total[0], stride[0],
                               dilation[0], ceil_mode);
  g.out_h = window_output_size(in[1], kernel[1], pad_before[1], pad_total[1], stride[1],
                               dilation[1], ceil_mode);
  g.out_w = window_output_size(in[2], kernel[2], pad_before[2], pad_total[2], stride[2],
                               dilation[2], ceil_mode);
  return g;
}

Tensor adaptive_window_index_3d(const int64_t in[3], const int64_t out[3], Device device,
                                std::vector<double>* window_sizes) {
  auto start = [](int64_t o, int64_t n, int64_t m) { return (o * n) / m; };
  auto end = [](int64_t o, int64_t n, int64_t m) { return ((o + 1) * n + m - 1) / m; };
  int64_t k[3] = {0, 0, 0};
  for (int d = 0; d < 3; ++d) {
    for (int64_t o = 0; o < out[d]; ++o)
      k[d] = std::max(k[d], end(o, in[d], out[d]) - start(o, in[d], out[d]));
  }
  window_sizes->clear();
  for (int64_t od = 0; od < out[0]; ++od) {
    for (int64_t oh = 0; oh < out[1]; ++oh) {
      for (int64_t ow = 0; ow < out[2]; ++ow) {
        window_sizes->push_back(
            static_cast<double>((end(od, in[0], out[0]) - start(od, in[0], out[0])) *
                                (end(oh, in[1], out[1]) - start(oh, in[1], out[1])) *
                                (end(ow, in[2], out[2]) - start(ow, in[2], out[2]))));
      }
    }
  }
  return cached(Key{3, in[0], in[1], in[2], out[0], out[1], out[2]}, device, [&] {
    const int64_t pad_slot = in[0] * in[1] * in[2];
    Tensor t = empty({out[0] * out[1] * out[2] * k[0] * k[1] * k[2]}, kLong);
    int64_t* p = t.data_ptr<int64_t>();
    for (int64_t od = 0; od < out[0]; ++od) {
      const int64_t d0 = start(od, in[0], out[0]), d1 = end(od, in[0], out[0]);
      for (int64_t oh = 0; oh < out[1]; ++oh) {
        const int64_t h0 = start(oh, in[1], out[1]), h1 = end(oh, in[1], out[1]);
        for (int64_t ow = 0; ow < out[2]; ++ow) {
          const int64_t w0 = start(ow, in[2], out[2]), w1 = end(ow, in[2], out[2]);
          for (int64_t a = 0; a < k[0]; ++a) {
            for (int64_t i = 0; i < k[1]; ++i) {
              for (int64_t j = 0; j < k[2]; ++j) {
                const int64_t d = d0 + a, h = h0 + i, w = w0 + j;
                *p++ = (d < d1 && h < h1 && w < w1) ? (d * in[1] + h) * in[2] + w : pad_slot;
              }
            }
          }
        }
      }
    }
    return t;
  });
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
