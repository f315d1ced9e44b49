// MultiheadAttention, F::multi_head_attention_forward and the Transformer modules against PyTorch
// 1.13: the same weights in both (PyTorch's module runs with Ember's parameters through
// functional_call), then the outputs and the gradients of the inputs and every parameter.
#include <gtest/gtest.h>

#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/nn/modules/multihead_attention.h"
#include "ember/nn/modules/transformer.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using namespace ember;
using ember::testing::contains;
using ember::testing::error_of;
using ember::testing::expect_close;
using ember::testing::TorchOracle;
namespace F = ember::nn::functional;

namespace {

using Leaves = std::vector<std::pair<std::string, Tensor>>;

// Runs `f` in Ember and `py` (which sets `y`) in PyTorch with the leaves and the other inputs
// bound, backpropagates the same upstream gradient and compares y and every leaf's gradient.
void parity(const std::string& ctx, const std::function<Tensor()>& f, const Leaves& leaves,
            const std::map<std::string, Tensor>& extra, const std::string& py, double rtol = 1e-7,
            double atol = 1e-9) {
  for (const auto& [name, t] : leaves) t.mutable_grad().reset();
  Tensor y = f();
  Tensor gy = randn(y.sizes(), y.options());
  y.backward(gy);
  std::map<std::string, Tensor> in = extra;
  std::vector<std::string> outs{"y"};
  std::string code = py + "\ny.backward(gy)\n";
  for (const auto& [name, t] : leaves) {
    in[name] = t;
    code += "g_" + name + " = " + name + ".grad\n";
    outs.push_back("g_" + name);
  }
  in["gy"] = gy;
  auto r = TorchOracle::instance().run(code, in, outs);
  expect_close(y, r.at("y"), rtol, atol, ctx + ": output");
  for (const auto& [name, t] : leaves) {
    ASSERT_TRUE(t.grad().defined()) << ctx << ": no gradient for " << name;
    expect_close(t.grad(), r.at("g_" + name), rtol, atol, ctx + ": grad of " + name);
  }
}

// A module's parameters as leaves p_<name with . as __>, and the dict that hands them to
// PyTorch's functional_call.
std::string leaf_name(const std::string& param) {
  std::string s = "p_" + param;
  for (size_t i = 0; (i = s.find('.', i)) != std::string::npos;) s.replace(i, 1, "__");
  return s;
}
void add_params(const nn::Module& m, Leaves& leaves, std::string& dict) {
  dict = "{";
  for (const auto& p : m.named_parameters()) {
    leaves.push_back({leaf_name(p.key()), p.value()});
    dict += "'" + p.key() + "': " + leaf_name(p.key()) + ", ";
  }
  dict += "}";
}

template <typename Holder>
std::string str(const Holder& m) {
  std::ostringstream os;
  os << *m;
  return os.str();
}

Tensor input(std::vector<int64_t> shape, uint64_t seed) {
  manual_seed(seed);
  return randn(shape, kDouble).requires_grad_();
}

// [n, s] key padding: the last `pad` positions of every other row.
Tensor padding_mask(int64_t n, int64_t s, int64_t pad) {
  Tensor m = zeros({n, s}, kBool);
  for (int64_t i = 0; i < n; i += 2) m.index_put_({i, indexing::Slice(s - pad, s)}, true);
  return m;
}

const char* kPrelude =
    "from torch.nn.utils.stateless import functional_call\n"
    "def run(m, params, args, kwargs={}):\n"
    "    return functional_call(m.double(), params, args, kwargs)\n";

}  // namespace

TEST(NnTransformer, MultiheadAttentionMatchesPyTorch) {
  struct Case {
    bool batch_first, batched, cross, bias, bias_kv, zero_attn, need_weights, average;
    int64_t kdim, vdim;
    std::string mask;  // "", "bool", "float", "bool3d", "causal"
    bool kpm;
  };
  const std::vector<Case> cases = {
      {false, true, false, true, false, false, true, true, 6, 6, "", false},
      {true, true, false, true, false, false, true, false, 6, 6, "bool", false},
      {false, true, true, true, false, false, false, true, 6, 6, "float", true},
      {true, true, true, false, false, false, true, true, 4, 5, "", true},
      {false, true, false, true, true, false, true, true, 6, 6, "bool", true},
      {false, true, false, true, false, true, true, false, 6, 6, "float", true},
      {true, true, false, true, true, true, false, true, 6, 6, "causal", true},
      {false, true, true, true, false, false, true, true, 6, 6, "bool3d", false},
      {false, true, true, true, false, false, false, true, 3, 7, "bool3d", true},
      {false, false, false, true, false, false, true, true, 6, 6, "causal", false},
      {true, false, true, true, true, true, false, true, 6, 6, "float", true},
      {false, false, false, true, false, false, true, false, 6, 6, "bool3d", true},
  };
  const int64_t E = 6, H = 2, L = 4, N = 3;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const int64_t S = c.cross ? 5 : L;
    auto m = nn::MultiheadAttention(nn::MultiheadAttentionOptions(E, H)
                                        .bias(c.bias)
                                        .add_bias_kv(c.bias_kv)
                                        .add_zero_attn(c.zero_attn)
                                        .kdim(c.kdim)
                                        .vdim(c.vdim)
                                        .batch_first(c.batch_first));
    m->to(kDouble);
    auto shape = [&](int64_t seq, int64_t e) {
      if (!c.batched) return std::vector<int64_t>{seq, e};
      return c.batch_first ? std::vector<int64_t>{N, seq, e} : std::vector<int64_t>{seq, N, e};
    };
    const bool self = !c.cross && c.kdim == E && c.vdim == E;
    Tensor q = input(shape(L, E), 100 + i);
    Tensor k = self ? q : input(shape(S, c.kdim), 200 + i);
    Tensor v = self ? q : input(shape(S, c.vdim), 300 + i);
    const int64_t n = c.batched ? N : 1;
    Tensor mask;
    if (c.mask == "bool") mask = ones({L, S}, kBool).triu(1);
    if (c.mask == "float") mask = randn({L, S}, kDouble);
    if (c.mask == "causal")
      mask = nn::TransformerImpl::generate_square_subsequent_mask(L).to(kDouble);
    if (c.mask == "bool3d") mask = rand({n * H, L, S}) > 0.7;
    if (c.mask == "bool3d") mask.select(2, 0).fill_(false);  // no row fully masked
    Tensor kpm;
    if (c.kpm) kpm = c.batched ? padding_mask(N, S, 2) : padding_mask(1, S, 2).squeeze(0);
    Leaves leaves{{"q", q}};
    if (!self) leaves.push_back({"k", k}), leaves.push_back({"v", v});
    std::string dict;
    add_params(*m, leaves, dict);
    std::map<std::string, Tensor> extra;
    if (mask.defined()) extra["mask"] = mask;
    if (kpm.defined()) extra["kpm"] = kpm;
    std::ostringstream py;
    py << std::boolalpha << kPrelude;
    py << "m = torch.nn.MultiheadAttention(" << E << ", " << H
       << ", bias=" << (c.bias ? "True" : "False")
       << ", add_bias_kv=" << (c.bias_kv ? "True" : "False")
       << ", add_zero_attn=" << (c.zero_attn ? "True" : "False") << ", kdim=" << c.kdim
       << ", vdim=" << c.vdim << ", batch_first=" << (c.batch_first ? "True" : "False") << ")\n";
    py << "o, w = run(m, " << dict << ", (q, " << (self ? "q, q" : "k, v")
       << "), dict(key_padding_mask=" << (kpm.defined() ? "kpm" : "None")
       << ", attn_mask=" << (mask.defined() ? "mask" : "None")
       << ", need_weights=" << (c.need_weights ? "True" : "False")
       << ", average_attn_weights=" << (c.average ? "True" : "False") << "))\n";
    py << "y = o.flatten() if w is None else torch.cat([o.flatten(), w.flatten()])\n";
    parity(
        "MultiheadAttention case " + std::to_string(i),
        [&] {
          auto [o, w] = m->forward(q, k, v, kpm, c.need_weights, mask, c.average);
          EXPECT_EQ(w.defined(), c.need_weights);
          return w.defined() ? cat({o.flatten(), w.flatten()}) : o.flatten();
        },
        leaves, extra, py.str());
  }
}

TEST(NnTransformer, MultiheadAttentionFloat32AndDropout) {
  auto m = nn::MultiheadAttention(nn::MultiheadAttentionOptions(8, 4));
  Tensor x = randn({5, 2, 8});
  auto [a, wa] = m->forward(x, x, x);
  auto [b, wb] = m->forward(x, x, x, {}, false);
  expect_close(a, b, 1e-5, 1e-6, "need_weights true vs false");
  EXPECT_EQ(wa.sizes(), (std::vector<int64_t>{2, 5, 5}));
  // Dropout acts in training only.
  auto d = nn::MultiheadAttention(nn::MultiheadAttentionOptions(8, 4).dropout(0.5));
  d->eval();
  auto [e1, we1] = d->forward(x, x, x);
  auto [e2, we2] = d->forward(x, x, x);
  expect_close(e1, e2, 0, 0, "eval is deterministic");
  d->train();
  auto [t1, wt1] = d->forward(x, x, x);
  EXPECT_GT((wt1 - we1).abs().max().item<float>(), 1e-3);
}

TEST(NnTransformer, NeedWeightsFalseRunsScaledDotProductAttention) {
  namespace att = ember::nn::attention;
  auto m = nn::MultiheadAttention(8, 2);
  Tensor x = randn({3, 2, 8});
  {
    att::SdpaKernelGuard math({att::SDPBackend::MATH});
    m->forward(x, x, x, {}, false);
    EXPECT_EQ(att::last_choice().backend, att::SDPBackend::MATH);
  }
  // A backend Ember lacks: the weights path does not call it, the other one does.
  att::SdpaKernelGuard none({att::SDPBackend::EFFICIENT_ATTENTION});
  EXPECT_NO_THROW(m->forward(x, x, x, {}, true));
  std::string e = error_of([&] { m->forward(x, x, x, {}, false); });
  EXPECT_TRUE(contains(e, "no enabled backend")) << e;
}

TEST(NnTransformer, FunctionalSeparateProjections) {
  const int64_t E = 4, H = 2;
  Tensor q = input({3, 2, E}, 1), k = input({5, 2, 3}, 2), v = input({5, 2, 6}, 3);
  Tensor wq = input({E, E}, 4), wk = input({E, 3}, 5), wv = input({E, 6}, 6), b = input({3 * E}, 7);
  Tensor wo = input({E, E}, 8), bo = input({E}, 9);
  parity(
      "F::multi_head_attention_forward separate weights",
      [&] {
        auto [o, w] = F::multi_head_attention_forward(
            q, k, v,
            F::MultiheadAttentionForwardFuncOptions(E, H, {}, b, {}, {}, false, 0.0, wo, bo)
                .use_separate_proj_weight(true)
                .q_proj_weight(wq)
                .k_proj_weight(wk)
                .v_proj_weight(wv)
                .average_attn_weights(false));
        return cat({o.flatten(), w.flatten()});
      },
      {{"q", q},
       {"k", k},
       {"v", v},
       {"wq", wq},
       {"wk", wk},
       {"wv", wv},
       {"b", b},
       {"wo", wo},
       {"bo", bo}},
      {},
      "o, w = F.multi_head_attention_forward(q, k, v, 4, 2, None, b, None, None, False, 0.0, wo, "
      "bo, use_separate_proj_weight=True, q_proj_weight=wq, k_proj_weight=wk, v_proj_weight=wv, "
      "average_attn_weights=False)\ny = torch.cat([o.flatten(), w.flatten()])");
}

TEST(NnTransformer, EncoderLayerMatchesPyTorch) {
  struct Case {
    bool batch_first, norm_first;
    std::string activation;  // relu, gelu, or "fn" (a callable: tanh)
    std::string mask;        // "", "causal", "bool"
    bool kpm, batched;
  };
  const std::vector<Case> cases = {
      {false, false, "relu", "", false, true},        {true, false, "gelu", "causal", true, true},
      {true, true, "gelu", "causal", false, true},    {false, true, "fn", "bool", true, true},
      {false, false, "relu", "causal", false, false},
  };
  const int64_t E = 8, H = 2, S = 5, N = 3;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    auto opts = nn::TransformerEncoderLayerOptions(E, H)
                    .dim_feedforward(12)
                    .dropout(0.0)
                    .batch_first(c.batch_first)
                    .norm_first(c.norm_first);
    if (c.activation == "gelu") opts.activation(kGELU);
    if (c.activation == "fn") opts.activation([](const Tensor& t) { return t.tanh(); });
    auto m = nn::TransformerEncoderLayer(opts);
    m->to(kDouble);
    std::vector<int64_t> shape = !c.batched      ? std::vector<int64_t>{S, E}
                                 : c.batch_first ? std::vector<int64_t>{N, S, E}
                                                 : std::vector<int64_t>{S, N, E};
    Tensor x = input(shape, 40 + i);
    Tensor mask, kpm;
    if (c.mask == "causal")
      mask = nn::TransformerImpl::generate_square_subsequent_mask(S).to(kDouble);
    if (c.mask == "bool") mask = ones({S, S}, kBool).triu(1);
    if (c.kpm) kpm = padding_mask(N, S, 2);
    Leaves leaves{{"x", x}};
    std::string dict;
    add_params(*m, leaves, dict);
    std::map<std::string, Tensor> extra;
    if (mask.defined()) extra["mask"] = mask;
    if (kpm.defined()) extra["kpm"] = kpm;
    std::string act = c.activation == "fn" ? "torch.tanh" : "'" + c.activation + "'";
    std::string py = std::string(kPrelude) +
                     "m = torch.nn.TransformerEncoderLayer(8, 2, 12, 0.0, " + act +
                     ", batch_first=" + (c.batch_first ? "True" : "False") +
                     ", norm_first=" + (c.norm_first ? "True" : "False") + ")\n" + "y = run(m, " +
                     dict + ", (x,), dict(src_mask=" + (mask.defined() ? "mask" : "None") +
                     ", src_key_padding_mask=" + (kpm.defined() ? "kpm" : "None") + "))";
    parity(
        "TransformerEncoderLayer case " + std::to_string(i),
        [&] { return m->forward(x, mask, kpm); }, leaves, extra, py);
  }
}

TEST(NnTransformer, StacksAndTransformerMatchPyTorch) {
  const int64_t E = 8, H = 2, S = 5, T = 4, N = 2;
  // TransformerEncoder with a final norm (two clones of the layer).
  for (bool batch_first : {false, true}) {
    auto enc = nn::TransformerEncoder(
        nn::TransformerEncoderOptions(
            nn::TransformerEncoderLayerOptions(E, H).dim_feedforward(10).dropout(0.0).batch_first(
                batch_first),
            2)
            .norm(nn::AnyModule(nn::LayerNorm(nn::LayerNormOptions({E})))));
    enc->to(kDouble);
    Tensor x =
        input(batch_first ? std::vector<int64_t>{N, S, E} : std::vector<int64_t>{S, N, E}, 50);
    Tensor mask = nn::TransformerImpl::generate_square_subsequent_mask(S).to(kDouble);
    Tensor kpm = padding_mask(N, S, 1);
    Leaves leaves{{"x", x}};
    std::string dict;
    add_params(*enc, leaves, dict);
    std::string bf = batch_first ? "True" : "False";
    parity(
        "TransformerEncoder batch_first=" + bf, [&] { return enc->forward(x, mask, kpm); }, leaves,
        {{"mask", mask}, {"kpm", kpm}},
        std::string(kPrelude) +
            "m = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(" +
            "8, 2, 10, 0.0, batch_first=" + bf + "), 2, norm=torch.nn.LayerNorm(8))\n" +
            "y = run(m, " + dict + ", (x, mask, kpm))");
  }
  // TransformerDecoderLayer and TransformerDecoder: every mask, norm_first, gelu.
  for (bool norm_first : {false, true}) {
    auto layer_opts =
        nn::TransformerDecoderLayerOptions(E, H)
            .dim_feedforward(10)
            .dropout(0.0)
            .norm_first(norm_first)
            .activation(norm_first ? nn::activation_t(kGELU) : nn::activation_t(kReLU));
    auto dec = nn::TransformerDecoder(nn::TransformerDecoderOptions(layer_opts, 2));
    dec->to(kDouble);
    Tensor tgt = input({T, N, E}, 60), memory = input({S, N, E}, 61);
    Tensor tgt_mask = nn::TransformerImpl::generate_square_subsequent_mask(T).to(kDouble);
    Tensor mem_mask = ones({T, S}, kBool).triu(2);
    Tensor tgt_kpm = padding_mask(N, T, 1), mem_kpm = padding_mask(N, S, 2);
    Leaves leaves{{"tgt", tgt}, {"memory", memory}};
    std::string dict;
    add_params(*dec, leaves, dict);
    std::string nf = norm_first ? "True" : "False";
    parity(
        "TransformerDecoder norm_first=" + nf,
        [&] { return dec->forward(tgt, memory, tgt_mask, mem_mask, tgt_kpm, mem_kpm); }, leaves,
        {{"tm", tgt_mask}, {"mm", mem_mask}, {"tk", tgt_kpm}, {"mk", mem_kpm}},
        std::string(kPrelude) +
            "m = torch.nn.TransformerDecoder(torch.nn.TransformerDecoderLayer(" +
            "8, 2, 10, 0.0, " + (norm_first ? "'gelu'" : "'relu'") + ", norm_first=" + nf +
            "), 2)\ny = run(m, " + dict + ", (tgt, memory, tm, mm, tk, mk))");
  }
  // The whole Transformer, batch_first, with its causal mask.
  auto t = nn::Transformer(nn::TransformerOptions(E, H, 2, 1)
                               .dim_feedforward(10)
                               .dropout(0.0)
                               .batch_first(true)
                               .activation("gelu"));
  t->to(kDouble);
  Tensor src = input({N, S, E}, 70), tgt = input({N, T, E}, 71);
  Tensor tgt_mask = nn::TransformerImpl::generate_square_subsequent_mask(T).to(kDouble);
  Tensor src_kpm = padding_mask(N, S, 1);
  Leaves leaves{{"src", src}, {"tgt", tgt}};
  std::string dict;
  add_params(*t, leaves, dict);
  parity(
      "Transformer", [&] { return t->forward(src, tgt, {}, tgt_mask, {}, src_kpm, {}, src_kpm); },
      leaves, {{"tm", tgt_mask}, {"sk", src_kpm}},
      std::string(kPrelude) +
          "m = torch.nn.Transformer(8, 2, 2, 1, 10, 0.0, 'gelu', batch_first=True)\n" +
          "y = run(m, " + dict +
          ", (src, tgt), dict(tgt_mask=tm, src_key_padding_mask=sk, "
          "memory_key_padding_mask=sk))");
}

TEST(NnTransformer, SquareSubsequentMaskAndNames) {
  auto r = TorchOracle::instance().run(
      "y = torch.nn.Transformer.generate_square_subsequent_mask(4)", {}, {"y"});
  expect_close(nn::TransformerImpl::generate_square_subsequent_mask(4), r.at("y"), 0, 0, "mask");
  // state_dict names as PyTorch's.
  auto t = nn::Transformer(nn::TransformerOptions(8, 2, 1, 1).dim_feedforward(16));
  std::string names;
  for (const auto& p : t->named_parameters()) names += p.key() + ",";
  auto py = TorchOracle::instance().run(
      "t = torch.nn.Transformer(8, 2, 1, 1, 16)\n"
      "names = ','.join(k for k, _ in t.named_parameters()) + ','\n"
      "y = torch.tensor([ord(ch) for ch in names])",
      {}, {"y"});
  std::string expected;
  for (double ch : ember::testing::to_doubles(py.at("y"))) expected += static_cast<char>(ch);
  EXPECT_EQ(names, expected);
  auto mha = nn::MultiheadAttention(nn::MultiheadAttentionOptions(8, 2).kdim(4).add_bias_kv(true));
  std::string mha_names;
  for (const auto& p : mha->named_parameters()) mha_names += p.key() + ",";
  EXPECT_EQ(mha_names,
            "q_proj_weight,k_proj_weight,v_proj_weight,in_proj_bias,bias_k,bias_v,"
            "out_proj.weight,out_proj.bias,");
  // PyTorch's initialisation: zero biases, bias_k drawn.
  EXPECT_EQ(mha->in_proj_bias.abs().sum().item<float>(), 0.0f);
  EXPECT_EQ(mha->out_proj->bias.abs().sum().item<float>(), 0.0f);
  EXPECT_GT(mha->bias_k.abs().sum().item<float>(), 0.0f);
}

TEST(NnTransformer, BadInput) {
  std::string e = error_of([] { nn::MultiheadAttention(8, 3); });
  EXPECT_TRUE(contains(e, "embed_dim must be divisible by num_heads")) << e;
  auto m = nn::MultiheadAttention(8, 2);
  Tensor x = randn({3, 2, 8});
  e = error_of([&] { m->forward(x, x, x, {}, true, zeros({2, 2}, kBool)); });
  EXPECT_TRUE(contains(e, "The shape of the 2D attn_mask is [2, 2], but should be (3, 3).")) << e;
  e = error_of([&] { m->forward(x, x, x, {}, true, zeros({3, 3, 3}, kBool)); });
  EXPECT_TRUE(contains(e, "The shape of the 3D attn_mask is [3, 3, 3], but should be (4, 3, 3)."))
      << e;
  e = error_of([&] { m->forward(x, x, x, zeros({2, 3}, kLong)); });
  EXPECT_TRUE(contains(e, "only bool and floating types of key_padding_mask are supported")) << e;
  e = error_of([&] { m->forward(x, x, x, zeros({2, 4}, kBool)); });
  EXPECT_TRUE(contains(e, "expecting key_padding_mask shape of (2, 3), but got [2, 4]")) << e;
  e = error_of([&] { m->forward(randn({3, 2, 6}), randn({3, 2, 6}), randn({3, 2, 6})); });
  EXPECT_TRUE(contains(e, "was expecting embedding dimension of 8, but got 6")) << e;
  e = error_of([&] { m->forward(randn({2, 3, 2, 8}), x, x); });
  EXPECT_TRUE(contains(e, "query should be unbatched 2D or batched 3D tensor but received 4-D"))
      << e;
  e = error_of([&] { m->forward(x, randn({3, 8}), randn({3, 8})); });
  EXPECT_TRUE(contains(e,
                       "For batched (3-D) `query`, expected `key` and `value` to be 3-D but "
                       "found 2-D and 2-D tensors respectively"))
      << e;
  e = error_of([&] { m->forward(x, x, x, {}, true, zeros({3, 3}, kInt)); });
  EXPECT_TRUE(contains(e, "Only float, byte, and bool types are supported for attn_mask")) << e;
  // The module still works.
  auto [o, w] = m->forward(x, x, x);
  EXPECT_EQ(o.sizes(), x.sizes());
  auto t = nn::Transformer(nn::TransformerOptions(8, 2, 1, 1).dim_feedforward(8));
  e = error_of([&] { t->forward(randn({3, 2, 8}), randn({4, 3, 8})); });
  EXPECT_TRUE(contains(e, "the batch number of src and tgt must be equal")) << e;
  e = error_of([&] { t->forward(randn({3, 2, 6}), randn({4, 2, 6})); });
  EXPECT_TRUE(contains(e, "the feature number of src and tgt must be equal to d_model")) << e;
  EXPECT_EQ(t->forward(randn({3, 2, 8}), randn({4, 2, 8})).sizes(),
            (std::vector<int64_t>{4, 2, 8}));
  e = error_of([] { nn::TransformerEncoderLayerOptions(8, 2).activation("tanh"); });
  EXPECT_TRUE(contains(e, "activation should be relu/gelu, not tanh")) << e;
}

TEST(NnTransformer, ClonesAreDeep) {
  auto enc = nn::TransformerEncoder(
      nn::TransformerEncoderLayer(nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(8)), 2);
  // The two layers are clones with their own parameters.
  auto l0 = enc->layers->ptr<nn::TransformerEncoderLayerImpl>(0);
  auto l1 = enc->layers->ptr<nn::TransformerEncoderLayerImpl>(1);
  EXPECT_FALSE(l0->linear1->weight.is_same(l1->linear1->weight));
  auto copy = std::dynamic_pointer_cast<nn::TransformerEncoderImpl>(enc->clone());
  ASSERT_TRUE(copy);
  enc->eval();
  copy->eval();
  Tensor x = randn({4, 2, 8});
  expect_close(copy->forward(x), enc->forward(x), 0, 0, "clone");
}

TEST(NnTransformer, Printouts) {
  auto mha = nn::MultiheadAttention(nn::MultiheadAttentionOptions(8, 2).kdim(4));
  EXPECT_EQ(str(mha),
            "ember::nn::MultiheadAttention(\n"
            "  (out_proj): ember::nn::Linear(in_features=8, out_features=8, bias=true)\n"
            ")");
  auto layer =
      nn::TransformerEncoderLayer(nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16));
  EXPECT_EQ(str(layer),
            "ember::nn::TransformerEncoderLayerImpl(\n"
            "  (self_attn): ember::nn::MultiheadAttention(\n"
            "    (out_proj): ember::nn::Linear(in_features=8, out_features=8, bias=true)\n"
            "  )\n"
            "  (linear1): ember::nn::Linear(in_features=8, out_features=16, bias=true)\n"
            "  (dropout): ember::nn::Dropout(p=0.1, inplace=false)\n"
            "  (linear2): ember::nn::Linear(in_features=16, out_features=8, bias=true)\n"
            "  (norm1): ember::nn::LayerNorm([8], eps=1e-05, elementwise_affine=true)\n"
            "  (norm2): ember::nn::LayerNorm([8], eps=1e-05, elementwise_affine=true)\n"
            "  (dropout1): ember::nn::Dropout(p=0.1, inplace=false)\n"
            "  (dropout2): ember::nn::Dropout(p=0.1, inplace=false)\n"
            ")");
  auto t = nn::Transformer(nn::TransformerOptions(8, 2, 1, 1).dim_feedforward(16));
  std::string s = str(t);
  EXPECT_TRUE(contains(s,
                       "ember::nn::TransformerImpl(\n"
                       "  (encoder): ember::nn::TransformerEncoderImpl(\n"
                       "    (layers): ember::nn::ModuleList(\n"
                       "      (0): ember::nn::TransformerEncoderLayerImpl(\n"))
      << s;
  EXPECT_TRUE(contains(s,
                       "    (norm): ember::nn::LayerNorm([8], eps=1e-05, elementwise_affine=true)\n"
                       "  )\n"
                       "  (decoder): ember::nn::TransformerDecoderImpl(\n"))
      << s;
  EXPECT_TRUE(contains(s, "        (multihead_attn): ember::nn::MultiheadAttention(\n")) << s;
  EXPECT_TRUE(contains(s,
                       "        (norm3): ember::nn::LayerNorm([8], eps=1e-05, "
                       "elementwise_affine=true)\n"))
      << s;
}
