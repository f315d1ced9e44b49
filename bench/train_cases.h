#pragma once
// The training rows (MLP and CNN steps with Adam and cross-entropy, the GPT job's step with
// AdamW, and Fashion-MNIST epochs), written once against the libtorch API through the namespace
// alias `tt`, as op_cases.h.
#include <memory>
#include <string>
#include <vector>

#include "fashion_mnist_raw.h"
#include "harness.h"

namespace bench {

inline constexpr const char* kFashionMnistRoot = "/usr/share/datasets/fashion-mnist";

// 784-256-10 with ReLU.
inline tt::nn::Sequential make_mlp() {
  return tt::nn::Sequential(tt::nn::Linear(784, 256), tt::nn::ReLU(), tt::nn::Linear(256, 10));
}

// conv3x3(32)-relu-maxpool-conv3x3(64)-relu-maxpool-fc128-relu-fc10 on 1x28x28 ("same" padding).
inline tt::nn::Sequential make_cnn() {
  return tt::nn::Sequential(tt::nn::Conv2d(tt::nn::Conv2dOptions(1, 32, 3).padding(1)),
                            tt::nn::ReLU(), tt::nn::MaxPool2d(tt::nn::MaxPool2dOptions(2)),
                            tt::nn::Conv2d(tt::nn::Conv2dOptions(32, 64, 3).padding(1)),
                            tt::nn::ReLU(), tt::nn::MaxPool2d(tt::nn::MaxPool2dOptions(2)),
                            tt::nn::Flatten(), tt::nn::Linear(64 * 7 * 7, 128), tt::nn::ReLU(),
                            tt::nn::Linear(128, 10));
}

// ember-train's GPT (tools/ember_train/gpt.cpp) written with each library's modules: pre-norm
// blocks of causal self-attention and a GELU MLP. attention() is each program's: Ember's fused
// scaled_dot_product_attention, libtorch 1.13's composition (it has no fused function).
struct GptBlock : tt::nn::Module {
  GptBlock(int64_t width, int64_t heads) : heads(heads) {
    ln1 = register_module("ln1", tt::nn::LayerNorm(tt::nn::LayerNormOptions({width})));
    qkv = register_module("qkv", tt::nn::Linear(width, 3 * width));
    proj = register_module("proj", tt::nn::Linear(width, width));
    ln2 = register_module("ln2", tt::nn::LayerNorm(tt::nn::LayerNormOptions({width})));
    fc = register_module("fc", tt::nn::Linear(width, 4 * width));
    out = register_module("out", tt::nn::Linear(4 * width, width));
  }
  tt::Tensor forward(const tt::Tensor& x) {
    const int64_t B = x.size(0), T = x.size(1), C = x.size(2);
    auto parts = qkv->forward(ln1->forward(x)).split(C, 2);
    auto split_heads = [&](const tt::Tensor& t) {
      return t.view({B, T, heads, C / heads}).transpose(1, 2);
    };
    tt::Tensor y =
        attention(split_heads(parts[0]), split_heads(parts[1]), split_heads(parts[2]), true);
    tt::Tensor h = x + proj->forward(y.transpose(1, 2).contiguous().view({B, T, C}));
    return h + out->forward(tt::gelu(fc->forward(ln2->forward(h))));
  }
  int64_t heads;
  tt::nn::LayerNorm ln1{nullptr}, ln2{nullptr};
  tt::nn::Linear qkv{nullptr}, proj{nullptr}, fc{nullptr}, out{nullptr};
};

struct Gpt : tt::nn::Module {
  Gpt(int64_t vocab, int64_t block, int64_t width, int64_t layers, int64_t heads) {
    tok = register_module("tok", tt::nn::Embedding(vocab, width));
    pos = register_module("pos", tt::nn::Embedding(block, width));
    for (int64_t i = 0; i < layers; ++i) {
      blocks.push_back(
          register_module("h" + std::to_string(i), std::make_shared<GptBlock>(width, heads)));
    }
    ln = register_module("ln", tt::nn::LayerNorm(tt::nn::LayerNormOptions({width})));
    head = register_module("head", tt::nn::Linear(tt::nn::LinearOptions(width, vocab).bias(false)));
  }
  tt::Tensor forward(const tt::Tensor& idx) {
    tt::Tensor x = tok->forward(idx) + pos->forward(tt::arange(idx.size(1), tt::kLong));
    for (auto& b : blocks) x = b->forward(x);
    return head->forward(ln->forward(x));
  }
  tt::nn::Embedding tok{nullptr}, pos{nullptr};
  std::vector<std::shared_ptr<GptBlock>> blocks;
  tt::nn::LayerNorm ln{nullptr};
  tt::nn::Linear head{nullptr};
};

// One optimisation step: zero_grad, forward, cross-entropy, backward, Adam update.
inline tt::Tensor train_step(tt::nn::Sequential& model, tt::optim::Adam& opt, const tt::Tensor& x,
                             const tt::Tensor& y) {
  opt.zero_grad();
  tt::Tensor loss = tt::nn::functional::cross_entropy(model->forward(x), y);
  loss.backward();
  opt.step();
  return loss;
}

inline void step_rows(Runner& r) {
  if (!r.wants("train")) return;
  for (int64_t batch : {32, 128, 512}) {
    tt::manual_seed(0);
    tt::nn::Sequential mlp = make_mlp();
    tt::optim::Adam opt(mlp->parameters(), tt::optim::AdamOptions(1e-3));
    tt::Tensor x = tt::randn({batch, 784}), y = tt::randint(0, 10, {batch});
    r.time("train", "mlp_step_b" + std::to_string(batch), Unit::kMilliseconds, 0,
           [&] { train_step(mlp, opt, x, y); });
  }
  tt::manual_seed(0);
  tt::nn::Sequential cnn = make_cnn();
  tt::optim::Adam opt(cnn->parameters(), tt::optim::AdamOptions(1e-3));
  tt::Tensor x = tt::randn({64, 1, 28, 28}), y = tt::randint(0, 10, {64});
  r.time("train", "cnn_step_b64", Unit::kMilliseconds, 0, [&] { train_step(cnn, opt, x, y); });

  // The GPT job's default shape (vocabulary 114 as the fortunes corpus, block 64, width 128, 4
  // layers, 4 heads), batch 32, AdamW.
  tt::manual_seed(0);
  Gpt gpt(114, 64, 128, 4, 4);
  tt::optim::AdamW adamw(gpt.parameters(), tt::optim::AdamWOptions(1e-3));
  tt::Tensor idx = tt::randint(0, 114, {32, 64}), next = tt::randint(0, 114, {32, 64});
  r.time("train", "gpt_step_b32", Unit::kMilliseconds, 0, [&] {
    adamw.zero_grad();
    tt::Tensor loss =
        tt::nn::functional::cross_entropy(gpt.forward(idx).view({-1, 114}), next.view({-1}));
    loss.backward();
    adamw.step();
  });
}

// One pass over the 60000 training images in shuffled batches of 64 (last partial batch dropped),
// from tensors already in memory: the time is the training loop's, not the file reader's.
inline void epoch_rows(Runner& r, int epochs) {
  if (!r.wants("epoch")) return;
  IdxData images, labels;
  std::string error;
  if (!read_idx_gz(std::string(kFashionMnistRoot) + "/train-images-idx3-ubyte.gz", images, error) ||
      !read_idx_gz(std::string(kFashionMnistRoot) + "/train-labels-idx1-ubyte.gz", labels, error)) {
    std::fprintf(stderr, "skipping the epoch rows: %s\n", error.c_str());
    return;
  }
  const int64_t n = images.dims[0];
  tt::Tensor x_all = tt::from_blob(images.bytes.data(), {n, 784}, tt::kUInt8).to(tt::kFloat32);
  x_all = (x_all / 255.0 - 0.2860) / 0.3530;
  tt::Tensor y_all = tt::from_blob(labels.bytes.data(), {n}, tt::kUInt8).to(tt::kInt64);
  const int64_t batch = 64;

  for (const char* which : {"mlp", "cnn"}) {
    bool cnn = std::string(which) == "cnn";
    std::string name = std::string("fashion_mnist_epoch_") + which;
    if (!r.wants_row(name)) continue;
    tt::manual_seed(0);
    tt::nn::Sequential model = cnn ? make_cnn() : make_mlp();
    tt::optim::Adam opt(model->parameters(), tt::optim::AdamOptions(1e-3));
    auto run_batches = [&](int64_t limit) {
      tt::Tensor perm = tt::randperm(n);
      double loss_sum = 0;
      int64_t steps = 0;
      for (int64_t b = 0; b + batch <= n && steps < limit; b += batch, ++steps) {
        tt::Tensor idx = perm.narrow(0, b, batch);
        tt::Tensor x = x_all.index_select(0, idx), y = y_all.index_select(0, idx);
        if (cnn) x = x.view({batch, 1, 28, 28});
        loss_sum += train_step(model, opt, x, y).item<double>();
      }
      return loss_sum / std::max<int64_t>(steps, 1);
    };
    run_batches(20);  // warm-up
    std::vector<double> seconds;
    for (int e = 0; e < epochs; ++e) {
      double t0 = r.now();
      double loss = run_batches(n);
      seconds.push_back(r.now() - t0);
      std::fprintf(stderr, "  %s epoch %d: mean loss %.4f, %.2f s\n", which, e + 1, loss,
                   seconds.back());
    }
    r.record("epoch", name, Unit::kSeconds, 0, seconds, 1);
  }
}

}  // namespace bench
