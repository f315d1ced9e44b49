// Optimizers and the learning-rate scheduler step by step: per-step parameters for SGD (plain,
// momentum, dampening, nesterov, weight decay), Adam (weight decay, amsgrad), AdamW and Adagrad
// (lr_decay, weight decay, initial accumulator, eps), parameter groups with their own options,
// and StepLR's lr after every epoch (libtorch counts the first step() as epoch 0).
// compat-compare: rtol=1e-5 atol=1e-7
#include <torch/torch.h>

#include "compat_report.h"

// A scheduler of one's own, written as libtorch's StepLR is: get_lrs() from get_current_lrs()
// and step_count_ (the number of earlier step() calls).
struct HalveOnOddSteps : public torch::optim::LRScheduler {
  explicit HalveOnOddSteps(torch::optim::Optimizer& optimizer)
      : torch::optim::LRScheduler(optimizer) {}
  std::vector<double> get_lrs() override {
    std::vector<double> lrs = get_current_lrs();
    if (step_count_ % 2 == 1) {
      for (double& lr : lrs) lr *= 0.5;
    }
    return lrs;
  }
};

// A fixed quadratic-plus-quartic loss, so every optimizer sees the same gradients.
torch::Tensor objective(const torch::Tensor& w) {
  auto target = torch::linspace(-1, 1, w.numel()).reshape(w.sizes());
  return ((w - target).pow(2) * 3 + (w * 0.5).pow(4)).sum();
}

template <typename Optimizer>
void run(const std::string& name, torch::Tensor w, Optimizer& optimizer, int steps) {
  for (int s = 0; s < steps; ++s) {
    optimizer.zero_grad();
    objective(w).backward();
    optimizer.step();
  }
  report(name, w);
}

torch::Tensor start() {
  return torch::sin(torch::arange(6, torch::kDouble)).reshape({2, 3}).requires_grad_();
}

int main() {
  {
    auto w = start();
    torch::optim::SGD opt({w}, torch::optim::SGDOptions(0.01));
    run("sgd", w, opt, 7);
  }
  {
    auto w = start();
    torch::optim::SGD opt(
        {w}, torch::optim::SGDOptions(0.01).momentum(0.9).dampening(0.1).weight_decay(0.01));
    run("sgd_momentum", w, opt, 7);
  }
  {
    auto w = start();
    torch::optim::SGD opt({w}, torch::optim::SGDOptions(0.01).momentum(0.9).nesterov(true));
    run("sgd_nesterov", w, opt, 7);
  }
  {
    auto w = start();
    torch::optim::Adam opt({w}, torch::optim::AdamOptions(0.1));
    run("adam", w, opt, 7);
  }
  {
    auto w = start();
    torch::optim::Adam opt({w}, torch::optim::AdamOptions(0.1)
                                    .betas(std::make_tuple(0.8, 0.95))
                                    .weight_decay(0.05)
                                    .amsgrad(true)
                                    .eps(1e-6));
    run("adam_amsgrad", w, opt, 7);
  }
  {
    auto w = start();
    torch::optim::AdamW opt({w}, torch::optim::AdamWOptions(0.1).weight_decay(0.2));
    run("adamw", w, opt, 7);
  }
  {
    auto w = start();
    torch::optim::Adagrad opt({w}, torch::optim::AdagradOptions(0.1));
    run("adagrad", w, opt, 7);
  }
  {
    auto w = start();
    torch::optim::Adagrad opt({w}, torch::optim::AdagradOptions(0.1)
                                       .lr_decay(0.05)
                                       .weight_decay(0.1)
                                       .initial_accumulator_value(0.5)
                                       .eps(1e-6));
    run("adagrad_options", w, opt, 7);
  }
  {
    // Two groups: the second with its own lr and momentum.
    auto a = start();
    auto b = start().detach().mul(2).requires_grad_();
    std::vector<torch::optim::OptimizerParamGroup> groups;
    groups.emplace_back(std::vector<torch::Tensor>{a});
    groups.emplace_back(
        std::vector<torch::Tensor>{b},
        std::make_unique<torch::optim::SGDOptions>(torch::optim::SGDOptions(0.05).momentum(0.5)));
    torch::optim::SGD opt(groups, torch::optim::SGDOptions(0.01));
    for (int s = 0; s < 4; ++s) {
      opt.zero_grad();
      (objective(a) + objective(b)).backward();
      opt.step();
    }
    report("group0", a);
    report("group1", b);
    report("group_count", static_cast<double>(opt.param_groups().size()));
  }
  {
    // StepLR: the lr the optimizer holds after each epoch's scheduler.step().
    auto w = start();
    torch::optim::SGD opt({w}, torch::optim::SGDOptions(1.0));
    torch::optim::StepLR scheduler(opt, /*step_size=*/3, /*gamma=*/0.5);
    std::cout << "steplr_before " << opt.param_groups()[0].options().get_lr() << "\n";
    for (int epoch = 0; epoch < 10; ++epoch) {
      opt.zero_grad();
      objective(w).backward();
      opt.step();
      scheduler.step();
      std::cout << "steplr_epoch " << epoch << " " << opt.param_groups()[0].options().get_lr()
                << "\n";
    }
    report("steplr_w", w);
  }
  {
    // StepLR with step_size 1 over two groups.
    auto a = start();
    auto b = start();
    std::vector<torch::optim::OptimizerParamGroup> groups;
    groups.emplace_back(std::vector<torch::Tensor>{a});
    groups.emplace_back(std::vector<torch::Tensor>{b}, std::make_unique<torch::optim::AdamOptions>(
                                                           torch::optim::AdamOptions(0.2)));
    torch::optim::Adam opt(groups, torch::optim::AdamOptions(0.1));
    torch::optim::StepLR scheduler(opt, 1, 0.9);
    for (int epoch = 0; epoch < 4; ++epoch) {
      scheduler.step();
      std::cout << "steplr_groups " << epoch << " " << opt.param_groups()[0].options().get_lr()
                << " " << opt.param_groups()[1].options().get_lr() << "\n";
    }
  }
  {
    auto w = start();
    torch::optim::SGD opt({w}, torch::optim::SGDOptions(0.8));
    HalveOnOddSteps scheduler(opt);
    for (int epoch = 0; epoch < 6; ++epoch) {
      scheduler.step();
      std::cout << "custom_scheduler " << epoch << " " << opt.param_groups()[0].options().get_lr()
                << "\n";
    }
  }
  return 0;
}
