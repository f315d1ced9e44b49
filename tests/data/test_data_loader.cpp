// Dataset, TensorDataset and DataLoader: batching, shuffling, workers, errors.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <thread>

#include "core/tensor_factory.h"
#include "ember/cuda.h"
#include "ember/data/dataloader.h"
#include "ember/ember.h"  // the umbrella header exposes the data API
#include "ember/ops.h"

namespace ed = ember::data;
using ember::Tensor;

namespace {

// data row i is [i, 10*i, 100*i] (float32), target i is i (int64).
Tensor rows(int64_t n) {
  Tensor t = ember::make_empty({n, 3}, ember::kFloat, ember::Device(ember::kCPU));
  auto* p = t.data_ptr<float>();
  for (int64_t i = 0; i < n; ++i) {
    p[3 * i] = static_cast<float>(i);
    p[3 * i + 1] = static_cast<float>(10 * i);
    p[3 * i + 2] = static_cast<float>(100 * i);
  }
  return t;
}
Tensor labels(int64_t n) {
  Tensor t = ember::make_empty({n}, ember::kLong, ember::Device(ember::kCPU));
  for (int64_t i = 0; i < n; ++i) t.data_ptr<int64_t>()[i] = i;
  return t;
}
ed::TensorDataset make_dataset(int64_t n) {
  return ed::TensorDataset(rows(n), labels(n));
}

// The sample ids of a batch, checking that data and target belong together.
std::vector<int64_t> ids(const ed::Batch& b) {
  EXPECT_EQ(b.data.dim(), 2);
  EXPECT_EQ(b.data.size(1), 3);
  EXPECT_EQ(b.target.dim(), 1);
  EXPECT_EQ(b.data.size(0), b.target.size(0));
  std::vector<int64_t> out;
  const auto* d = static_cast<const float*>(b.data.data_ptr());
  for (int64_t k = 0; k < b.target.size(0); ++k) {
    int64_t id = b.target.data_ptr<int64_t>()[k];
    EXPECT_EQ(d[3 * k], static_cast<float>(id));
    EXPECT_EQ(d[3 * k + 2], static_cast<float>(100 * id));
    out.push_back(id);
  }
  return out;
}

template <typename Loader>
std::vector<int64_t> epoch_ids(Loader& loader, std::vector<int64_t>* batch_sizes = nullptr) {
  std::vector<int64_t> all;
  for (auto& batch : loader) {
    auto v = ids(batch);
    if (batch_sizes) batch_sizes->push_back(static_cast<int64_t>(v.size()));
    all.insert(all.end(), v.begin(), v.end());
  }
  return all;
}

}  // namespace

TEST(TensorDataset, RowsAreExamples) {
  auto ds = make_dataset(5);
  EXPECT_EQ(ds.size(), 5u);
  auto ex = ds.get(3);
  ASSERT_EQ(ex.data.dim(), 1);
  EXPECT_EQ(ex.data.size(0), 3);
  EXPECT_EQ(static_cast<const float*>(ex.data.data_ptr())[1], 30.0f);
  EXPECT_EQ(ex.target.dim(), 0);
  EXPECT_EQ(ex.target.data_ptr<int64_t>()[0], 3);
}

TEST(TensorDataset, BadInputIsAnError) {
  try {
    ed::TensorDataset(rows(100), labels(99));
    FAIL() << "expected ValueError";
  } catch (const ember::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("100"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("99"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ed::TensorDataset(Tensor(), labels(2)), ember::ValueError);
  auto ds = make_dataset(4);
  try {
    ds.get(4);
    FAIL() << "expected IndexError";
  } catch (const ember::IndexError& e) {
    EXPECT_NE(std::string(e.what()).find("index 4"), std::string::npos) << e.what();
  }
}

TEST(DataLoader, SequentialBatchesAndLastPartialBatch) {
  ed::DataLoader loader(make_dataset(10), ed::DataLoaderOptions().batch_size(4));
  EXPECT_EQ(loader.size(), 3u);
  std::vector<int64_t> sizes;
  auto all = epoch_ids(loader, &sizes);
  EXPECT_EQ(sizes, (std::vector<int64_t>{4, 4, 2}));
  std::vector<int64_t> expected(10);
  for (int64_t i = 0; i < 10; ++i) expected[i] = i;
  EXPECT_EQ(all, expected);
}

TEST(DataLoader, DropLast) {
  ed::DataLoader loader(make_dataset(10), ed::DataLoaderOptions().batch_size(4).drop_last(true));
  EXPECT_EQ(loader.size(), 2u);
  std::vector<int64_t> sizes;
  auto all = epoch_ids(loader, &sizes);
  EXPECT_EQ(sizes, (std::vector<int64_t>{4, 4}));
  EXPECT_EQ(all.size(), 8u);
  // Fewer samples than one batch: no batches at all.
  ed::DataLoader small(make_dataset(3), ed::DataLoaderOptions().batch_size(4).drop_last(true));
  EXPECT_EQ(small.size(), 0u);
  EXPECT_TRUE(small.begin() == small.end());
}

TEST(DataLoader, EmptyDatasetYieldsNothing) {
  ed::DataLoader loader(make_dataset(0), ed::DataLoaderOptions().batch_size(4).num_workers(2));
  int n = 0;
  for (auto& b : loader) {
    (void)b;
    ++n;
  }
  EXPECT_EQ(n, 0);
}

TEST(DataLoader, ShuffleIsSeededPermutationPerEpoch) {
  auto opts = ed::DataLoaderOptions().batch_size(7).shuffle(true).seed(1234);
  ed::DataLoader a(make_dataset(50), opts);
  ed::DataLoader b(make_dataset(50), opts);
  auto a0 = epoch_ids(a), a1 = epoch_ids(a);
  auto b0 = epoch_ids(b), b1 = epoch_ids(b);
  EXPECT_EQ(a0, b0);
  EXPECT_EQ(a1, b1);
  EXPECT_NE(a0, a1) << "each epoch draws a new order";
  for (const auto& e : {a0, a1}) {
    std::set<int64_t> s(e.begin(), e.end());
    EXPECT_EQ(s.size(), 50u);
    EXPECT_EQ(*s.begin(), 0);
    EXPECT_EQ(*s.rbegin(), 49);
  }
  std::vector<int64_t> seq(50);
  for (int64_t i = 0; i < 50; ++i) seq[i] = i;
  EXPECT_NE(a0, seq);

  ed::DataLoader c(make_dataset(50), ed::DataLoaderOptions().batch_size(7).shuffle(true).seed(99));
  EXPECT_NE(epoch_ids(c), a0);

  // set_epoch replays an epoch (resuming a run).
  a.set_epoch(1);
  EXPECT_EQ(epoch_ids(a), a1);
}

TEST(DataLoader, ShuffleOrderIsPinnedDown) {
  // The documented algorithm (mt19937_64 seeded through seed_seq, Fisher-Yates with rejection
  // sampling) is fully specified, so these values must hold on every platform.
  auto v = ed::detail::epoch_indices(10, true, 42, 0);
  auto again = ed::detail::epoch_indices(10, true, 42, 0);
  EXPECT_EQ(v, again);
  std::vector<size_t> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < 10; ++i) EXPECT_EQ(sorted[i], i);
  EXPECT_EQ(v, (std::vector<size_t>{0, 6, 5, 1, 3, 9, 7, 8, 4, 2}));
  EXPECT_EQ(ed::detail::epoch_indices(4, false, 42, 3), (std::vector<size_t>{0, 1, 2, 3}));
}

TEST(DataLoader, DefaultSeedFollowsManualSeed) {
  ember::manual_seed(7);
  ed::DataLoader a(make_dataset(30), ed::DataLoaderOptions().batch_size(5).shuffle(true));
  ember::manual_seed(7);
  ed::DataLoader b(make_dataset(30), ed::DataLoaderOptions().batch_size(5).shuffle(true));
  EXPECT_EQ(epoch_ids(a), epoch_ids(b));
}

namespace {
// A dataset that sleeps a pseudo-random time per sample so worker threads finish out of order,
// counts calls, and can fail at one index.
class SlowDataset : public ed::Dataset<> {
 public:
  SlowDataset(int64_t n, int64_t fail_at = -1) : base_(make_dataset(n)), fail_at_(fail_at) {}
  ExampleType get(size_t i) override {
    calls++;
    std::this_thread::sleep_for(std::chrono::microseconds((i * 7919) % 13 * 150));
    if (static_cast<int64_t>(i) == fail_at_) {
      throw ember::ValueError("SlowDataset: sample " + std::to_string(i) + " is broken");
    }
    return base_.get(i);
  }
  size_t size() const override { return base_.size(); }
  std::atomic<int64_t> calls{0};

 private:
  ed::TensorDataset base_;
  int64_t fail_at_;
};
}  // namespace

TEST(DataLoader, WorkersPreserveOrder) {
  auto opts = ed::DataLoaderOptions().batch_size(3).shuffle(true).seed(5);
  ed::DataLoader serial(std::make_shared<SlowDataset>(40), opts);
  auto expected = epoch_ids(serial);
  for (size_t workers : {1, 2, 4, 8}) {
    ed::DataLoader loader(std::make_shared<SlowDataset>(40),
                          ed::DataLoaderOptions(opts).num_workers(workers));
    EXPECT_EQ(epoch_ids(loader), expected) << workers << " workers";
    EXPECT_EQ(epoch_ids(loader).size(), 40u) << "a second epoch with " << workers << " workers";
  }
}

TEST(DataLoader, WorkerExceptionIsRethrownAtItsBatch) {
  for (size_t workers : {0, 3}) {
    auto ds = std::make_shared<SlowDataset>(30, /*fail_at=*/13);
    ed::DataLoader loader(ds, ed::DataLoaderOptions().batch_size(4).num_workers(workers));
    std::vector<int64_t> seen;
    try {
      for (auto& batch : loader) {
        auto v = ids(batch);
        seen.insert(seen.end(), v.begin(), v.end());
      }
      FAIL() << "expected the dataset's error";
    } catch (const ember::ValueError& e) {
      EXPECT_NE(std::string(e.what()).find("sample 13 is broken"), std::string::npos) << e.what();
    }
    // Batches 0..2 (samples 0..11) arrived before the failing batch 3 (samples 12..15).
    EXPECT_EQ(seen.size(), 12u) << workers << " workers";
    // The loader still works afterwards (a new epoch fails at the same place again).
    EXPECT_THROW(epoch_ids(loader), ember::ValueError);
  }
}

TEST(DataLoader, BreakingEarlyStopsTheWorkers) {
  auto ds = std::make_shared<SlowDataset>(1000);
  ed::DataLoader loader(ds,
                        ed::DataLoaderOptions().batch_size(2).num_workers(4).prefetch_factor(2));
  auto start = std::chrono::steady_clock::now();
  int n = 0;
  for (auto& batch : loader) {
    (void)batch;
    if (++n == 3) break;
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(secs, 5.0);
  int64_t calls = ds->calls.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(ds->calls.load(), calls) << "workers kept loading after the loop ended";
  // At most the consumed batches + the prefetch window (workers * factor) + one in flight each.
  EXPECT_LE(calls, (3 + 4 * 2 + 4) * 2);
  EXPECT_EQ(epoch_ids(loader).size(), 1000u);
}

namespace {
struct IntTargets : ed::Dataset<Tensor, int> {
  ExampleType get(size_t i) override {
    return {ember::full({2}, static_cast<double>(i), ember::kFloat), static_cast<int>(i) * 2};
  }
  size_t size() const override { return 5; }
};
struct DoubleTargets : ed::Dataset<Tensor, double> {
  ExampleType get(size_t i) override {
    return {ember::full({1}, 1.0, ember::kFloat), 0.5 * static_cast<double>(i)};
  }
  size_t size() const override { return 3; }
};
struct Ragged : ed::Dataset<> {
  ExampleType get(size_t i) override {
    return {ember::zeros({i == 2 ? 4 : 3}), ember::zeros({}, ember::kLong)};
  }
  size_t size() const override { return 4; }
};
struct MixedDtypes : ed::Dataset<> {
  ExampleType get(size_t i) override {
    return {ember::zeros({3}, i == 1 ? ember::kDouble : ember::kFloat),
            ember::zeros({}, ember::kLong)};
  }
  size_t size() const override { return 2; }
};
}  // namespace

TEST(DataLoader, ArithmeticTargetsCollateLikePython) {
  ed::DataLoader ints(IntTargets(), ed::DataLoaderOptions().batch_size(5));
  int batches = 0;
  for (auto& b : ints) {
    ++batches;
    EXPECT_EQ(b.target.dtype(), ember::kLong);
    EXPECT_EQ(b.target.to_vector<int64_t>(), (std::vector<int64_t>{0, 2, 4, 6, 8}));
    EXPECT_EQ(b.data.sizes(), ember::IntArrayRef({5, 2}));
  }
  EXPECT_EQ(batches, 1);
  ed::DataLoader doubles(DoubleTargets(), ed::DataLoaderOptions().batch_size(3));
  for (auto& b : doubles) {
    EXPECT_EQ(b.target.dtype(), ember::kDouble);
    EXPECT_EQ(b.target.to_vector<double>(), (std::vector<double>{0.0, 0.5, 1.0}));
  }
}

TEST(DataLoader, UnequalSamplesAreAClearError) {
  ed::DataLoader ragged(Ragged(), ed::DataLoaderOptions().batch_size(4));
  try {
    for (auto& b : ragged) (void)b;
    FAIL() << "expected ValueError";
  } catch (const ember::ValueError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("[3]"), std::string::npos) << m;
    EXPECT_NE(m.find("[4]"), std::string::npos) << m;
    EXPECT_NE(m.find("entry 2"), std::string::npos) << m;
  }
  ed::DataLoader mixed(MixedDtypes(), ed::DataLoaderOptions().batch_size(2));
  EXPECT_THROW(
      {
        for (auto& b : mixed) (void)b;
      },
      ember::TypeError);
}

TEST(DataLoader, BadOptionsAreErrors) {
  try {
    ed::DataLoader loader(make_dataset(4), ed::DataLoaderOptions().batch_size(0));
    FAIL() << "expected ValueError";
  } catch (const ember::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("batch_size=0"), std::string::npos) << e.what();
  }
  EXPECT_THROW(
      ed::DataLoader(make_dataset(4), ed::DataLoaderOptions().num_workers(2).prefetch_factor(0)),
      ember::ValueError);
}

TEST(DataLoader, PinMemoryOnlyWithCuda) {
  ed::DataLoader loader(make_dataset(8),
                        ed::DataLoaderOptions().batch_size(4).pin_memory(true).num_workers(2));
  EXPECT_EQ(loader.pins_memory(), ember::cuda::is_available());
  ember::Device device = ember::cuda::is_available() ? ember::Device("cuda:0") : ember::kCPU;
  int n = 0;
  for (auto& batch : loader) {
    EXPECT_EQ(batch.data.is_pinned(), ember::cuda::is_available());
    EXPECT_EQ(batch.target.is_pinned(), ember::cuda::is_available());
    auto x = batch.data.to(device, /*non_blocking=*/true);
    auto y = batch.target.to(device, /*non_blocking=*/true);
    EXPECT_EQ(x.device().type(), device.type());
    EXPECT_TRUE(ember::equal(x.cpu(), batch.data));
    EXPECT_TRUE(ember::equal(y.cpu(), batch.target));
    ++n;
  }
  EXPECT_EQ(n, 2);
  ed::DataLoader plain(make_dataset(4), ed::DataLoaderOptions().batch_size(4));
  for (auto& batch : plain) EXPECT_FALSE(batch.data.is_pinned());
}

TEST(DataLoader, LibtorchSpelling) {
  auto loader = ed::make_data_loader(make_dataset(6), ed::DataLoaderOptions(3).workers(1));
  EXPECT_EQ(loader->options().workers(), 1u);
  int n = 0;
  for (auto& batch : *loader) n += static_cast<int>(batch.data.size(0));
  EXPECT_EQ(n, 6);
}

TEST(DataLoader, BatchesOutliveTheLoop) {
  std::vector<ed::Batch> kept;
  {
    ed::DataLoader loader(make_dataset(9), ed::DataLoaderOptions().batch_size(3).num_workers(2));
    for (auto& b : loader) kept.push_back(b);
  }
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(ids(kept[2]), (std::vector<int64_t>{6, 7, 8}));
}
