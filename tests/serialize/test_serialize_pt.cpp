// ember::load_pt / save_pt against PyTorch 1.13: files written by torch.save load with the same
// bytes, strides, offsets and shared storages; files written by Ember load in torch.load, also
// with weights_only=True; nested checkpoints keep their structure. Fixtures are made by PyTorch
// at test time (no binaries in the repository). Hostile files are in test_serialize_pt_hostile.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include "ember/nn.h"
#include "ember/ops.h"
#include "ember/optim.h"
#include "ember/serialize_pt.h"
#include "ember/serialize_pt_optimizer.h"
#include "serialize/zip_archive.h"
#include "support/cuda_skip.h"
#include "support/temp_dir.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

namespace {

using ember::PtValue;
using ember::Tensor;
using ember::testing::TempDir;
using Kind = PtValue::Kind;

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}
void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Shared by the scripts: the test pattern of every dtype (exact in each), and raw bytes out.
const char* kPrelude = R"PY(
import collections, os, sys, torch
D = os.path.dirname(os.path.abspath(sys.argv[0]))
DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32,
          torch.int16, torch.int8, torch.uint8, torch.bool]
def pattern(n, dt):
    i = torch.arange(n, dtype=torch.int64)
    if dt == torch.bool: return i % 3 == 0
    if dt == torch.uint8: return ((i * 37) % 256).to(dt)
    if dt == torch.int8: return ((i * 37) % 256 - 128).to(dt)
    if dt.is_floating_point: return ((i % 97).to(torch.float64) * 0.25 - 12.0).to(dt)
    return ((i * 7919) % 30000 - 15000).to(dt)
def raw(t):
    return t.detach().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()
)PY";

// Runs `body` after the prelude with /usr/bin/python3's torch, expecting it to succeed; false
// only when there is no torch to run it (the caller skips). The script's output is in *out.
bool run_torch(const TempDir& dir, const std::string& body, std::string* out) {
  write_file(dir / "script.py", std::string(kPrelude) + body);
  const std::string cmd = ember::testing::torch_python() + " '" + (dir / "script.py") + "' > '" +
                          (dir / "py.log") + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  *out = read_file(dir / "py.log");
  if (rc != 0 && out->find("No module named 'torch'") != std::string::npos) return false;
  EXPECT_EQ(rc, 0) << *out;
  return true;
}

std::string bytes_of(const Tensor& t) {
  const Tensor c = t.detach().cpu().contiguous();
  return std::string(static_cast<const char*>(c.data_ptr()), c.nbytes());
}

const ember::StorageImpl* storage_of(const Tensor& t) {
  return t.unsafeGetTensorImpl()->storage().get();
}

}  // namespace

TEST(PtPyTorchParity, StateDictOfEveryDtypeWithViewsLoads) {
  TempDir dir;
  std::string out;
  if (!run_torch(dir, R"PY(
sd = collections.OrderedDict()
for k, dt in enumerate(DTYPES):
    sd['t%d' % k] = pattern(12, dt).reshape(3, 4)
base = pattern(24, torch.float32).reshape(4, 6)
sd['base'] = base
sd['transposed'] = base.t()          # non-contiguous view of base's storage
sd['row'] = base[2]                  # offset 12 into it
sd['strided'] = base[:, ::2]         # strides (6, 2)
sd['scalar'] = torch.tensor(2.5, dtype=torch.float64)
sd['empty'] = torch.zeros(0, 5)
torch.save(sd, D + '/sd.pt')
for name, t in sd.items():
    open(D + '/' + name + '.raw', 'wb').write(raw(t))
print('saved', len(sd))
)PY",
                 &out)) {
    GTEST_SKIP() << "no python3 with torch";
  }
  const ember::NamedTensors sd = ember::load_pt(dir / "sd.pt");
  ASSERT_EQ(sd.size(), 16u);
  const std::vector<ember::ScalarType> dtypes = {
      ember::kFloat, ember::kDouble, ember::kHalf, ember::kBFloat16, ember::kLong,
      ember::kInt,   ember::kShort,  ember::kChar, ember::kByte,     ember::kBool};
  for (size_t k = 0; k < dtypes.size(); ++k) {
    EXPECT_EQ(sd[k].first, "t" + std::to_string(k));
    EXPECT_EQ(sd[k].second.scalar_type(), dtypes[k]) << sd[k].first;
    EXPECT_EQ(sd[k].second.sizes().vec(), (std::vector<int64_t>{3, 4}));
  }
  std::map<std::string, Tensor> by_name(sd.begin(), sd.end());
  for (const auto& [name, t] : sd) {
    EXPECT_TRUE(t.is_cpu());
    EXPECT_EQ(bytes_of(t), read_file(dir / (name + ".raw"))) << name;
  }
  const Tensor& base = by_name["base"];
  EXPECT_EQ(by_name["transposed"].strides().vec(), (std::vector<int64_t>{1, 6}));
  EXPECT_EQ(by_name["row"].storage_offset(), 12);
  EXPECT_EQ(by_name["strided"].strides().vec(), (std::vector<int64_t>{6, 2}));
  for (const char* view : {"transposed", "row", "strided"}) {
    EXPECT_EQ(storage_of(by_name[view]), storage_of(base)) << view << " lost its shared storage";
  }
  EXPECT_EQ(by_name["scalar"].dim(), 0);
  EXPECT_EQ(by_name["empty"].sizes().vec(), (std::vector<int64_t>{0, 5}));
  // A write through one view is seen by the others, as in PyTorch.
  base.fill_(1.0);
  EXPECT_EQ(by_name["row"].sum().item<double>(), 6.0);
}

TEST(PtPyTorchParity, LegacyFormatLoads) {
  TempDir dir;
  std::string out;
  if (!run_torch(dir, R"PY(
sd = collections.OrderedDict()
for k, dt in enumerate(DTYPES):
    sd['t%d' % k] = pattern(6, dt).reshape(2, 3)
base = pattern(12, torch.float32).reshape(3, 4)
sd['base'] = base
sd['col'] = base[:, 1]
torch.save({'sd': sd, 'step': 9}, D + '/old.pt', _use_new_zipfile_serialization=False)
for name, t in sd.items():
    open(D + '/' + name + '.raw', 'wb').write(raw(t))
print('saved')
)PY",
                 &out)) {
    GTEST_SKIP() << "no python3 with torch";
  }
  const PtValue obj = ember::load_pt_object(dir / "old.pt");
  EXPECT_EQ(obj.get("step")->integer, 9);
  const ember::NamedTensors sd = ember::pt_as_state_dict(*obj.get("sd"));
  ASSERT_EQ(sd.size(), 12u);
  for (const auto& [name, t] : sd) {
    EXPECT_EQ(bytes_of(t), read_file(dir / (name + ".raw"))) << name;
  }
  EXPECT_EQ(sd[9].second.scalar_type(), ember::kBool);
  EXPECT_EQ(storage_of(sd[10].second), storage_of(sd[11].second));
  EXPECT_EQ(sd[11].second.strides().vec(), (std::vector<int64_t>{4}));
}

TEST(PtPyTorchParity, NestedCheckpointKeepsItsStructure) {
  TempDir dir;
  std::string out;
  if (!run_torch(dir, R"PY(
torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
opt = torch.optim.Adam(model.parameters(), lr=0.01)
model(torch.randn(4, 3)).sum().backward()
opt.step()
shared = torch.arange(6.0)
ckpt = {'model': model.state_dict(), 'optimizer': opt.state_dict(), 'epoch': 7,
        'loss': -0.125, 'name': 'run-\u00e9', 'flags': [True, False, None], 'shape': (2, 3),
        'big': -2**40, 'where': torch.device('cuda', 1), 'dtype': torch.bfloat16,
        'same': [shared, shared], 'param': torch.nn.Parameter(torch.ones(2))}
torch.save(ckpt, D + '/ckpt.pt')
open(D + '/w.raw', 'wb').write(raw(model.weight))
open(D + '/m.raw', 'wb').write(raw(opt.state_dict()['state'][0]['exp_avg']))
print('saved')
)PY",
                 &out)) {
    GTEST_SKIP() << "no python3 with torch";
  }
  const PtValue ckpt = ember::load_pt_object(dir / "ckpt.pt");
  ASSERT_EQ(ckpt.kind, Kind::Dict);
  EXPECT_FALSE(ckpt.ordered);
  const auto model = ckpt.get("model");
  ASSERT_TRUE(model && model->kind == Kind::Dict && model->ordered);
  ASSERT_EQ(model->entries.size(), 2u);
  EXPECT_EQ(model->entries[0].first->string, "weight");
  EXPECT_EQ(bytes_of(model->get("weight")->tensor), read_file(dir / "w.raw"));
  EXPECT_EQ(ckpt.get("epoch")->integer, 7);
  EXPECT_EQ(ckpt.get("loss")->floating, -0.125);
  EXPECT_EQ(ckpt.get("name")->string, "run-\xc3\xa9");
  EXPECT_EQ(ckpt.get("big")->integer, -(int64_t{1} << 40));
  const auto flags = ckpt.get("flags");
  ASSERT_EQ(flags->items.size(), 3u);
  EXPECT_TRUE(flags->items[0]->boolean);
  EXPECT_EQ(flags->items[1]->kind, Kind::Bool);
  EXPECT_EQ(flags->items[2]->kind, Kind::None);
  EXPECT_EQ(ckpt.get("shape")->kind, Kind::Tuple);
  EXPECT_EQ(ckpt.get("shape")->items[1]->integer, 3);
  EXPECT_EQ(ckpt.get("where")->kind, Kind::Device);
  EXPECT_EQ(ckpt.get("where")->string, "cuda:1");
  EXPECT_EQ(ckpt.get("dtype")->dtype, ember::kBFloat16);
  const auto same = ckpt.get("same");
  EXPECT_EQ(same->items[0], same->items[1]) << "one tensor referenced twice must stay one";
  const auto param = ckpt.get("param");
  EXPECT_TRUE(param->is_parameter);
  EXPECT_TRUE(param->requires_grad);
  EXPECT_TRUE(param->tensor.requires_grad());
  // The optimizer: {'state': {0: {'step': tensor, 'exp_avg': ..}}, 'param_groups': [{..}]}.
  const auto opt = ckpt.get("optimizer");
  const auto state = opt->get("state");
  ASSERT_EQ(state->entries.size(), 2u);
  EXPECT_EQ(state->entries[0].first->kind, Kind::Int);
  const auto& s0 = state->entries[0].second;
  EXPECT_EQ(bytes_of(s0->get("exp_avg")->tensor), read_file(dir / "m.raw"));
  const auto group = opt->get("param_groups")->items.at(0);
  EXPECT_EQ(group->get("lr")->floating, 0.01);
  EXPECT_EQ(group->get("betas")->kind, Kind::Tuple);
  // load_pt wants a state dict and says what the file holds instead.
  const std::string err =
      ember::testing::error_of<ember::ValueError>([&] { ember::load_pt(dir / "ckpt.pt"); });
  EXPECT_NE(err.find("'model' (OrderedDict)"), std::string::npos) << err;
  EXPECT_NE(err.find("load_pt_object"), std::string::npos) << err;
  const ember::NamedTensors model_sd = ember::pt_as_state_dict(*model);
  ASSERT_EQ(model_sd.size(), 2u);
  EXPECT_EQ(model_sd[1].first, "bias");
}

TEST(PtPyTorchParity, TensorsSavedFromCudaLoadOnTheCpu) {
  TempDir dir;
  std::string out;
  // A CPU-only PyTorch writes what a GPU box would: the location tag is the only difference.
  if (!run_torch(dir, R"PY(
import torch.serialization as ser
ser.location_tag = lambda storage: 'cuda:0'
t = pattern(6, torch.float16)
torch.save({'w': t}, D + '/cuda.pt')
open(D + '/w.raw', 'wb').write(raw(t))
print('saved')
)PY",
                 &out)) {
    GTEST_SKIP() << "no python3 with torch";
  }
  const PtValue obj = ember::load_pt_object(dir / "cuda.pt");
  const auto w = obj.get("w");
  EXPECT_EQ(w->location, "cuda:0");
  EXPECT_TRUE(w->tensor.is_cpu());
  EXPECT_EQ(bytes_of(w->tensor), read_file(dir / "w.raw"));
  ember::PtLoadOptions to_cpu;
  to_cpu.device = ember::Device(ember::kCPU);
  EXPECT_TRUE(ember::load_pt(dir / "cuda.pt", to_cpu)[0].second.is_cpu());
}

TEST(PtPyTorchParity, EmberWritesPyTorchReadsWithWeightsOnly) {
  TempDir dir;
  ember::NamedTensors sd;
  const std::vector<ember::ScalarType> dtypes = {
      ember::kFloat, ember::kDouble, ember::kHalf, ember::kBFloat16, ember::kLong,
      ember::kInt,   ember::kShort,  ember::kChar, ember::kByte,     ember::kBool};
  for (size_t k = 0; k < dtypes.size(); ++k) {
    Tensor t = ember::arange(12, ember::kLong).remainder(5).sub(2).to(dtypes[k]).reshape({3, 4});
    sd.emplace_back("t" + std::to_string(k), t);
  }
  Tensor base = ember::arange(24, ember::kFloat).mul(0.5).reshape({4, 6});
  sd.emplace_back("base", base);
  sd.emplace_back("transposed", base.t());
  sd.emplace_back("row", base[2]);
  sd.emplace_back("strided", base.slice(1, 0, 6, 2));
  sd.emplace_back("scalar", ember::scalar_tensor(-3.25, ember::kDouble));
  ember::save_pt(sd, dir / "ember.pt");
  for (const auto& [name, t] : sd) write_file(dir / (name + ".raw"), bytes_of(t));

  auto nested =
      ember::pt_dict({{"model", ember::pt_state_dict({{"w", base}})},
                      {"epoch", ember::pt_int(3)},
                      {"lr", ember::pt_float(1e-3)},
                      {"tag", ember::pt_string("x")},
                      {"ok", ember::pt_bool(true)},
                      {"none", ember::pt_none()},
                      {"list", ember::pt_list({ember::pt_int(-70000), ember::pt_int(1ll << 40)})},
                      {"tuple", ember::pt_tuple({ember::pt_tensor(base.t())})}});
  ember::save_pt(*nested, dir / "nested.pt");
  // PyTorch 1.13's weights_only unpickler has no BINFLOAT opcode, so it cannot read any float
  // (torch.save's own files included; 2.x can): the weights_only pass reads one without.
  auto no_float = ember::pt_dict({{"epoch", ember::pt_int(3)}, {"w", ember::pt_tensor(base)}});
  ember::save_pt(*no_float, dir / "no_float.pt");

  std::string out;
  if (!run_torch(dir, R"PY(
for weights_only in (False, True):
    sd = torch.load(D + '/ember.pt', weights_only=weights_only)
    assert isinstance(sd, collections.OrderedDict), type(sd)
    assert len(sd) == 15, list(sd)
    for name, t in sd.items():
        assert raw(t) == open(D + '/' + name + '.raw', 'rb').read(), name
    assert [d for d in (sd['t%d' % k].dtype for k in range(10))] == DTYPES
    base = sd['base']
    for v in ('transposed', 'row', 'strided'):
        assert sd[v].storage().data_ptr() == base.storage().data_ptr(), v
    assert sd['transposed'].stride() == (1, 6) and sd['row'].storage_offset() == 12
    assert sd['strided'].stride() == (6, 2) and sd['scalar'].dim() == 0
    f = torch.load(D + '/no_float.pt', weights_only=weights_only)
    assert f['epoch'] == 3 and torch.equal(f['w'], base)
n = torch.load(D + '/nested.pt')
assert n['epoch'] == 3 and n['lr'] == 1e-3 and n['tag'] == 'x' and n['ok'] is True
assert n['none'] is None and n['list'] == [-70000, 2**40], n['list']
assert torch.equal(n['tuple'][0], n['model']['w'].t())
assert n['tuple'][0].storage().data_ptr() == n['model']['w'].storage().data_ptr()
print('ok')
)PY",
                 &out)) {
    GTEST_SKIP() << "no python3 with torch";
  }
  EXPECT_NE(out.find("ok"), std::string::npos) << out;
}

TEST(PtRoundTrip, EmberToEmberKeepsSharingAndParameters) {
  TempDir dir;
  Tensor base = ember::arange(10, ember::kFloat);
  Tensor p = ember::ones({2, 2}, ember::kFloat).requires_grad_(true);
  PtValue param = *ember::pt_tensor(p);
  param.is_parameter = true;
  auto obj = ember::pt_dict({{"a", ember::pt_tensor(base)},
                             {"b", ember::pt_tensor(base.slice(0, 3, 7))},
                             {"p", std::make_shared<const PtValue>(param)}});
  const std::string bytes = ember::save_pt_bytes(*obj);
  const PtValue back = ember::load_pt_object_bytes(bytes);
  EXPECT_EQ(storage_of(back.get("a")->tensor), storage_of(back.get("b")->tensor));
  EXPECT_EQ(back.get("b")->tensor.storage_offset(), 3);
  EXPECT_EQ(bytes_of(back.get("b")->tensor), bytes_of(base.slice(0, 3, 7)));
  EXPECT_TRUE(back.get("p")->is_parameter);
  EXPECT_TRUE(back.get("p")->tensor.requires_grad());
  // The data records start at multiples of 64, as PyTorch aligns them.
  const ember::zip::Reader zip(
      bytes.size(), [&](uint64_t o, void* d, size_t n) { std::memcpy(d, bytes.data() + o, n); },
      "mem");
  for (const auto& e : zip.entries()) {
    if (e.name.rfind("archive/data/", 0) == 0) EXPECT_EQ(e.data_offset % 64, 0u) << e.name;
  }
}

TEST(PtModule, LinearLoadsPyTorchWeightsAndComputesTheSame) {
  TempDir dir;
  std::string out;
  if (!run_torch(dir, R"PY(
torch.manual_seed(1)
m = torch.nn.Sequential(torch.nn.Linear(5, 4), torch.nn.BatchNorm1d(4))
m(torch.randn(8, 5))  # running stats move
m.eval()
torch.save(m.state_dict(), D + '/m.pth')
x = torch.randn(3, 5)
torch.save({'x': x, 'y': m(x).detach()}, D + '/xy.pt')
print('saved')
)PY",
                 &out)) {
    GTEST_SKIP() << "no python3 with torch";
  }
  ember::nn::Sequential m(ember::nn::Linear(5, 4), ember::nn::BatchNorm1d(4));
  m->load_state_dict(ember::load_pt(dir / "m.pth"));
  m->eval();
  const PtValue xy = ember::load_pt_object(dir / "xy.pt");
  const Tensor y = m->forward(xy.get("x")->tensor);
  EXPECT_TRUE(ember::allclose(y, xy.get("y")->tensor, 1e-5, 1e-6));
}

TEST(PtZip, Zip64RecordsReadHereAndInPython) {
  TempDir dir;
  std::string archive;
  ember::zip::Writer w(
      [&](const void* d, size_t n) { archive.append(static_cast<const char*>(d), n); },
      /*force_zip64=*/true);
  w.add("a/one", "hello", 5);
  w.add("a/two", "", 0);
  w.finish();
  const ember::zip::Reader r(
      archive.size(), [&](uint64_t o, void* d, size_t n) { std::memcpy(d, archive.data() + o, n); },
      "zip64");
  ASSERT_EQ(r.entries().size(), 2u);
  EXPECT_EQ(r.read_string(*r.find("a/one"), 100), "hello");
  write_file(dir / "z.zip", archive);
  std::string out;
  if (!run_torch(dir, R"PY(
import zipfile
z = zipfile.ZipFile(D + '/z.zip')
assert z.read('a/one') == b'hello' and z.read('a/two') == b'', z.namelist()
assert z.testzip() is None
print('ok')
)PY",
                 &out)) {
    GTEST_SKIP() << "no python3";
  }
}

// CUDA tensors: saved with their device as location (as torch.save does), their storages copied
// to the host one at a time; loaded to a requested CUDA device with views still sharing one
// storage there.
TEST(PtCuda, SaveFromAndLoadToACudaDevice) {
  EMBER_SKIP_WITHOUT_CUDA();
  const ember::Device cuda("cuda:0");
  const Tensor base = ember::arange(12, ember::kFloat).reshape({3, 4}).to(cuda);
  const auto obj = ember::pt_dict(
      {{"base", ember::pt_tensor(base)}, {"col", ember::pt_tensor(base.select(1, 2))}});
  const std::string bytes = ember::save_pt_bytes(*obj);
  const PtValue on_cpu = ember::load_pt_object_bytes(bytes);
  EXPECT_EQ(on_cpu.get("base")->location, "cuda:0");
  EXPECT_TRUE(on_cpu.get("base")->tensor.is_cpu());
  EXPECT_EQ(bytes_of(on_cpu.get("col")->tensor), bytes_of(base.select(1, 2)));
  ember::PtLoadOptions to_cuda;
  to_cuda.device = cuda;
  const PtValue back = ember::load_pt_object_bytes(bytes, "mem", to_cuda);
  const Tensor& b = back.get("base")->tensor;
  const Tensor& c = back.get("col")->tensor;
  EXPECT_TRUE(b.is_cuda() && c.is_cuda());
  EXPECT_EQ(storage_of(b), storage_of(c));
  EXPECT_EQ(c.storage_offset(), 2);
  EXPECT_EQ(bytes_of(c), bytes_of(base.select(1, 2)));
}

// Training started in PyTorch (two Adam steps) resumes in Ember from the torch.save checkpoint
// with the same third step as PyTorch's.
TEST(PtOptimizer, AdamResumesWithPyTorchsNextStep) {
  TempDir dir;
  std::string out;
  if (!run_torch(dir, R"PY(
torch.manual_seed(2)
m = torch.nn.Linear(4, 3)
opt = torch.optim.Adam(m.parameters(), lr=0.05, betas=(0.8, 0.95), weight_decay=0.01)
x = torch.randn(5, 4)
for _ in range(2):
    opt.zero_grad(); (m(x) ** 2).mean().backward(); opt.step()
torch.save({'model': m.state_dict(), 'optimizer': opt.state_dict(), 'x': x}, D + '/ckpt.pt')
opt.zero_grad(); (m(x) ** 2).mean().backward(); opt.step()
torch.save(m.state_dict(), D + '/after.pt')
print('saved')
)PY",
                 &out)) {
    GTEST_SKIP() << "no python3 with torch";
  }
  const PtValue ckpt = ember::load_pt_object(dir / "ckpt.pt");
  ember::nn::Linear m(4, 3);
  m->load_state_dict(ember::pt_as_state_dict(*ckpt.get("model")));
  ember::optim::Adam opt(m->parameters(), ember::optim::AdamOptions(1.0));
  ember::load_pt_optimizer_state(opt, *ckpt.get("optimizer"));
  const auto& o = static_cast<const ember::optim::AdamOptions&>(opt.param_groups()[0].options());
  EXPECT_EQ(o.lr(), 0.05);
  EXPECT_EQ(std::get<1>(o.betas()), 0.95);
  const Tensor x = ckpt.get("x")->tensor;
  opt.zero_grad();
  m->forward(x).pow(2).mean().backward();
  opt.step();
  const ember::NamedTensors after = ember::load_pt(dir / "after.pt");
  EXPECT_TRUE(ember::allclose(m->weight, after[0].second, 1e-5, 1e-6));
  EXPECT_TRUE(ember::allclose(m->bias, after[1].second, 1e-5, 1e-6));
  // An option switched on loads when Ember's Adam has it (maximize) and is named when it does
  // not (capturable).
  const auto with_option_on = [&](const std::string& option) {
    PtValue changed = *ckpt.get("optimizer");
    PtValue group = *changed.get("param_groups")->items[0];
    for (auto& [k, v] : group.entries) {
      if (k->string == option) v = ember::pt_bool(true);
    }
    changed.entries[1].second = ember::pt_list({std::make_shared<const PtValue>(group)});
    return changed;
  };
  ember::load_pt_optimizer_state(opt, with_option_on("maximize"));
  EXPECT_TRUE(
      static_cast<const ember::optim::AdamOptions&>(opt.param_groups()[0].options()).maximize());
  const std::string err = ember::testing::error_of<ember::ValueError>(
      [&] { ember::load_pt_optimizer_state(opt, with_option_on("capturable")); });
  EXPECT_NE(err.find("param_groups.0.capturable is on"), std::string::npos) << err;
}

// State dicts of the module catalogue written by torch.save load strictly into the same Ember
// modules (PyTorch's parameter and buffer names), with identical bytes.
TEST(PtModule, StateDictsOfTheCatalogueLoadStrictly) {
  TempDir dir;
  std::string out;
  if (!run_torch(dir, R"PY(
nn = torch.nn
torch.manual_seed(3)
mods = {
    'linear': nn.Linear(3, 2), 'bilinear': nn.Bilinear(2, 3, 4),
    'conv1d': nn.Conv1d(2, 3, 3), 'conv2d': nn.Conv2d(2, 3, 3),
    'convt1d': nn.ConvTranspose1d(2, 3, 3), 'convt2d': nn.ConvTranspose2d(2, 3, 3),
    'bn1d': nn.BatchNorm1d(4), 'bn2d': nn.BatchNorm2d(4), 'bn3d': nn.BatchNorm3d(4),
    'layernorm': nn.LayerNorm(4), 'groupnorm': nn.GroupNorm(2, 4), 'prelu': nn.PReLU(),
    'embedding': nn.Embedding(10, 4), 'mha': nn.MultiheadAttention(8, 2),
    'rnn': nn.RNN(3, 4), 'lstm': nn.LSTM(3, 4, num_layers=2), 'gru': nn.GRU(3, 4),
    'rnncell': nn.RNNCell(3, 4), 'lstmcell': nn.LSTMCell(3, 4), 'grucell': nn.GRUCell(3, 4),
    'encoder': nn.TransformerEncoderLayer(8, 2, dim_feedforward=16),
    'decoder': nn.TransformerDecoderLayer(8, 2, dim_feedforward=16),
}
mods['bn2d'](torch.randn(2, 4, 3, 3))  # running statistics and num_batches_tracked move
torch.save({k: m.state_dict() for k, m in mods.items()}, D + '/catalogue.pth')
print('saved', len(mods))
)PY",
                 &out)) {
    GTEST_SKIP() << "no python3 with torch";
  }
  namespace nn = ember::nn;
  const std::vector<std::pair<std::string, std::shared_ptr<nn::Module>>> modules = {
      {"linear", nn::Linear(3, 2).ptr()},
      {"bilinear", nn::Bilinear(2, 3, 4).ptr()},
      {"conv1d", nn::Conv1d(nn::Conv1dOptions(2, 3, 3)).ptr()},
      {"conv2d", nn::Conv2d(nn::Conv2dOptions(2, 3, 3)).ptr()},
      {"convt1d", nn::ConvTranspose1d(nn::ConvTranspose1dOptions(2, 3, 3)).ptr()},
      {"convt2d", nn::ConvTranspose2d(nn::ConvTranspose2dOptions(2, 3, 3)).ptr()},
      {"bn1d", nn::BatchNorm1d(4).ptr()},
      {"bn2d", nn::BatchNorm2d(4).ptr()},
      {"bn3d", nn::BatchNorm3d(4).ptr()},
      {"layernorm", nn::LayerNorm(nn::LayerNormOptions({4})).ptr()},
      {"groupnorm", nn::GroupNorm(nn::GroupNormOptions(2, 4)).ptr()},
      {"prelu", nn::PReLU().ptr()},
      {"embedding", nn::Embedding(10, 4).ptr()},
      {"mha", nn::MultiheadAttention(nn::MultiheadAttentionOptions(8, 2)).ptr()},
      {"rnn", nn::RNN(nn::RNNOptions(3, 4)).ptr()},
      {"lstm", nn::LSTM(nn::LSTMOptions(3, 4).num_layers(2)).ptr()},
      {"gru", nn::GRU(nn::GRUOptions(3, 4)).ptr()},
      {"rnncell", nn::RNNCell(nn::RNNCellOptions(3, 4)).ptr()},
      {"lstmcell", nn::LSTMCell(nn::LSTMCellOptions(3, 4)).ptr()},
      {"grucell", nn::GRUCell(nn::GRUCellOptions(3, 4)).ptr()},
      {"encoder",
       nn::TransformerEncoderLayer(nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16))
           .ptr()},
      {"decoder",
       nn::TransformerDecoderLayer(nn::TransformerDecoderLayerOptions(8, 2).dim_feedforward(16))
           .ptr()},
  };
  const PtValue file = ember::load_pt_object(dir / "catalogue.pth");
  ASSERT_EQ(file.entries.size(), modules.size());
  for (const auto& [name, module] : modules) {
    const ember::NamedTensors state = ember::pt_as_state_dict(*file.get(name));
    try {
      module->load_state_dict(state, /*strict=*/true);
    } catch (const ember::Error& e) {
      ADD_FAILURE() << name << ": " << e.what();
      continue;
    }
    for (const auto& [key, t] : state) {
      const auto mine = module->state_dict();
      ASSERT_TRUE(mine.contains(key)) << name << "." << key;
      EXPECT_EQ(bytes_of(mine[key]), bytes_of(t)) << name << "." << key;
    }
  }
}
