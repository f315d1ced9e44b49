// ember-train --model gpt: the corpus and its vocabulary, the model against the same model written
// with PyTorch modules (names, counts, logits, loss and gradients with the same weights and batch),
// sampling, and short end-to-end runs of the binary, bad input included.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/serialize_module.h"
#include "ember_train/corpus.h"
#include "ember_train/gpt.h"
#include "ember_train/models.h"
#include "support/temp_dir.h"
#include "support/tool_path.h"
#include "support/torch_oracle.h"

namespace et = ember::train;
namespace fs = std::filesystem;
using ember::Tensor;
using ember::testing::expect_close;
using ember::testing::TempDir;
using ember::testing::TorchOracle;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string l; std::getline(ss, l);) out.push_back(l);
  return out;
}

template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const ember::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no ember::Error";
  return "";
}

// A small corpus with structure a model picks up within a few dozen steps: short fortunes of a
// few words each, ended by "%" lines as in the fortunes package.
std::string synthetic_corpus(size_t fortunes) {
  const std::vector<std::string> words = {"the", "cat", "sat", "on", "a",  "mat",  "and",
                                          "dog", "ran", "to",  "it", "is", "good", "day"};
  std::mt19937 rng(5);
  std::string text;
  for (size_t f = 0; f < fortunes; ++f) {
    const size_t n = 4 + rng() % 8;
    for (size_t w = 0; w < n; ++w) text += words[rng() % words.size()] + (w + 1 < n ? " " : ".\n");
    text += "%\n";
  }
  return text;
}

et::GptConfig small_config(int64_t vocab) {
  et::GptConfig c;
  c.vocab_size = vocab;
  c.block_size = 16;
  c.n_layer = 2;
  c.n_head = 2;
  c.n_embd = 16;
  return c;
}

// The same model with PyTorch 1.13's modules (no fused attention there: the masked softmax).
const char* kTorchGpt = R"(
nn = torch.nn
class Attn(nn.Module):
    def __init__(s, C, H):
        super().__init__()
        s.c_attn = nn.Linear(C, 3 * C)
        s.c_proj = nn.Linear(C, C)
        s.H = H
    def forward(s, x):
        B, T, C = x.shape
        q, k, v = s.c_attn(x).split(C, dim=2)
        q, k, v = [t.view(B, T, s.H, C // s.H).transpose(1, 2) for t in (q, k, v)]
        att = (q @ k.transpose(-2, -1)) / math.sqrt(C // s.H)
        causal = torch.ones(T, T, dtype=torch.bool).tril()
        att = att.masked_fill(~causal, float('-inf')).softmax(-1)
        return s.c_proj((att @ v).transpose(1, 2).reshape(B, T, C))
class Mlp(nn.Module):
    def __init__(s, C):
        super().__init__()
        s.c_fc = nn.Linear(C, 4 * C)
        s.c_proj = nn.Linear(4 * C, C)
    def forward(s, x):
        return s.c_proj(F.gelu(s.c_fc(x)))
class Block(nn.Module):
    def __init__(s, C, H):
        super().__init__()
        s.ln_1 = nn.LayerNorm(C)
        s.attn = Attn(C, H)
        s.ln_2 = nn.LayerNorm(C)
        s.mlp = Mlp(C)
    def forward(s, x):
        x = x + s.attn(s.ln_1(x))
        return x + s.mlp(s.ln_2(x))
class GPT(nn.Module):
    def __init__(s, V, T, L, H, C):
        super().__init__()
        s.wte = nn.Embedding(V, C)
        s.wpe = nn.Embedding(T, C)
        s.h = nn.ModuleList([Block(C, H) for _ in range(L)])
        s.ln_f = nn.LayerNorm(C)
        s.lm_head = nn.Linear(C, V, bias=False)
    def forward(s, idx):
        x = s.wte(idx) + s.wpe(torch.arange(idx.shape[1]))
        for b in s.h:
            x = b(x)
        return s.lm_head(s.ln_f(x))
)";

std::string torch_make(const et::GptConfig& c) {
  return "m = GPT(" + std::to_string(c.vocab_size) + ", " + std::to_string(c.block_size) + ", " +
         std::to_string(c.n_layer) + ", " + std::to_string(c.n_head) + ", " +
         std::to_string(c.n_embd) + ")\n";
}

struct RunResult {
  int status = -1;
  std::string output;
};

RunResult run_train(const std::string& args) {
  const std::string cmd = ember::testing::tool_path(EMBER_TRAIN_EXE) + " " + args + " 2>&1";
  RunResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return r;
}

}  // namespace

// ---- the corpus ----

TEST(TrainGptCorpus, ReadsAFileOrTheTextFilesOfADirectory) {
  const TempDir dir("ember_gpt_corpus");
  fs::create_directories(dir / "texts");
  std::ofstream(dir / "texts/b") << "second\n%\n";
  std::ofstream(dir / "texts/a") << "first";  // no final newline: one is added
  std::ofstream(dir / "texts/a.dat", std::ios::binary) << std::string("\0\0\1\2", 4);  // binary
  std::ofstream(dir / "texts/.hidden") << "hidden\n";
  fs::create_symlink("a", dir / "texts/a.u8");  // fortune's links are not read twice
  EXPECT_EQ(et::read_corpus(dir / "texts"), "first\nsecond\n%\n");
  EXPECT_EQ(et::read_corpus(dir / "texts/b"), "second\n%\n");

  const std::string missing = error_of([&] { et::read_corpus(dir / "nothing-here"); });
  EXPECT_NE(missing.find("--data " + dir / "nothing-here" + ": no such file or directory"),
            std::string::npos)
      << missing;
  EXPECT_NE(missing.find("fortunes"), std::string::npos) << missing;
  fs::create_directories(dir / "empty");
  const std::string empty = error_of([&] { et::read_corpus(dir / "empty"); });
  EXPECT_NE(empty.find("no text in it"), std::string::npos) << empty;
}

TEST(TrainGptCorpus, VocabularyEncodesDecodesAndRoundTripsThroughHex) {
  const et::CharVocab v("hello, world\n");
  EXPECT_EQ(v.bytes(), std::string("\n ,dehlorw"));
  EXPECT_EQ(v.size(), 10);
  const auto ids = v.encode("hello");
  EXPECT_EQ(ids, (std::vector<int64_t>{5, 4, 6, 6, 7}));
  EXPECT_EQ(v.decode(ids), "hello");
  EXPECT_EQ(v.to_hex(), "0a202c6465686c6f7277");
  EXPECT_EQ(et::CharVocab::from_hex(v.to_hex()).bytes(), v.bytes());
  EXPECT_THROW(v.encode("hex!"), ember::ValueError);  // 'x' and '!' are not in it
  EXPECT_THROW(v.decode({10}), ember::IndexError);
  EXPECT_THROW(et::CharVocab::from_hex("0a2"), ember::ValueError);
  EXPECT_THROW(et::CharVocab::from_bytes("ba"), ember::ValueError);  // not in byte order
}

TEST(TrainGptCorpus, SplitsAndWindows) {
  std::vector<int64_t> ids(100);
  for (int64_t i = 0; i < 100; ++i) ids[i] = i;
  const et::TokenSplits s(ids, 8);
  EXPECT_EQ(s.train_tokens(), 90);
  EXPECT_EQ(s.val_tokens(), 10);
  std::mt19937_64 rng(1);
  for (bool train : {true, false}) {
    auto [x, y] = s.batch(train, 5, rng);
    ASSERT_EQ(x.sizes().vec(), (std::vector<int64_t>{5, 8}));
    ASSERT_EQ(y.sizes().vec(), (std::vector<int64_t>{5, 8}));
    // y is x shifted by one; windows stay inside their part.
    EXPECT_TRUE(ember::equal(y, x + 1));
    const int64_t lo = x.min().item<int64_t>(), hi = y.max().item<int64_t>();
    EXPECT_GE(lo, train ? 0 : 90);
    EXPECT_LE(hi, train ? 89 : 99);
  }
  const std::string err = error_of([&] { et::TokenSplits(ids, 10); });
  EXPECT_NE(err.find("100 characters"), std::string::npos) << err;
  EXPECT_NE(err.find("--block-size + 1 = 11"), std::string::npos) << err;
}

// ---- the model ----

TEST(TrainGptModel, DefaultShapeParametersAndForward) {
  et::GptConfig c;
  c.vocab_size = 100;
  et::Gpt m(c);
  // V C + T C + L (12 C^2 + 13 C) + 2 C + C V, with V 100, T 64, L 4, C 128.
  EXPECT_EQ(et::parameter_count(*m), 827136);
  const auto named = m->named_parameters();
  ASSERT_EQ(named.size(), 2u + 4u * 12u + 3u);
  EXPECT_EQ(named[0].key(), "wte.weight");
  EXPECT_EQ(named[1].key(), "wpe.weight");
  EXPECT_EQ(named[2].key(), "h.0.ln_1.weight");
  EXPECT_EQ(named[4].key(), "h.0.attn.c_attn.weight");
  EXPECT_EQ(named[4].value().sizes().vec(), (std::vector<int64_t>{384, 128}));
  EXPECT_EQ(named[13].key(), "h.0.mlp.c_proj.bias");
  EXPECT_EQ(named[named.size() - 1].key(), "lm_head.weight");
  EXPECT_EQ(named[named.size() - 2].key(), "ln_f.bias");
  // nanoGPT's initialisation.
  EXPECT_NEAR(m->wte->weight.std().item<double>(), 0.02, 0.002);
  EXPECT_NEAR(m->named_parameters()["h.0.mlp.c_proj.weight"].std().item<double>(),
              0.02 / std::sqrt(8.0), 0.001);
  EXPECT_EQ(m->named_parameters()["h.1.attn.c_attn.bias"].abs().max().item<double>(), 0.0);

  ember::NoGradGuard no_grad;
  Tensor idx = ember::randint(0, 100, {3, 64});
  EXPECT_EQ(m->forward(idx).sizes().vec(), (std::vector<int64_t>{3, 64, 100}));
  EXPECT_EQ(m->forward(idx.narrow(1, 0, 5)).sizes().vec(), (std::vector<int64_t>{3, 5, 100}));
  // Causal: the logits of the first 5 positions do not depend on the tokens after them.
  expect_close(m->forward(idx).narrow(1, 0, 5), m->forward(idx.narrow(1, 0, 5)), 1e-5, 1e-5,
               "causal prefix");
  // The initial loss is about ln(vocab).
  EXPECT_NEAR(m->loss(idx, idx).item<double>(), std::log(100.0), 0.2);
  EXPECT_THROW(m->forward(ember::randint(0, 100, {1, 65})), ember::ValueError);
}

TEST(TrainGptModel, BadShapesNameTheValues) {
  et::GptConfig c = small_config(10);
  c.n_embd = 30;
  c.n_head = 4;
  const std::string err = error_of([&] { et::Gpt m(c); });
  EXPECT_NE(err.find("30 is not divisible by the number of heads (--heads) 4"), std::string::npos)
      << err;
}

TEST(TrainGptModel, ParametersMatchTorch) {
  const et::GptConfig c = small_config(11);
  et::Gpt m(c);
  auto r = TorchOracle::instance().run(
      std::string(kTorchGpt) + torch_make(c) +
          "ps = list(m.named_parameters())\n"
          "names = torch.tensor([ch for n, _ in ps for ch in (n + ';').encode()], "
          "dtype=torch.uint8)\n"
          "count = sum(p.numel() for p in m.parameters())\n",
      {}, {"names", "count"});
  std::string names;
  for (const auto& item : m->named_parameters()) names += item.key() + ";";
  const Tensor t = r.at("names").contiguous();
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(t.data_ptr<uint8_t>()),
                        static_cast<size_t>(t.numel())),
            names);
  EXPECT_EQ(r.at("count").item<int64_t>(), et::parameter_count(*m));
}

// Same weights, same batch: the same logits, loss and gradients as PyTorch 1.13.
TEST(TrainGptModel, ForwardBackwardMatchTorch) {
  ember::manual_seed(3);
  const et::GptConfig c = small_config(11);
  et::Gpt m(c);
  // Non-zero biases and LayerNorm affines, so that every parameter takes part.
  {
    ember::NoGradGuard no_grad;
    for (const Tensor& p : m->parameters()) p.add_(ember::randn(p.sizes()) * 0.05);
  }
  Tensor x = ember::randint(0, 11, {3, 16});
  Tensor y = ember::randint(0, 11, {3, 16});
  Tensor logits = m->forward(x);
  Tensor loss = m->loss(x, y);
  loss.backward();

  std::map<std::string, Tensor> inputs = {{"x", x}, {"y", y}};
  std::string code = std::string(kTorchGpt) + torch_make(c) +
                     "with torch.no_grad():\n"
                     "    for i, (n, p) in enumerate(m.named_parameters()):\n"
                     "        p.copy_(globals()['p%d' % i])\n"
                     "logits = m(x)\n"
                     "loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))\n"
                     "loss.backward()\n";
  std::vector<std::string> outputs = {"logits", "loss"};
  const auto params = m->named_parameters();
  for (size_t i = 0; i < params.size(); ++i) {
    inputs["p" + std::to_string(i)] = params[i].value().detach();
    code += "g" + std::to_string(i) + " = list(m.parameters())[" + std::to_string(i) + "].grad\n";
    outputs.push_back("g" + std::to_string(i));
  }
  auto r = TorchOracle::instance().run(code, inputs, outputs);
  expect_close(logits.detach(), r.at("logits"), 1e-4, 1e-5, "gpt logits");
  expect_close(loss.detach(), r.at("loss"), 1e-5, 1e-6, "gpt loss");
  for (size_t i = 0; i < params.size(); ++i) {
    expect_close(params[i].value().grad(), r.at("g" + std::to_string(i)), 1e-3, 1e-5,
                 "gpt grad of " + params[i].key());
  }
}

// ---- sampling ----

TEST(TrainGptSampling, TopOneIsGreedyAndCountsAreKept) {
  ember::manual_seed(4);
  et::Gpt m(small_config(7));
  const auto ids = et::generate(m, {1, 2}, 20, 0.5, 1, ember::Device("cpu"));
  ASSERT_EQ(ids.size(), 20u);
  // top-k 1: each token is the argmax after the context so far.
  std::vector<int64_t> ctx = {1, 2};
  ember::NoGradGuard no_grad;
  m->eval();
  for (int64_t id : ids) {
    const int64_t t = std::min<int64_t>(16, static_cast<int64_t>(ctx.size()));
    Tensor idx = ember::empty({1, t}, ember::kLong);
    std::copy(ctx.end() - t, ctx.end(), idx.data_ptr<int64_t>());
    EXPECT_EQ(m->forward(idx).select(1, t - 1).argmax(-1).item<int64_t>(), id);
    ctx.push_back(id);
  }
  m->train();
  // All tokens, a high temperature: every id is in range.
  for (int64_t id : et::generate(m, {0}, 50, 2.0, std::nullopt, ember::Device("cpu"))) {
    EXPECT_GE(id, 0);
    EXPECT_LT(id, 7);
  }
  EXPECT_TRUE(m->is_training());  // restored
}

TEST(TrainGptSampling, BadSettingsNameTheValue) {
  et::Gpt m(small_config(7));
  const ember::Device cpu("cpu");
  std::string err = error_of([&] { et::generate(m, {0}, 5, 0.0, std::nullopt, cpu); });
  EXPECT_NE(err.find("--temperature must be a positive finite number, got 0"), std::string::npos)
      << err;
  err = error_of([&] { et::generate(m, {0}, 5, -1.5, std::nullopt, cpu); });
  EXPECT_NE(err.find("got -1.5"), std::string::npos) << err;
  err = error_of([&] { et::generate(m, {0}, 5, 1.0, 0, cpu); });
  EXPECT_NE(err.find("--top-k must be at least 1, got 0"), std::string::npos) << err;
}

// ---- end to end ----

TEST(TrainGptE2E, ShortRunLearnsWritesFilesAndSamples) {
  const TempDir dir("ember_gpt_e2e");
  const std::string corpus = dir / "corpus.txt";
  std::ofstream(corpus) << synthetic_corpus(3000);
  const std::string out = dir / "run";
  const RunResult r =
      run_train("--model gpt --data " + corpus +
                " --steps 60 --eval-interval 20 --eval-batches 4 --batch-size 16 --block-size 32 "
                "--layers 2 --heads 2 --width 32 --lr 3e-3 --sample 80 --top-k 5 --temperature 0.8 "
                "--device cpu --seed 1 --out " +
                out);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("Corpus " + corpus + ": "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Model gpt ("), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("2 layers, 2 heads, width 32, block 32), 60 steps, batch size 16"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find('\r'), std::string::npos);  // not a terminal: plain lines
  EXPECT_NE(r.output.find("tokens/s  ETA"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("step 60/60  train loss "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("step 20/60  train loss "), std::string::npos) << r.output;
  // After an evaluation's line the next progress line waits for the next tenth of the run.
  EXPECT_EQ(r.output.find("step 21/60 "), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("step 41/60 "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Sample (80 characters, temperature 0.8, top-k 5):\n"), std::string::npos)
      << r.output;

  // metrics.csv: a row per evaluation; the validation loss falls well below ln(vocab).
  const auto csv = lines(read_file(fs::path(out) / "metrics.csv"));
  ASSERT_EQ(csv.size(), 4u) << read_file(fs::path(out) / "metrics.csv");
  EXPECT_EQ(csv[0], "step,train_loss,val_loss,tokens_per_second,seconds");
  std::vector<double> val;
  for (size_t i = 1; i < csv.size(); ++i) {
    long long step = 0;
    double train = 0, v = 0, tps = 0, secs = 0;
    ASSERT_EQ(std::sscanf(csv[i].c_str(), "%lld,%lf,%lf,%lf,%lf", &step, &train, &v, &tps, &secs),
              5)
        << csv[i];
    EXPECT_EQ(step, static_cast<long long>(20 * i));
    EXPECT_GT(tps, 0);
    EXPECT_GT(secs, 0);
    val.push_back(v);
  }
  const double ln_vocab =
      std::log(static_cast<double>(et::CharVocab(synthetic_corpus(3000)).size()));
  EXPECT_LT(val.back(), val.front()) << r.output;
  EXPECT_LT(val.back(), ln_vocab - 0.8) << r.output;

  const std::string svg = read_file(fs::path(out) / "metrics.svg");
  EXPECT_NE(svg.find(">validation loss<"), std::string::npos);
  EXPECT_NE(svg.find(">step<"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);

  // The sample: printed and in sample.txt, 80 characters of the corpus' alphabet.
  const std::string sample = read_file(fs::path(out) / "sample.txt");
  EXPECT_EQ(sample.size(), 80u);
  EXPECT_NE(r.output.find(sample), std::string::npos);

  // The checkpoint loads into the same model; its metadata holds the vocabulary and the shape.
  const std::string ckpt = (fs::path(out) / "model.safetensors").string();
  const auto meta = ember::load_metadata(ckpt);
  EXPECT_EQ(meta.at("model"), "gpt");
  EXPECT_EQ(meta.at("step"), "60");
  EXPECT_EQ(meta.at("n_embd"), "32");
  const et::CharVocab vocab = et::CharVocab::from_hex(meta.at("vocab"));
  EXPECT_EQ(vocab.bytes(), et::CharVocab(synthetic_corpus(3000)).bytes());
  et::GptConfig c;
  c.vocab_size = vocab.size();
  c.block_size = 32;
  c.n_layer = 2;
  c.n_head = 2;
  c.n_embd = 32;
  et::Gpt m(c);
  ember::load(m, ckpt);
}

TEST(TrainGptE2E, DefaultCorpusLoads) {
  if (!fs::exists(et::kDefaultCorpus)) {
    GTEST_SKIP() << et::kDefaultCorpus << " is missing (the Debian package fortunes)";
  }
  const TempDir dir("ember_gpt_default");
  const RunResult r = run_train(
      "--model gpt --steps 2 --eval-interval 2 --eval-batches 1 --batch-size 2 --layers 1 "
      "--width 16 --sample 10 --device cpu --out " +
      dir.path());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find(std::string("Corpus ") + et::kDefaultCorpus + ": "), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("block 64), 2 steps"), std::string::npos) << r.output;
}

TEST(TrainGptE2E, BadInputIsNamed) {
  const TempDir dir("ember_gpt_bad");
  // A corpus that is not there: exit 1 and the path named.
  RunResult r =
      run_train("--model gpt --data " + dir / "no-corpus" + " --device cpu --out " + dir / "run");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("--data " + dir / "no-corpus" + ": no such file or directory"),
            std::string::npos)
      << r.output;
  // Bad values on the command line: exit 2, the flag and the value named.
  r = run_train("--model gpt --top-k 0");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--top-k"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("got 0"), std::string::npos) << r.output;
  r = run_train("--model gpt --temperature 0");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--temperature"), std::string::npos) << r.output;
  r = run_train("--model gpt --temperature -2");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("-2"), std::string::npos) << r.output;
  // A corpus too short for the block size.
  std::ofstream(dir / "tiny.txt") << "abc\n";
  r = run_train("--model gpt --data " + dir / "tiny.txt" + " --device cpu --out " + dir / "run");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("the corpus has 4 characters"), std::string::npos) << r.output;
}
