// torch::nn::functional beyond the basics and the layers of issue 16: leaky_relu, elu, softplus,
// hardtanh, normalize, pad, interpolate, cosine_similarity, one_hot, binary_cross_entropy,
// smooth_l1_loss, kl_div with their options and enums, their modules, ModuleDict, Functional,
// Conv2dOptions::padding({a, b}), Device("cpu:0"), LSTM/GRU/RNN and their cells, RMSprop and
// LBFGS; values and input gradients.
// compat-compare: rtol=1e-5 atol=1e-6
#include <torch/torch.h>

#include "compat_report.h"

namespace F = torch::nn::functional;

// A non-trivial input that needs a gradient.
torch::Tensor wave(std::vector<int64_t> shape, double phase) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return (torch::sin(torch::arange(n, torch::kFloat) * 0.9 + phase) * 2)
      .reshape(shape)
      .requires_grad_();
}

// The value of y and the gradient of sum(y * sin(...)) with respect to x.
void report_with_grad(const std::string& name, const torch::Tensor& x, const torch::Tensor& y) {
  report(name, y);
  auto weights = torch::sin(torch::arange(y.numel(), torch::kFloat) * 0.37).reshape(y.sizes());
  auto g = torch::autograd::grad({(y * weights).sum()}, {x})[0];
  report(name + "_grad", g);
}

int main() {
  auto x = wave({2, 3, 4, 5}, 0.1);
  report_with_grad("leaky_relu", x,
                   F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.2)));
  report_with_grad("elu", x, F::elu(x, F::ELUFuncOptions().alpha(1.5)));
  report_with_grad("softplus", x, F::softplus(x, F::SoftplusFuncOptions().beta(2).threshold(3)));
  report_with_grad("hardtanh", x,
                   F::hardtanh(x, F::HardtanhFuncOptions().min_val(-0.5).max_val(1.2)));
  report_with_grad("normalize", x, F::normalize(x, F::NormalizeFuncOptions().p(2).dim(1)));
  report_with_grad("normalize_p1", x, F::normalize(x, F::NormalizeFuncOptions().p(1).dim(-1)));
  report_with_grad("pad_constant", x, F::pad(x, F::PadFuncOptions({1, 2, 0, 1}).value(0.5)));
  report_with_grad("pad_reflect", x,
                   F::pad(x, F::PadFuncOptions({2, 1, 1, 2}).mode(torch::kReflect)));
  report_with_grad("pad_replicate", x,
                   F::pad(x, F::PadFuncOptions({3, 0, 0, 2}).mode(torch::kReplicate)));
  report_with_grad("pad_circular", x,
                   F::pad(x, F::PadFuncOptions({1, 1, 2, 0}).mode(torch::kCircular)));
  report_with_grad("interp_nearest", x,
                   F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{7, 3})));
  report_with_grad("interp_bilinear", x,
                   F::interpolate(x, F::InterpolateFuncOptions()
                                         .size(std::vector<int64_t>{6, 9})
                                         .mode(torch::kBilinear)
                                         .align_corners(false)));
  report_with_grad("interp_bilinear_corners", x,
                   F::interpolate(x, F::InterpolateFuncOptions()
                                         .scale_factor(std::vector<double>{1.5, 0.8})
                                         .mode(torch::kBilinear)
                                         .align_corners(true)));
  auto seq = wave({2, 3, 6}, 0.4);
  report_with_grad("interp_linear", seq,
                   F::interpolate(seq, F::InterpolateFuncOptions()
                                           .size(std::vector<int64_t>{10})
                                           .mode(torch::kLinear)
                                           .align_corners(false)));

  auto a = wave({4, 6}, 0.2), b = wave({4, 6}, 1.3);
  report_with_grad("cosine_similarity", a,
                   F::cosine_similarity(a, b, F::CosineSimilarityFuncOptions().dim(1)));
  auto p = torch::sigmoid(a);
  auto t = torch::sigmoid(b).detach();
  report_with_grad("bce", a, F::binary_cross_entropy(torch::sigmoid(a), t));
  report_with_grad(
      "bce_sum", a,
      F::binary_cross_entropy(torch::sigmoid(a), t,
                              F::BinaryCrossEntropyFuncOptions().reduction(torch::kSum)));
  report_with_grad("smooth_l1", a, F::smooth_l1_loss(a, b.detach()));
  report_with_grad("smooth_l1_beta", a,
                   F::smooth_l1_loss(a, b.detach(), F::SmoothL1LossFuncOptions(torch::kSum), 0.5));
  report_with_grad("kl_div", a,
                   F::kl_div(torch::log_softmax(a, 1), torch::softmax(b, 1).detach(),
                             F::KLDivFuncOptions(torch::kBatchMean)));
  report_with_grad("kl_div_log_target", a,
                   F::kl_div(a, torch::log_softmax(b, 1).detach(),
                             F::KLDivFuncOptions(torch::kSum).log_target(true)));
  report("one_hot", F::one_hot(torch::arange(4), 5));

  // Modules.
  report("LeakyReLU", torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.1))(a));
  report("ELU", torch::nn::ELU()(a));
  report("Softplus", torch::nn::Softplus(torch::nn::SoftplusOptions().beta(0.5))(a));
  report("Hardtanh", torch::nn::Hardtanh()(a));
  report("CosineSimilarity", torch::nn::CosineSimilarity()(a, b));
  report("BCELoss", torch::nn::BCELoss()(p, t));
  report("SmoothL1Loss", torch::nn::SmoothL1Loss(torch::nn::SmoothL1LossOptions().beta(0.3))(a, b));
  report("KLDivLoss", torch::nn::KLDivLoss(torch::nn::KLDivLossOptions(torch::kBatchMean))(
                          torch::log_softmax(a, 1), torch::softmax(b, 1)));

  // ModuleDict and Functional.
  torch::nn::ModuleDict dict(
      std::vector<std::pair<std::string, std::shared_ptr<torch::nn::Module>>>{
          {"first", torch::nn::Linear(6, 5).ptr()}, {"second", torch::nn::Linear(5, 2).ptr()}});
  fill_deterministic(*dict, 0.5);
  for (const auto& key : dict->keys()) std::cout << "key " << key << "\n";
  for (const auto& p : dict->named_parameters()) std::cout << "param " << p.key() << "\n";
  auto h = dict->at<torch::nn::LinearImpl>("first").forward(a.detach());
  report("dict_forward", dict->at<torch::nn::LinearImpl>("second").forward(torch::relu(h)));
  torch::nn::Sequential net(torch::nn::Linear(6, 4), torch::nn::Functional(torch::relu),
                            torch::nn::Functional(torch::leaky_relu, 0.2), torch::nn::Linear(4, 3));
  fill_deterministic(*net, 0.9);
  report("functional_sequential", net->forward(a.detach()));

  // Conv2dOptions::padding with a braced list.
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(3, 2, {3, 3}).padding({1, 2}).stride({1, 2}));
  fill_deterministic(*conv, 0.2);
  report("conv_padding", conv(x.detach()));

  // Recurrent layers with deterministic weights.
  auto sequence = wave({5, 2, 3}, 0.7);
  torch::nn::LSTM lstm(torch::nn::LSTMOptions(3, 4).num_layers(2).bidirectional(true));
  fill_deterministic(*lstm, 0.1);
  for (const auto& p : lstm->named_parameters()) std::cout << "lstm " << p.key() << "\n";
  auto lstm_out = lstm->forward(sequence);
  report_with_grad("lstm_output", sequence, std::get<0>(lstm_out));
  report("lstm_h", std::get<0>(std::get<1>(lstm_out)));
  report("lstm_c", std::get<1>(std::get<1>(lstm_out)));
  torch::nn::GRU gru(torch::nn::GRUOptions(3, 5).batch_first(true));
  fill_deterministic(*gru, 0.3);
  auto gru_out = gru->forward(sequence.transpose(0, 1), torch::zeros({1, 2, 5}));
  report_with_grad("gru_output", sequence, std::get<0>(gru_out));
  report("gru_h", std::get<1>(gru_out));
  torch::nn::RNN rnn(torch::nn::RNNOptions(3, 4).nonlinearity(torch::kReLU));
  fill_deterministic(*rnn, 0.6);
  report("rnn_output", std::get<0>(rnn->forward(sequence.detach())));
  torch::nn::LSTMCell lstm_cell(3, 4);
  fill_deterministic(*lstm_cell, 0.8);
  auto cell_state = lstm_cell->forward(sequence.detach()[0]);
  report("lstm_cell_h", std::get<0>(cell_state));
  report("lstm_cell_c", std::get<1>(cell_state));
  torch::nn::GRUCell gru_cell(3, 4);
  fill_deterministic(*gru_cell, 0.9);
  report("gru_cell", gru_cell->forward(sequence.detach()[1], std::get<0>(cell_state)));

  // RMSprop and LBFGS trajectories on a small regression.
  auto inputs = torch::sin(torch::arange(24, torch::kFloat) * 0.3).reshape({8, 3});
  auto targets = torch::cos(torch::arange(16, torch::kFloat) * 0.5).reshape({8, 2});
  for (int kind = 0; kind < 3; ++kind) {
    torch::nn::Linear model(3, 2);
    fill_deterministic(*model, 0.4);
    auto loss_of = [&] { return torch::mse_loss(model(inputs), targets); };
    if (kind == 0) {
      torch::optim::RMSprop opt(model->parameters(),
                                torch::optim::RMSpropOptions(0.01).momentum(0.5).centered(true));
      for (int step = 0; step < 5; ++step) {
        opt.zero_grad();
        loss_of().backward();
        opt.step();
      }
    } else {
      auto options = torch::optim::LBFGSOptions(0.5).max_iter(4).history_size(3);
      if (kind == 2) options.line_search_fn("strong_wolfe");
      torch::optim::LBFGS opt(model->parameters(), options);
      for (int step = 0; step < 3; ++step) {
        auto loss = opt.step([&] {
          opt.zero_grad();
          auto l = loss_of();
          l.backward();
          return l;
        });
        report("lbfgs_loss_" + std::to_string(kind), loss.item<double>());
      }
    }
    report("optim_weight_" + std::to_string(kind), model->weight);
    report("optim_bias_" + std::to_string(kind), model->bias);
  }

  torch::Device cpu0("cpu:0");
  std::cout << "device " << cpu0 << " " << static_cast<int>(cpu0.index()) << " " << cpu0.has_index()
            << " " << (cpu0 == torch::Device(torch::kCPU)) << "\n";
  return 0;
}
