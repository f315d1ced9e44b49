// A hand-written training loop as libtorch's MNIST example writes it: a model, an optimizer,
// zero_grad/backward/step over mini-batches for several epochs, an lr schedule, evaluation under
// NoGradGuard, and gradient clipping; and the optimizer-free loop with p.grad().zero_(). Everything
// is deterministic, so both builds must follow the same trajectory. compat-compare: rtol=2e-4
// atol=1e-5
#include <torch/torch.h>

#include "compat_report.h"

struct MlpImpl : torch::nn::Module {
  MlpImpl() {
    fc1 = register_module("fc1", torch::nn::Linear(4, 16));
    fc2 = register_module("fc2", torch::nn::Linear(16, 3));
  }
  torch::Tensor forward(torch::Tensor x) { return fc2->forward(torch::relu(fc1->forward(x))); }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(Mlp);

// A three-class problem: the class is which of three fixed directions the point is closest to.
std::pair<torch::Tensor, torch::Tensor> make_data(int64_t n) {
  auto x = torch::stack({torch::sin(torch::arange(n, torch::kFloat) * 1.3),
                         torch::cos(torch::arange(n, torch::kFloat) * 0.7),
                         torch::sin(torch::arange(n, torch::kFloat) * 2.1 + 1),
                         torch::cos(torch::arange(n, torch::kFloat) * 0.4 + 2)},
                        1);
  auto directions = torch::tensor(
      {{1.0f, 0.0f, 0.5f, 0.0f}, {-0.5f, 1.0f, 0.0f, 0.5f}, {0.0f, -1.0f, -0.5f, 1.0f}});
  auto y = x.matmul(directions.t()).argmax(1);
  return {x, y};
}

template <typename Optimizer>
void train(const std::string& name, Mlp& model, Optimizer& optimizer, bool clip) {
  auto [x, y] = make_data(96);
  torch::optim::StepLR scheduler(optimizer, /*step_size=*/2, /*gamma=*/0.5);
  for (int epoch = 0; epoch < 5; ++epoch) {
    model->train();
    double epoch_loss = 0;
    for (int64_t start = 0; start < 96; start += 32) {
      auto data = x.narrow(0, start, 32);
      auto target = y.narrow(0, start, 32);
      optimizer.zero_grad();
      auto output = model->forward(data);
      auto loss = torch::nn::functional::cross_entropy(output, target);
      loss.backward();
      if (clip) torch::nn::utils::clip_grad_norm_(model->parameters(), 0.5);
      optimizer.step();
      epoch_loss += loss.template item<double>();
    }
    scheduler.step();
    model->eval();
    torch::NoGradGuard no_grad;
    auto correct = model->forward(x).argmax(1).eq(y).sum().template item<int64_t>();
    std::cout << name << " epoch " << epoch << " loss " << std::setprecision(9) << epoch_loss / 3
              << " correct " << correct << " lr " << optimizer.param_groups()[0].options().get_lr()
              << "\n";
  }
  report(name + ".fc2.weight", model->fc2->weight);
}

int main() {
  {
    Mlp model;
    fill_deterministic(*model);
    torch::optim::SGD optimizer(model->parameters(),
                                torch::optim::SGDOptions(0.5).momentum(0.9).weight_decay(1e-3));
    train("sgd_momentum", model, optimizer, false);
  }
  {
    Mlp model;
    fill_deterministic(*model, 1.0);
    torch::optim::SGD optimizer(model->parameters(),
                                torch::optim::SGDOptions(0.3).momentum(0.8).nesterov(true));
    train("sgd_nesterov", model, optimizer, true);
  }
  {
    Mlp model;
    fill_deterministic(*model, 2.0);
    torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(0.05));
    train("adam", model, optimizer, false);
  }
  {
    Mlp model;
    fill_deterministic(*model, 3.0);
    torch::optim::AdamW optimizer(model->parameters(),
                                  torch::optim::AdamWOptions(0.05).weight_decay(0.1).amsgrad(true));
    train("adamw_amsgrad", model, optimizer, false);
  }
  {
    // The loop without an optimizer, as libtorch's autograd tutorial writes it: update the
    // parameters under NoGradGuard, then clear each gradient with p.grad().zero_().
    Mlp model;
    fill_deterministic(*model, 4.0);
    auto [x, y] = make_data(96);
    for (int step = 0; step < 20; ++step) {
      auto loss = torch::nn::functional::cross_entropy(model->forward(x), y);
      loss.backward();
      {
        torch::NoGradGuard no_grad;
        for (auto& p : model->parameters()) {
          p.sub_(p.grad() * 0.5);
          p.grad().zero_();
        }
      }
      if (step % 5 == 4) {
        std::cout << "manual_sgd step " << step << " loss " << std::setprecision(9)
                  << loss.item<double>() << "\n";
      }
    }
    report("manual_sgd.fc1.bias", model->fc1->bias);
    report("manual_sgd.grad_cleared", model->fc1->weight.grad().abs().sum().item<double>());
  }
  return 0;
}
