// What `std::cout << x` prints, compared character for character: tensors of every dtype and shape
// class (0-dim, 1-D, matrices split into column blocks, 3-D and higher slices, empty, large,
// non-contiguous, with and without scale factors), print() and toString(), dtypes as TypeMeta and
// as ScalarType, devices, and the stream's own settings around a printed tensor.
// compat-compare: exact
#include <torch/torch.h>

#include <cmath>
#include <iomanip>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

namespace {

void show(const std::string& name, const torch::Tensor& t) {
  std::cout << "== " << name << "\n" << t << "\n";
}

// Each dtype in every shape class, from values exact in all of them.
void every_shape(torch::ScalarType st) {
  torch::Tensor base = torch::arange(-3, 3, torch::kDouble);
  if (st == torch::kBool) {
    base = base.remainder(2);
  } else if (torch::ones({1}, st).is_floating_point()) {
    base = base / 2;
  } else if (st == torch::kByte) {
    base = base + 3;
  }
  torch::Tensor t = base.to(st);
  std::cout << "dtype " << t.dtype() << " | name " << t.dtype().name() << " | scalar_type "
            << t.scalar_type() << " | " << st << " | " << t.toString() << " | itemsize "
            << t.dtype().itemsize() << " | options " << t.options().dtype() << " | equal "
            << (t.dtype() == st) << (st == t.dtype()) << (t.dtype() != st)
            << (t.dtype() == torch::ones({1}, st).dtype()) << "\n";
  show("0-dim", t[4]);
  show("1-D", t);
  show("2-D", t.reshape({2, 3}));
  show("3-D", t.reshape({1, 2, 3}));
  show("4-D", torch::arange(24, torch::kDouble).reshape({2, 3, 2, 2}).to(st));
  show("empty 1-D", torch::empty({0}, st));
  show("empty 2-D", torch::empty({2, 0}, st));
  show("empty 3-D", torch::empty({0, 3, 2}, st));
  show("large", torch::arange(40, torch::kDouble).to(st).reshape({2, 20}));
}

}  // namespace

int main() {
  for (torch::ScalarType st :
       {torch::kFloat, torch::kDouble, torch::kHalf, torch::kBFloat16, torch::kLong, torch::kInt,
        torch::kShort, torch::kChar, torch::kByte, torch::kBool}) {
    every_shape(st);
  }

  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  // Float layouts: fixed, integral, scientific, scale factors, non-finite values.
  show("fixed", torch::tensor({1.5, -2.0, 3.25, 4.0}).reshape({2, 2}));
  show("thirds", torch::arange(12, torch::kFloat).reshape({2, 2, 3}) / 3);
  show("integral", torch::tensor({1.0, 2.0, -3.0}));
  show("integral wide", torch::tensor({1.0, 2000000.0, -3.0}));
  show("integral scientific", torch::tensor({1.0, 2e10, -3.0}));
  show("integral above 1e9", torch::tensor({1e9, 2.0}));
  show("scale 1e-05", torch::tensor({1e-5, 2e-5, 3.5e-5}));
  show("scale 0.001", torch::tensor({0.001, 0.0025}));
  show("scale 0.01", torch::tensor({0.05, 0.06}));
  show("scale 1e+05", torch::tensor({123456.5, 12345.5}, torch::kDouble));
  show("scale with a zero", torch::tensor({1e-7, 0.0}));
  show("scale matrix", torch::tensor({1e-5, 2e-5, 3e-5, 4.5e-5}).reshape({2, 2}));
  show("scale columns", (torch::arange(40, torch::kDouble) * 1e-5 + 1e-5).reshape({2, 20}));
  show("scale slices", torch::tensor({1e-5, 2e-5, 3e-5, 4e-5, 1., 2., 3., 4.5}).reshape({2, 2, 2}));
  show("scale slice columns", torch::arange(100, torch::kDouble).reshape({1, 1, 100}) * 1e-3);
  show("mixed scientific", torch::tensor({1e-5, 1.0, 3.5}));
  show("wide fixed", torch::tensor({12345.6, 2.5, 100.0}, torch::kDouble));
  show("range > 4 digits", torch::tensor({123456.7, 2.5, 1000.0}, torch::kDouble));
  show("huge range", torch::tensor({1e-8, 1e8}, torch::kDouble));
  show("3-digit exponents", torch::tensor({1e100, 1.5}, torch::kDouble));
  show("3-digit negative exponent", torch::tensor({1e-100, 1.5}, torch::kDouble));
  show("both 3-digit", torch::tensor({-1e-100, 1e100}, torch::kDouble));
  show("negative first", torch::tensor({-1000.5, 2.0}));
  show("negative later", torch::tensor({2.0, -1000.5}));
  show("negative later, scientific", torch::tensor({2.5, -1e10}, torch::kDouble));
  show("negative integral later", torch::tensor({1.0, -999999999.0}, torch::kDouble));
  show("negative zero", torch::tensor({-0.0, 1.5}));
  show("0-dim negative zero", torch::tensor(-0.0));
  show("non-finite", torch::tensor({1.5, nan, inf, -inf}));
  show("only non-finite", torch::tensor({nan, inf}));
  show("inf and integral", torch::tensor({inf, 2.0}));
  show("zeros", torch::zeros({2, 3}));
  show("0-dim small", torch::tensor(1e-5));
  show("0-dim large", torch::tensor(1e10));
  show("0-dim digits", torch::tensor(1.23456789, torch::kDouble));
  show("0-dim nan", torch::tensor(nan));
  show("0-dim int64", torch::tensor(int64_t{12345678901}));
  show("int64 scientific", torch::tensor({int64_t{12345678901}, int64_t{2}}));
  show("int64 below 1e9", torch::tensor({int64_t{999999999}, int64_t{-2}}));
  show("int64 max", torch::tensor({std::numeric_limits<int64_t>::max(), int64_t{1}}));
  show("bfloat16 rounding", torch::tensor({1e-5, 3.0}).to(torch::kBFloat16));
  show("half max", torch::tensor({65504.0, 1.0}).to(torch::kHalf));

  // Shapes: column blocks, slices, views.
  show("1-D 1100", torch::arange(1100, torch::kFloat) / 4);
  show("30x100", torch::arange(3000, torch::kFloat).reshape({30, 100}));
  show("1x30", torch::arange(30, torch::kFloat).reshape({1, 30}) * 1.5);
  show("slices with columns", torch::arange(120, torch::kFloat).reshape({2, 2, 30}) * 1.5);
  show("5-D", torch::arange(32).reshape({2, 2, 2, 2, 2}));
  show("5-D empty", torch::empty({2, 2, 0, 2, 2}));
  show("1x1x1", torch::ones({1, 1, 1}));
  show("2x1x3", torch::ones({2, 1, 3}));
  show("0x0", torch::empty({0, 0}));
  show("transposed", torch::arange(6, torch::kFloat).reshape({2, 3}).t());
  show("permuted", torch::arange(12, torch::kFloat).reshape({2, 3, 2}).permute({2, 0, 1}));
  show("strided slice", torch::arange(6, torch::kFloat).reshape({2, 3}).slice(1, 0, 3, 2));
  show("expanded", torch::tensor({1.0, 2.0}).expand({3, 2}));

  // Autograd leaves no trace in the text.
  torch::Tensor leaf = torch::ones({2}, torch::requires_grad());
  show("requires_grad", leaf);
  show("grad_fn", leaf * 3);
  std::cout << (leaf * 3).toString() << "\n";

  // print(), at::print and toString(); print() writes to stderr.
  torch::ones({2, 2}).print();
  torch::ones({}, torch::kLong).print();
  torch::ones({3}, torch::kBool).print();
  torch::print(torch::tensor({1.0, 2.0}));
  std::cout << "\n";
  torch::print(std::cout, torch::arange(30, torch::kFloat).reshape({1, 30}), 40);
  std::cout << "\n";
  torch::Tensor undefined;
  std::cout << undefined << " | " << undefined.toString() << "\n";
  undefined.print();

  // The stream's settings take part and are restored.
  std::cout << std::setprecision(2) << torch::tensor({1.0, 123456.0, -3.0}) << "\n"
            << torch::tensor(1.23456) << "\n"
            << 1.23456 << "\n"
            << std::setprecision(6);
  std::cout << std::fixed << torch::tensor({1.0, 123456.0, -3.0}) << "\n"
            << torch::tensor(2.5) << "\n"
            << 2.5 << "\n"
            << std::defaultfloat;
  std::cout << std::showpos << torch::tensor({1.5, -2.0}) << "\n" << std::noshowpos;
  std::cout << std::setfill('*') << std::setw(3) << torch::tensor({1.5, -2.0}) << "\n"
            << std::setfill(' ');
  std::cout << std::setw(10) << torch::tensor({1.5}) << "|\n";

  // Other printable types.
  std::cout << torch::kFloat << " " << torch::kLong << " " << torch::kBool << " "
            << torch::kBFloat16 << "\n";
  std::cout << torch::zeros({2, 3}).sizes() << " " << torch::zeros({2, 3}).strides() << " "
            << torch::zeros({}).sizes() << "\n";

  // Devices, including a device type without a backend.
  std::cout << torch::Device("cpu") << " " << torch::Device("cuda") << " "
            << torch::Device("cuda:1") << " " << torch::Device("cpu:0") << " "
            << torch::Device(torch::kCUDA, 2) << "\n";
  torch::Device mps("mps");
  std::cout << mps << " " << mps.type() << " " << mps.is_mps() << mps.is_cuda() << mps.is_cpu()
            << " " << (mps.type() == torch::kMPS) << " " << torch::Device("mps:0") << " "
            << torch::kCPU << " " << torch::kCUDA << " " << torch::kMPS << "\n";
  std::cout << torch::ones({2}).device() << " " << torch::ones({2}).is_cuda() << "\n";
  std::cout << "cudnn available: " << torch::cuda::cudnn_is_available() << "\n";
  try {
    torch::zeros({2}, mps);
    std::cout << "zeros on mps: no error\n";
  } catch (const std::exception&) {
    std::cout << "zeros on mps: error\n";
  }
  try {
    torch::ones({2}).to(mps);
    std::cout << "to(mps): no error\n";
  } catch (const std::exception&) {
    std::cout << "to(mps): error\n";
  }
  // Meta tensors: shapes without data; what needs data raises.
  torch::Tensor meta = torch::empty({2, 3}, torch::kMeta);
  torch::Tensor meta_out = torch::matmul(meta, torch::ones({3, 4}).to(torch::kMeta)).sum(0);
  std::cout << torch::Device("meta") << " " << torch::kMeta << " " << meta.device() << " "
            << meta.is_meta() << meta.is_cpu() << " " << meta.toString() << " " << meta.sizes()
            << " " << meta_out.sizes() << " " << meta_out.is_meta() << " " << meta_out.dtype()
            << "\n";
  try {
    meta.to(torch::kCPU);
    std::cout << "meta to(cpu): no error\n";
  } catch (const std::exception& e) {
    std::cout << "meta to(cpu): " << std::string(e.what()).substr(0, 40) << "\n";
  }
  try {
    std::cout << meta;
    std::cout << "printing meta: no error\n";
  } catch (const std::exception& e) {
    std::cout << "printing meta: " << std::string(e.what()).substr(0, 40) << "\n";
  }
  try {
    torch::Device bad("gpu");
    std::cout << "Device(gpu): no error\n";
  } catch (const std::exception&) {
    std::cout << "Device(gpu): error\n";
  }
}
