#pragma once
// What every compat program prints, written against libtorch's API like the programs themselves
// (the rename step turns it into Ember code too). One line per value: a name, the shape, then every
// element in full precision, so compare.py can match numbers with a tolerance and the rest exactly.
#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <string>

inline const char* compat_dtype_name(const torch::Tensor& t) {
  if (t.scalar_type() == torch::kFloat) return "float32";
  if (t.scalar_type() == torch::kDouble) return "float64";
  if (t.scalar_type() == torch::kLong) return "int64";
  if (t.scalar_type() == torch::kInt) return "int32";
  if (t.scalar_type() == torch::kBool) return "bool";
  if (t.scalar_type() == torch::kHalf) return "float16";
  if (t.scalar_type() == torch::kBFloat16) return "bfloat16";
  if (t.scalar_type() == torch::kByte) return "uint8";
  return "other";
}

inline void report(const std::string& name, const torch::Tensor& t) {
  std::cout << name << " " << compat_dtype_name(t) << " [";
  for (int64_t d = 0; d < t.dim(); ++d) std::cout << (d ? "," : "") << t.size(d);
  std::cout << "]";
  auto values = t.detach().to(torch::kCPU).to(torch::kDouble).contiguous();
  const double* p = values.data_ptr<double>();
  for (int64_t i = 0; i < values.numel(); ++i) std::cout << " " << std::setprecision(9) << p[i];
  std::cout << "\n";
}

inline void report(const std::string& name, double value) {
  std::cout << name << " " << std::setprecision(9) << value << "\n";
}

// Deterministic, non-degenerate parameter values (the two libraries' random generators differ):
// a sine wave over each parameter, scaled by 1/sqrt(fan_in) like the default initialisation.
inline void fill_deterministic(torch::nn::Module& module, double phase = 0.0) {
  torch::NoGradGuard no_grad;
  int64_t k = 0;
  for (auto& p : module.parameters()) {
    const int64_t fan_in = p.dim() > 1 ? p.numel() / p.size(0) : p.numel();
    auto wave = torch::sin(torch::arange(p.numel(), torch::kDouble) * 0.7 + phase + 0.3 * k);
    p.copy_((wave / std::sqrt(static_cast<double>(fan_in))).reshape(p.sizes()).to(p.scalar_type()));
    ++k;
  }
}
