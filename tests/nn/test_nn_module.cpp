// nn::Module API: registration and dotted names, traversal, in-place to(), train/eval,
// zero_grad, state_dict round trips and their errors, printing, holders and nn::init.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <sstream>
#include <string>

#include "ember/ember.h"
#include "ember/serialize.h"
#include "support/test_util.h"

using namespace ember;
using ember::testing::contains;
using ember::testing::error_of;
namespace F = ember::nn::functional;

namespace {

struct Net : nn::Module {
  Net() {
    fc1 = register_module("fc1", nn::Linear(4, 8));
    bn = register_module("bn", nn::BatchNorm1d(8));
    head = register_module("head", nn::Sequential(nn::ReLU(), nn::Linear(8, 3)));
    scale = register_parameter("scale", ones({1}));
  }
  Tensor forward(const Tensor& x) { return head->forward(bn->forward(fc1->forward(x))) * scale; }
  nn::Linear fc1{nullptr};
  nn::BatchNorm1d bn{nullptr};
  nn::Sequential head{nullptr};
  Tensor scale;
};

std::string printed(const nn::Module& m) {
  std::ostringstream os;
  os << m;
  return os.str();
}

// Written with libtorch's macro names, as a renamed libtorch program keeps them.
struct ScaledOptions {
  explicit ScaledOptions(int64_t width) : width_(width) {}
  TORCH_ARG(int64_t, width);
  TORCH_ARG(double, factor) = 2.0;
};
struct ScaledImpl : nn::Module {
  explicit ScaledImpl(const ScaledOptions& o) : options(o) {
    fc = register_module("fc", nn::Linear(o.width(), o.width()));
  }
  Tensor forward(const Tensor& x) { return fc(x) * options.factor(); }
  ScaledOptions options;
  nn::Linear fc{nullptr};
};
TORCH_MODULE(Scaled);
struct OtherImpl : nn::Module {
  Tensor forward(const Tensor& x) { return x + 1; }
};
TORCH_MODULE_IMPL(Other, OtherImpl);

}  // namespace

TEST(NnModule, DottedNamesInRegistrationOrder) {
  auto net = std::make_shared<Net>();
  EXPECT_EQ(net->named_parameters().keys(),
            (std::vector<std::string>{"scale", "fc1.weight", "fc1.bias", "bn.weight", "bn.bias",
                                      "head.1.weight", "head.1.bias"}));
  EXPECT_EQ(net->named_parameters(/*recurse=*/false).keys(), std::vector<std::string>{"scale"});
  EXPECT_EQ(net->parameters().size(), 7u);
  EXPECT_EQ(
      net->named_buffers().keys(),
      (std::vector<std::string>{"bn.running_mean", "bn.running_var", "bn.num_batches_tracked"}));
  EXPECT_EQ(net->named_children().keys(), (std::vector<std::string>{"fc1", "bn", "head"}));
  EXPECT_EQ(net->children().size(), 3u);
  EXPECT_EQ(net->named_modules().keys(),
            (std::vector<std::string>{"", "fc1", "bn", "head", "head.0", "head.1"}));
  EXPECT_EQ(net->modules(/*include_self=*/false).size(), 5u);
  // The holders and the registered children are the same objects.
  EXPECT_TRUE(net->named_parameters()["fc1.weight"].is_same(net->fc1->weight));
  EXPECT_EQ(net->named_children()["fc1"].get(), net->fc1.get());

  auto seq = nn::Sequential(nn::Linear(784, 256), nn::ReLU(), nn::Linear(256, 10));
  EXPECT_EQ(seq->named_parameters().keys(),
            (std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"}));
  EXPECT_EQ(seq->size(), 3u);
  EXPECT_EQ(seq[2]->as<nn::Linear>()->options.out_features(), 10);
  EXPECT_EQ(seq->at<nn::LinearImpl>(0).options.in_features(), 784);
  EXPECT_TRUE(contains(error_of<TypeError>([&] { seq->at<nn::Conv2dImpl>(0); }), "LinearImpl"));
  EXPECT_TRUE(contains(error_of<IndexError>([&] { seq->ptr(3); }), "Index 3"));
}

TEST(NnModule, NamedSequentialAndModuleList) {
  nn::Sequential seq({{"fc", nn::Linear(2, 3)}, {"act", nn::Tanh()}});
  EXPECT_EQ(seq->named_parameters().keys(), (std::vector<std::string>{"fc.weight", "fc.bias"}));
  Tensor x = randn({5, 2});
  EXPECT_TRUE(allclose(seq->forward(x), tanh(seq->at<nn::LinearImpl>(0).forward(x))));
  seq->push_back("out", nn::Linear(3, 1));
  EXPECT_EQ(seq->forward(x).sizes(), IntArrayRef({5, 1}));

  nn::ModuleList list(nn::Linear(2, 2), nn::ReLU());
  list->push_back(nn::Linear(2, 4));
  list->insert(1, nn::Dropout(0.1));
  EXPECT_EQ(list->size(), 4u);
  EXPECT_EQ(list->named_children().keys(), (std::vector<std::string>{"0", "1", "2", "3"}));
  EXPECT_NE(list->ptr<nn::DropoutImpl>(1), nullptr);
  EXPECT_EQ(list->named_parameters().keys(),
            (std::vector<std::string>{"0.weight", "0.bias", "3.weight", "3.bias"}));
  int n = 0;
  for (const auto& m : *list) n += m != nullptr;
  EXPECT_EQ(n, 4);
}

TEST(NnModule, RegistrationErrors) {
  nn::Module m;
  m.register_parameter("w", zeros({2}));
  EXPECT_TRUE(contains(error_of<ValueError>([&] { m.register_parameter("w", zeros({2})); }),
                       "Parameter 'w' already defined"));
  EXPECT_TRUE(contains(error_of<ValueError>([&] { m.register_buffer("a.b", zeros({2})); }),
                       "must not contain a dot (got 'a.b')"));
  EXPECT_TRUE(contains(error_of<ValueError>([&] { m.register_module("", nn::ReLU()); }),
                       "must not be empty"));
  EXPECT_TRUE(contains(error_of<ValueError>([&] { m.register_module("x", nn::Linear(nullptr)); }),
                       "empty"));
  nn::Linear empty_holder{nullptr};
  EXPECT_TRUE(empty_holder.is_empty());
  EXPECT_FALSE(static_cast<bool>(empty_holder));
  EXPECT_TRUE(contains(error_of([&] {
                         empty_holder->forward(zeros({1, 1}));
                       }),
                       "empty ModuleHolder"));
  // Registered parameters require grad unless told otherwise; buffers do not.
  EXPECT_TRUE(m.named_parameters()["w"].requires_grad());
  EXPECT_FALSE(m.register_parameter("frozen", zeros({1}), false).requires_grad());
  EXPECT_FALSE(m.register_buffer("buf", zeros({1})).requires_grad());
}

TEST(NnModule, ToDtypeKeepsHandlesValid) {
  auto net = std::make_shared<Net>();
  Tensor w = net->fc1->weight;  // a handle held outside the module
  Tensor before = w.detach().clone();
  Tensor x = randn({6, 4});
  net->forward(x).sum().backward();
  ASSERT_TRUE(w.grad().defined());
  Tensor g_before = w.grad().clone();
  Tensor nbt = net->bn->num_batches_tracked;

  net->to(kDouble);
  EXPECT_EQ(w.dtype(), kDouble);
  EXPECT_TRUE(w.is_same(net->fc1->weight));
  EXPECT_TRUE(w.is_same(net->named_parameters()["fc1.weight"]));
  EXPECT_TRUE(w.requires_grad());
  EXPECT_TRUE(w.is_leaf());
  EXPECT_EQ(w.grad().dtype(), kDouble);
  EXPECT_TRUE(allclose(w.grad(), g_before.to(kDouble)));
  EXPECT_TRUE(allclose(w, before.to(kDouble)));
  EXPECT_EQ(net->bn->running_mean.dtype(), kDouble);
  EXPECT_EQ(nbt.dtype(), kDouble);  // integer buffers too, as libtorch's C++ Module::to
  // The moved model trains in the new dtype, accumulating into the same handles.
  net->zero_grad();
  EXPECT_FALSE(w.grad().defined());
  net->forward(x.to(kDouble)).sum().backward();
  EXPECT_EQ(w.grad().dtype(), kDouble);

  net->to(Device(kCPU));  // already there: nothing changes
  EXPECT_EQ(w.dtype(), kDouble);
  net->to(Device(kCPU), kFloat);
  EXPECT_EQ(w.dtype(), kFloat);
  EXPECT_TRUE(contains(error_of<TypeError>([&] { net->to(kLong); }), "floating point"));
}

TEST(NnModule, TrainEvalAndZeroGrad) {
  auto net = std::make_shared<Net>();
  EXPECT_TRUE(net->is_training());
  net->eval();
  for (const auto& m : net->modules()) EXPECT_FALSE(m->is_training());
  net->train();
  for (const auto& m : net->modules()) EXPECT_TRUE(m->is_training());

  net->forward(randn({3, 4})).sum().backward();
  Tensor g = net->fc1->weight.grad();
  ASSERT_TRUE(g.defined());
  net->zero_grad(/*set_to_none=*/false);
  EXPECT_TRUE(net->fc1->weight.grad().defined());
  EXPECT_EQ(net->fc1->weight.grad().abs().sum().item<double>(), 0.0);
  net->zero_grad();
  for (const auto& p : net->parameters()) EXPECT_FALSE(p.grad().defined());
}

TEST(NnModule, StateDictRoundTrip) {
  manual_seed(1);
  auto a = std::make_shared<Net>();
  a->forward(randn({5, 4}));  // moves the running stats away from their initial values
  auto sd = a->state_dict();
  EXPECT_EQ(sd.keys(),
            (std::vector<std::string>{"scale", "fc1.weight", "fc1.bias", "bn.weight", "bn.bias",
                                      "bn.running_mean", "bn.running_var", "bn.num_batches_tracked",
                                      "head.1.weight", "head.1.bias"}));
  EXPECT_FALSE(sd["fc1.weight"].requires_grad());

  auto b = std::make_shared<Net>();
  Tensor bw = b->fc1->weight;
  b->load_state_dict(sd);
  EXPECT_TRUE(bw.is_same(b->fc1->weight));  // copied into the existing tensors
  EXPECT_TRUE(bw.requires_grad());
  for (const auto& it : sd) EXPECT_TRUE(equal(b->state_dict()[it.key()], it.value())) << it.key();
  EXPECT_FALSE(b->fc1->weight.data_ptr() == a->fc1->weight.data_ptr());
  a->eval();
  b->eval();
  Tensor x = randn({3, 4});
  EXPECT_TRUE(equal(a->forward(x), b->forward(x)));

  // Through a safetensors file.
  const std::string path = ::testing::TempDir() + "nn_state_dict.safetensors";
  ember::save(a->state_dict(), path);
  auto c = std::make_shared<Net>();
  c->load_state_dict(ember::load(path));
  c->eval();
  EXPECT_TRUE(equal(a->forward(x), c->forward(x)));
  std::remove(path.c_str());
}

TEST(NnModule, LoadStateDictErrors) {
  auto net = std::make_shared<Net>();
  auto sd = net->state_dict();
  sd.erase("fc1.bias");
  sd.insert("fc9.weight", zeros({2}));
  sd["head.1.weight"] = zeros({3, 7});
  const std::string msg = error_of<ValueError>([&] { net->load_state_dict(sd); });
  EXPECT_TRUE(contains(msg, "Error(s) in loading state_dict for Net")) << msg;
  EXPECT_TRUE(contains(msg, "Missing key(s) in state_dict: \"fc1.bias\"")) << msg;
  EXPECT_TRUE(contains(msg, "Unexpected key(s) in state_dict: \"fc9.weight\"")) << msg;
  EXPECT_TRUE(contains(msg,
                       "size mismatch for head.1.weight: copying a param with shape [3, 7] "
                       "from checkpoint, the shape in current model is [3, 8]"))
      << msg;
  // Nothing was copied when the load failed.
  EXPECT_FALSE(equal(net->head[1]->as<nn::Linear>()->weight, zeros({3, 8})));

  // Non-strict loading ignores missing and unexpected keys but never a wrong shape.
  sd["head.1.weight"] = ones({3, 8});
  net->load_state_dict(sd, /*strict=*/false);
  EXPECT_TRUE(equal(net->head[1]->as<nn::Linear>()->weight, ones({3, 8})));
  sd["bn.running_mean"] = zeros({9});
  EXPECT_TRUE(contains(error_of<ValueError>([&] { net->load_state_dict(sd, false); }),
                       "size mismatch for bn.running_mean"));
}

TEST(NnModule, Printing) {
  auto seq = nn::Sequential(nn::Linear(784, 256), nn::ReLU(), nn::Dropout(0.2),
                            nn::Linear(nn::LinearOptions(256, 10).bias(false)));
  // As libtorch prints them, with the namespace renamed (torch::nn:: -> ember::nn::).
  EXPECT_EQ(printed(*seq),
            "ember::nn::Sequential(\n"
            "  (0): ember::nn::Linear(in_features=784, out_features=256, bias=true)\n"
            "  (1): ember::nn::ReLU()\n"
            "  (2): ember::nn::Dropout(p=0.2, inplace=false)\n"
            "  (3): ember::nn::Linear(in_features=256, out_features=10, bias=false)\n"
            ")");
  // A user module prints its C++ class name in full, as libtorch's Module::name() gives it.
  auto net = std::make_shared<Net>();
  EXPECT_EQ(printed(*net),
            "(anonymous namespace)::Net(\n"
            "  (fc1): ember::nn::Linear(in_features=4, out_features=8, bias=true)\n"
            "  (bn): ember::nn::BatchNorm1d(8, eps=1e-05, momentum=0.1, affine=true, "
            "track_running_stats=true)\n"
            "  (head): ember::nn::Sequential(\n"
            "    (0): ember::nn::ReLU()\n"
            "    (1): ember::nn::Linear(in_features=8, out_features=3, bias=true)\n"
            "  )\n"
            ")");
  std::ostringstream os;
  os << nn::Conv2d(nn::Conv2dOptions(3, 16, 3).stride(2).padding(1).groups(1).bias(false));
  EXPECT_EQ(os.str(),
            "ember::nn::Conv2d(3, 16, kernel_size=[3, 3], stride=[2, 2], padding=[1, 1], "
            "bias=false)");
  std::ostringstream more;
  more << *nn::MaxPool2d(2) << "|" << *nn::AvgPool2d(nn::AvgPool2dOptions(3).stride(2)) << "|"
       << *nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({7, 7})) << "|"
       << *nn::LayerNorm(std::vector<int64_t>{10}) << "|" << *nn::Embedding(10, 3) << "|"
       << *nn::Softmax(1) << "|" << *nn::Flatten() << "|" << *nn::GELU() << "|"
       << *nn::CrossEntropyLoss();
  EXPECT_EQ(more.str(),
            "ember::nn::MaxPool2d(kernel_size=[2, 2], stride=[2, 2], padding=[0, 0], "
            "dilation=[1, 1], ceil_mode=false)|ember::nn::AvgPool2d(kernel_size=[3, 3], "
            "stride=[2, 2], padding=[0, 0])|ember::nn::AdaptiveAvgPool2d(output_size=[7, 7])|"
            "ember::nn::LayerNorm([10], eps=1e-05, elementwise_affine=true)|"
            "ember::nn::Embedding(num_embeddings=10, embedding_dim=3)|ember::nn::Softmax(dim=1)|"
            "ember::nn::Flatten(start_dim=1, end_dim=-1)|ember::nn::GELU()|"
            "ember::nn::CrossEntropyLoss()");
  // Error messages name a layer without the namespace.
  EXPECT_TRUE(contains(error_of<ValueError>([] {
                         nn::Linear(3, 2)(ones({2, 4}));
                       }),
                       "Linear(in_features=3, out_features=2, bias=true): expected input"));
}

TEST(NnModule, HolderStyle) {
  auto m = nn::Linear(3, 2);
  Tensor x = randn({4, 3});
  EXPECT_TRUE(equal(m(x), m->forward(x)));
  EXPECT_TRUE(allclose(m->forward(x), matmul(x, m->weight.t()) + m->bias));
  nn::Linear copy = m;  // holders share the module
  EXPECT_EQ(copy.get(), m.get());
  std::shared_ptr<nn::LinearImpl> p = m.ptr();
  EXPECT_EQ(p.get(), m.get());
  // Options objects as in libtorch.
  auto conv =
      nn::Conv2d(nn::Conv2dOptions(4, 8, {3, 5}).stride({2, 1}).padding(1).dilation(2).groups(2));
  EXPECT_EQ(conv->weight.sizes(), IntArrayRef({8, 2, 3, 5}));
  EXPECT_EQ(conv->options.stride()[0], 2);
  EXPECT_EQ(nn::BatchNorm2d(nn::BatchNorm2dOptions(5).affine(false))->parameters().size(), 0u);
}

TEST(NnModule, LibtorchMacroNames) {
  Scaled m(ScaledOptions(3).factor(0.5));
  static_assert(std::is_same_v<Scaled::Impl, ScaledImpl>);
  static_assert(std::is_base_of_v<nn::ModuleHolder<ScaledImpl>, Scaled>);
  Tensor x = arange(6, kFloat).reshape({2, 3});
  EXPECT_TRUE(allclose(m(x), m->fc(x) * 0.5));
  EXPECT_EQ(m->options.width(), 3);
  EXPECT_EQ(m->named_parameters().size(), 2u);
  Scaled empty{nullptr};
  EXPECT_TRUE(empty.is_empty());
  Other o;
  EXPECT_TRUE(equal(o(x), x + 1));
}

TEST(NnModule, LayerShapeErrorsNameLayerAndShapes) {
  auto fc = nn::Linear(784, 256);
  EXPECT_EQ(error_of<ValueError>([&] {
              fc->forward(zeros({32, 100}));
            }),
            "Linear(in_features=784, out_features=256, bias=true): expected input with last "
            "dimension 784, got shape [32, 100]");
  auto conv = nn::Conv2d(3, 16, 3);
  EXPECT_EQ(error_of<ValueError>([&] {
              conv->forward(zeros({8, 4, 32, 32}));
            }),
            "Conv2d(3, 16, kernel_size=[3, 3], stride=[1, 1]): expected input with 3 channels, "
            "got shape [8, 4, 32, 32]");
  EXPECT_TRUE(contains(error_of<ValueError>([&] {
                         conv->forward(zeros({8, 3}));
                       }),
                       "expected a 4-D input [N, 3, H, W] (or 3-D unbatched), got shape [8, 3]"));
  auto bn = nn::BatchNorm2d(16);
  EXPECT_TRUE(
      contains(error_of<ValueError>([&] {
                 bn->forward(zeros({8, 16}));
               }),
               "BatchNorm2d(16, eps=1e-05, momentum=0.1, affine=true, "
               "track_running_stats=true): expected 4D input (got 2D input of shape [8, 16])"));
  EXPECT_TRUE(contains(error_of<ValueError>([&] {
                         bn->forward(zeros({8, 15, 2, 2}));
                       }),
                       "expected input with 16 channels (dim 1), got shape [8, 15, 2, 2]"));
  auto bn1 = nn::BatchNorm1d(4);
  EXPECT_TRUE(
      contains(error_of<ValueError>([&] {
                 bn1->forward(zeros({1, 4}));
               }),
               "Expected more than 1 value per channel when training, got input size [1, 4]"));
  auto ln = nn::LayerNorm(std::vector<int64_t>{10});
  EXPECT_EQ(error_of<ValueError>([&] {
              ln->forward(zeros({20, 5}));
            }),
            "Given normalized_shape=[10], expected input with shape [*, 10], but got input of "
            "size[20, 5]");
  auto emb = nn::Embedding(10, 3);
  EXPECT_TRUE(contains(error_of<IndexError>([&] {
                         emb->forward(tensor({1, 10}));
                       }),
                       "index out of range in self"));
  EXPECT_TRUE(contains(error_of<ValueError>([&] { nn::MaxPool2d(2)->forward(zeros({4})); }),
                       "MaxPool2d(kernel_size=[2, 2]"));
  EXPECT_TRUE(contains(error_of<ValueError>([&] { nn::Dropout(1.5); }), "got 1.5"));
}

TEST(NnModule, AutogradErrorsSurfaceThroughModules) {
  auto fc = nn::Linear(3, 1);
  Tensor loss = fc->forward(randn({2, 3})).sum();
  loss.backward();
  EXPECT_TRUE(contains(error_of([&] { loss.backward(); }),
                       "Trying to backward through the graph a second time"));
  Tensor loss2 = fc->forward(randn({2, 3})).sum();
  loss2.backward({}, /*retain_graph=*/true);
  EXPECT_NO_THROW(loss2.backward());
  {
    NoGradGuard no_grad;
    Tensor y = fc->forward(randn({2, 3})).sum();
    EXPECT_FALSE(y.requires_grad());
    EXPECT_TRUE(contains(error_of([&] { y.backward(); }), "does not require grad"));
  }
}

TEST(NnInit, FormulasAndDefaults) {
  manual_seed(0);
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain(kReLU), std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain(kTanh), 5.0 / 3.0);
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain(kLeakyReLU, std::sqrt(5.0)), std::sqrt(2.0 / 6.0));
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain(kSigmoid), 1.0);
  auto [fi, fo] = nn::init::_calculate_fan_in_and_fan_out(empty({16, 3, 5, 5}));
  EXPECT_EQ(fi, 75);
  EXPECT_EQ(fo, 400);
  EXPECT_THROW(nn::init::_calculate_fan_in_and_fan_out(empty({4})), ValueError);

  Tensor w = empty({400, 300}).requires_grad_();
  nn::init::kaiming_uniform_(w, 0, kFanIn, kReLU);
  const double bound = std::sqrt(2.0) * std::sqrt(3.0 / 300);
  EXPECT_LE(w.abs().max().item<double>(), bound);
  EXPECT_GT(w.abs().max().item<double>(), 0.99 * bound);
  EXPECT_TRUE(w.requires_grad() && w.is_leaf());
  nn::init::kaiming_normal_(w, 0, kFanOut, kReLU);
  EXPECT_NEAR(w.std({0, 1}).item<double>(), std::sqrt(2.0 / 400), 0.002);
  nn::init::xavier_uniform_(w, 2.0);
  EXPECT_LE(w.abs().max().item<double>(), 2.0 * std::sqrt(6.0 / 700));
  nn::init::xavier_normal_(w);
  EXPECT_NEAR(w.std({0, 1}).item<double>(), std::sqrt(2.0 / 700), 0.002);
  nn::init::normal_(w, 3, 0.5);
  EXPECT_NEAR(w.mean().item<double>(), 3, 0.01);
  nn::init::uniform_(w, -1, 2);
  EXPECT_GE(w.min().item<double>(), -1);
  EXPECT_LT(w.max().item<double>(), 2);
  nn::init::constant_(w, 0.25);
  EXPECT_TRUE(equal(w.detach(), full({400, 300}, 0.25)));
  nn::init::zeros_(w);
  EXPECT_EQ(w.abs().sum().item<double>(), 0.0);
  nn::init::ones_(w);
  EXPECT_EQ(w.sum().item<double>(), 120000.0);

  // PyTorch's default init: kaiming_uniform_(a = sqrt(5)) gives U(-1/sqrt(fan_in), 1/sqrt(fan_in))
  // for the weight, and the bias uses the same bound.
  auto fc = nn::Linear(256, 512);
  const double b = 1.0 / 16.0;
  EXPECT_LE(fc->weight.abs().max().item<double>(), b);
  EXPECT_GT(fc->weight.abs().max().item<double>(), 0.99 * b);
  EXPECT_NEAR(fc->weight.std({0, 1}).item<double>(), b / std::sqrt(3.0), 0.002);
  EXPECT_LE(fc->bias.abs().max().item<double>(), b);
  auto conv = nn::Conv2d(4, 8, 3);  // fan_in 36
  EXPECT_LE(conv->weight.abs().max().item<double>(), 1.0 / 6.0);
  EXPECT_LE(conv->bias.abs().max().item<double>(), 1.0 / 6.0);
  auto emb = nn::Embedding(nn::EmbeddingOptions(50, 40).padding_idx(3));
  EXPECT_EQ(emb->weight[3].abs().sum().item<double>(), 0.0);
  EXPECT_NEAR(emb->weight.std({0, 1}).item<double>(), 1.0, 0.1);
}
