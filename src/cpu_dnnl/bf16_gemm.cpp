// bfloat16 GEMMs through oneDNN's matmul primitive: operands read where they are (row- or
// column-major matrices, a batch of 1 broadcast), float32 accumulation, one rounding into the
// bfloat16 output (alpha as an output scale, beta as a sum post-op). oneDNN caches primitives by
// shape. Only its fast kernels are used: a reference implementation means no bfloat16 hardware
// path, and the caller's float32 route is faster.
#include <dnnl.hpp>

#include <cstring>
#include <string>

#include "core/backend.h"
#include "core/tensor_factory.h"
#include "cpu/bf16_gemm.h"
#include "cpu_dnnl/dnnl_engine.h"

namespace ember::cpu {
namespace {

using dnnl::memory;

// A matrix oneDNN's fast kernels read: row-major or column-major (sizes of 1 fit both).
bool plain_matrix(const Tensor& t) {
  const int64_t r = t.size(1), c = t.size(2), rs = t.stride(1), cs = t.stride(2);
  const bool row_major = (c <= 1 || cs == 1) && (r <= 1 || rs >= c);
  const bool col_major = (r <= 1 || rs == 1) && (c <= 1 || cs >= r);
  return row_major || col_major;
}

// [B, R, C] as oneDNN sees it: a batch of 1 or of stride 0 is a broadcast batch of 1; strides
// of size-1 dims (which carry no information) are made consistent for its checks.
memory::desc describe(const Tensor& t, memory::data_type type) {
  const int64_t r = t.size(1), c = t.size(2);
  const bool broadcast = t.size(0) == 1 || t.stride(0) == 0;
  const bool col_major = r > 1 && t.stride(1) == 1 && !(c > 1 && t.stride(2) == 1);
  int64_t rs = t.stride(1), cs = t.stride(2);
  if (col_major) {
    if (c <= 1) cs = r;
  } else {
    if (c <= 1) cs = 1;
    if (r <= 1) rs = c;
  }
  const int64_t bs = broadcast ? r * c : t.stride(0);
  return memory::desc({broadcast ? 1 : t.size(0), r, c}, type, {bs, rs, cs});
}

// One matmul; false when oneDNN has no fast kernel for it.
bool run_matmul(const Tensor& out, memory::data_type out_type, const Tensor& a, const Tensor& b,
                double alpha, double beta) {
  dnnl::primitive_attr attr;
  if (alpha != 1) attr.set_output_scales(0, {static_cast<float>(alpha)});
  if (beta != 0) {
    dnnl::post_ops ops;
    ops.append_sum(static_cast<float>(beta));
    attr.set_post_ops(ops);
  }
  const memory::desc a_md = describe(a, memory::data_type::bf16);
  const memory::desc b_md = describe(b, memory::data_type::bf16);
  const memory::desc c_md = describe(out, out_type);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), attr, dnnl_cpu_engine());
  if (std::strncmp(pd.impl_info_str(), "ref", 3) == 0) return false;
  dnnl::stream stream(dnnl_cpu_engine());
  dnnl::matmul(pd).execute(stream,
                           {{DNNL_ARG_SRC, memory(a_md, dnnl_cpu_engine(), a.data_ptr())},
                            {DNNL_ARG_WEIGHTS, memory(b_md, dnnl_cpu_engine(), b.data_ptr())},
                            {DNNL_ARG_DST, memory(c_md, dnnl_cpu_engine(), out.data_ptr())}});
  stream.wait();
  return true;
}

}  // namespace

bool bf16_gemm(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta) {
  if (out.dtype() != kBFloat16 || a.dtype() != kBFloat16 || b.dtype() != kBFloat16) return false;
  if (out.numel() == 0 || a.size(2) == 0) return false;
  if (!plain_matrix(a) || !plain_matrix(b) || !plain_matrix(out)) return false;
  const int64_t products = std::max(a.size(0), b.size(0));
  try {
    if (out.size(0) == products || products == 1) {
      if (out.stride(0) == 0 && out.size(0) > 1) return false;
      return run_matmul(out, memory::data_type::bf16, a, b, alpha, beta);
    }
    // Summed form: every product accumulated into one float32 matrix, rounded once at the end.
    Backend& cpu = cpu_backend();
    Tensor sum = make_empty(out.sizes(), kFloat, out.device());
    if (beta != 0) cpu.copy(sum, out, false);
    for (int64_t i = 0; i < products; ++i) {
      const double accumulate = i == 0 ? beta : 1.0;
      if (!run_matmul(sum, memory::data_type::f32, gemm_batch_item(a, i), gemm_batch_item(b, i),
                      alpha, accumulate)) {
        return false;  // `out` is still untouched
      }
    }
    cpu.copy(out, sum, false);
    return true;
  } catch (const dnnl::error&) {
    return false;  // no implementation for this CPU or layout: the caller's float32 route
  }
}

const char* bf16_gemm_kernel() {
  static const std::string kernel = [] {
    try {
      const memory::desc md({1, 64, 64}, memory::data_type::bf16, {64 * 64, 64, 1});
      dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(md, md, md), dnnl_cpu_engine());
      const std::string impl = pd.impl_info_str();
      return impl.rfind("ref", 0) == 0 ? std::string() : impl;
    } catch (const dnnl::error&) {
      return std::string();
    }
  }();
  return kernel.c_str();
}

}  // namespace ember::cpu
