// Recording onto the tape: the edge a tensor's gradient flows along, the node a front end records
// for an op's outputs (record.h), and sum_to, which undoes broadcasting in a backward function.
#include "autograd/node_impl.h"
#include "ember/ops.h"

namespace ember::autograd {

Edge gradient_edge(const Tensor& t) {
  auto* meta = t.unsafeGetTensorImpl()->autograd_meta();
  if (!meta || !meta->requires_grad) return Edge{};
  if (meta->grad_fn) return Edge{meta->grad_fn, meta->output_nr};
  std::shared_ptr<Node> acc = meta->grad_accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(t);
    meta->grad_accumulator = acc;
  }
  return Edge{acc, 0};
}

void record(const char* name, const variable_list& outputs, const variable_list& inputs,
            BackwardFn backward) {
  auto node = std::make_shared<FunctionNode>(name, std::move(backward));
  node->next_edges_.reserve(inputs.size());
  for (const Tensor& in : inputs) {
    node->next_edges_.push_back(in.defined() ? gradient_edge(in) : Edge{});
    node->input_meta_.emplace_back(in.defined() ? in : Tensor(zeros({0})));
  }
  node->num_outputs_ = outputs.size();
  for (size_t i = 0; i < outputs.size(); ++i) {
    node->output_meta_.emplace_back(outputs[i]);
    auto& meta = outputs[i].unsafeGetTensorImpl()->ensure_autograd_meta();
    meta.requires_grad = true;
    meta.grad_fn = node;
    meta.output_nr = static_cast<uint32_t>(i);
  }
}

Tensor sum_to(const Tensor& grad, IntArrayRef sizes) {
  if (grad.sizes() == sizes) return grad;
  int64_t lead = grad.dim() - static_cast<int64_t>(sizes.size());
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < grad.dim(); ++d) {
    if (d < lead || (sizes[d - lead] == 1 && grad.size(d) != 1)) dims.push_back(d);
  }
  Tensor r = dims.empty() ? grad : grad.sum(dims, /*keepdim=*/true);
  return r.reshape(sizes);
}

}  // namespace ember::autograd
