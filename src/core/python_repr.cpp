// Python's repr of a tensor, character for character as Python's torch prints it (the rules of
// torch/_tensor_str.py with its default options: precision 4, threshold 1000, edgeitems 3,
// linewidth 80), kept for the Python bindings: detail::python_repr. C++'s operator<< prints
// libtorch's C++ layout instead (print.cpp). CUDA tensors are copied to the CPU first, so they
// print the same way.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/device_audit.h"
#include "ember/autograd.h"
#include "ember/python_names.h"
#include "ember/tensor.h"
#include "kernel_math/dispatch.h"

namespace ember {
namespace {

constexpr int kPrecision = 4;
constexpr int64_t kThreshold = 1000;
constexpr int64_t kEdgeItems = 3;
constexpr int kLineWidth = 80;

enum class Kind { Float, Int, Bool };

// Strided element reads of a CPU tensor; offsets are in elements from data_ptr().
class Elements {
 public:
  explicit Elements(const Tensor& t)
      : base_(static_cast<const char*>(t.data_ptr())), dtype_(t.dtype()), es_(t.element_size()) {}
  double real(int64_t off) const {
    double v = 0;
    EMBER_DISPATCH_ALL(dtype_, "print", [&] {
      v = static_cast<double>(static_cast<acc_t<scalar_t>>(load<scalar_t>(off)));
    });
    return v;
  }
  int64_t integer(int64_t off) const {
    int64_t v = 0;
    EMBER_DISPATCH_ALL(dtype_, "print", [&] {
      if constexpr (std::is_integral_v<scalar_t>) v = static_cast<int64_t>(load<scalar_t>(off));
    });
    return v;
  }
  bool boolean(int64_t off) const { return load<bool>(off); }

 private:
  template <typename T>
  T load(int64_t off) const {
    T v;
    std::memcpy(&v, base_ + off * static_cast<int64_t>(es_), sizeof(T));
    return v;
  }
  const char* base_;
  ScalarType dtype_;
  size_t es_;
};

std::string printf_double(const char* fmt, int width, double v) {
  char buf[64];
  int n = width > 0 ? std::snprintf(buf, sizeof buf, fmt, width, v)
                    : std::snprintf(buf, sizeof buf, fmt, v);
  if (n < static_cast<int>(sizeof buf)) return std::string(buf, n);
  std::string big(n + 1, '\0');
  width > 0 ? std::snprintf(big.data(), big.size(), fmt, width, v)
            : std::snprintf(big.data(), big.size(), fmt, v);
  big.resize(n);
  return big;
}

// Python spells non-finite floats "nan", "inf", "-inf" (never "-nan").
std::string non_finite(double v) {
  return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
}

std::string fixed(double v, int digits) {
  if (!std::isfinite(v)) return non_finite(v);
  return printf_double(digits == 0 ? "%.0f" : "%.4f", 0, v);
}
std::string scientific(double v) {
  if (!std::isfinite(v)) return non_finite(v);
  return printf_double("%.4e", 0, v);
}

// torch._tensor_str._Formatter: picks one layout (integer-valued, fixed or scientific) and one
// width for all elements from the values that will be shown.
class Formatter {
 public:
  Formatter(const Tensor& t, const Elements& el, const std::vector<int64_t>& shown) : el_(el) {
    kind_ = is_floating_point(t.dtype()) ? Kind::Float
            : t.dtype() == kBool         ? Kind::Bool
                                         : Kind::Int;
    if (kind_ != Kind::Float) {
      for (int64_t off : shown) width_ = std::max(width_, text(off).size());
      return;
    }
    std::vector<double> vals;
    for (int64_t off : shown) {
      double v = el_.real(off);
      if (std::isfinite(v) && v != 0) vals.push_back(v);
    }
    if (vals.empty()) return;
    double lo = std::abs(vals[0]), hi = lo;
    for (double v : vals) {
      lo = std::min(lo, std::abs(v));
      hi = std::max(hi, std::abs(v));
      if (v != std::ceil(v)) int_mode_ = false;
    }
    sci_ = hi / lo > 1000.0 || hi > 1.0e8 || (!int_mode_ && lo < 1.0e-4);
    for (double v : vals) {
      size_t w = sci_        ? scientific(v).size()
                 : int_mode_ ? fixed(v, 0).size() + 1
                             : fixed(v, 4).size();
      width_ = std::max(width_, w);
    }
  }

  size_t width() const { return width_; }

  // The element at `off`, right-aligned to the common width.
  std::string format(int64_t off) const {
    std::string s = text(off);
    if (s.size() < width_) s.insert(0, width_ - s.size(), ' ');
    return s;
  }

 private:
  std::string text(int64_t off) const {
    if (kind_ == Kind::Bool) return el_.boolean(off) ? "True" : "False";
    if (kind_ == Kind::Int) return std::to_string(el_.integer(off));
    double v = el_.real(off);
    if (sci_) return scientific(v);
    if (int_mode_) return std::isfinite(v) ? fixed(v, 0) + "." : non_finite(v);
    return fixed(v, kPrecision);
  }

  const Elements& el_;
  Kind kind_;
  bool int_mode_ = true;
  bool sci_ = false;
  size_t width_ = 1;
};

// Indices kept along a dim of size n: all, or the first and last kEdgeItems when summarising.
template <typename F>
void for_shown(int64_t n, bool summarize, F&& f) {
  if (summarize && n > 2 * kEdgeItems) {
    for (int64_t i = 0; i < kEdgeItems; ++i) f(i);
    for (int64_t i = n - kEdgeItems; i < n; ++i) f(i);
  } else {
    for (int64_t i = 0; i < n; ++i) f(i);
  }
}

// Element offsets of what is printed (torch's get_summarized_data), in row-major order.
void collect_shown(const Tensor& t, int64_t dim, int64_t off, bool summarize,
                   std::vector<int64_t>& out) {
  if (dim == t.dim()) {
    out.push_back(off);
    return;
  }
  int64_t stride = t.strides()[dim];
  for_shown(t.sizes()[dim], summarize,
            [&](int64_t i) { collect_shown(t, dim + 1, off + i * stride, summarize, out); });
}

std::string vector_str(const Tensor& t, const Formatter& f, int64_t off, int indent,
                       bool summarize) {
  int64_t n = t.sizes().back(), stride = t.strides().back();
  int64_t element_length = static_cast<int64_t>(f.width()) + 2;
  int64_t per_line = std::max<int64_t>(
      1, static_cast<int64_t>(std::floor(static_cast<double>(kLineWidth - indent) /
                                         static_cast<double>(element_length))));
  std::vector<std::string> data;
  if (summarize && n > 2 * kEdgeItems) {
    for (int64_t i = 0; i < kEdgeItems; ++i) data.push_back(f.format(off + i * stride));
    data.push_back(" ...");
    for (int64_t i = n - kEdgeItems; i < n; ++i) data.push_back(f.format(off + i * stride));
  } else {
    for (int64_t i = 0; i < n; ++i) data.push_back(f.format(off + i * stride));
  }
  std::string s = "[";
  for (size_t i = 0; i < data.size(); ++i) {
    if (i > 0 && i % per_line == 0) {
      s += ",\n";
      s.append(indent + 1, ' ');
    } else if (i > 0) {
      s += ", ";
    }
    s += data[i];
  }
  return s + "]";
}

std::string tensor_str(const Tensor& t, const Formatter& f, int64_t dim, int64_t off, int indent,
                       bool summarize) {
  int64_t left = t.dim() - dim;
  if (left == 0) return f.format(off);
  if (left == 1) return vector_str(t, f, off, indent, summarize);
  int64_t n = t.sizes()[dim], stride = t.strides()[dim];
  std::string sep(",");
  sep.append(left - 1, '\n').append(indent + 1, ' ');
  std::string s = "[";
  bool first = true;
  auto add = [&](const std::string& part) {
    if (!first) s += sep;
    s += part;
    first = false;
  };
  if (summarize && n > 2 * kEdgeItems) {
    for (int64_t i = 0; i < kEdgeItems; ++i)
      add(tensor_str(t, f, dim + 1, off + i * stride, indent + 1, summarize));
    add("...");
    for (int64_t i = n - kEdgeItems; i < n; ++i)
      add(tensor_str(t, f, dim + 1, off + i * stride, indent + 1, summarize));
  } else {
    for (int64_t i = 0; i < n; ++i)
      add(tensor_str(t, f, dim + 1, off + i * stride, indent + 1, summarize));
  }
  return s + "]";
}

// Python's str(tuple): (0, 3)
std::string py_tuple(IntArrayRef sizes) {
  std::string s = "(";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + (sizes.size() == 1 ? ",)" : ")");
}

}  // namespace

namespace detail {

std::string python_node_name(const std::string& cpp_name) {
  // The scalar overloads libtorch records and the tensor overloads Python reaches instead.
  static const std::pair<const char*, const char*> kRenamed[] = {{"AddBackward1", "AddBackward0"},
                                                                 {"SubBackward1", "SubBackward0"},
                                                                 {"MulBackward1", "MulBackward0"},
                                                                 {"DivBackward1", "DivBackward0"},
                                                                 {"PowBackward2", "PowBackward1"}};
  for (const auto& [cpp, py] : kRenamed)
    if (cpp_name == cpp) return py;
  return cpp_name;
}

std::string python_repr(const Tensor& self) {
  if (!self.defined()) return "[ Tensor (undefined) ]";
  const std::string prefix = "tensor(";
  const int indent = static_cast<int>(prefix.size());
  std::vector<std::string> suffixes;
  if (self.is_cuda()) suffixes.push_back("device='" + self.device().str() + "'");

  ScalarType dt = self.dtype();
  bool default_dtype = dt == get_default_dtype() || dt == kLong || dt == kBool;
  std::string body;
  if (self.numel() == 0) {
    if (self.dim() != 1) suffixes.push_back("size=" + py_tuple(self.sizes()));
    if (dt != get_default_dtype()) suffixes.push_back(std::string("dtype=") + python_name(dt));
    body = "[]";
  } else {
    if (!default_dtype) suffixes.push_back(std::string("dtype=") + python_name(dt));
    Tensor host;
    {
      NoGradGuard no_grad;
      audit::SyncReason why("printing a CUDA tensor");
      host = self.is_cpu() ? self : self.detach().cpu();
    }
    bool summarize = host.numel() > kThreshold;
    Elements el(host);
    std::vector<int64_t> shown;
    collect_shown(host, 0, 0, summarize, shown);
    Formatter f(host, el, shown);
    body = tensor_str(host, f, 0, 0, indent, summarize);
  }

  if (auto fn = self.grad_fn()) {
    suffixes.push_back("grad_fn=<" + python_node_name(fn->name()) + ">");
  } else if (self.requires_grad()) {
    suffixes.push_back("requires_grad=True");
  }

  // torch._tensor_str._add_suffixes: a suffix moves to its own line when the line would pass 80.
  std::string s = prefix + body;
  size_t nl = s.rfind('\n');
  int64_t last_line = static_cast<int64_t>(s.size()) -
                      (nl == std::string::npos ? -1 : static_cast<int64_t>(nl)) + 1;
  for (const std::string& suffix : suffixes) {
    int64_t len = static_cast<int64_t>(suffix.size());
    if (last_line + len + 2 > kLineWidth) {
      s += ",\n";
      s.append(indent, ' ').append(suffix);
      last_line = indent + len;
    } else {
      s += ", " + suffix;
      last_line += len + 2;
    }
  }
  return s + ")";
}

}  // namespace detail
}  // namespace ember
