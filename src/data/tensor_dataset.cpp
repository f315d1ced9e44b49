// TensorDataset: example i is a view of row i of each tensor.
#include "core/tensor_factory.h"
#include "ember/data/dataset.h"

namespace ember::data {

TensorDataset::TensorDataset(Tensor data, Tensor targets)
    : data_(std::move(data)), targets_(std::move(targets)) {
  EMBER_CHECK(data_.defined() && targets_.defined(), ValueError,
              "TensorDataset: data and targets must be defined tensors");
  EMBER_CHECK(data_.dim() >= 1 && targets_.dim() >= 1, ValueError,
              "TensorDataset: data and targets need at least one dimension (the sample index), "
              "got ",
              data_.dim(), "-d data and ", targets_.dim(), "-d targets");
  EMBER_CHECK(data_.size(0) == targets_.size(0), ValueError,
              "TensorDataset: size mismatch between tensors: data has ", data_.size(0),
              " rows, targets has ", targets_.size(0));
}

namespace {
// Row `i` without recording autograd: a dataset is input data, not part of a graph.
Tensor row(const Tensor& t, int64_t i) {
  IntArrayRef sizes = t.sizes(), strides = t.strides();
  return make_view(t, IntArrayRef(sizes.data() + 1, sizes.size() - 1),
                   IntArrayRef(strides.data() + 1, strides.size() - 1),
                   t.storage_offset() + i * strides[0]);
}
}  // namespace

TensorDataset::ExampleType TensorDataset::get(size_t index) {
  EMBER_CHECK(index < size(), IndexError, "TensorDataset: index ", index,
              " is out of range for a dataset of size ", size());
  auto i = static_cast<int64_t>(index);
  return {row(data_, i), row(targets_, i)};
}

size_t TensorDataset::size() const {
  return static_cast<size_t>(data_.size(0));
}

}  // namespace ember::data
