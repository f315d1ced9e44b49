// Custom modules as libtorch's "Using the C++ Frontend" tutorial writes them: a NetImpl with
// register_module/register_parameter, TORCH_MODULE(Net), Sequential, nested modules, parameter
// names and counts, train/eval, and the built-in layers' forward and backward.
// compat-compare: rtol=1e-5 atol=1e-6
#include <torch/torch.h>

#include "compat_report.h"

struct BlockImpl : torch::nn::Module {
  BlockImpl(int64_t in, int64_t out)
      : fc(register_module("fc", torch::nn::Linear(in, out))),
        norm(register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({out})))) {
    scale = register_parameter("scale", torch::ones({out}));
  }
  torch::Tensor forward(torch::Tensor x) { return torch::relu(norm(fc(x))) * scale; }
  torch::nn::Linear fc{nullptr};
  torch::nn::LayerNorm norm{nullptr};
  torch::Tensor scale;
};
TORCH_MODULE(Block);

struct NetImpl : torch::nn::Module {
  NetImpl()
      : block(register_module("block", Block(6, 8))),
        head(register_module(
            "head", torch::nn::Sequential(torch::nn::Linear(8, 8), torch::nn::Tanh(),
                                          torch::nn::Dropout(0.5), torch::nn::Linear(8, 3)))) {}
  torch::Tensor forward(torch::Tensor x) {
    return torch::log_softmax(head->forward(block->forward(x)), /*dim=*/1);
  }
  Block block{nullptr};
  torch::nn::Sequential head{nullptr};
};
TORCH_MODULE(Net);

struct ConvNetImpl : torch::nn::Module {
  ConvNetImpl()
      : conv1(register_module("conv1",
                              torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 4, 3).padding(1)))),
        bn(register_module("bn", torch::nn::BatchNorm2d(4))),
        conv2(register_module("conv2",
                              torch::nn::Conv2d(torch::nn::Conv2dOptions(4, 6, 3).stride(2)))),
        fc(register_module("fc", torch::nn::Linear(6 * 2 * 2, 5))) {}
  torch::Tensor forward(torch::Tensor x) {
    x = torch::max_pool2d(torch::relu(bn(conv1(x))), 2);
    x = torch::relu(conv2(x));
    return fc(x.flatten(1));
  }
  torch::nn::Conv2d conv1{nullptr};
  torch::nn::BatchNorm2d bn{nullptr};
  torch::nn::Conv2d conv2{nullptr};
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(ConvNet);

int main() {
  Net net;
  fill_deterministic(*net);
  int64_t count = 0;
  for (const auto& p : net->parameters()) count += p.numel();
  report("parameter_count", static_cast<double>(count));
  for (const auto& item : net->named_parameters()) std::cout << "param " << item.key() << "\n";
  std::cout << "children " << net->children().size() << " modules " << net->modules().size()
            << "\n";

  auto x = torch::sin(torch::arange(24, torch::kFloat).reshape({4, 6}));
  net->eval();
  report("is_training", net->is_training() ? 1.0 : 0.0);
  auto y = net->forward(x);
  report("net_eval", y);
  net->train();
  report("is_training_again", net->is_training() ? 1.0 : 0.0);

  // Backward through the whole net in eval mode (dropout off).
  net->eval();
  auto out = net->forward(x);
  auto nll = torch::nll_loss(out, torch::tensor({0, 2, 1, 2}));
  nll.backward();
  report("nll", nll);
  for (const auto& item : net->named_parameters())
    report("grad." + item.key(), item.value().grad());

  ConvNet conv;
  fill_deterministic(*conv, 0.5);
  auto img =
      torch::cos(torch::arange(2 * 1 * 10 * 10, torch::kFloat) * 0.1).reshape({2, 1, 10, 10});
  auto logits = conv(img);  // train mode: batch statistics
  report("conv_train", logits);
  auto ce = torch::nn::functional::cross_entropy(logits, torch::tensor({1, 4}));
  ce.backward();
  report("cross_entropy", ce);
  report("conv1_weight_grad", conv->conv1->weight.grad());
  report("bn_running_mean", conv->bn->running_mean);
  report("bn_running_var", conv->bn->running_var);
  conv->eval();
  report("conv_eval", conv(img));

  // Sequential built inline, indexing and size.
  torch::nn::Sequential seq(torch::nn::Linear(3, 4), torch::nn::ReLU(), torch::nn::Linear(4, 2),
                            torch::nn::Sigmoid());
  fill_deterministic(*seq, 1.0);
  report("seq_size", static_cast<double>(seq->size()));
  report("seq", seq->forward(torch::linspace(-1, 1, 6).reshape({2, 3})));

  // Embedding, and the functional namespace.
  torch::nn::Embedding emb(5, 3);
  fill_deterministic(*emb, 2.0);
  report("embedding", emb(torch::tensor({{0, 4}, {2, 2}})));
  namespace F = torch::nn::functional;
  auto t = torch::linspace(-2, 2, 8).reshape({2, 4});
  report("F_relu", F::relu(t));
  report("F_gelu", F::gelu(t));
  report("F_silu", F::silu(t));
  report("F_softmax", F::softmax(t, F::SoftmaxFuncOptions(1)));
  report("F_log_softmax", F::log_softmax(t, F::LogSoftmaxFuncOptions(0)));
  report("F_mse", F::mse_loss(t, t.neg() * 0.5));
  report("F_l1", F::l1_loss(t, torch::zeros_like(t)));
  report("F_bce_logits", F::binary_cross_entropy_with_logits(t, (t > 0).to(torch::kFloat)));
  report("F_dropout_eval", F::dropout(t, F::DropoutFuncOptions().p(0.3).training(false)));
  report("F_avg_pool", F::avg_pool2d(t.reshape({1, 1, 2, 4}), F::AvgPool2dFuncOptions(2)));
  report("F_max_pool", F::max_pool2d(t.reshape({1, 1, 2, 4}), F::MaxPool2dFuncOptions({1, 2})));
  report("F_adaptive",
         F::adaptive_avg_pool2d(t.reshape({1, 1, 2, 4}), F::AdaptiveAvgPool2dFuncOptions({1, 2})));
  return 0;
}
