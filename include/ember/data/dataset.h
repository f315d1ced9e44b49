#pragma once
// Datasets: an indexable collection of examples (torch.utils.data.Dataset, with libtorch's
// Example<Data, Target> carrying .data and .target).
#include <cstddef>
#include <type_traits>
#include <utility>

#include "ember/tensor.h"

namespace ember::data {

// One sample, or one stacked batch of samples, as in torch::data::Example.
template <typename Data = Tensor, typename Target = Tensor>
struct Example {
  using DataType = Data;
  using TargetType = Target;
  Example() = default;
  Example(Data data, Target target) : data(std::move(data)), target(std::move(target)) {}
  Data data;
  Target target;
};

// A map-style dataset. With DataLoaderOptions::num_workers > 0, get() is called from several
// threads at once, so it must not mutate shared state without synchronisation.
template <typename Data = Tensor, typename Target = Tensor>
class Dataset {
 public:
  using ExampleType = Example<Data, Target>;
  virtual ~Dataset() = default;
  // The example at `index`, 0 <= index < size(); throws ember::IndexError otherwise.
  virtual ExampleType get(size_t index) = 0;
  virtual size_t size() const = 0;
};

// Rows of two tensors of equal length: example i is {data[i], targets[i]}
// (torch.utils.data.TensorDataset with two tensors).
class EMBER_API TensorDataset : public Dataset<Tensor, Tensor> {
 public:
  // Throws ValueError unless both are defined, at least 1-d, and have the same size(0).
  TensorDataset(Tensor data, Tensor targets);
  ExampleType get(size_t index) override;
  size_t size() const override;
  const Tensor& data() const { return data_; }
  const Tensor& targets() const { return targets_; }

 private:
  Tensor data_, targets_;
};

namespace datasets::detail {
// Every libtorch-style dataset (ember/data/datasets/base.h) derives from this tag, so that
// make_data_loader can tell them from the Dataset<Data, Target> above.
struct BatchDatasetTag {};
}  // namespace datasets::detail

namespace detail {
template <typename D>
constexpr bool is_batch_dataset_v =
    std::is_base_of_v<datasets::detail::BatchDatasetTag, std::decay_t<D>>;
}  // namespace detail

}  // namespace ember::data
