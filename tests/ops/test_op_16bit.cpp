// The 16-bit sweep of the op table (tests/ops/op_info.h): every row with a float32 input runs
// again with those inputs in float16 and in bfloat16, every form, on every device, contiguous
// and not. For the same values it must give what it gives in float32 rounded to the 16-bit
// dtype (within 4 ulps: composite ops round their intermediates), in that dtype (or the row's
// own, e.g. to_double, argmax, eq), and its gradients those of float32 (8 ulps). So no op of the
// table is float32-only.
#include <gtest/gtest.h>

#include "ops/op_info.h"
#include "support/torch_oracle.h"

namespace ember::testing {
namespace {

struct Row16 {
  const OpInfo* op;
  ScalarType dtype;
};
void PrintTo(const Row16& r, std::ostream* os) {
  *os << r.op->name << " in " << r.dtype;
}

std::vector<Row16> rows_16bit() {
  std::vector<Row16> out;
  for (const OpInfo& op : all_ops()) {
    if (!has_float32_input(op)) continue;
    for (ScalarType dt : {kHalf, kBFloat16}) out.push_back({&op, dt});
  }
  return out;
}

Args with_float32_as(const Args& xs, ScalarType dt) {
  Args out;
  for (const Tensor& x : xs) out.push_back(x.dtype() == kFloat ? x.to(dt) : x);
  return out;
}

// A few ulps of the 16-bit dtype, relative, and the same absolute near zero.
double tolerance_16bit(ScalarType dt, bool backward) {
  const double ulp = dt == kHalf ? 1.0 / 1024 : 1.0 / 128;
  return (backward ? 8 : 4) * ulp;
}

class Op16bit : public ::testing::TestWithParam<Row16> {};

TEST_P(Op16bit, MatchesFloat32OnEveryDevice) {
  const OpInfo& op = *GetParam().op;
  const ScalarType dt = GetParam().dtype;
  const Args inputs16 = with_float32_as(make_inputs(op), dt);
  const Args inputs32 = with_float32_as(inputs16, kFloat);  // the rounded values
  for (const BoundForm& f : forms_of(op)) {
    const Tensor reference = f.fn(inputs32);
    if (!form_applies(f, reference, inputs32[0])) continue;
    // Ops that keep their input's dtype give the 16-bit dtype; others (to_double, argmax, eq,
    // sum with a dtype) what they give from float32.
    const ScalarType expected_dtype = reference.dtype() == kFloat ? dt : reference.dtype();
    const Tensor expected = reference.to(expected_dtype);
    const double tol = tolerance_16bit(dt, false);
    for (const Device& device : test_devices()) {
      for (bool contiguous : {true, false}) {
        const std::string ctx =
            detail::str_cat(op.name, " (", f.name, ") in ", to_string(dt), " on ", device,
                            contiguous ? "" : " (non-contiguous)");
        Tensor out;
        try {
          out = f.fn(to_device(inputs16, device, contiguous));
        } catch (const std::exception& e) {
          ADD_FAILURE() << ctx << " threw: " << e.what();
          continue;
        }
        EXPECT_EQ(out.device(), device) << ctx;
        ASSERT_EQ(out.dtype(), expected_dtype) << ctx;
        expect_close(out.cpu(), expected, tol, tol, ctx + " vs float32");
      }
      if (!op.grad) continue;
      // Gradients of sum(f(x) * v) in the 16-bit dtype against float32's.
      auto grads = [&](const Args& xs, Device on) {
        Args leaves;
        for (const Tensor& x : xs) {
          Tensor t = x.to(on, false, /*copy=*/true);
          leaves.push_back(t.is_floating_point() ? t.requires_grad_() : t);
        }
        Tensor y = f.fn(leaves);
        manual_seed(seed_for(op.name + "/v"));
        Tensor v = randn(y.sizes()).to(dt).to(on, y.dtype());
        (y * v).sum().backward();
        Args g;
        for (const Tensor& l : leaves) {
          if (l.is_floating_point()) g.push_back(l.grad().defined() ? l.grad().cpu() : Tensor());
        }
        return g;
      };
      const Args g16 = grads(inputs16, device), g32 = grads(inputs32, Device(kCPU));
      const double gtol = tolerance_16bit(dt, true);
      for (size_t i = 0; i < g16.size(); ++i) {
        const std::string ctx = detail::str_cat(op.name, " (", f.name, ") in ", to_string(dt),
                                                " on ", device, " gradient ", i);
        ASSERT_EQ(g16[i].defined(), g32[i].defined()) << ctx;
        if (!g16[i].defined()) continue;
        EXPECT_EQ(g16[i].dtype(), dt) << ctx;
        expect_close(g16[i], g32[i].to(dt), gtol, gtol, ctx + " vs float32");
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, Op16bit, ::testing::ValuesIn(rows_16bit()),
                         [](const ::testing::TestParamInfo<Row16>& info) {
                           return info.param.op->name +
                                  (info.param.dtype == kHalf ? "_float16" : "_bfloat16");
                         });

}  // namespace
}  // namespace ember::testing
