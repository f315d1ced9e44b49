#pragma once
// Scaled dot-product attention (PyTorch 2.x's torch.nn.functional.scaled_dot_product_attention
// and torch.nn.attention): the function, the scoped choice of its backend, and a way to learn
// which backend ran and why the others were refused.
//
//   auto out = ember::scaled_dot_product_attention(q, k, v, {}, 0.0, /*is_causal=*/true);
//   {
//     ember::nn::attention::SdpaKernelGuard only_math({ember::nn::attention::SDPBackend::MATH});
//     out = ember::scaled_dot_product_attention(q, k, v);   // the plain composition
//   }
//   ember::nn::attention::last_choice().backend;            // which one ran on this thread
#include <optional>
#include <string>
#include <vector>

#include "ember/tensor.h"

namespace ember {

// softmax(q k^T * scale + mask) v, with dropout on the weights, for query [..., Hq, L, E], key
// [..., Hk, S, E] and value [..., Hk, S, Ev] (any leading dims, equal in all three; Hq = Hk unless
// enable_gqa, then a multiple of it). attn_mask broadcasts to [..., Hq, L, S]: bool (true =
// take part) or a float added to the scores. is_causal hides key j from query i when j > i and
// excludes attn_mask. scale defaults to 1 / sqrt(E). Returns [..., Hq, L, Ev].
EMBER_API Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key,
                                              const Tensor& value, const Tensor& attn_mask = {},
                                              double dropout_p = 0.0, bool is_causal = false,
                                              std::optional<double> scale = std::nullopt,
                                              bool enable_gqa = false);

namespace nn::attention {

// PyTorch 2.x's torch.nn.attention.SDPBackend values. Ember has two implementations: the fused
// kernel (FLASH_ATTENTION: blocks of queries and keys, online softmax, no [L, S] buffer, on the
// CPU and CUDA) and the composition of matmul, softmax, dropout and matmul (MATH).
// EFFICIENT_ATTENTION and CUDNN_ATTENTION are accepted names with no implementation here.
enum class SDPBackend {
  ERROR = -1,
  MATH = 0,
  FLASH_ATTENTION = 1,
  EFFICIENT_ATTENTION = 2,
  CUDNN_ATTENTION = 3,
};
EMBER_API const char* sdpa_backend_name(SDPBackend b);

// Allows only `backends` on this thread while it lives (torch.nn.attention.sdpa_kernel); nested
// guards restore the outer choice. An empty list is an error, as in PyTorch.
class EMBER_API SdpaKernelGuard {
 public:
  explicit SdpaKernelGuard(const std::vector<SDPBackend>& backends);
  ~SdpaKernelGuard();
  SdpaKernelGuard(const SdpaKernelGuard&) = delete;
  SdpaKernelGuard& operator=(const SdpaKernelGuard&) = delete;

 private:
  unsigned previous_;
};

// The backends this thread may use now, in the order they are tried.
EMBER_API std::vector<SDPBackend> enabled_backends();

// The last call's choice on this thread: the backend that ran and, for each one tried before
// it, why it was refused ("FLASH_ATTENTION: attn_mask requires grad").
struct SdpaChoice {
  SDPBackend backend = SDPBackend::ERROR;
  std::vector<std::string> refused;
};
EMBER_API SdpaChoice last_choice();

}  // namespace nn::attention
}  // namespace ember
