// scaled_dot_product_attention: PyTorch 2.x's checks, then the first enabled backend that accepts
// the call. FLASH_ATTENTION is the fused kernel (ops/attention.cpp, kernel_math/attention.h);
// MATH is the composition PyTorch's math backend computes (matmul, softmax, dropout, matmul),
// kept as the reference and for what the kernel refuses (a mask that needs a gradient, batch dims
// that broadcast).
#include "ember/nn/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "ember/autograd.h"
#include "ember/error.h"
#include "ember/nn/ops.h"
#include "ember/ops.h"
#include "ops/attention_ops.h"

namespace ember {
namespace nn::attention {
namespace {

constexpr unsigned bit(SDPBackend b) {
  return 1u << static_cast<unsigned>(b);
}
// Every backend is allowed until a guard says otherwise.
constexpr unsigned kAll = bit(SDPBackend::MATH) | bit(SDPBackend::FLASH_ATTENTION) |
                          bit(SDPBackend::EFFICIENT_ATTENTION) | bit(SDPBackend::CUDNN_ATTENTION);
thread_local unsigned enabled_mask = kAll;
thread_local SdpaChoice last;

}  // namespace

const char* sdpa_backend_name(SDPBackend b) {
  switch (b) {
    case SDPBackend::MATH:
      return "MATH";
    case SDPBackend::FLASH_ATTENTION:
      return "FLASH_ATTENTION";
    case SDPBackend::EFFICIENT_ATTENTION:
      return "EFFICIENT_ATTENTION";
    case SDPBackend::CUDNN_ATTENTION:
      return "CUDNN_ATTENTION";
    case SDPBackend::ERROR:
      break;
  }
  return "ERROR";
}

SdpaKernelGuard::SdpaKernelGuard(const std::vector<SDPBackend>& backends)
    : previous_(enabled_mask) {
  EMBER_CHECK(!backends.empty(), ValueError, "sdpa_kernel: the list of backends is empty");
  unsigned mask = 0;
  for (SDPBackend b : backends) {
    EMBER_CHECK(b != SDPBackend::ERROR, ValueError,
                "sdpa_kernel: SDPBackend::ERROR is not a backend");
    mask |= bit(b);
  }
  enabled_mask = mask;
}

SdpaKernelGuard::~SdpaKernelGuard() {
  enabled_mask = previous_;
}

std::vector<SDPBackend> enabled_backends() {
  std::vector<SDPBackend> out;
  for (SDPBackend b : {SDPBackend::FLASH_ATTENTION, SDPBackend::EFFICIENT_ATTENTION,
                       SDPBackend::CUDNN_ATTENTION, SDPBackend::MATH}) {
    if (enabled_mask & bit(b)) out.push_back(b);
  }
  return out;
}

SdpaChoice last_choice() {
  return last;
}

}  // namespace nn::attention

namespace {

using nn::attention::SDPBackend;

std::string shape_text(IntArrayRef sizes) {
  std::string s = "[";
  for (size_t d = 0; d < sizes.size(); ++d) s += (d ? ", " : "") + std::to_string(sizes[d]);
  return s + "]";
}
std::string shape_text(const Tensor& t) {
  return shape_text(t.sizes());
}

void check_inputs(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask,
                  double dropout_p, bool is_causal, bool enable_gqa) {
  EMBER_CHECK(q.defined() && k.defined() && v.defined(), ValueError,
              "scaled_dot_product_attention: query, key and value must be defined tensors");
  EMBER_CHECK(q.dtype() == k.dtype() && q.dtype() == v.dtype(), TypeError,
              "Expected query, key, and value to have the same dtype, but got query.dtype: ",
              cpp_type_name(q.scalar_type()), " key.dtype: ", cpp_type_name(k.scalar_type()),
              " and value.dtype: ", cpp_type_name(v.scalar_type()), " instead.");
  EMBER_CHECK(is_floating_point(q.dtype()), TypeError,
              "scaled_dot_product_attention: expected floating query, key and value, but got ",
              q.dtype());
  EMBER_CHECK(q.device() == k.device() && q.device() == v.device(), DeviceError,
              "Expected query, key, and value to have the same device type, but got query.device: ",
              q.device().str(), " key.device: ", k.device().str(),
              " and value.device: ", v.device().str(), " instead.");
  EMBER_CHECK(q.dim() >= 2 && k.dim() >= 2 && v.dim() >= 2, ValueError,
              "scaled_dot_product_attention: query, key and value must have at least 2 dims, but "
              "got query.dim() = ",
              q.dim(), ", key.dim() = ", k.dim(), ", value.dim() = ", v.dim());
  EMBER_CHECK(q.size(-1) == k.size(-1), ValueError,
              "scaled_dot_product_attention: query and key must have the same last dim, but got "
              "query ",
              shape_text(q), " and key ", shape_text(k));
  EMBER_CHECK(k.size(-2) == v.size(-2), ValueError,
              "scaled_dot_product_attention: key and value must have the same sequence length, but "
              "got key ",
              shape_text(k), " and value ", shape_text(v));
  EMBER_CHECK(dropout_p >= 0 && dropout_p < 1, ValueError,
              "scaled_dot_product_attention: dropout_p must be in [0, 1), but got ", dropout_p);
  EMBER_CHECK(!(is_causal && mask.defined()), ValueError,
              "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
              "is_causal=True");
  if (mask.defined()) {
    EMBER_CHECK(mask.dtype() == kBool || mask.dtype() == q.dtype() || mask.dtype() == kFloat,
                TypeError,
                "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                "attn_mask.dtype: ",
                cpp_type_name(mask.scalar_type()),
                " and  query.dtype: ", cpp_type_name(q.scalar_type()), " instead.");
    // The scores are [..., Hq, L, S], their leading dims those of query and key broadcast.
    std::vector<int64_t> scores(std::max(q.dim(), k.dim()), 1);
    for (int64_t d = 1; d <= static_cast<int64_t>(scores.size()); ++d) {
      const int64_t a = d <= q.dim() ? q.size(-d) : 1, b = d <= k.dim() ? k.size(-d) : 1;
      scores[scores.size() - d] = a == 1 ? b : a;
    }
    scores.back() = k.size(-2);
    scores[scores.size() - 2] = q.size(-2);
    bool fits = mask.dim() <= static_cast<int64_t>(scores.size());
    for (int64_t d = 1; fits && d <= mask.dim(); ++d) {
      fits = mask.size(-d) == 1 || mask.size(-d) == scores[scores.size() - d];
    }
    EMBER_CHECK(fits, ValueError, "scaled_dot_product_attention: attn_mask of shape ",
                shape_text(mask), " does not broadcast to the attention scores' shape ",
                shape_text(scores));
    EMBER_CHECK(mask.device() == q.device(), DeviceError,
                "scaled_dot_product_attention: attn_mask is on ", mask.device().str(),
                " but query is on ", q.device().str());
  }
  const int64_t hq = q.dim() >= 3 ? q.size(-3) : 1, hk = k.dim() >= 3 ? k.size(-3) : 1,
                hv = v.dim() >= 3 ? v.size(-3) : 1;
  if (enable_gqa) {
    EMBER_CHECK(hk == hv && hk > 0 && hq % hk == 0, ValueError,
                "scaled_dot_product_attention: number of heads in key and value must divide the "
                "number of heads in query, but got query heads ",
                hq, ", key heads ", hk, ", value heads ", hv);
  }
}

// The float mask the scores get: bool true -> 0, false -> -inf; a float mask as given.
Tensor additive_mask(const Tensor& mask, ScalarType dtype) {
  if (!mask.defined()) return mask;
  if (mask.dtype() != kBool) return mask.dtype() == dtype ? mask : mask.to(dtype);
  return zeros(mask.sizes(), mask.options().dtype(dtype))
      .masked_fill(mask.logical_not(), -std::numeric_limits<double>::infinity());
}

// k or v [..., Hk, S, X] with each head repeated `group` times: [..., Hk * group, S, X].
Tensor repeat_heads(const Tensor& t, int64_t group) {
  if (group == 1) return t;
  std::vector<int64_t> expanded = t.sizes().vec(), merged = t.sizes().vec();
  expanded.insert(expanded.end() - 2, group);
  merged[merged.size() - 3] *= group;
  return t.unsqueeze(-3).expand(expanded).reshape(merged);
}

Tensor math_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask,
                      double dropout_p, bool is_causal, double scale, int64_t group) {
  Tensor scores = matmul(q, repeat_heads(k, group).transpose(-2, -1)) * scale;
  if (is_causal) {
    const int64_t L = q.size(-2), S = k.size(-2);
    Tensor keep = ones({L, S}, q.options().dtype(kBool)).tril();
    scores = scores.masked_fill(keep.logical_not(), -std::numeric_limits<double>::infinity());
  } else if (mask.defined()) {
    scores = scores + additive_mask(mask, scores.dtype());
  }
  Tensor weights = softmax(scores, -1);
  if (dropout_p > 0) weights = dropout(weights, dropout_p, true);
  return matmul(weights, repeat_heads(v, group));
}

// Why the fused kernel cannot take this call, or an empty string.
std::string flash_refusal(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask) {
  if (mask.defined() && mask.requires_grad() && GradMode::is_enabled()) {
    return "attn_mask requires grad (the fused kernel gives no mask gradient)";
  }
  for (int64_t d = 0; d + 3 < q.dim() || d + 3 < k.dim() || d + 3 < v.dim(); ++d) {
    if (q.dim() != k.dim() || q.dim() != v.dim() || q.size(d) != k.size(d) ||
        q.size(d) != v.size(d)) {
      return "the batch dims of query " + shape_text(q) + ", key " + shape_text(k) + " and value " +
             shape_text(v) + " differ (the math path broadcasts them)";
    }
  }
  if (q.dim() != k.dim() || q.dim() != v.dim()) {
    return "query, key and value have different numbers of dims";
  }
  if (q.numel() == 0 || k.numel() == 0 || v.numel() == 0) return "an input is empty";
  // The CUDA kernel keeps a row of the head dims per thread (src/cuda/attention.cu).
  if (q.is_cuda() && (q.size(-1) > 256 || v.size(-1) > 256)) {
    return "head dims above 256 on CUDA (query " + std::to_string(q.size(-1)) + ", value " +
           std::to_string(v.size(-1)) + ")";
  }
  return "";
}

}  // namespace

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale, bool enable_gqa) {
  using namespace nn::attention;
  check_inputs(query, key, value, attn_mask, dropout_p, is_causal, enable_gqa);
  const int64_t hq = query.dim() >= 3 ? query.size(-3) : 1, hk = key.dim() >= 3 ? key.size(-3) : 1;
  EMBER_CHECK(enable_gqa || hq == hk || hk == 1, ValueError,
              "scaled_dot_product_attention: query has ", hq, " heads but key has ", hk,
              " (pass enable_gqa=true for grouped-query attention)");
  const int64_t group = enable_gqa ? hq / hk : 1;
  const double s = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(query.size(-1)));

  SdpaChoice choice;
  for (SDPBackend b : enabled_backends()) {
    if (b == SDPBackend::MATH) {
      choice.backend = b;
      last = choice;  // before the call: an error inside it still leaves the choice readable
      return math_attention(query, key, value, attn_mask, dropout_p, is_causal, s, group);
    }
    std::string why;
    if (b == SDPBackend::FLASH_ATTENTION) {
      why = flash_refusal(query, key, value, attn_mask);
      if (why.empty() && !enable_gqa && hq != hk)
        why = "key has one head broadcast over the query's";
      if (why.empty()) {
        choice.backend = b;
        last = choice;
        return fused_attention(
            query, key, value,
            attn_mask.defined() ? additive_mask(attn_mask.detach(),
                                                query.scalar_type() == kDouble ? kDouble : kFloat)
                                : attn_mask,
            dropout_p, is_causal, s);
      }
    } else {
      why = "not implemented in Ember";
    }
    choice.refused.push_back(std::string(sdpa_backend_name(b)) + ": " + why);
  }
  last = choice;
  std::string reasons;
  for (const std::string& r : choice.refused) reasons += "\n  " + r;
  throw Error(detail::str_cat("scaled_dot_product_attention: no enabled backend accepts this call:",
                              reasons));
}

}  // namespace ember
