#pragma once
// The concrete node types of the tape (internal).
#include <utility>
#include <vector>

#include "autograd/record.h"
#include "core/tensor_factory.h"

namespace ember::autograd {

struct TensorMeta {
  std::vector<int64_t> sizes;
  ScalarType dtype;
  Device device;
  explicit TensorMeta(const Tensor& t)
      : sizes(t.sizes().vec()), dtype(t.dtype()), device(t.device()) {}
};

class FunctionNode final : public Node {
 public:
  FunctionNode(const char* name, BackwardFn fn) : name_(name), backward_(std::move(fn)) {}
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return name_; }
  void release_variables() override;

  std::vector<TensorMeta> input_meta_;
  std::vector<TensorMeta> output_meta_;
  // Non-leaf outputs that asked for retain_grad(), by output index.
  std::vector<std::pair<size_t, Tensor>> retained_;

 private:
  const char* name_;
  BackwardFn backward_;
};

class AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(Tensor variable) : variable_(std::move(variable)) {}
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return "AccumulateGrad"; }
  const Tensor& variable() const { return variable_; }

 private:
  Tensor variable_;
};

// The node whose backward runs on this thread right now (null outside backward).
Node* current_node();

// The edge a gradient for `t` should flow along (its grad_fn, or its leaf accumulator).
Edge gradient_edge(const Tensor& t);

}  // namespace ember::autograd
