// The devices sweep of the op table (tests/ops/op_info.h): every row on every device.
//   OpDevices.Cpu/<row>   seeded inputs vs PyTorch (the row's expression; the scalar forms' too),
//                         every form contiguous and not equal to the op, gradients by finite
//                         differences in float64
//   OpDevices.Cuda/<row>  every CUDA device (SIM builds simulate two) vs the CPU, contiguous and
//                         not, gradients by finite differences on the device; elementwise rows
//                         also in every dtype the CPU accepts
//   OpDevices.Meta/<row>  on the meta device: the CPU result's sizes and dtype and the gradients'
//                         shapes without running a kernel (NotImplementedError for rows whose
//                         shape depends on the data)
// and the harness's own checks and the generator's agreement across devices.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include "ember/cuda.h"
#include "ops/op_info.h"
#include "support/cuda_skip.h"
#include "support/elementwise_oracle.h"
#include "support/torch_oracle.h"

namespace ember::testing {
namespace {

// Every form on `device`, contiguous and not, against the CPU result of the first form (scalar
// forms against the first scalar form).
void expect_forms_match(const OpInfo& op, const Args& xs, Device device, const std::string& what) {
  const std::vector<BoundForm> fs = forms_of(op);
  Tensor ref_tensor, ref_scalar;
  for (const BoundForm& f : fs) {
    Tensor& ref = f.scalar ? ref_scalar : ref_tensor;
    if (!ref.defined()) ref = f.fn(xs);
  }
  for (const BoundForm& f : fs) {
    const Tensor& ref = f.scalar ? ref_scalar : ref_tensor;
    if (!form_applies(f, ref, xs[0])) continue;
    for (bool contiguous : {true, false}) {
      std::string ctx = detail::str_cat(op.name, " (", f.name, what, ") on ", device,
                                        contiguous ? " (contiguous)" : " (non-contiguous)");
      Tensor out;
      try {
        out = f.fn(to_device(xs, device, contiguous));
      } catch (const std::exception& e) {
        ADD_FAILURE() << ctx << " threw: " << e.what();
        continue;
      }
      EXPECT_EQ(out.device(), device) << ctx;
      ASSERT_EQ(out.dtype(), ref.dtype()) << ctx;
      expect_close(out.cpu(), ref, op.rtol, op.atol, ctx + " vs CPU");
    }
  }
}

bool has_floating_input(const Args& xs) {
  for (const Tensor& x : xs) {
    if (x.is_floating_point()) return true;
  }
  return false;
}

void expect_finite_differences(const OpInfo& op, const Args& xs, Device device) {
  if (!op.grad || !op.finite_differences || !has_floating_input(xs)) return;
  for (const BoundForm& f : forms_of(op)) {
    std::string ctx = f.name == "free" ? op.name : op.name + " (" + f.name + ")";
    expect_gradients_match_finite_differences(f.fn, xs, device, ctx);
  }
}

std::map<std::string, Tensor> named(const Args& xs) {
  std::map<std::string, Tensor> m;
  const char* names[] = {"a", "b", "c", "d", "e", "f"};  // rows have up to 6 inputs
  for (size_t i = 0; i < xs.size(); ++i) m[names[i]] = xs[i];
  return m;
}

class OpDevices : public ::testing::TestWithParam<OpInfo> {};

TEST_P(OpDevices, Cpu) {
  const OpInfo& op = GetParam();
  const Args xs = make_inputs(op);
  if (op.fn && !op.torch.empty()) {
    auto r = TorchOracle::instance().run(torch_code(op.torch), named(xs), {"out"});
    expect_close(op.fn(xs), r.at("out"), op.rtol, op.atol,
                 op.name + ": Ember CPU vs PyTorch `" + op.torch + "`");
  }
  if (!op.scalar_forms.empty()) {
    std::string code = "s = " + python_literal(op.scalar) + "\nout = " + op.torch_scalar;
    auto rs = TorchOracle::instance().run(code, named(xs), {"out"});
    expect_close(op.scalar_forms[0].fn(xs[0], op.scalar), rs.at("out"), op.rtol, op.atol,
                 op.name + " with scalar " + python_literal(op.scalar));
  }
  expect_forms_match(op, xs, Device(kCPU), "");
  expect_finite_differences(op, xs, Device(kCPU));
}

TEST_P(OpDevices, Cuda) {
  EMBER_SKIP_WITHOUT_CUDA();
  const OpInfo& op = GetParam();
  const Args xs = make_inputs(op);
  for (const Device& device : cuda_devices()) {
    expect_forms_match(op, xs, device, "");
    expect_finite_differences(op, xs, device);
    if (op.elementwise == Elementwise::None || op.elementwise == Elementwise::Ternary) continue;
    // Every dtype the CPU accepts, the device must give alike.
    for (ScalarType dt : kElementwiseDtypes) {
      if (dt == op.inputs[0].dtype) continue;
      const Args typed = make_inputs(op, dt);
      try {
        forms_of(op)[0].fn(typed);
      } catch (const Error&) {
        continue;  // rejected on the CPU: test_op_dtypes checks the error
      }
      expect_forms_match(op, typed, device, detail::str_cat(", ", dt));
    }
  }
}

TEST_P(OpDevices, Meta) {
  const OpInfo& op = GetParam();
  const OpFn fn = forms_of(op)[0].fn;
  const Args inputs = make_inputs(op);
  const Tensor reference = fn(inputs);
  const Args metas = to_device(inputs, Device(kMeta), /*contiguous=*/true);
  if (op.data_dependent_shape) {
    EXPECT_THROW(fn(metas), NotImplementedError) << op.name;
    return;
  }
  Tensor out;
  try {
    out = fn(metas);
  } catch (const std::exception& e) {
    FAIL() << op.name << " on meta threw: " << e.what();
  }
  EXPECT_TRUE(out.is_meta()) << op.name;
  EXPECT_EQ(out.sizes(), reference.sizes()) << op.name;
  EXPECT_EQ(out.dtype(), reference.dtype()) << op.name;
  if (!op.grad) return;
  Args leaves;
  for (const Tensor& m : metas) {
    leaves.push_back(is_floating_point(m.scalar_type()) ? m.detach().requires_grad_(true) : m);
  }
  fn(leaves).sum().backward();
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (!leaves[i].requires_grad()) continue;
    ASSERT_TRUE(leaves[i].grad().defined()) << op.name << " input " << i;
    EXPECT_TRUE(leaves[i].grad().is_meta()) << op.name << " input " << i;
    EXPECT_EQ(leaves[i].grad().sizes(), leaves[i].sizes()) << op.name << " input " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, OpDevices, ::testing::ValuesIn(all_ops()), row_name);

// ---- the harness ----

// The harness itself must catch a wrong gradient: x * x.detach() has autograd gradient x where the
// true derivative is 2x.
TEST(OpDevicesHarness, FiniteDifferencesCatchAWrongGradient) {
  TensorFn wrong = [](const Args& x) { return x[0] * x[0].detach(); };
  TensorFn right = [](const Args& x) { return x[0] * x[0]; };
  std::vector<Tensor> inputs = {make_input({{2, 3}, kFloat, Domain::AwayFromZero}, 5)};
  expect_gradients_match_finite_differences(right, inputs, Device(kCPU), "x * x");
  EXPECT_NONFATAL_FAILURE(
      expect_gradients_match_finite_differences(wrong, inputs, Device(kCPU), "x * x.detach()"),
      "autograd vs central differences");
}

TEST(OpDevicesHarness, NonContiguousKeepsValuesAndChangesLayout) {
  for (std::vector<int64_t> shape : {std::vector<int64_t>{5}, std::vector<int64_t>{3, 4},
                                     std::vector<int64_t>{3, 1}, std::vector<int64_t>{2, 3, 4}}) {
    Tensor t = make_input({shape, kFloat}, 11);
    Tensor n = non_contiguous(t);
    EXPECT_FALSE(n.is_contiguous()) << IntArrayRef(shape);
    expect_close(n, t, 0, 0, "non_contiguous keeps values");
  }
}

// Inputs are drawn on the CPU and copied, but the generator itself must agree across devices too:
// the same Philox seed gives the same numbers on every device.
TEST(OpDevicesRandom, SameSeedSameNumbersOnEveryDevice) {
  EMBER_SKIP_WITHOUT_CUDA();
  auto draw = [](Device device) {
    manual_seed(1234);
    Tensor u = rand({1000}, TensorOptions().device(device));
    Tensor n = randn({7, 9}, TensorOptions(kDouble).device(device));
    Tensor i = randint(-5, 5, {33}, TensorOptions(kLong).device(device));
    return std::vector<Tensor>{u, n, i};
  };
  std::vector<Tensor> cpu = draw(Device(kCPU));
  for (const Device& device : cuda_devices()) {
    std::vector<Tensor> dev = draw(device);
    expect_close(dev[0].cpu(), cpu[0], 0, 0, "rand on " + device.str());
    expect_close(dev[1].cpu(), cpu[1], 1e-12, 1e-12, "randn on " + device.str());
    expect_close(dev[2].cpu(), cpu[2], 0, 0, "randint on " + device.str());
  }
}

}  // namespace
}  // namespace ember::testing
