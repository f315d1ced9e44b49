#pragma once
// Functional: a function of one tensor as a module, so it can sit in a Sequential
// (libtorch's torch::nn::Functional):
//   nn::Sequential(nn::Linear(4, 8), nn::Functional(ember::relu),
//                  nn::Functional(ember::leaky_relu, /*negative_slope=*/0.2));
// Extra arguments are bound after the input.
#include <functional>
#include <utility>

#include "ember/nn/cloneable.h"
#include "ember/nn/module.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

class EMBER_API FunctionalImpl : public Cloneable<FunctionalImpl> {
 public:
  using Function = std::function<Tensor(Tensor)>;

  explicit FunctionalImpl(Function function);
  template <typename SomeFunction, typename... Args,
            typename = std::enable_if_t<(sizeof...(Args) > 0)>>
  explicit FunctionalImpl(SomeFunction original_function, Args&&... args)
      : FunctionalImpl(
            Function([f = std::move(original_function),
                      bound = std::make_tuple(std::forward<Args>(args)...)](Tensor input) {
              return std::apply([&](const auto&... a) { return Tensor(f(input, a...)); }, bound);
            })) {}

  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);
  Tensor operator()(Tensor input) { return forward(std::move(input)); }

 private:
  Function function_;
};
EMBER_MODULE(Functional);

}  // namespace ember::nn
