#pragma once
// How an op front end records itself on the autograd tape:
//
//   Tensor out = ...compute...;
//   if (autograd::needs_grad({a, b}))
//     autograd::record("MulBackward0", out, {a, b},
//                      [sa = SavedTensor(a), sb = SavedTensor(b)](const variable_list& g) {
//                        return variable_list{g[0] * sb.unpack(), g[0] * sa.unpack()};
//                      });
//
// The backward returns one gradient per input (undefined where there is none), written with
// ordinary ember ops so it runs on the tensors' device.
#include <functional>
#include <initializer_list>

#include "ember/autograd.h"

namespace ember::autograd {

using BackwardFn = std::function<variable_list(const variable_list& grad_outputs)>;

inline bool requires_grad_fast(const Tensor& t) {
  if (!t.defined()) return false;
  auto* m = t.unsafeGetTensorImpl()->autograd_meta();
  return m && m->requires_grad;
}

// True when grad mode is on and any input requires grad: the only check on the fast path.
inline bool needs_grad(std::initializer_list<std::reference_wrapper<const Tensor>> inputs) {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor& t : inputs) {
    if (requires_grad_fast(t)) return true;
  }
  return false;
}
inline bool needs_grad(const std::vector<Tensor>& inputs) {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor& t : inputs) {
    if (requires_grad_fast(t)) return true;
  }
  return false;
}

// Throws when an in-place op would modify a leaf that requires grad (under grad mode): the one
// check of Tensor's own in-place methods (core/tensor.cpp) and the in-place front ends (src/ops).
inline void check_inplace_allowed(const Tensor& self, const char* op) {
  if (!GradMode::is_enabled() || !requires_grad_fast(self)) return;
  EMBER_CHECK(self.unsafeGetTensorImpl()->autograd_meta()->grad_fn, Error,
              "a leaf Variable that requires grad is being used in an in-place operation (", op,
              "). Wrap it in ember::NoGradGuard or call .detach() first.");
}

// A tensor kept for backward. Remembers the version counter so that an in-place change after
// saving is reported instead of silently giving a wrong gradient. Outputs of the recording op
// (is_output, with their output index) are saved detached, which keeps the graph free of
// reference cycles; unpacked while that op's backward builds a graph (create_graph), they get
// the op's node back as grad_fn, so double backward sees the path through them (as in PyTorch).
class EMBER_API SavedTensor {
 public:
  SavedTensor() = default;
  explicit SavedTensor(const Tensor& t, bool is_output = false, uint32_t output_nr = 0);
  Tensor unpack() const;
  bool defined() const { return data_.defined(); }
  void reset() { data_.reset(); }

 private:
  Tensor data_;
  uint32_t version_ = 0;
  uint32_t output_nr_ = 0;
  bool is_output_ = false;
};

// Attaches a backward node to `outputs` whose edges lead to `inputs`.
EMBER_API void record(const char* name, const variable_list& outputs, const variable_list& inputs,
                      BackwardFn backward);
inline void record(const char* name, const Tensor& output, const variable_list& inputs,
                   BackwardFn backward) {
  record(name, variable_list{output}, inputs, std::move(backward));
}

// Sums `grad` down to `sizes` (undoing broadcasting): the gradient rule of expand.
EMBER_API Tensor sum_to(const Tensor& grad, IntArrayRef sizes);

}  // namespace ember::autograd
