// What `std::cout << module` prints, compared character for character (libtorch's
// `torch::nn::Linear(...)` is the renamed program's `ember::nn::Linear(...)`): every layer with
// default and non-default options, containers and nesting, user modules under their C++ names,
// Module::name(), and the boolalpha that some printouts leave on the stream, as libtorch's do.
// compat-compare: exact
#include <torch/torch.h>

#include <iostream>
#include <memory>
#include <sstream>
#include <string>

namespace nn = torch::nn;

struct NetImpl : nn::Module {
  NetImpl() {
    fc1 = register_module("fc1", nn::Linear(4, 3));
    seq = register_module("seq", nn::Sequential(nn::ReLU(), nn::Linear(3, 2)));
    bn = register_module("bn", nn::BatchNorm1d(3));
  }
  nn::Linear fc1{nullptr};
  nn::Sequential seq{nullptr};
  nn::BatchNorm1d bn{nullptr};
};
TORCH_MODULE(Net);

namespace zoo {
struct BlockImpl : nn::Module {
  BlockImpl() {
    register_module("conv", nn::Conv2d(nn::Conv2dOptions(1, 2, 3).padding(1)));
    register_module("net", Net());
  }
};
TORCH_MODULE(Block);
}  // namespace zoo

struct Leaf : nn::Module {};

// The printout, then what a bool prints as afterwards on the same stream.
template <typename M>
void show(const std::string& name, const M& m) {
  std::ostringstream os;
  os << m << " | " << true;
  std::cout << "== " << name << "\n" << os.str() << "\n";
}

int main() {
  show("Linear", nn::Linear(3, 4));
  show("Linear without bias", nn::Linear(nn::LinearOptions(3, 4).bias(false)));
  show("Conv2d", nn::Conv2d(2, 4, 3));
  show("Conv2d options",
       nn::Conv2d(
           nn::Conv2dOptions(2, 4, {3, 5}).stride(2).padding(1).dilation(2).groups(2).bias(false)));
  show("Conv2d padding pair", nn::Conv2d(nn::Conv2dOptions(2, 4, 3).padding({1, 2})));
  show("Conv2d same", nn::Conv2d(nn::Conv2dOptions(2, 4, 3).padding(torch::kSame)));
  show("Conv2d valid", nn::Conv2d(nn::Conv2dOptions(2, 4, 3).padding(torch::kValid)));
  show("Dropout", nn::Dropout());
  show("Dropout options", nn::Dropout(nn::DropoutOptions(0.25).inplace(true)));
  show("ReLU", nn::ReLU());
  show("ReLU inplace", nn::ReLU(nn::ReLUOptions(true)));
  show("LeakyReLU", nn::LeakyReLU());
  show("LeakyReLU options",
       nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2).inplace(true)));
  show("ELU", nn::ELU());
  show("ELU options", nn::ELU(nn::ELUOptions().alpha(0.5).inplace(true)));
  show("Softplus", nn::Softplus());
  show("Softplus options", nn::Softplus(nn::SoftplusOptions().beta(2).threshold(10.5)));
  show("Hardtanh", nn::Hardtanh());
  show("Hardtanh options",
       nn::Hardtanh(nn::HardtanhOptions().min_val(-2).max_val(3.5).inplace(true)));
  show("GELU", nn::GELU());
  show("GELU tanh", nn::GELU(nn::GELUOptions().approximate("tanh")));
  show("SiLU", nn::SiLU());
  show("Sigmoid", nn::Sigmoid());
  show("Tanh", nn::Tanh());
  show("Softmax", nn::Softmax(1));
  show("LogSoftmax", nn::LogSoftmax(-1));
  show("BatchNorm1d", nn::BatchNorm1d(8));
  show("BatchNorm2d options",
       nn::BatchNorm2d(
           nn::BatchNormOptions(4).eps(1e-3).momentum(0.01).affine(false).track_running_stats(
               false)));
  show("BatchNorm2d momentum None", nn::BatchNorm2d(nn::BatchNormOptions(4).momentum({})));
  show("MaxPool2d", nn::MaxPool2d(2));
  show(
      "MaxPool2d options",
      nn::MaxPool2d(nn::MaxPool2dOptions({3, 2}).stride(1).padding(1).dilation(2).ceil_mode(true)));
  show("AvgPool2d", nn::AvgPool2d(2));
  show("AvgPool2d options", nn::AvgPool2d(nn::AvgPool2dOptions(3).stride(1).padding(1)));
  show("AdaptiveAvgPool2d", nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({7, 7})));
  show("AdaptiveAvgPool2d 1", nn::AdaptiveAvgPool2d(1));
  show("RNN", nn::RNN(3, 4));
  show("RNN options", nn::RNN(nn::RNNOptions(3, 4)
                                  .num_layers(2)
                                  .nonlinearity(torch::kReLU)
                                  .bias(false)
                                  .batch_first(true)
                                  .dropout(0.5)
                                  .bidirectional(true)));
  show("LSTM", nn::LSTM(3, 4));
  show("LSTM options",
       nn::LSTM(nn::LSTMOptions(3, 4).num_layers(2).bidirectional(true).dropout(0.25)));
  show("GRU", nn::GRU(nn::GRUOptions(3, 4).batch_first(true)));
  show("RNNCell", nn::RNNCell(3, 4));
  show("RNNCell options",
       nn::RNNCell(nn::RNNCellOptions(3, 4).bias(false).nonlinearity(torch::kReLU)));
  show("LSTMCell", nn::LSTMCell(3, 4));
  show("LSTMCell without bias", nn::LSTMCell(nn::LSTMCellOptions(3, 4).bias(false)));
  show("GRUCell", nn::GRUCell(3, 4));
  show("LayerNorm", nn::LayerNorm(nn::LayerNormOptions({4, 5})));
  show("LayerNorm options",
       nn::LayerNorm(nn::LayerNormOptions({4}).eps(1e-3).elementwise_affine(false)));
  show("CosineSimilarity", nn::CosineSimilarity());
  show("CosineSimilarity options",
       nn::CosineSimilarity(nn::CosineSimilarityOptions().dim(0).eps(1e-6)));
  show("CrossEntropyLoss", nn::CrossEntropyLoss());
  show("CrossEntropyLoss options",
       nn::CrossEntropyLoss(nn::CrossEntropyLossOptions().label_smoothing(0.1)));
  show("NLLLoss", nn::NLLLoss());
  show("MSELoss", nn::MSELoss());
  show("L1Loss", nn::L1Loss());
  show("BCEWithLogitsLoss", nn::BCEWithLogitsLoss());
  show("BCELoss", nn::BCELoss());
  show("SmoothL1Loss", nn::SmoothL1Loss());
  show("KLDivLoss", nn::KLDivLoss());
  show("Embedding", nn::Embedding(10, 3));
  show("Embedding padding_idx", nn::Embedding(nn::EmbeddingOptions(10, 3).padding_idx(0)));
  show("Embedding options", nn::Embedding(nn::EmbeddingOptions(5, 3)
                                              .max_norm(1.0)
                                              .norm_type(3)
                                              .scale_grad_by_freq(true)
                                              .sparse(true)
                                              .padding_idx(1)));
  show("EmbeddingBag", nn::EmbeddingBag(5, 3));
  show("EmbeddingBag options", nn::EmbeddingBag(nn::EmbeddingBagOptions(5, 3)
                                                    .mode(torch::kSum)
                                                    .padding_idx(1)
                                                    .max_norm(2.)
                                                    .norm_type(1)
                                                    .scale_grad_by_freq(true)
                                                    .include_last_offset(true)
                                                    .sparse(true)));
  show("EmbeddingBag max", nn::EmbeddingBag(nn::EmbeddingBagOptions(5, 3).mode(torch::kMax)));
  show("RReLU", nn::RReLU());
  show("RReLU options", nn::RReLU(nn::RReLUOptions().lower(0.1).upper(0.5).inplace(true)));
  show("Softmax2d", nn::Softmax2d());
  show("CrossMapLRN2d", nn::CrossMapLRN2d(3));
  show("CrossMapLRN2d options",
       nn::CrossMapLRN2d(nn::CrossMapLRN2dOptions(4).alpha(0.5).beta(0.25).k(2)));
  show("LPPool1d", nn::LPPool1d(nn::LPPool1dOptions(2, 3)));
  show("LPPool2d", nn::LPPool2d(nn::LPPool2dOptions(1.5, {3, 2}).stride(1).ceil_mode(true)));
  show("CTCLoss", nn::CTCLoss());
  show("TripletMarginWithDistanceLoss",
       nn::TripletMarginWithDistanceLoss(
           nn::TripletMarginWithDistanceLossOptions().margin(0.5).swap(true)));
  show("Flatten", nn::Flatten());
  show("Flatten options", nn::Flatten(nn::FlattenOptions().start_dim(0).end_dim(2)));
  show("Functional", nn::Functional(torch::relu));

  show("Sequential", nn::Sequential(nn::Linear(2, 3), nn::ReLU(), nn::Dropout(0.5), nn::Tanh()));
  show("Sequential empty", nn::Sequential());
  show("Sequential named", nn::Sequential({{"fc", nn::Linear(2, 3)}, {"act", nn::ReLU()}}));
  show("ModuleList", nn::ModuleList(nn::Linear(2, 3), nn::ReLU()));
  show("ModuleDict", nn::ModuleDict(torch::OrderedDict<std::string, std::shared_ptr<nn::Module>>{
                         {"a", nn::Linear(2, 3).ptr()}, {"b", nn::ReLU().ptr()}}));
  show("user module", Net());
  show("user module, dereferenced", *Net());
  show("namespaced user module", zoo::Block());
  show("module without children", Leaf());
  show("named module", nn::Module("custom"));

  std::cout << Net()->name() << " | " << nn::Linear(2, 2)->name() << " | " << zoo::Block()->name()
            << " | " << nn::Sequential()->name() << " | " << nn::Module("custom").name() << "\n";
}
