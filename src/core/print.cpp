// operator<< for tensors: libtorch's C++ layout, digit for digit. The rules below were read off
// libtorch 1.13's output (tests/compat/print_*.cpp compare the two libraries' text exactly):
//
// - Every element is converted to double. One format is chosen per printed block (the whole of a
//   1-D tensor, each matrix, each 2-D slice of a higher-dim tensor) from its finite values:
//   integral values print in the stream's default float notation, others with 4 decimals, fixed
//   or scientific, sometimes divided by a power of ten written above them ("1e-05 *").
// - 0-dim tensors print their value in default notation, 1-D tensors one element per line,
//   matrices row by row in blocks of as many columns as fit in `linesize` characters, higher dims
//   as "(i,j,.,.) = " slices with the first index running fastest.
// - The last line names the type and the sizes: "[ CPUFloatType{2,3} ]". No newline follows.
//
// The stream's own settings (showpos, fill, precision for integral values, a pending width) take
// part as they do in libtorch, and are restored afterwards.
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include "core/device_audit.h"
#include "ember/autograd.h"
#include "ember/tensor.h"

namespace ember {
namespace {

enum class Notation { Default, Fixed, Scientific };

// How one block of values is written: each element in `width` characters, after dividing it by
// `scale` (a power of ten, written above the block when it is not 1).
struct BlockFormat {
  Notation notation = Notation::Default;
  double scale = 1;
  int64_t width = 0;
};

// The number of digits before the decimal point of |x| (1 for zero), as a double so that very
// small values give negative counts: 123.4 -> 3, 0.05 -> -1.
double digits_before_point(double magnitude) {
  return magnitude == 0 ? 1 : std::floor(std::log10(magnitude)) + 1;
}

BlockFormat choose_format(const double* v, int64_t n) {
  BlockFormat f;
  bool integral = true;
  for (int64_t i = 0; i < n; ++i) {
    if (std::isfinite(v[i]) && v[i] != std::ceil(v[i])) {
      integral = false;
      break;
    }
  }
  int64_t first = 0;
  while (first < n && !std::isfinite(v[first])) ++first;
  double low = 1, high = 1;  // digit counts of the smallest and largest magnitudes
  if (first < n) {
    double smallest = std::fabs(v[first]), largest = smallest;
    for (int64_t i = first; i < n; ++i) {
      if (!std::isfinite(v[i])) continue;
      smallest = std::min(smallest, std::fabs(v[i]));
      // libtorch compares the signed value here, so a negative element never widens the block
      // (unless it comes first): {2.5, -1e10} prints -1e10 in full, fixed.
      if (v[i] > largest) largest = std::fabs(v[i]);
    }
    low = digits_before_point(smallest);
    high = digits_before_point(largest);
  }
  if (integral) {
    if (high > 9) {
      f.notation = Notation::Scientific;
      f.width = 11;
    } else {
      f.width = static_cast<int64_t>(high) + 1;
    }
  } else if (high - low > 4) {
    f.notation = Notation::Scientific;
    f.width = (std::fabs(high) > 99 || std::fabs(low) > 99) ? 12 : 11;
  } else if (high > 5 || high < 0) {
    f.notation = Notation::Fixed;
    f.width = 7;
    f.scale = std::pow(10, high - 1);
  } else {
    f.notation = Notation::Fixed;
    f.width = high == 0 ? 7 : static_cast<int64_t>(high) + 6;
  }
  return f;
}

// Sets the stream up for the elements of a block (the precision of integral values is the
// stream's own, as in libtorch).
void apply(std::ostream& os, const BlockFormat& f) {
  switch (f.notation) {
    case Notation::Default:
      os << std::defaultfloat;
      break;
    case Notation::Fixed:
      os << std::fixed << std::setprecision(4);
      break;
    case Notation::Scientific:
      os << std::scientific << std::setprecision(4);
      break;
  }
}

// "1e-05 *" on its own line, in default notation whatever the block's notation is.
void write_scale(std::ostream& os, const BlockFormat& f) {
  const auto flags = os.flags();
  os << std::defaultfloat << f.scale << " *\n";
  os.flags(flags);
}

void indent(std::ostream& os, int64_t n) {
  for (int64_t i = 0; i < n; ++i) os << ' ';
}

// A contiguous double matrix [rows, cols] at `v`, every line starting with `ind` spaces. Columns
// that do not fit in `linesize` go to further blocks headed "Columns a to b" (libtorch writes the
// header and the block's first row on one line).
void write_matrix(std::ostream& os, const double* v, int64_t rows, int64_t cols, int64_t linesize,
                  int64_t ind) {
  const BlockFormat f = choose_format(v, rows * cols);
  apply(os, f);
  const int64_t per_line = std::max<int64_t>(1, (linesize - ind) / (f.width + 1));
  indent(os, ind);
  for (int64_t first = 0; first < cols;) {
    const int64_t last = std::min(first + per_line, cols) - 1;
    if (per_line < cols) {
      if (first != 0) os << '\n';
      os << "Columns " << first + 1 << " to " << last + 1;
      indent(os, ind);
    }
    if (f.scale != 1) {
      write_scale(os, f);
      indent(os, ind);
    }
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = first; c <= last; ++c) {
        os << std::setw(static_cast<int>(f.width)) << v[r * cols + c] / f.scale;
        if (c != last) {
          os << ' ';
          continue;
        }
        os << '\n';
        if (r != rows - 1) {
          indent(os, ind);
          if (f.scale != 1) os << ' ';  // libtorch's rows under a scale stand one space further in
        }
      }
    }
    first = last + 1;
  }
}

// Dims >= 3: every matrix of the last two dims, indented by one, under "(i,j,.,.) = ", the
// first index running fastest.
void write_slices(std::ostream& os, const Tensor& host, int64_t linesize) {
  const int64_t nd = host.dim();
  const int64_t rows = host.size(nd - 2), cols = host.size(nd - 1);
  const double* base = host.data_ptr<double>();
  std::vector<int64_t> at(static_cast<size_t>(nd - 2), 0);
  int64_t slices = 1;
  for (int64_t d = 0; d < nd - 2; ++d) slices *= host.size(d);
  for (int64_t k = 0; k < slices; ++k) {
    if (k != 0) {
      os << '\n';
      for (int64_t d = 0; d < nd - 2; ++d) {  // the next index, first dim fastest
        if (++at[d] < host.size(d)) break;
        at[d] = 0;
      }
    }
    int64_t offset = 0;
    os << '(';
    for (int64_t d = 0; d < nd - 2; ++d) {
      offset += at[d] * host.stride(d);
      os << at[d] + 1 << ',';
    }
    os << ".,.) = \n";
    write_matrix(os, base + offset, rows, cols, linesize, 1);
  }
}

}  // namespace

std::ostream& print(std::ostream& stream, const Tensor& t, int64_t linesize) {
  if (!t.defined()) return stream << "[ Tensor (undefined) ]";
  std::ios saved(nullptr);
  saved.copyfmt(stream);
  Tensor host;
  {
    NoGradGuard no_grad;
    audit::SyncReason why("printing a CUDA tensor");
    host = t.detach().to(kCPU).to(kDouble).contiguous();
  }
  const double* v = host.data_ptr<double>();
  if (host.dim() == 0) {
    stream << std::defaultfloat << v[0] << '\n';
  } else if (host.dim() == 1) {
    if (host.numel() > 0) {
      const BlockFormat f = choose_format(v, host.numel());
      apply(stream, f);
      if (f.scale != 1) write_scale(stream, f);
      for (int64_t i = 0; i < host.numel(); ++i)
        stream << std::setw(static_cast<int>(f.width)) << v[i] / f.scale << '\n';
    }
  } else if (host.dim() == 2) {
    if (host.numel() > 0) write_matrix(stream, v, host.size(0), host.size(1), linesize, 0);
  } else if (host.numel() > 0) {
    write_slices(stream, host, linesize);
  }
  stream << "[ " << t.toString() << '{';
  for (int64_t d = 0; d < t.dim(); ++d) stream << (d ? "," : "") << t.size(d);
  stream << "} ]";
  stream.copyfmt(saved);
  return stream;
}

void print(const Tensor& t, int64_t linesize) {
  print(std::cout, t, linesize);
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  return print(os, t, 80);
}

std::string Tensor::toString() const {
  if (!defined()) return "UndefinedType";
  return std::string(is_cuda()   ? "CUDA"
                     : is_meta() ? "Meta"
                                 : "CPU") +
         to_string(scalar_type()) + "Type";
}

void Tensor::print() const {
  if (defined()) {
    std::cerr << "[" << toString() << " " << sizes() << "]" << std::endl;
  } else {
    std::cerr << "[UndefinedTensor]" << std::endl;
  }
}

}  // namespace ember
