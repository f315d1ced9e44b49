// broadcast_to, broadcast_tensors and meshgrid: views made by expand (whose gradient sums the
// broadcast dims back).
#include "core/tensor_factory.h"
#include "ember/ops.h"

namespace ember {

Tensor broadcast_to(const Tensor& self, IntArrayRef size) {
  return self.expand(size);
}

Tensor Tensor::broadcast_to(IntArrayRef size) const {
  return expand(size);
}

std::vector<Tensor> broadcast_tensors(TensorList tensors) {
  std::vector<int64_t> shape;
  for (const Tensor& t : tensors) shape = broadcast_shapes(shape, t.sizes());
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(t.expand(shape));
  return out;
}

std::vector<Tensor> meshgrid(TensorList tensors) {
  return meshgrid(tensors, "ij");
}

std::vector<Tensor> meshgrid(TensorList tensors, std::string_view indexing) {
  EMBER_CHECK(!tensors.empty(), ValueError, "meshgrid expects a non-empty TensorList");
  for (size_t i = 0; i + 1 < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].dtype() == tensors[i + 1].dtype(), TypeError,
                "meshgrid expects all tensors to have the same dtype (tensor ", i, " is ",
                python_name(tensors[i].dtype()), ", tensor ", i + 1, " is ",
                python_name(tensors[i + 1].dtype()), ")");
    EMBER_CHECK(tensors[i].device() == tensors[i + 1].device(), DeviceError,
                "meshgrid expects all tensors to have the same device (tensor ", i, " is on ",
                tensors[i].device(), ", tensor ", i + 1, " is on ", tensors[i + 1].device(), ")");
  }
  EMBER_CHECK(indexing == "ij" || indexing == "xy", ValueError,
              "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: ", indexing);
  for (const Tensor& t : tensors) {
    EMBER_CHECK(t.dim() <= 1, ValueError,
                "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a tensor of "
                "shape ",
                t.sizes());
  }
  // "xy" is "ij" with the first two inputs and the first two outputs swapped.
  std::vector<Tensor> in(tensors.begin(), tensors.end());
  const bool swap = indexing == "xy" && in.size() >= 2;
  if (swap) std::swap(in[0], in[1]);
  std::vector<int64_t> shape;
  for (const Tensor& t : in) shape.push_back(t.numel());
  std::vector<Tensor> grids;
  for (size_t i = 0; i < in.size(); ++i) {
    std::vector<int64_t> view(in.size(), 1);
    view[i] = shape[i];
    grids.push_back(in[i].reshape(view).expand(shape));
  }
  if (swap) std::swap(grids[0], grids[1]);
  return grids;
}

}  // namespace ember
