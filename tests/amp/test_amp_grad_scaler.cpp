// amp::GradScaler and its two device ops on every device, against PyTorch 1.13's own
// torch/cuda/amp/grad_scaler.py: PyTorch has neither CUDA here nor CPU kernels for
// _amp_foreach_non_finite_check_and_unscale_ / _amp_update_scale_, so the oracle runs that file's
// code with its is_cuda asserts lifted and the two kernels written out in Python as in
// aten/src/ATen/native/cuda/AmpKernels.cu. Scripted sequences (overflows, NaN, growth, clipping
// after unscale_, gradient accumulation, two optimizers, state_dict round trips) must give the
// same scales, trackers, skipped steps and parameters; misuse raises PyTorch's errors; float16
// training with forced overflows survives and converges.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using namespace ember;
using ember::testing::contains;
using ember::testing::error_of;
using ember::testing::expect_close;
using ember::testing::test_devices;
using ember::testing::torch_run;
namespace F = ember::nn::functional;

namespace {

// PyTorch's GradScaler usable on the CPU: PyTorch 2's class for the "cpu" device, or 1.13's source
// with the CUDA-only asserts removed; and the two CUDA kernels in Python (float64 scale arithmetic
// rounded to float32, as the kernels do).
const char* kPyTorchScaler = R"PY(
import torch
if hasattr(torch, "amp") and hasattr(torch.amp, "GradScaler"):
    # PyTorch 2.3 and later: the class takes its device and runs on the CPU as it is.
    import functools
    GradScaler = functools.partial(torch.amp.GradScaler, "cpu")
else:
    import inspect, torch.cuda.amp.grad_scaler as _gs
    _src = inspect.getsource(_gs)
    for _a, _b in [("from .common import amp_definitely_not_available", "amp_definitely_not_available = lambda: False"),
                   ("assert outputs.is_cuda or outputs.device.type == 'xla'", "pass"),
                   ("assert val.is_cuda or val.device.type == 'xla'", "pass"),
                   ("assert master_tensor.is_cuda or master_tensor.device.type == 'xla'", "pass"),
                   ("isinstance(new_scale, torch.cuda.FloatTensor)", "new_scale.dtype == torch.float32")]:
        assert _a in _src, _a
        _src = _src.replace(_a, _b)
    _ns = {"__name__": "grad_scaler_cpu"}
    exec(compile(_src, "grad_scaler_cpu", "exec"), _ns)
    GradScaler = _ns["GradScaler"]

def _unscale(grads, found_inf, inv_scale):
    inv = inv_scale.item()
    for g in grads:
        if not torch.isfinite(g).all():
            found_inf.fill_(1.0)
        if inv != 1.0:
            acc = torch.float64 if g.dtype == torch.float64 else torch.float32
            g.copy_((g.to(acc) * torch.tensor(inv, dtype=acc)).to(g.dtype))

def _update(scale, tracker, found_inf, growth, backoff, interval):
    if found_inf.item():
        scale.fill_(torch.tensor(scale.item() * backoff, dtype=torch.float64).float().item())
        tracker.fill_(0)
    else:
        ok = int(tracker.item()) + 1
        if ok == interval:
            grown = torch.tensor(scale.item() * growth, dtype=torch.float64).float()
            if torch.isfinite(grown):
                scale.fill_(grown.item())
            tracker.fill_(0)
        else:
            tracker.fill_(ok)
    return scale

torch._amp_foreach_non_finite_check_and_unscale_ = _unscale
torch._amp_update_scale_ = _update
)PY";

bool all_finite(const Tensor& t) {
  Tensor d = t.detach();
  return (d - d).eq(0).all().item<bool>();  // inf - inf and NaN - NaN are NaN
}

std::string with_scaler(const std::string& body) {
  return std::string(kPyTorchScaler) + body;
}

// ---- the fused op ----

TEST(GradScalerOps, UnscaleAndCheckEveryDtypeOnEveryDevice) {
  const float inf = std::numeric_limits<float>::infinity();
  for (Device device : test_devices()) {
    for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16}) {
      const std::string ctx = device.str() + " " + to_string(dt);
      manual_seed(1);
      std::vector<Tensor> cpu{randn({1000}) * 100, randn({3, 5}).t(), randn({7}), randn({0})};
      for (Tensor& t : cpu) t = t.to(dt);
      std::vector<Tensor> grads;
      for (const Tensor& t : cpu) grads.push_back(t.to(device, false, /*copy=*/true));
      grads[1] = grads[1].t().contiguous().t();  // non-contiguous on the device too
      Tensor found_inf = zeros({1}, TensorOptions(kFloat).device(device));
      Tensor inv = full({1}, 1.0 / 48, TensorOptions(kFloat).device(device));
      amp::non_finite_check_and_unscale_(grads, found_inf, inv);
      EXPECT_EQ(found_inf.item<float>(), 0.f) << ctx;
      auto r = torch_run(
          "acc = torch.float64 if a.dtype == torch.float64 else torch.float32\n"
          "inv = torch.tensor([1.0 / 48]).to(acc)\n"
          "y = (a.to(acc) * inv).to(a.dtype)\nz = (b.to(acc) * inv).to(b.dtype)",
          {{"a", cpu[0]}, {"b", cpu[1]}}, {"y", "z"});
      expect_close(grads[0].cpu(), r.at("y"), 0, 0, ctx + " unscaled");
      expect_close(grads[1].cpu(), r.at("z"), 0, 0, ctx + " unscaled, non-contiguous");
      EXPECT_FALSE(grads[1].is_contiguous()) << ctx;

      // An inf or a NaN anywhere in any tensor sets found_inf; the others are still unscaled.
      for (double bad : {double(inf), -double(inf), std::nan("")}) {
        Tensor g0 = ones({300}, TensorOptions(dt).device(device));
        Tensor g1 = ones({5}, TensorOptions(dt).device(device));
        g1.narrow(0, 3, 1).fill_(bad);
        Tensor fi = zeros({1}, TensorOptions(kFloat).device(device));
        amp::non_finite_check_and_unscale_({g0, g1}, fi,
                                           full({1}, 0.5, TensorOptions(kFloat).device(device)));
        EXPECT_EQ(fi.item<float>(), 1.f) << ctx << " " << bad;
        EXPECT_EQ(g0.sum().item<double>(), 150.0) << ctx;
        // found_inf is only ever set: a clean list leaves the 1 there.
        amp::non_finite_check_and_unscale_({g0}, fi,
                                           full({1}, 1.0, TensorOptions(kFloat).device(device)));
        EXPECT_EQ(fi.item<float>(), 1.f) << ctx;
      }
    }
  }
}

// More gradients than one CUDA launch takes (96), the bad one in the last launch.
TEST(GradScalerOps, ManyGradientsInOneCall) {
  for (Device device : test_devices()) {
    std::vector<Tensor> grads;
    for (int i = 0; i < 250; ++i) {
      grads.push_back(full({1 + i % 7}, 4.0, TensorOptions(kFloat).device(device)));
    }
    Tensor fi = zeros({1}, TensorOptions(kFloat).device(device));
    Tensor inv = full({1}, 0.25, TensorOptions(kFloat).device(device));
    amp::non_finite_check_and_unscale_(grads, fi, inv);
    EXPECT_EQ(fi.item<float>(), 0.f) << device;
    for (const Tensor& g : grads) EXPECT_EQ(g.min().item<float>(), 1.f) << device;
    grads[230].fill_(std::nan(""));
    amp::non_finite_check_and_unscale_(grads, fi, inv);
    EXPECT_EQ(fi.item<float>(), 1.f) << device;
  }
}

TEST(GradScalerOps, ChecksNameTheBadArgument) {
  Tensor g = ones({3});
  EXPECT_TRUE(contains(error_of<TypeError>([&] {
                         amp::non_finite_check_and_unscale_({g}, zeros({1}, kDouble), ones({1}));
                       }),
                       "found_inf must be a float tensor"));
  EXPECT_TRUE(contains(
      error_of<ValueError>([&] { amp::non_finite_check_and_unscale_({g}, zeros({1}), ones({2})); }),
      "inv_scale must be a 1-element tensor"));
  EXPECT_TRUE(contains(error_of<TypeError>([&] {
                         amp::non_finite_check_and_unscale_({ones({2}, kLong)}, zeros({1}),
                                                            ones({1}));
                       }),
                       "gradient 0 must be a floating point tensor"));
  Tensor s = ones({1}), tracker = zeros({1}, kLong);
  EXPECT_TRUE(contains(
      error_of<TypeError>([&] { amp::update_scale_(s, tracker, zeros({1}), 2.0, 0.5, 10); }),
      "growth_tracker must be an int tensor"));
  for (Device device : ember::testing::cuda_devices()) {
    std::string msg = error_of([&] {
      amp::non_finite_check_and_unscale_({g}, zeros({1}, TensorOptions(kFloat).device(device)),
                                         ones({1}, TensorOptions(kFloat).device(device)));
    });
    EXPECT_TRUE(contains(msg, "Expected all tensors to be on the same device")) << msg;
  }
}

// The scale update against the kernel's algorithm, step by step, on every device: backoff on
// an overflow, growth after growth_interval clean steps, no growth past float32's range.
TEST(GradScalerOps, UpdateScaleSequence) {
  const std::vector<float> found{0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0};
  Tensor found_seq = tensor(std::vector<float>(found.begin(), found.end()));
  auto r = torch_run(with_scaler(R"PY(
scale = torch.tensor([3.0e38 / 64]); tracker = torch.zeros(1, dtype=torch.int32)
scales = []; trackers = []
for f in found:
    torch._amp_update_scale_(scale, tracker, f.reshape(1), 2.0, 0.5, 3)
    scales.append(scale.item()); trackers.append(int(tracker.item()))
y = torch.tensor(scales, dtype=torch.float32)
t = torch.tensor(trackers, dtype=torch.int64)
)PY"),
                     {{"found", found_seq}}, {"y", "t"});
  for (Device device : test_devices()) {
    TensorOptions o = TensorOptions(kFloat).device(device);
    Tensor scale = full({1}, 3.0e38 / 64, o);
    Tensor tracker = zeros({1}, TensorOptions(kInt).device(device));
    std::vector<float> scales;
    std::vector<int64_t> trackers;
    for (float f : found) {
      amp::update_scale_(scale, tracker, full({1}, f, o), 2.0, 0.5, 3);
      scales.push_back(scale.item<float>());
      trackers.push_back(tracker.item<int64_t>());
    }
    expect_close(tensor(scales), r.at("y"), 0, 0, device.str() + " scales");
    expect_close(tensor(trackers), r.at("t"), 0, 0, device.str() + " trackers");
  }
}

// ---- GradScaler against PyTorch's class ----

struct Trace {
  Tensor scales, trackers, params;
};

// Iterations of a two-parameter linear model with SGD + momentum under a scaler
// (init_scale 2^12, growth_interval 3). boost[i] multiplies iteration i's loss: 1e36 makes the
// scaled loss overflow float32, 0 * inf makes NaN gradients. Variants: clip after unscale_,
// accumulate two micro-batches per step, or two optimizers (one per parameter).
enum class Variant { Plain, Clip, Accumulate, TwoOptimizers };

const std::vector<double> kBoost{1, 1, 1e36, 1, 1, 1, 1, std::nan(""), 1, 1, 1, 1, 1, 1e36, 1, 1};

Trace ember_trace(Device device, Variant v) {
  manual_seed(3);
  Tensor w = (randn({4, 3}) * 0.5).to(device).requires_grad_();
  Tensor b = zeros({4}, device).requires_grad_();
  Tensor x = randn({5, 3}).to(device), y = randn({5, 4}).to(device);
  auto opts = optim::SGDOptions(0.05).momentum(0.9);
  optim::SGD both({w, b}, opts), only_w({w}, opts), only_b({b}, opts);
  amp::GradScaler scaler(amp::GradScalerOptions().init_scale(4096).growth_interval(3));
  std::vector<float> scales;
  std::vector<int64_t> trackers;
  std::vector<Tensor> params;
  for (double boost : kBoost) {
    both.zero_grad();
    only_w.zero_grad();
    only_b.zero_grad();
    const int micro = v == Variant::Accumulate ? 2 : 1;
    for (int m = 0; m < micro; ++m) {
      Tensor loss = F::mse_loss(F::linear(x * (1.0 + m), w, b), y) * boost;
      scaler.scale(loss).backward();
    }
    if (v == Variant::TwoOptimizers) {
      scaler.step(only_w);
      scaler.step(only_b);
    } else {
      if (v == Variant::Clip) {
        scaler.unscale_(both);
        nn::utils::clip_grad_norm_({w, b}, 0.5);
      }
      scaler.step(both);
    }
    scaler.update();
    scales.push_back(static_cast<float>(scaler.get_scale()));
    trackers.push_back(scaler.get_growth_tracker());
    params.push_back(cat({w.detach().flatten(), b.detach()}).cpu());
  }
  return {tensor(scales), tensor(trackers), stack(params)};
}

std::string torch_trace_program(Variant v) {
  std::string py = R"PY(
torch.manual_seed(0)
w = w0.clone().requires_grad_(); b = torch.zeros(4, requires_grad=True)
both = torch.optim.SGD([w, b], lr=0.05, momentum=0.9)
only_w = torch.optim.SGD([w], lr=0.05, momentum=0.9)
only_b = torch.optim.SGD([b], lr=0.05, momentum=0.9)
scaler = GradScaler(init_scale=4096.0, growth_interval=3)
scales = []; trackers = []; params = []
for boost in boosts.tolist():
    for o in (both, only_w, only_b): o.zero_grad(set_to_none=True)
    for m in range(MICRO):
        loss = F.mse_loss(F.linear(x * (1.0 + m), w, b), yt) * boost
        scaler.scale(loss).backward()
    if VARIANT == "two":
        scaler.step(only_w); scaler.step(only_b)
    else:
        if VARIANT == "clip":
            scaler.unscale_(both)
            torch.nn.utils.clip_grad_norm_([w, b], 0.5)
        scaler.step(both)
    scaler.update()
    scales.append(scaler.get_scale()); trackers.append(scaler._get_growth_tracker())
    params.append(torch.cat([w.detach().flatten(), b.detach()]))
s = torch.tensor(scales, dtype=torch.float32)
t = torch.tensor(trackers, dtype=torch.int64)
p = torch.stack(params)
)PY";
  const char* name = v == Variant::Clip            ? "clip"
                     : v == Variant::Accumulate    ? "accumulate"
                     : v == Variant::TwoOptimizers ? "two"
                                                   : "plain";
  return with_scaler("VARIANT = '" + std::string(name) +
                     "'\nMICRO = " + (v == Variant::Accumulate ? "2" : "1") + "\n" + py);
}

class GradScalerSequence : public ::testing::TestWithParam<Variant> {};

TEST_P(GradScalerSequence, MatchesPyTorchOnEveryDevice) {
  manual_seed(3);
  Tensor w0 = randn({4, 3}) * 0.5;
  Tensor x = randn({5, 3}), y = randn({5, 4});
  auto r =
      torch_run(torch_trace_program(GetParam()),
                {{"w0", w0}, {"x", x}, {"yt", y}, {"boosts", tensor(kBoost)}}, {"s", "t", "p"});
  for (Device device : test_devices()) {
    Trace t = ember_trace(device, GetParam());
    expect_close(t.scales, r.at("s"), 0, 0, device.str() + " scales");
    expect_close(t.trackers, r.at("t"), 0, 0, device.str() + " growth trackers");
    // Skipped steps leave the parameters bit for bit; stepped ones agree to float32 rounding.
    expect_close(t.params, r.at("p"), 1e-5, 1e-6, device.str() + " parameters");
    // The overflowing iterations were skipped: parameters equal the previous iteration's.
    for (size_t i = 1; i < kBoost.size(); ++i) {
      if (std::isfinite(kBoost[i]) && kBoost[i] < 1e30) continue;
      EXPECT_TRUE(equal(t.params.select(0, i), t.params.select(0, i - 1)))
          << device << " iteration " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, GradScalerSequence,
                         ::testing::Values(Variant::Plain, Variant::Clip, Variant::Accumulate,
                                           Variant::TwoOptimizers),
                         [](const auto& info) {
                           switch (info.param) {
                             case Variant::Clip:
                               return std::string("ClipAfterUnscale");
                             case Variant::Accumulate:
                               return std::string("GradientAccumulation");
                             case Variant::TwoOptimizers:
                               return std::string("TwoOptimizers");
                             default:
                               return std::string("Plain");
                           }
                         });

TEST(GradScaler, StateDictRoundTripMatchesPyTorch) {
  auto r =
      torch_run(with_scaler(R"PY(
scaler = GradScaler(init_scale=1024.0, growth_factor=4.0, backoff_factor=0.25, growth_interval=5)
p = torch.ones(2, requires_grad=True); opt = torch.optim.SGD([p], lr=0.1)
for boost in [1.0, float('inf'), 1.0, 1.0]:
    opt.zero_grad(); scaler.scale((p * boost).sum()).backward(); scaler.step(opt); scaler.update()
sd = scaler.state_dict()
scale = torch.tensor(sd["scale"], dtype=torch.float64)
growth_factor = torch.tensor(sd["growth_factor"], dtype=torch.float64)
backoff_factor = torch.tensor(sd["backoff_factor"], dtype=torch.float64)
growth_interval = torch.tensor(sd["growth_interval"])
tracker = torch.tensor(sd["_growth_tracker"])
)PY"),
                {}, {"scale", "growth_factor", "backoff_factor", "growth_interval", "tracker"});
  for (Device device : test_devices()) {
    amp::GradScaler scaler(amp::GradScalerOptions()
                               .init_scale(1024)
                               .growth_factor(4)
                               .backoff_factor(0.25)
                               .growth_interval(5));
    Tensor p = ones({2}, device).requires_grad_();
    optim::SGD opt({p}, optim::SGDOptions(0.1));
    for (double boost : {1.0, std::numeric_limits<double>::infinity(), 1.0, 1.0}) {
      opt.zero_grad();
      scaler.scale((p * boost).sum()).backward();
      scaler.step(opt);
      scaler.update();
    }
    auto sd = scaler.state_dict();
    expect_close(sd.at("scale"), r.at("scale"), 0, 0, "scale");
    expect_close(sd.at("growth_factor"), r.at("growth_factor"), 0, 0, "growth_factor");
    expect_close(sd.at("backoff_factor"), r.at("backoff_factor"), 0, 0, "backoff_factor");
    expect_close(sd.at("growth_interval"), r.at("growth_interval"), 0, 0, "growth_interval");
    expect_close(sd.at("_growth_tracker"), r.at("tracker"), 0, 0, "_growth_tracker");

    // Through a file, into a fresh scaler: it continues exactly as the original.
    const std::string path = ::testing::TempDir() + "/scaler_" + device.str() + ".safetensors";
    save(sd, path);
    amp::GradScaler restored;
    restored.load_state_dict(load(path));
    EXPECT_EQ(restored.get_scale(), scaler.get_scale());
    EXPECT_EQ(restored.get_growth_factor(), 4.0);
    EXPECT_EQ(restored.get_backoff_factor(), 0.25);
    EXPECT_EQ(restored.get_growth_interval(), 5);
    EXPECT_EQ(restored.get_growth_tracker(), scaler.get_growth_tracker());
    for (amp::GradScaler* s : {&scaler, &restored}) {
      Tensor q = ones({2}, device).requires_grad_();
      optim::SGD o({q}, optim::SGDOptions(0.1));
      for (int i = 0; i < 3; ++i) {
        o.zero_grad();
        s->scale(q.sum()).backward();
        s->step(o);
        s->update();
      }
    }
    EXPECT_EQ(restored.get_scale(), scaler.get_scale()) << device;
    EXPECT_EQ(restored.get_growth_tracker(), scaler.get_growth_tracker()) << device;
  }
}

TEST(GradScaler, MisuseRaisesPyTorchsErrors) {
  Tensor p = ones({2}).requires_grad_();
  optim::SGD opt({p}, optim::SGDOptions(0.1));
  amp::GradScaler scaler;
  EXPECT_TRUE(contains(error_of([&] { scaler.step(opt); }),
                       "Attempted step but _scale is None.  This may indicate your script did "
                       "not use scaler.scale(loss or outputs) earlier in the iteration."));
  EXPECT_TRUE(contains(error_of([&] { scaler.update(); }), "Attempted update but _scale is None"));
  scaler.scale(p.sum()).backward();
  scaler.unscale_(opt);
  EXPECT_EQ(error_of([&] { scaler.unscale_(opt); }),
            "unscale_() has already been called on this optimizer since the last update().");
  scaler.step(opt);
  EXPECT_EQ(error_of([&] { scaler.unscale_(opt); }), "unscale_() is being called after step().");
  EXPECT_EQ(error_of([&] { scaler.step(opt); }),
            "step() has already been called since the last update().");
  scaler.update();
  // After update() the optimizer starts a fresh iteration; update() needs a step first.
  EXPECT_TRUE(contains(error_of([&] { scaler.update(); }),
                       "No inf checks were recorded prior to update()"));
  optim::SGD no_grads({zeros({2}).requires_grad_()}, optim::SGDOptions(0.1));
  EXPECT_TRUE(contains(error_of([&] { scaler.step(no_grads); }),
                       "No inf checks were recorded for this optimizer."));
  // float16 parameters: their gradients are float16 and cannot be unscaled safely.
  Tensor h = ones({2}, kHalf).requires_grad_();
  optim::SGD half_opt({h}, optim::SGDOptions(0.1));
  scaler.scale(h.sum()).backward();
  EXPECT_TRUE(contains(error_of<ValueError>([&] { scaler.step(half_opt); }),
                       "Attempting to unscale FP16 gradients."));
  EXPECT_THROW(amp::GradScaler(amp::GradScalerOptions().growth_factor(1.0)), ValueError);
  EXPECT_THROW(amp::GradScaler(amp::GradScalerOptions().backoff_factor(1.5)), ValueError);
  EXPECT_THROW(scaler.update(ones({2})), ValueError);
  EXPECT_THROW(amp::GradScaler().load_state_dict({}), ValueError);
}

TEST(GradScaler, DisabledIsTransparent) {
  amp::GradScaler scaler(amp::GradScalerOptions().enabled(false));
  EXPECT_FALSE(scaler.is_enabled());
  Tensor p = ones({2}).requires_grad_();
  optim::SGD opt({p}, optim::SGDOptions(0.5));
  Tensor loss = p.sum();
  Tensor scaled = scaler.scale(loss);
  EXPECT_TRUE(scaled.is_same(loss));
  scaled.backward();
  scaler.unscale_(opt);
  scaler.step(opt);
  scaler.update();
  EXPECT_EQ(scaler.get_scale(), 1.0);
  EXPECT_TRUE(scaler.state_dict().empty());
  scaler.load_state_dict({});  // a no-op, as in PyTorch
  expect_close(p.detach(), full({2}, 0.5), 0, 0, "plain SGD step");
}

TEST(GradScaler, ScalesOutputsOnEveryDevice) {
  amp::GradScaler scaler(amp::GradScalerOptions().init_scale(8));
  std::vector<Tensor> outs;
  for (Device device : test_devices()) outs.push_back(full({2}, 3.0, device));
  std::vector<Tensor> scaled = scaler.scale(outs);
  for (size_t i = 0; i < outs.size(); ++i) {
    EXPECT_EQ(scaled[i].device(), outs[i].device());
    expect_close(scaled[i].cpu(), full({2}, 24.0), 0, 0, "scaled output");
  }
  // As in PyTorch, the scale is a 1-element tensor: a 0-dim loss comes back with shape [1].
  EXPECT_EQ(scaler.scale(scalar_tensor(2.0)).sizes(), IntArrayRef({1}));
}

// float16 training with GradScaler on every device (autocast float16, the CPU included): a large
// initial scale overflows float16 gradients at first, a loss blown up mid-training overflows
// again; the skipped steps leave the parameters finite and training converges.
TEST(GradScaler, Float16TrainingSurvivesOverflowAndConverges) {
  for (Device device : test_devices()) {
    manual_seed(21);
    const int64_t n = 64;
    Tensor x = randn({n, 8});
    Tensor labels = (x.narrow(1, 0, 1).squeeze(1) + x.narrow(1, 1, 1).squeeze(1) > 0).to(kLong);
    x = x.to(device);
    labels = labels.to(device);
    auto model = nn::Sequential(nn::Linear(8, 32), nn::ReLU(), nn::Linear(32, 2));
    model->to(device);
    optim::Adam opt(model->parameters(), optim::AdamOptions(0.02));
    // 2^24 makes the first float16 gradients overflow (float16 ends at 65504): the scaler must
    // back off for a few steps before training starts.
    amp::GradScaler scaler(amp::GradScalerOptions().init_scale(16777216.0));
    int skipped = 0;
    double first_loss = 0, last_loss = 0;
    for (int it = 0; it < 120; ++it) {
      opt.zero_grad();
      Tensor loss;
      {
        amp::autocast region(device.type(), kHalf);
        loss = F::cross_entropy(model->forward(x), labels);
      }
      if (it == 0) first_loss = loss.item<double>();
      last_loss = loss.item<double>();
      const double scale_before = scaler.get_scale();
      // Iteration 60 sees a loss 1e6 times too large: its float16 gradients overflow.
      scaler.scale(it == 60 ? loss * 1e6 : loss).backward();
      scaler.step(opt);
      scaler.update();
      if (scaler.get_scale() < scale_before) ++skipped;
      for (const Tensor& p : model->parameters()) {
        ASSERT_TRUE(all_finite(p)) << device << " iteration " << it;
      }
    }
    EXPECT_GE(skipped, 3) << device << ": the first steps and iteration 60 overflow";
    EXPECT_LT(last_loss, 0.3 * first_loss)
        << device << " loss " << first_loss << " -> " << last_loss;
  }
}

}  // namespace
