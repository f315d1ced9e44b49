// A tensor kept for the backward pass: its version checked when it is unpacked, so an in-place
// change after saving is an error rather than a wrong gradient; a saved output is detached (no
// cycle through its own grad_fn) and reattached under create_graph.
#include "autograd/node_impl.h"

namespace ember::autograd {

SavedTensor::SavedTensor(const Tensor& t, bool is_output, uint32_t output_nr) {
  if (!t.defined()) return;
  data_ = is_output ? t.detach() : t;
  version_ = t._version();
  output_nr_ = output_nr;
  is_output_ = is_output;
}

Tensor SavedTensor::unpack() const {
  if (!data_.defined()) return data_;
  if (data_._version() != version_) {
    throw Error(detail::str_cat(
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [",
        to_string(data_.dtype()), " ", data_.sizes(), "] is at version ", data_._version(),
        "; expected version ", version_, " instead."));
  }
  Node* owner = current_node();
  if (!is_output_ || !owner || !GradMode::is_enabled()) return data_;
  // create_graph: the saved output is the owner's output again, differentiable through it.
  Tensor t = data_.detach();
  auto& meta = t.unsafeGetTensorImpl()->ensure_autograd_meta();
  meta.requires_grad = true;
  meta.grad_fn = owner->shared_from_this();
  meta.output_nr = output_nr_;
  return t;
}

}  // namespace ember::autograd
