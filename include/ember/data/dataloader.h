#pragma once
// DataLoader: batches of a Dataset, optionally shuffled, prefetched by worker threads and
// assembled in pinned memory, iterated with range-for as in the tutorials:
//
//   auto loader = ember::data::DataLoader(dataset,
//       ember::data::DataLoaderOptions().batch_size(64).shuffle(true).num_workers(2));
//   for (auto& batch : loader) {
//     auto x = batch.data.to(device, /*non_blocking=*/true);
//     auto y = batch.target.to(device, /*non_blocking=*/true);
//   }
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/data/dataset.h"
#include "ember/data/sampler.h"

namespace ember::data {

// libtorch's torch::data::DataLoaderOptions (batch_size, workers, drop_last), plus the Python
// DataLoader's shuffle, num_workers, pin_memory, prefetch_factor and a seed for the shuffle.
// Setters return *this so that they chain.
class DataLoaderOptions {
 public:
  DataLoaderOptions() = default;
  // Implicit, as libtorch's: make_data_loader(dataset, 64).
  DataLoaderOptions(size_t batch_size) : batch_size_(batch_size) {}  // NOLINT

  DataLoaderOptions& batch_size(size_t b) {
    batch_size_ = b;
    return *this;
  }
  DataLoaderOptions& shuffle(bool s) {
    shuffle_ = s;
    return *this;
  }
  DataLoaderOptions& drop_last(bool d) {
    drop_last_ = d;
    return *this;
  }
  DataLoaderOptions& num_workers(size_t n) {
    workers_ = n;
    return *this;
  }
  DataLoaderOptions& workers(size_t n) { return num_workers(n); }  // libtorch's name
  DataLoaderOptions& pin_memory(bool p) {
    pin_memory_ = p;
    return *this;
  }
  DataLoaderOptions& seed(uint64_t s) {
    seed_ = s;
    return *this;
  }
  // Batches each worker may have ready ahead of the consumer (the Python default is 2).
  DataLoaderOptions& prefetch_factor(size_t f) {
    prefetch_factor_ = f;
    return *this;
  }

  size_t batch_size() const { return batch_size_; }
  bool shuffle() const { return shuffle_; }
  bool drop_last() const { return drop_last_; }
  size_t num_workers() const { return workers_; }
  size_t workers() const { return workers_; }
  bool pin_memory() const { return pin_memory_; }
  // Unset: the loader takes ember::initial_seed() when it is constructed.
  std::optional<uint64_t> seed() const { return seed_; }
  size_t prefetch_factor() const { return prefetch_factor_; }

 private:
  size_t batch_size_ = 1;
  bool shuffle_ = false;
  bool drop_last_ = false;
  size_t workers_ = 0;
  bool pin_memory_ = false;
  std::optional<uint64_t> seed_;
  size_t prefetch_factor_ = 2;
};

using Batch = Example<Tensor, Tensor>;

namespace detail {

// The sample order of one epoch: 0..n-1, or with `shuffle` a Fisher-Yates permutation drawn from
// std::mt19937_64 seeded with std::seed_seq{seed lo, seed hi, epoch lo, epoch hi} (32-bit halves);
// both are fully specified by the standard, so every platform gives the same order.
EMBER_API std::vector<size_t> epoch_indices(size_t n, bool shuffle, uint64_t seed, uint64_t epoch);

// Stacks equally shaped tensors along a new dim 0 into one freshly allocated CPU tensor (pinned
// when `pinned`). Throws ValueError/TypeError naming `field` and the entries that differ.
EMBER_API Tensor stack_batch(const std::vector<Tensor>& items, bool pinned, const char* field);
EMBER_API Tensor stack_batch(const std::vector<int64_t>& items, bool pinned);
EMBER_API Tensor stack_batch(const std::vector<double>& items, bool pinned);

// Whether pin_memory(true) can be honoured (CUDA available); otherwise batches are pageable.
EMBER_API bool can_pin_memory();
EMBER_API uint64_t default_loader_seed();
EMBER_API void check_loader_options(const DataLoaderOptions& options);
// A sampler is non-null and excludes shuffle.
EMBER_API void check_sampler(const Sampler* sampler, const DataLoaderOptions& options);
// The sampler's indices for this epoch, each checked against the dataset's size.
EMBER_API std::vector<size_t> sampled_indices(Sampler& sampler, size_t dataset_size);

// Produces batches 0..num_batches-1 in order. With workers, the batches are built on worker
// threads, at most `capacity` ahead of the consumer; a worker's exception is rethrown by next()
// at that batch's turn. The destructor stops and joins the workers, so leaving a loop early is
// clean.
class EMBER_API BatchProducer {
 public:
  using MakeBatch = std::function<Batch(size_t batch_index)>;
  BatchProducer(MakeBatch make, size_t num_batches, size_t num_workers, size_t capacity);
  ~BatchProducer();
  BatchProducer(const BatchProducer&) = delete;
  BatchProducer& operator=(const BatchProducer&) = delete;
  // Moves the next batch into `out`; false once every batch has been returned.
  bool next(Batch& out);

 private:
  struct State;
  void shutdown();
  std::unique_ptr<State> state_;
};

template <typename T>
struct TargetCollate {
  static_assert(std::is_same_v<T, Tensor> || std::is_arithmetic_v<T>,
                "DataLoader: Example::target must be a Tensor or an arithmetic type");
  using Items =
      std::vector<std::conditional_t<std::is_same_v<T, Tensor>, Tensor,
                                     std::conditional_t<std::is_integral_v<T>, int64_t, double>>>;
};

}  // namespace detail

template <typename DatasetT>
class DataLoader {
 public:
  using DatasetType = DatasetT;
  using ExampleType = typename DatasetT::ExampleType;
  using BatchType = Batch;
  static_assert(std::is_same_v<typename ExampleType::DataType, Tensor>,
                "DataLoader: Example::data must be a Tensor");

  // Keeps a copy of `dataset` (datasets holding tensors copy cheaply: tensors are handles).
  explicit DataLoader(DatasetT dataset, DataLoaderOptions options = DataLoaderOptions())
      : DataLoader(std::make_shared<DatasetT>(std::move(dataset)), std::move(options)) {}
  // Shares `dataset` (use this for abstract or expensive-to-copy datasets).
  explicit DataLoader(std::shared_ptr<DatasetT> dataset,
                      DataLoaderOptions options = DataLoaderOptions())
      : dataset_(std::move(dataset)), options_(std::move(options)) {
    detail::check_loader_options(options_);
    seed_ = options_.seed() ? *options_.seed() : detail::default_loader_seed();
    pinned_ = options_.pin_memory() && detail::can_pin_memory();
  }
  // Batches the indices `sampler` gives for each epoch (e.g. a DistributedSampler's shard);
  // shuffle must then be off, as in PyTorch (the sampler decides the order).
  DataLoader(DatasetT dataset, std::shared_ptr<Sampler> sampler,
             DataLoaderOptions options = DataLoaderOptions())
      : DataLoader(std::make_shared<DatasetT>(std::move(dataset)), std::move(sampler),
                   std::move(options)) {}
  DataLoader(std::shared_ptr<DatasetT> dataset, std::shared_ptr<Sampler> sampler,
             DataLoaderOptions options = DataLoaderOptions())
      : DataLoader(std::move(dataset), std::move(options)) {
    detail::check_sampler(sampler.get(), options_);
    sampler_ = std::move(sampler);
  }

  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Batch;
    using difference_type = std::ptrdiff_t;
    using pointer = Batch*;
    using reference = Batch&;

    iterator() = default;
    Batch& operator*() const { return epoch_->current; }
    Batch* operator->() const { return &epoch_->current; }
    iterator& operator++() {
      if (epoch_ && !epoch_->producer.next(epoch_->current)) epoch_.reset();
      return *this;
    }
    // Only an exhausted iterator equals end(); two live iterators are equal when they share
    // the same epoch.
    bool operator==(const iterator& o) const { return epoch_ == o.epoch_; }
    bool operator!=(const iterator& o) const { return !(*this == o); }

   private:
    friend class DataLoader;
    struct Epoch {
      template <typename... Args>
      explicit Epoch(Args&&... args) : producer(std::forward<Args>(args)...) {}
      detail::BatchProducer producer;
      Batch current;
    };
    std::shared_ptr<Epoch> epoch_;
  };

  // Starts a new epoch (a new shuffle order); an epoch still running in another iterator goes on
  // independently. The workers stop when the last iterator of an epoch is destroyed.
  iterator begin() {
    auto indices = std::make_shared<const std::vector<size_t>>(
        sampler_ ? detail::sampled_indices(*sampler_, dataset_->size())
                 : detail::epoch_indices(dataset_->size(), options_.shuffle(), seed_, epoch_));
    ++epoch_;
    size_t nb = num_batches(indices->size());
    auto make = [dataset = dataset_, indices, bs = options_.batch_size(),
                 pinned = pinned_](size_t b) {
      size_t begin = b * bs, end = std::min(indices->size(), begin + bs);
      return collate(*dataset, indices->data() + begin, end - begin, pinned);
    };
    size_t workers = options_.num_workers();
    iterator it;
    it.epoch_ = std::make_shared<typename iterator::Epoch>(std::move(make), nb, workers,
                                                           workers * options_.prefetch_factor());
    ++it;
    return it;
  }
  iterator end() { return iterator(); }

  // Batches per epoch (len(loader) in Python).
  size_t size() const { return num_batches(sampler_ ? sampler_->size() : dataset_->size()); }
  const DataLoaderOptions& options() const { return options_; }
  DatasetT& dataset() { return *dataset_; }
  // The epoch number the next begin() shuffles with (it counts begin() calls from 0).
  void set_epoch(uint64_t epoch) { epoch_ = epoch; }
  uint64_t epoch() const { return epoch_; }
  // True when batches are assembled in pinned memory (pin_memory requested and CUDA available).
  bool pins_memory() const { return pinned_; }

 private:
  size_t num_batches(size_t n) const {
    size_t bs = options_.batch_size();
    return options_.drop_last() ? n / bs : (n + bs - 1) / bs;
  }

  static Batch collate(DatasetT& dataset, const size_t* idx, size_t n, bool pinned) {
    using Target = typename ExampleType::TargetType;
    std::vector<Tensor> data;
    typename detail::TargetCollate<Target>::Items targets;
    data.reserve(n);
    targets.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      auto ex = dataset.get(idx[i]);
      data.push_back(std::move(ex.data));
      targets.push_back(std::move(ex.target));
    }
    Batch batch;
    batch.data = detail::stack_batch(data, pinned, "data");
    if constexpr (std::is_same_v<Target, Tensor>) {
      batch.target = detail::stack_batch(targets, pinned, "target");
    } else {
      batch.target = detail::stack_batch(targets, pinned);
    }
    return batch;
  }

  std::shared_ptr<DatasetT> dataset_;
  std::shared_ptr<Sampler> sampler_;
  DataLoaderOptions options_;
  uint64_t seed_ = 0;
  uint64_t epoch_ = 0;
  bool pinned_ = false;
};

// libtorch's spelling: auto loader = make_data_loader(dataset, options) (returns a unique_ptr,
// iterated as `for (auto& batch : *loader)`).
// (libtorch-style datasets::Dataset<Self> datasets go to ember/data/stateless_loader.h's.)
template <typename DatasetT, std::enable_if_t<!detail::is_batch_dataset_v<DatasetT>, int> = 0>
std::unique_ptr<DataLoader<DatasetT>> make_data_loader(DatasetT dataset,
                                                       DataLoaderOptions options = {}) {
  return std::make_unique<DataLoader<DatasetT>>(std::move(dataset), std::move(options));
}

}  // namespace ember::data
