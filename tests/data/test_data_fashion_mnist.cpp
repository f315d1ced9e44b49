// IDX reading and the FashionMNIST dataset: small generated files, every kind of broken file,
// and the real dataset (with PyTorch reading the same files as the oracle) when it is installed.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "ember/data/dataloader.h"
#include "ember/data/fashion_mnist.h"
#include "ember/ops.h"
#include "support/temp_dir.h"
#include "support/torch_oracle.h"

namespace ed = ember::data;
using ed::datasets::FashionMNIST;
using ember::Tensor;

namespace {

using ember::testing::TempDir;

std::string be32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}
std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// Writes `bytes` gzip-compressed to path (which should end in .gz).
void write_gz(const std::string& path, const std::string& bytes) {
  std::string raw = path.substr(0, path.size() - 3);
  write_file(raw, bytes);
  ASSERT_EQ(std::system(("gzip -n -f '" + raw + "'").c_str()), 0);
}

// Pixel (i, r, c) of the generated images.
uint8_t pixel(int64_t i, int64_t r, int64_t c) {
  return static_cast<uint8_t>((i * 31 + r * 7 + c * 3) % 256);
}

std::string images_idx(int64_t n, int rows = 28, int cols = 28, uint32_t magic = 0x803) {
  std::string s = be32(magic) + be32(static_cast<uint32_t>(n)) + be32(rows) + be32(cols);
  for (int64_t i = 0; i < n; ++i)
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) s += static_cast<char>(pixel(i, r, c));
  return s;
}
std::string labels_idx(int64_t n, int bad_at = -1) {
  std::string s = be32(0x801) + be32(static_cast<uint32_t>(n));
  for (int64_t i = 0; i < n; ++i) s += static_cast<char>(i == bad_at ? 12 : i % 10);
  return s;
}

void write_split(const TempDir& dir, const std::string& prefix, int64_t n) {
  write_gz(dir / (prefix + "-images-idx3-ubyte.gz"), images_idx(n));
  write_gz(dir / (prefix + "-labels-idx1-ubyte.gz"), labels_idx(n));
}

// Expects FashionMNIST(dir) to throw ember::Error whose message contains every part.
void expect_error(const std::string& dir, bool train, std::vector<std::string> parts) {
  try {
    FashionMNIST ds(dir, train);
    FAIL() << "expected ember::Error containing " << parts[0];
  } catch (const ember::Error& e) {
    std::string m = e.what();
    for (const auto& p : parts)
      EXPECT_NE(m.find(p), std::string::npos) << "'" << p << "' not in: " << m;
  }
}

}  // namespace

TEST(FashionMNIST, ReadsGeneratedFiles) {
  TempDir dir;
  write_split(dir, "train", 25);
  write_split(dir, "t10k", 7);
  FashionMNIST train(dir.path(), true), test(dir.path(), FashionMNIST::Mode::kTest);
  EXPECT_TRUE(train.is_train());
  EXPECT_FALSE(test.is_train());
  ASSERT_EQ(train.size(), 25u);
  ASSERT_EQ(test.size(), 7u);
  EXPECT_EQ(train.images().sizes(), ember::IntArrayRef({25, 1, 28, 28}));
  EXPECT_EQ(train.images().dtype(), ember::kFloat);
  EXPECT_EQ(train.targets().dtype(), ember::kLong);
  const float* px = train.images().data_ptr<float>();
  for (int64_t i : {0, 5, 24}) {
    for (int64_t r : {0, 13, 27}) {
      for (int64_t c : {0, 1, 27}) {
        EXPECT_EQ(px[(i * 28 + r) * 28 + c], static_cast<float>(pixel(i, r, c)) / 255.0f);
      }
    }
    EXPECT_EQ(train.targets().data_ptr<int64_t>()[i], i % 10);
  }
  auto ex = train.get(13);
  EXPECT_EQ(ex.data.sizes(), ember::IntArrayRef({1, 28, 28}));
  EXPECT_EQ(ex.data.data_ptr<float>()[0], static_cast<float>(pixel(13, 0, 0)) / 255.0f);
  EXPECT_EQ(ex.target.dim(), 0);
  EXPECT_EQ(ex.target.item<int64_t>(), 3);
  EXPECT_THROW(train.get(25), ember::IndexError);
  EXPECT_STREQ(FashionMNIST::class_name(9), "Ankle boot");
  EXPECT_THROW(FashionMNIST::class_name(10), ember::IndexError);
}

TEST(FashionMNIST, UncompressedFilesWork) {
  TempDir dir;
  write_file(dir / "t10k-images-idx3-ubyte", images_idx(3));
  write_file(dir / "t10k-labels-idx1-ubyte", labels_idx(3));
  FashionMNIST ds(dir.path() + "/", false);
  EXPECT_EQ(ds.size(), 3u);
  EXPECT_EQ(ds.images().data_ptr<float>()[28 * 28 + 5], pixel(1, 0, 5) / 255.0f);
}

TEST(FashionMNIST, NormalizeMatchesTorchvisionArithmetic) {
  TempDir dir;
  write_split(dir, "train", 4);
  FashionMNIST ds(dir.path());
  ds.normalize();
  const float m = 0.2860f, s = 0.3530f;
  const float* px = ds.images().data_ptr<float>();
  EXPECT_EQ(px[3 * 784 + 100], (pixel(3, 100 / 28, 100 % 28) / 255.0f - m) / s);
  EXPECT_THROW(ds.normalize(0.5, 0.0), ember::ValueError);
}

TEST(FashionMNIST, BatchesThroughTheDataLoader) {
  TempDir dir;
  write_split(dir, "train", 10);
  ed::DataLoader loader(FashionMNIST(dir.path()),
                        ed::DataLoaderOptions().batch_size(4).num_workers(2));
  std::vector<int64_t> sizes;
  for (auto& b : loader) {
    EXPECT_EQ(b.data.dim(), 4);
    EXPECT_EQ(b.data.size(1), 1);
    EXPECT_EQ(b.target.dim(), 1);
    sizes.push_back(b.data.size(0));
  }
  EXPECT_EQ(sizes, (std::vector<int64_t>{4, 4, 2}));
}

TEST(FashionMNIST, MissingFilesNameThePathAndTheFix) {
  TempDir dir;
  expect_error(dir.path(), true, {dir / "train-images-idx3-ubyte.gz", "dataset-fashion-mnist"});
  write_gz(dir / "train-images-idx3-ubyte.gz", images_idx(2));
  expect_error(dir.path(), true, {"train-labels-idx1-ubyte.gz", "not found"});
  expect_error("/nonexistent/dir", false, {"/nonexistent/dir/t10k-images-idx3-ubyte.gz"});
}

TEST(FashionMNIST, TruncatedGzip) {
  TempDir dir;
  write_split(dir, "train", 20);
  std::string path = dir / "train-images-idx3-ubyte.gz";
  std::string gz = read_file(path);
  write_file(path, gz.substr(0, gz.size() / 2));
  expect_error(dir.path(), true, {path, "truncated"});
}

TEST(FashionMNIST, TruncatedData) {
  TempDir dir;
  write_split(dir, "train", 20);
  std::string idx = images_idx(20);
  write_gz(dir / "train-images-idx3-ubyte.gz", idx.substr(0, idx.size() - 100));
  expect_error(dir.path(), true, {"train-images-idx3-ubyte.gz", "truncated", "15680"});
  write_gz(dir / "train-images-idx3-ubyte.gz", idx.substr(0, 10));
  expect_error(dir.path(), true, {"truncated", "dimensions"});
}

TEST(FashionMNIST, CorruptGzip) {
  TempDir dir;
  write_split(dir, "train", 20);
  std::string path = dir / "train-labels-idx1-ubyte.gz";
  std::string gz = read_file(path);
  // Damage the compressed stream after the 10-byte gzip header.
  for (size_t i = 12; i < gz.size() - 8; i += 3) gz[i] = static_cast<char>(gz[i] ^ 0x5a);
  write_file(path, gz);
  expect_error(dir.path(), true, {path, "corrupt gzip data"});
  // A damaged CRC trailer is caught too.
  write_split(dir, "t10k", 5);
  std::string path2 = dir / "t10k-images-idx3-ubyte.gz";
  std::string gz2 = read_file(path2);
  gz2[gz2.size() - 6] = static_cast<char>(gz2[gz2.size() - 6] ^ 0xff);
  write_file(path2, gz2);
  expect_error(dir.path(), false, {path2, "corrupt gzip data"});
}

TEST(FashionMNIST, WrongMagicAndWrongFiles) {
  TempDir dir;
  write_split(dir, "train", 5);
  std::string bad = images_idx(5);
  bad[0] = 0x1f;
  write_gz(dir / "train-images-idx3-ubyte.gz", bad);
  expect_error(dir.path(), true, {"train-images-idx3-ubyte.gz", "wrong magic number 0x1f000803"});

  // A float IDX file.
  write_gz(dir / "train-images-idx3-ubyte.gz", images_idx(5, 28, 28, 0x0d03));
  expect_error(dir.path(), true, {"0x00000d03", "unsigned byte"});

  // Labels where the images should be.
  write_gz(dir / "train-images-idx3-ubyte.gz", labels_idx(5));
  expect_error(dir.path(), true, {"train-images-idx3-ubyte.gz", "expected images", "0x00000801"});

  // MNIST-like but wrong geometry.
  write_gz(dir / "train-images-idx3-ubyte.gz", images_idx(5, 32, 32));
  expect_error(dir.path(), true, {"32x32", "28x28"});

  // Counts that disagree.
  write_gz(dir / "train-images-idx3-ubyte.gz", images_idx(6));
  expect_error(dir.path(), true, {"6 images", "5 labels"});

  // A label outside 0..9.
  write_gz(dir / "train-images-idx3-ubyte.gz", images_idx(5));
  write_gz(dir / "train-labels-idx1-ubyte.gz", labels_idx(5, 3));
  expect_error(dir.path(), true, {"label 12 at index 3"});

  // Bytes past the declared data.
  write_gz(dir / "train-labels-idx1-ubyte.gz", labels_idx(5) + "xx");
  expect_error(dir.path(), true, {"train-labels-idx1-ubyte.gz", "past the 5 bytes"});

  // An empty file.
  write_file(dir / "train-labels-idx1-ubyte.gz", "");
  expect_error(dir.path(), true, {"truncated", "too short for a header"});
}

TEST(IdxFile, ShapeFromHeader) {
  TempDir dir;
  std::string s = be32(0x802) + be32(2) + be32(3) + "abcdef";
  write_file(dir / "m.idx", s);
  Tensor t = ed::read_idx_file(dir / "m.idx");
  EXPECT_EQ(t.dtype(), ember::kByte);
  EXPECT_EQ(t.sizes(), ember::IntArrayRef({2, 3}));
  EXPECT_EQ(static_cast<const char*>(t.data_ptr())[4], 'e');
  // A header promising far more data than there is fails as truncated, without a huge allocation.
  write_file(dir / "big.idx", be32(0x803) + be32(60000) + be32(60000) + be32(60000) + "abc");
  try {
    ed::read_idx_file(dir / "big.idx");
    FAIL();
  } catch (const ember::Error& e) {
    EXPECT_NE(std::string(e.what()).find("2^40"), std::string::npos) << e.what();
  }
  write_file(dir / "lie.idx", be32(0x803) + be32(60000) + be32(280) + be32(280) + "abc");
  EXPECT_THROW(ed::read_idx_file(dir / "lie.idx"), ember::Error);
}

// ---- the real dataset (Debian's dataset-fashion-mnist) ----

namespace {
bool have_real_dataset() {
  struct stat st;
  return ::stat((std::string(FashionMNIST::kDefaultRoot) + "/t10k-labels-idx1-ubyte.gz").c_str(),
                &st) == 0;
}
}  // namespace

TEST(FashionMNISTReal, SizesAndBalancedClasses) {
  if (!have_real_dataset()) GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  for (bool train : {true, false}) {
    FashionMNIST ds(FashionMNIST::kDefaultRoot, train);
    const int64_t n = train ? 60000 : 10000;
    ASSERT_EQ(ds.size(), static_cast<size_t>(n));
    EXPECT_EQ(ds.images().sizes(), ember::IntArrayRef({n, 1, 28, 28}));
    std::vector<int64_t> hist(10, 0);
    const int64_t* lab = ds.targets().data_ptr<int64_t>();
    for (int64_t i = 0; i < n; ++i) hist[lab[i]]++;
    for (int c = 0; c < 10; ++c) EXPECT_EQ(hist[c], n / 10) << "class " << c;
    const float* px = ds.images().data_ptr<float>();
    float lo = 1, hi = 0;
    double sum = 0;
    for (int64_t i = 0; i < n * 784; ++i) {
      lo = std::min(lo, px[i]);
      hi = std::max(hi, px[i]);
      sum += px[i];
    }
    EXPECT_EQ(lo, 0.0f);
    EXPECT_EQ(hi, 1.0f);
    if (train) EXPECT_NEAR(sum / (n * 784.0), FashionMNIST::kMean, 5e-4);
  }
}

TEST(FashionMNISTReal, MatchesPyTorchReadingTheSameFiles) {
  if (!have_real_dataset()) GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  FashionMNIST ds(FashionMNIST::kDefaultRoot, false);
  ds.normalize();
  auto r = ember::testing::TorchOracle::instance().run(R"(
import gzip
root = '/usr/share/datasets/fashion-mnist/'
raw = gzip.open(root + 't10k-images-idx3-ubyte.gz').read()
x = torch.frombuffer(bytearray(raw[16:]), dtype=torch.uint8).reshape(-1, 1, 28, 28)
x = x[:64].float().div(255).sub_(0.2860).div_(0.3530)
lab = gzip.open(root + 't10k-labels-idx1-ubyte.gz').read()
y = torch.frombuffer(bytearray(lab[8:]), dtype=torch.uint8).long()
)",
                                                       {}, {"x", "y"});
  ember::testing::expect_close(ds.images().narrow(0, 0, 64), r.at("x"), 0, 0);
  ember::testing::expect_close(ds.targets(), r.at("y"), 0, 0);
}
