#pragma once
// libtorch's make_data_loader over libtorch-style datasets (ember/data/datasets/base.h):
//
//   auto ds = MyDataset().map(ember::data::transforms::Stack<>());
//   auto loader = ember::data::make_data_loader<ember::data::samplers::SequentialSampler>(
//       std::move(ds), ember::data::DataLoaderOptions().batch_size(64).workers(2));
//   for (auto& batch : *loader) { batch.data; batch.target; }
//
// Each epoch (begin()) resets the sampler and takes index batches from it; drop_last leaves out a
// final short batch. A batch is whatever the dataset's get_batch returns: a std::vector<Example<>>
// for a plain Dataset, one stacked Example<> after map(Stack<>()). With workers > 0 the stacked
// Example<> batches are built on worker threads (in order, at most 2 per worker ahead), so get()
// must then be safe to call from several threads; other batch types are built on the caller's.
#include <cstddef>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/data/dataloader.h"
#include "ember/data/datasets/base.h"
#include "ember/data/samplers.h"

namespace ember::data {

namespace detail {
// Throws ValueError when the dataset has no size (libtorch's make_data_loader needs one).
EMBER_API size_t required_dataset_size(std::optional<size_t> size);
}  // namespace detail

template <typename DatasetT, typename SamplerT>
class StatelessDataLoader {
 public:
  using BatchType = typename DatasetT::BatchType;
  using BatchRequestType = std::vector<size_t>;

  StatelessDataLoader(DatasetT dataset, SamplerT sampler, DataLoaderOptions options)
      : dataset_(std::make_shared<DatasetT>(std::move(dataset))),
        sampler_(std::move(sampler)),
        options_(std::move(options)) {
    detail::check_loader_options(options_);
    EMBER_CHECK(!options_.shuffle(), ValueError,
                "make_data_loader: shuffle is decided by the sampler (RandomSampler, the default, "
                "or SequentialSampler); leave DataLoaderOptions::shuffle off");
  }

  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = BatchType;
    using difference_type = std::ptrdiff_t;
    using pointer = BatchType*;
    using reference = BatchType&;

    iterator() = default;
    BatchType& operator*() const { return epoch_->current; }
    BatchType* operator->() const { return &epoch_->current; }
    iterator& operator++() {
      if (epoch_ && !epoch_->advance()) epoch_.reset();
      return *this;
    }
    bool operator==(const iterator& o) const { return epoch_ == o.epoch_; }
    bool operator!=(const iterator& o) const { return !(*this == o); }

   private:
    friend class StatelessDataLoader;
    struct Epoch {
      std::shared_ptr<DatasetT> dataset;
      std::vector<std::vector<size_t>> batches;
      size_t next_batch = 0;
      std::unique_ptr<detail::BatchProducer> producer;  // Example<> batches with workers
      BatchType current;
      bool advance() {
        if constexpr (std::is_same_v<BatchType, Batch>) {
          if (producer) return producer->next(current);
        }
        if (next_batch >= batches.size()) return false;
        current = dataset->get_batch(ArrayRef<size_t>(batches[next_batch++]));
        return true;
      }
    };
    std::shared_ptr<Epoch> epoch_;
  };

  // Starts an epoch: resets the sampler and collects this epoch's index batches.
  iterator begin() {
    auto epoch = std::make_shared<typename iterator::Epoch>();
    epoch->dataset = dataset_;
    sampler_.reset(std::nullopt);
    const size_t bs = options_.batch_size();
    while (auto indices = sampler_.next(bs)) {
      if (options_.drop_last() && indices->size() < bs) break;
      epoch->batches.push_back(std::move(*indices));
    }
    if constexpr (std::is_same_v<BatchType, Batch>) {
      const size_t workers = options_.num_workers();
      if (workers > 0) {
        auto batches = std::make_shared<std::vector<std::vector<size_t>>>(epoch->batches);
        auto make = [dataset = dataset_, batches](size_t b) {
          return dataset->get_batch(ArrayRef<size_t>((*batches)[b]));
        };
        epoch->producer = std::make_unique<detail::BatchProducer>(
            std::move(make), batches->size(), workers, workers * options_.prefetch_factor());
      }
    }
    iterator it;
    it.epoch_ = std::move(epoch);
    ++it;
    return it;
  }
  iterator end() { return iterator(); }

  const DataLoaderOptions& options() const noexcept { return options_; }

 private:
  std::shared_ptr<DatasetT> dataset_;
  SamplerT sampler_;
  DataLoaderOptions options_;
};

// make_data_loader(dataset, sampler, options)
template <typename DatasetT, typename SamplerT,
          std::enable_if_t<detail::is_batch_dataset_v<DatasetT>, int> = 0>
std::unique_ptr<StatelessDataLoader<DatasetT, SamplerT>> make_data_loader(
    DatasetT dataset, SamplerT sampler, DataLoaderOptions options) {
  return std::make_unique<StatelessDataLoader<DatasetT, SamplerT>>(
      std::move(dataset), std::move(sampler), std::move(options));
}

// make_data_loader(dataset, options) with a RandomSampler, or make_data_loader<Sampler>(...)
// (a sampler constructible from the dataset's size, e.g. SequentialSampler).
template <
    typename SamplerT = samplers::RandomSampler, typename DatasetT,
    std::enable_if_t<
        detail::is_batch_dataset_v<DatasetT> && std::is_constructible_v<SamplerT, size_t>, int> = 0>
std::unique_ptr<StatelessDataLoader<DatasetT, SamplerT>> make_data_loader(
    DatasetT dataset, DataLoaderOptions options = DataLoaderOptions()) {
  const size_t size = detail::required_dataset_size(dataset.size());
  return make_data_loader(std::move(dataset), SamplerT(size), std::move(options));
}

}  // namespace ember::data
