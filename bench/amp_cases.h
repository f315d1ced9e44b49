#pragma once
// Mixed-precision rows: the MLP and CNN training steps of train_cases.h with the forward pass
// and the loss under bfloat16 CPU autocast (backward and Adam outside, as PyTorch's recipe has
// it). Each program supplies bench::CpuBf16Autocast, its RAII spelling of
// torch.autocast("cpu", dtype=torch.bfloat16).
#include <string>

#include "harness.h"
#include "train_cases.h"

namespace bench {

inline tt::Tensor autocast_train_step(tt::nn::Sequential& model, tt::optim::Adam& opt,
                                      const tt::Tensor& x, const tt::Tensor& y) {
  opt.zero_grad();
  tt::Tensor loss;
  {
    CpuBf16Autocast region;
    loss = tt::nn::functional::cross_entropy(model->forward(x), y);
  }
  loss.backward();
  opt.step();
  return loss;
}

inline void amp_rows(Runner& r) {
  if (!r.wants("amp")) return;
  for (int64_t batch : {128, 512}) {
    tt::manual_seed(0);
    tt::nn::Sequential mlp = make_mlp();
    tt::optim::Adam opt(mlp->parameters(), tt::optim::AdamOptions(1e-3));
    tt::Tensor x = tt::randn({batch, 784}), y = tt::randint(0, 10, {batch});
    r.time("amp", "mlp_step_bf16_autocast_b" + std::to_string(batch), Unit::kMilliseconds, 0,
           [&] { autocast_train_step(mlp, opt, x, y); });
  }
  tt::manual_seed(0);
  tt::nn::Sequential cnn = make_cnn();
  tt::optim::Adam opt(cnn->parameters(), tt::optim::AdamOptions(1e-3));
  tt::Tensor x = tt::randn({64, 1, 28, 28}), y = tt::randint(0, 10, {64});
  r.time("amp", "cnn_step_bf16_autocast_b64", Unit::kMilliseconds, 0,
         [&] { autocast_train_step(cnn, opt, x, y); });
}

}  // namespace bench
