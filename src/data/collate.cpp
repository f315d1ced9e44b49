// Batch assembly: samples are copied into one preallocated (optionally pinned) batch tensor,
// which is cheaper than building a list and calling stack.
#include <cstring>

#include "core/tensor_factory.h"
#include "ember/cuda.h"
#include "ember/data/dataloader.h"
#include "ember/ops.h"

namespace ember::data::detail {

bool can_pin_memory() {
  return cuda::is_available();
}

uint64_t default_loader_seed() {
  return initial_seed();
}

void check_loader_options(const DataLoaderOptions& options) {
  EMBER_CHECK(options.batch_size() > 0, ValueError,
              "DataLoader: batch_size should be a positive integer value, but got batch_size=",
              options.batch_size());
  EMBER_CHECK(options.num_workers() == 0 || options.prefetch_factor() > 0, ValueError,
              "DataLoader: prefetch_factor should be a positive integer when num_workers > 0, "
              "but got prefetch_factor=",
              options.prefetch_factor());
}

Tensor stack_batch(const std::vector<Tensor>& items, bool pinned, const char* field) {
  EMBER_CHECK(!items.empty(), ValueError, "DataLoader: cannot collate an empty batch");
  for (size_t k = 0; k < items.size(); ++k) {
    EMBER_CHECK(items[k].defined(), ValueError, "DataLoader: example ", k, " of the batch has an ",
                "undefined ", field, " tensor");
  }
  const Tensor& first = items[0];
  for (size_t k = 1; k < items.size(); ++k) {
    EMBER_CHECK(items[k].sizes() == first.sizes(), ValueError, "DataLoader: stack expects each ",
                field, " tensor to be equal size, but got ", first.sizes(), " at entry 0 and ",
                items[k].sizes(), " at entry ", k);
    EMBER_CHECK(items[k].dtype() == first.dtype(), TypeError, "DataLoader: stack expects each ",
                field, " tensor to have the same dtype, but got ", first.dtype(),
                " at entry 0 and ", items[k].dtype(), " at entry ", k);
  }
  DimVector sizes;
  sizes.push_back(static_cast<int64_t>(items.size()));
  for (int64_t s : first.sizes()) sizes.push_back(s);
  Tensor out = make_empty(sizes, first.dtype(), Device(kCPU), pinned);
  const size_t row = first.nbytes();
  auto* dst = static_cast<char*>(out.data_ptr());
  for (size_t k = 0; k < items.size(); ++k) {
    const Tensor& t = items[k];
    if (t.is_cpu() && t.is_contiguous()) {
      if (row) std::memcpy(dst + k * row, t.data_ptr(), row);
    } else {
      out.select(0, static_cast<int64_t>(k)).copy_(t);
    }
  }
  return out;
}

namespace {
template <typename T>
Tensor stack_scalars(const std::vector<T>& items, bool pinned) {
  Tensor out = make_empty({static_cast<int64_t>(items.size())}, CppTypeToScalarType<T>::value,
                          Device(kCPU), pinned);
  if (!items.empty()) std::memcpy(out.data_ptr(), items.data(), items.size() * sizeof(T));
  return out;
}
}  // namespace

// Python's default_collate: ints become int64, floats float64.
Tensor stack_batch(const std::vector<int64_t>& items, bool pinned) {
  return stack_scalars(items, pinned);
}
Tensor stack_batch(const std::vector<double>& items, bool pinned) {
  return stack_scalars(items, pinned);
}

}  // namespace ember::data::detail
