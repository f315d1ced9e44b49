// torch::save / torch::load of a tensor, a std::vector<Tensor>, a module and an optimizer, as
// libtorch's serialization docs use them; resuming training from the saved model and optimizer
// must continue exactly as the uninterrupted run. (The files themselves differ: libtorch writes
// zip archives, Ember safetensors; each side reads its own.)
// compat-compare: rtol=1e-5 atol=1e-7
#include <torch/torch.h>

#include "compat_report.h"

struct NetImpl : torch::nn::Module {
  NetImpl()
      : fc1(register_module("fc1", torch::nn::Linear(3, 5))),
        fc2(register_module("fc2", torch::nn::Linear(5, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc2(torch::tanh(fc1(x))); }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(Net);

void train(Net& net, torch::optim::Optimizer& opt, int steps, int offset) {
  for (int s = 0; s < steps; ++s) {
    auto x = torch::sin(torch::arange(12, torch::kFloat) * 0.3 + s + offset).reshape({4, 3});
    auto y = torch::cos(torch::arange(8, torch::kFloat) + s).reshape({4, 2});
    opt.zero_grad();
    torch::mse_loss(net(x), y).backward();
    opt.step();
  }
}

int main() {
  auto t = torch::arange(6, torch::kFloat).reshape({2, 3}) / 7;
  torch::save(t, "tensor.pt");
  torch::Tensor t2;
  torch::load(t2, "tensor.pt");
  report("tensor", t2);

  std::vector<torch::Tensor> list = {torch::ones({2}), torch::arange(5, torch::kLong),
                                     torch::eye(2, torch::kDouble)};
  torch::save(list, "list.pt");
  std::vector<torch::Tensor> list2;
  torch::load(list2, "list.pt");
  report("list_size", static_cast<double>(list2.size()));
  for (size_t i = 0; i < list2.size(); ++i) report("list" + std::to_string(i), list2[i]);

  Net net;
  fill_deterministic(*net);
  torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(0.05).amsgrad(true));
  train(net, opt, 3, 0);
  torch::save(net, "net.pt");
  torch::save(opt, "adam.pt");
  train(net, opt, 3, 10);
  report("uninterrupted.fc1.weight", net->fc1->weight);
  report("uninterrupted.fc2.bias", net->fc2->bias);

  Net resumed;
  torch::optim::Adam opt2(resumed->parameters(), torch::optim::AdamOptions(0.05).amsgrad(true));
  torch::load(resumed, "net.pt");
  torch::load(opt2, "adam.pt");
  train(resumed, opt2, 3, 10);
  report("resumed.fc1.weight", resumed->fc1->weight);
  report("resumed.fc2.bias", resumed->fc2->bias);

  // SGD with momentum: the momentum buffers travel too.
  Net a;
  fill_deterministic(*a, 1.0);
  torch::optim::SGD sgd(a->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  train(a, sgd, 2, 0);
  torch::save(a, "a.pt");
  torch::save(sgd, "sgd.pt");
  train(a, sgd, 2, 5);
  Net b;
  torch::optim::SGD sgd2(b->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  torch::load(b, "a.pt");
  torch::load(sgd2, "sgd.pt");
  train(b, sgd2, 2, 5);
  report("sgd.uninterrupted", a->fc2->weight);
  report("sgd.resumed", b->fc2->weight);
  return 0;
}
