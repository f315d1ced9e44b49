// libtorch's data pipeline names: Dataset<Self> with get/size, map(transform) with Stack,
// Normalize, Lambda, BatchLambda, TensorLambda, make_data_loader with Sequential/RandomSampler and
// DataLoaderOptions (batch_size, workers, drop_last), and datasets::MNIST on IDX files (gzip'd and
// not). Normalize is checked against PyTorch on the same input; bad input against its messages.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <set>

#include "ember/ember.h"
#include "support/temp_dir.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

namespace ed = ember::data;
using ember::Tensor;
using ember::testing::contains;
using ember::testing::error_of;
using ember::testing::expect_close;

namespace {

// Example i: data [2] = {i, 10 i}, target i % 3.
struct Counting : ed::datasets::Dataset<Counting> {
  explicit Counting(size_t n) : n(n) {}
  ed::Example<> get(size_t index) override {
    const double i = static_cast<double>(index);
    return {ember::tensor({i, 10 * i}, ember::kFloat),
            ember::tensor(static_cast<int64_t>(index % 3))};
  }
  std::optional<size_t> size() const override { return n; }
  size_t n;
};

struct Unsized : ed::datasets::Dataset<Unsized> {
  ed::Example<> get(size_t) override { return {ember::zeros({1}), ember::zeros({})}; }
  std::optional<size_t> size() const override { return std::nullopt; }
};

std::vector<int64_t> firsts(const Tensor& data) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < data.size(0); ++i) out.push_back(data[i][0].item<int64_t>());
  return out;
}

TEST(DataPipeline, DatasetGetSizeAndBatches) {
  Counting ds(5);
  EXPECT_EQ(ds.size().value(), 5u);
  auto ex = ds.get(3);
  EXPECT_TRUE(ember::equal(ex.data, ember::tensor({3.0f, 30.0f})));
  EXPECT_EQ(ex.target.item<int64_t>(), 0);
  std::vector<size_t> idx = {4, 1};
  auto batch = ds.get_batch(idx);
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_EQ(batch[1].data[0].item<float>(), 1.0f);
}

TEST(DataPipeline, SequentialLoaderStacksInOrder) {
  auto ds = Counting(7).map(ed::transforms::Stack<>());
  EXPECT_EQ(ds.size().value(), 7u);
  auto loader = ed::make_data_loader<ed::samplers::SequentialSampler>(
      std::move(ds), ed::DataLoaderOptions().batch_size(3));
  std::vector<std::vector<int64_t>> seen;
  for (auto& batch : *loader) {
    EXPECT_EQ(batch.data.dim(), 2);
    EXPECT_EQ(batch.data.size(1), 2);
    EXPECT_EQ(batch.target.dtype(), ember::kLong);
    EXPECT_EQ(batch.target.size(0), batch.data.size(0));
    seen.push_back(firsts(batch.data));
  }
  EXPECT_EQ(seen, (std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}, {6}}));
  // A second epoch starts over; drop_last leaves out the short batch.
  auto dropping = ed::make_data_loader<ed::samplers::SequentialSampler>(
      Counting(7).map(ed::transforms::Stack<>()), ed::DataLoaderOptions(3).drop_last(true));
  for (int epoch = 0; epoch < 2; ++epoch) {
    size_t batches = 0;
    for (auto& batch : *dropping) {
      EXPECT_EQ(batch.data.size(0), 3);
      ++batches;
    }
    EXPECT_EQ(batches, 2u);
  }
}

TEST(DataPipeline, RandomSamplerIsAPermutationPerEpochAndFollowsTheSeed) {
  auto run_epoch = [](auto& loader) {
    std::vector<int64_t> order;
    for (auto& batch : *loader) {
      auto f = firsts(batch.data);
      order.insert(order.end(), f.begin(), f.end());
    }
    return order;
  };
  ember::manual_seed(7);
  auto loader = ed::make_data_loader(Counting(10).map(ed::transforms::Stack<>()),
                                     ed::DataLoaderOptions().batch_size(4));
  auto a = run_epoch(loader);
  auto b = run_epoch(loader);
  std::vector<int64_t> all(10);
  std::iota(all.begin(), all.end(), 0);
  for (const auto& order : {a, b}) {
    auto sorted = order;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, all);
  }
  EXPECT_NE(a, b);  // a fresh permutation per epoch
  ember::manual_seed(7);
  auto again = ed::make_data_loader(Counting(10).map(ed::transforms::Stack<>()),
                                    ed::DataLoaderOptions().batch_size(4));
  EXPECT_EQ(run_epoch(again), a);
}

TEST(DataPipeline, WorkersGiveTheSameBatches) {
  auto collect = [](size_t workers) {
    auto loader = ed::make_data_loader<ed::samplers::SequentialSampler>(
        Counting(23).map(ed::transforms::Stack<>()),
        ed::DataLoaderOptions().batch_size(4).workers(workers));
    std::vector<Tensor> out;
    for (auto& batch : *loader) out.push_back(batch.data.clone());
    return out;
  };
  auto serial = collect(0), threaded = collect(3);
  ASSERT_EQ(serial.size(), 6u);
  ASSERT_EQ(threaded.size(), serial.size());
  for (size_t i = 0; i < serial.size(); ++i) EXPECT_TRUE(ember::equal(serial[i], threaded[i]));
}

TEST(DataPipeline, UnstackedBatchesAreVectorsOfExamples) {
  auto loader = ed::make_data_loader<ed::samplers::SequentialSampler>(Counting(5), 2);
  std::vector<size_t> sizes;
  for (auto& batch : *loader) {
    sizes.push_back(batch.size());
    for (auto& ex : batch) EXPECT_EQ(ex.data.dim(), 1);
  }
  EXPECT_EQ(sizes, (std::vector<size_t>{2, 2, 1}));
}

TEST(DataPipeline, NormalizeMatchesTorch) {
  // A [C, H, W] = [3, 2, 2] image, one mean/std per channel.
  Tensor image = ember::sin(ember::arange(12, ember::kFloat)).reshape({3, 2, 2});
  struct One : ed::datasets::Dataset<One> {
    explicit One(Tensor x) : x(std::move(x)) {}
    ed::Example<> get(size_t) override { return {x, ember::tensor(int64_t{1})}; }
    std::optional<size_t> size() const override { return 1; }
    Tensor x;
  };
  auto ds = One(image)
                .map(ed::transforms::Normalize<>({0.1, -0.2, 0.3}, {0.5, 2.0, 0.25}))
                .map(ed::transforms::Stack<>());
  std::vector<size_t> idx = {0};
  Tensor got = ds.get_batch(idx).data[0];
  auto ref = ember::testing::TorchOracle::instance().run(
      "y = (x - torch.tensor([0.1, -0.2, 0.3]).view(3, 1, 1)) / "
      "torch.tensor([0.5, 2.0, 0.25]).view(3, 1, 1)",
      {{"x", image}}, {"y"});
  expect_close(got, ref.at("y"), 1e-6, 1e-7);
  // A scalar mean/std (the MNIST tutorial's Normalize<>(0.1307, 0.3081)).
  auto scalar = One(image).map(ed::transforms::Normalize<>(0.5, 2.0));
  auto out = scalar.get_batch(idx);
  EXPECT_EQ(out[0].data.sizes(), image.sizes());
  expect_close(out[0].data, (image - 0.5) / 2.0, 1e-6, 1e-7);
}

TEST(DataPipeline, LambdaTransforms) {
  using E = ed::Example<>;
  auto ds = Counting(4)
                .map(ed::transforms::Lambda<E>([](E e) {
                  e.target = e.target + 100;
                  return e;
                }))
                .map(ed::transforms::TensorLambda<>([](Tensor t) { return t * 2; }))
                .map(ed::transforms::Stack<>())
                .map(ed::transforms::BatchLambda<E>([](E b) {
                  b.data = b.data.sum(1);
                  return b;
                }));
  std::vector<size_t> idx = {1, 3};
  auto batch = ds.get_batch(idx);
  EXPECT_TRUE(ember::equal(batch.data, ember::tensor({22.0f, 66.0f})));
  EXPECT_TRUE(ember::equal(batch.target, ember::tensor({int64_t{101}, int64_t{100}})));
}

TEST(DataPipeline, BadInput) {
  EXPECT_TRUE(
      contains(error_of([] { ed::make_data_loader(Unsized(), 2); }), "size() returned nullopt"));
  EXPECT_TRUE(contains(
      error_of([] { ed::make_data_loader(Counting(3), ed::DataLoaderOptions(2).shuffle(true)); }),
      "shuffle is decided by the sampler"));
  EXPECT_TRUE(contains(error_of([] { ed::make_data_loader(Counting(3), 0); }), "batch_size"));
  ed::samplers::SequentialSampler s(3);
  EXPECT_TRUE(contains(error_of([&] { s.next(0); }), "batch_size must be positive"));
  EXPECT_TRUE(contains(error_of([] { ed::samplers::RandomSampler(-1); }),
                       "size must be non-negative, got -1"));
  // Examples of different shapes cannot be stacked.
  struct Ragged : ed::datasets::Dataset<Ragged> {
    ed::Example<> get(size_t i) override {
      return {ember::zeros({static_cast<int64_t>(i) + 1}), ember::zeros({})};
    }
    std::optional<size_t> size() const override { return 2; }
  };
  auto ragged = Ragged().map(ed::transforms::Stack<>());
  std::vector<size_t> idx = {0, 1};
  EXPECT_THROW(ragged.get_batch(idx), ember::Error);
}

using ember::testing::TempDir;

std::string be32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// n images whose pixel (i, r, c) is (i * 31 + r * 7 + c * 3) % 256, labels i % 10; plain or gzip.
void write_split(const TempDir& dir, const std::string& prefix, int n, bool gzip) {
  std::string images = be32(0x803) + be32(n) + be32(28) + be32(28);
  for (int i = 0; i < n; ++i)
    for (int r = 0; r < 28; ++r)
      for (int c = 0; c < 28; ++c)
        images.push_back(static_cast<char>((i * 31 + r * 7 + c * 3) % 256));
  std::string labels = be32(0x801) + be32(n);
  for (int i = 0; i < n; ++i) labels.push_back(static_cast<char>(i % 10));
  write_file(dir / (prefix + "-images-idx3-ubyte"), images);
  write_file(dir / (prefix + "-labels-idx1-ubyte"), labels);
  if (gzip) {
    ASSERT_EQ(std::system(("gzip -n -f '" + (dir / (prefix + "-images-idx3-ubyte")) + "' '" +
                           (dir / (prefix + "-labels-idx1-ubyte")) + "'")
                              .c_str()),
              0);
  }
}

TEST(DataPipeline, MnistReadsPlainAndGzipIdx) {
  TempDir plain, zipped;
  write_split(plain, "train", 12, false);
  write_split(zipped, "t10k", 5, true);
  using ed::datasets::MNIST;
  MNIST train(plain.path());
  EXPECT_TRUE(train.is_train());
  EXPECT_EQ(train.size().value(), 12u);
  EXPECT_EQ(train.images().sizes(), ember::IntArrayRef({12, 1, 28, 28}));
  EXPECT_EQ(train.images().dtype(), ember::kFloat);
  EXPECT_EQ(train.targets().dtype(), ember::kLong);
  auto ex = train.get(11);
  EXPECT_FLOAT_EQ(ex.data[0][2][3].item<float>(),
                  static_cast<float>((11 * 31 + 2 * 7 + 9) % 256) / 255.0f);
  EXPECT_EQ(ex.target.item<int64_t>(), 1);
  MNIST test(zipped.path(), MNIST::Mode::kTest);
  EXPECT_FALSE(test.is_train());
  EXPECT_EQ(test.size().value(), 5u);
  EXPECT_EQ(test.get(4).target.item<int64_t>(), 4);
  // The tutorial's pipeline over it.
  auto loader = ed::make_data_loader(MNIST(plain.path())
                                         .map(ed::transforms::Normalize<>(0.1307, 0.3081))
                                         .map(ed::transforms::Stack<>()),
                                     ed::DataLoaderOptions().batch_size(5).workers(2));
  int64_t seen = 0;
  for (auto& batch : *loader) {
    EXPECT_EQ(batch.data.size(1), 1);
    seen += batch.data.size(0);
  }
  EXPECT_EQ(seen, 12);
  // Errors: a missing split names the file; an index out of range.
  EXPECT_TRUE(contains(error_of([&] { MNIST(plain.path(), MNIST::Mode::kTest); }),
                       "t10k-images-idx3-ubyte.gz not found"));
  EXPECT_TRUE(contains(error_of([&] { train.get(12); }), "index 12 is out of range"));
}

TEST(DataPipeline, MnistReadsFashionMnist) {
  const std::string root = ed::datasets::FashionMNIST::kDefaultRoot;
  struct stat st;
  if (::stat((root + "/t10k-images-idx3-ubyte.gz").c_str(), &st) != 0) {
    GTEST_SKIP() << "Fashion-MNIST is not installed in " << root
                 << " (apt-get install dataset-fashion-mnist)";
  }
  ed::datasets::MNIST test(root, ed::datasets::MNIST::Mode::kTest);
  ed::datasets::FashionMNIST reference(root, false);
  EXPECT_EQ(test.size().value(), 10000u);
  EXPECT_TRUE(ember::equal(test.images(), reference.images()));
  EXPECT_TRUE(ember::equal(test.targets(), reference.targets()));
}

}  // namespace
