#pragma once
// Custom autograd functions with libtorch's API:
//
//   struct Scale : ember::autograd::Function<Scale> {
//     static Tensor forward(AutogradContext* ctx, Tensor x, double k) {
//       ctx->save_for_backward({x});
//       ctx->saved_data["k"] = k;
//       return x * k;
//     }
//     static variable_list backward(AutogradContext* ctx, variable_list g) {
//       return {g[0] * ctx->saved_data["k"].toDouble(), Tensor()};  // one per forward argument
//     }
//   };
//   Tensor y = Scale::apply(x, 2.0);
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <typeinfo>
#include <utility>

#include "ember/autograd.h"
#include "ember/scalar.h"

namespace ember::autograd {

// Attaches a backward to `outputs` (the same entry point every built-in op uses).
EMBER_API void record(const char* name, const variable_list& outputs, const variable_list& inputs,
                      std::function<variable_list(const variable_list&)> backward);

// A value kept in AutogradContext::saved_data: a number or a tensor.
class SavedValue {
 public:
  SavedValue() = default;
  SavedValue(const Scalar& s) : scalar_(s) {}
  SavedValue(double v) : scalar_(v) {}
  SavedValue(int64_t v) : scalar_(v) {}
  SavedValue(int v) : scalar_(v) {}
  SavedValue(bool v) : scalar_(v) {}
  SavedValue(Tensor t) : tensor_(std::move(t)) {}
  double toDouble() const { return scalar_.toDouble(); }
  int64_t toInt() const { return scalar_.toLong(); }
  bool toBool() const { return scalar_.toBool(); }
  const Tensor& toTensor() const { return tensor_; }

 private:
  Scalar scalar_;
  Tensor tensor_;
};

class AutogradContext {
 public:
  void save_for_backward(variable_list tensors) {
    saved_ = std::move(tensors);
    versions_.clear();
    for (const Tensor& t : saved_) versions_.push_back(t.defined() ? t._version() : 0);
  }
  // The saved tensors; throws if one was modified in place after it was saved.
  variable_list get_saved_variables() const {
    for (size_t i = 0; i < saved_.size(); ++i) {
      EMBER_CHECK(!saved_[i].defined() || saved_[i]._version() == versions_[i], Error,
                  "one of the variables saved with save_for_backward (index ", i,
                  ") has been modified by an inplace operation: it is at version ",
                  saved_[i]._version(), "; expected version ", versions_[i], " instead.");
    }
    return saved_;
  }
  std::map<std::string, SavedValue> saved_data;

  // Internal: an output saved for backward is kept detached, so the graph has no cycle.
  void detach_saved_outputs(const Tensor& output) {
    for (Tensor& t : saved_) {
      if (t.defined() && t.is_same(output)) t = output.detach();
    }
  }

 private:
  variable_list saved_;
  std::vector<uint32_t> versions_;
};

template <class T>
struct Function {
  template <typename... Args>
  static Tensor apply(Args&&... args) {
    auto ctx = std::make_shared<AutogradContext>();
    // Tensor arguments become graph inputs; backward returns one gradient per argument.
    variable_list inputs;
    std::vector<size_t> tensor_positions;
    size_t position = 0;
    auto collect = [&](const auto& arg) {
      if constexpr (std::is_same_v<std::decay_t<decltype(arg)>, Tensor>) {
        inputs.push_back(arg);
        tensor_positions.push_back(position);
      }
      ++position;
    };
    (collect(args), ...);
    Tensor output;
    {
      NoGradGuard no_grad;
      output = T::forward(ctx.get(), std::forward<Args>(args)...);
    }
    bool any = false;
    for (const Tensor& t : inputs) any = any || (t.defined() && t.requires_grad());
    if (GradMode::is_enabled() && any) {
      ctx->detach_saved_outputs(output);
      size_t nargs = sizeof...(Args);
      record(typeid(T).name(), {output}, inputs,
             [ctx, tensor_positions, nargs](const variable_list& grads) {
               variable_list all = T::backward(ctx.get(), grads);
               EMBER_CHECK(all.size() == nargs, Error,
                           "function backward returned an incorrect number of gradients (expected ",
                           nargs, ", got ", all.size(), ")");
               variable_list picked;
               for (size_t p : tensor_positions) picked.push_back(all[p]);
               return picked;
             });
    }
    return output;
  }
};

}  // namespace ember::autograd
