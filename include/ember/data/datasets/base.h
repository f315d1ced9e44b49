#pragma once
// libtorch's dataset classes (torch::data::datasets): the CRTP pattern
//
//   struct MyDataset : ember::data::datasets::Dataset<MyDataset> {
//     ember::data::Example<> get(size_t index) override { ... }
//     ember::optional<size_t> size() const override { return n; }
//   };
//   auto ds = MyDataset().map(ember::data::transforms::Stack<>());
//
// A BatchDataset returns a whole batch for a list of indices; a Dataset returns one example per
// index and a std::vector of them per batch; map(transform) wraps a dataset in a MapDataset whose
// batches are the transform's output (Stack<> turns a vector of examples into one stacked example).
// make_data_loader (ember/data/stateless_loader.h) iterates these.
#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/array_ref.h"
#include "ember/data/dataset.h"
#include "ember/optional.h"

namespace ember::data::datasets {

template <typename Source, typename AppliedTransform>
class MapDataset;

template <typename Self, typename Batch = std::vector<Example<>>,
          typename BatchRequest = ArrayRef<size_t>>
class BatchDataset : public detail::BatchDatasetTag {
 public:
  using SelfType = Self;
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;
  // Ember has no stateful (chunked) datasets.
  static constexpr bool is_stateful = false;

  virtual ~BatchDataset() = default;
  // The batch of the examples at `request`.
  virtual Batch get_batch(BatchRequest request) = 0;
  // The number of examples (libtorch allows unsized datasets; the loader needs a size).
  virtual std::optional<size_t> size() const = 0;

  template <typename TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) & {
    return MapDataset<Self, TransformType>(static_cast<Self&>(*this), std::move(transform));
  }
  template <typename TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) && {
    return MapDataset<Self, TransformType>(std::move(static_cast<Self&>(*this)),
                                           std::move(transform));
  }
};

// One example per index; a batch is the std::vector of the examples.
template <typename Self, typename SingleExample = Example<>>
class Dataset : public BatchDataset<Self, std::vector<SingleExample>> {
 public:
  using ExampleType = SingleExample;

  virtual ExampleType get(size_t index) = 0;

  std::vector<ExampleType> get_batch(ArrayRef<size_t> indices) override {
    std::vector<ExampleType> batch;
    batch.reserve(indices.size());
    for (size_t i : indices) batch.push_back(get(i));
    return batch;
  }
};

// `dataset` with `transform` applied to each batch it returns (dataset.map(transform)).
template <typename Source, typename AppliedTransform>
class MapDataset : public BatchDataset<MapDataset<Source, AppliedTransform>,
                                       typename AppliedTransform::OutputBatchType,
                                       typename Source::BatchRequestType> {
 public:
  using DatasetType = Source;
  using TransformType = AppliedTransform;
  using BatchRequestType = typename Source::BatchRequestType;
  using OutputBatchType = typename AppliedTransform::OutputBatchType;

  MapDataset(DatasetType dataset, TransformType transform)
      : dataset_(std::move(dataset)), transform_(std::move(transform)) {}

  OutputBatchType get_batch(BatchRequestType indices) override {
    return transform_.apply_batch(dataset_.get_batch(std::move(indices)));
  }
  std::optional<size_t> size() const override { return dataset_.size(); }

  const Source& dataset() const noexcept { return dataset_; }
  const AppliedTransform& transform() const noexcept { return transform_; }

 private:
  Source dataset_;
  AppliedTransform transform_;
};

template <typename DatasetType, typename TransformType>
MapDataset<DatasetType, TransformType> map(DatasetType dataset, TransformType transform) {
  return MapDataset<DatasetType, TransformType>(std::move(dataset), std::move(transform));
}

}  // namespace ember::data::datasets
