// The torch::data pipeline of libtorch's MNIST example: datasets::MNIST on IDX files, map with
// transforms::Normalize and transforms::Stack, make_data_loader with DataLoaderOptions
// (batch_size, workers, drop_last) and Sequential/RandomSampler; a custom Dataset<Self> with
// get/size; Lambda transforms; and batches without Stack (vectors of examples).
// compat-compare: rtol=1e-5 atol=1e-5
#include <torch/torch.h>

#include <fstream>

#include "compat_report.h"

// libtorch's MNIST reads exactly 10000 test images; write a synthetic split in MNIST's format.
void write_be32(std::ofstream& f, uint32_t v) {
  const char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                     static_cast<char>(v >> 8), static_cast<char>(v)};
  f.write(b, 4);
}
void write_mnist_test_split() {
  const int n = 10000;
  std::ofstream images("t10k-images-idx3-ubyte", std::ios::binary);
  write_be32(images, 0x803);
  write_be32(images, n);
  write_be32(images, 28);
  write_be32(images, 28);
  std::string pixels(static_cast<size_t>(n) * 28 * 28, '\0');
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<char>((i * 7 + i / 784) % 256);
  images.write(pixels.data(), static_cast<std::streamsize>(pixels.size()));
  std::ofstream labels("t10k-labels-idx1-ubyte", std::ios::binary);
  write_be32(labels, 0x801);
  write_be32(labels, n);
  for (int i = 0; i < n; ++i) labels.put(static_cast<char>((i * 3) % 10));
}

// Example i: data {i, i^2 / 10, 1}, target i % 4.
struct Squares : torch::data::datasets::Dataset<Squares> {
  explicit Squares(size_t n) : n_(n) {}
  torch::data::Example<> get(size_t index) override {
    const double i = static_cast<double>(index);
    return {torch::tensor({i, i * i / 10, 1.0}, torch::kFloat),
            torch::tensor(static_cast<int64_t>(index % 4))};
  }
  torch::optional<size_t> size() const override { return n_; }
  size_t n_;
};

int main() {
  write_mnist_test_split();
  namespace data = torch::data;
  auto mnist = data::datasets::MNIST(".", data::datasets::MNIST::Mode::kTest);
  report("mnist_size", static_cast<double>(mnist.size().value()));
  report("mnist_is_train", mnist.is_train() ? 1.0 : 0.0);
  report("mnist_image_17_row_3", mnist.images()[17][0][3]);
  report("mnist_targets_head", mnist.targets().slice(0, 0, 12));

  auto dataset = data::datasets::MNIST(".", data::datasets::MNIST::Mode::kTest)
                     .map(data::transforms::Normalize<>(0.1307, 0.3081))
                     .map(data::transforms::Stack<>());
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
      std::move(dataset), data::DataLoaderOptions().batch_size(1536).workers(2));
  int batch_index = 0;
  for (auto& batch : *loader) {
    std::cout << "mnist_batch " << batch_index++ << " " << batch.data.size(0) << " "
              << batch.data.size(1) << " " << batch.data.size(2) << " " << batch.data.size(3)
              << "\n";
    report("  data_sum", batch.data.sum().item<double>());
    report("  target_sum", static_cast<double>(batch.target.sum().item<int64_t>()));
  }

  // Random order: every example exactly once per epoch (the order itself is the generator's).
  torch::manual_seed(0);
  auto random_loader =
      data::make_data_loader(data::datasets::MNIST(".", data::datasets::MNIST::Mode::kTest)
                                 .map(data::transforms::Stack<>()),
                             data::DataLoaderOptions().batch_size(3000).drop_last(true));
  for (int epoch = 0; epoch < 2; ++epoch) {
    int64_t examples = 0, batches = 0;
    for (auto& batch : *random_loader) {
      examples += batch.data.size(0);
      ++batches;
    }
    std::cout << "random_epoch " << epoch << " batches " << batches << " examples " << examples
              << "\n";
  }

  // A custom dataset with a lambda and a tensor transform.
  using Ex = data::Example<>;
  auto squares = Squares(10)
                     .map(data::transforms::Lambda<Ex>([](Ex e) {
                       e.target = e.target * 2;
                       return e;
                     }))
                     .map(data::transforms::TensorLambda<>([](torch::Tensor t) { return t + 1; }))
                     .map(data::transforms::Stack<>());
  auto squares_loader = data::make_data_loader<data::samplers::SequentialSampler>(
      std::move(squares), data::DataLoaderOptions(4));
  for (auto& batch : *squares_loader) {
    report("squares_data", batch.data);
    report("squares_target", batch.target);
  }

  // Without Stack a batch is a std::vector of examples.
  auto plain = data::make_data_loader<data::samplers::SequentialSampler>(Squares(5), 2);
  for (auto& batch : *plain) {
    std::cout << "plain_batch " << batch.size();
    for (auto& example : batch) std::cout << " " << example.data[1].item<float>();
    std::cout << "\n";
  }
  return 0;
}
