#pragma once
// Cloneable<Derived> (libtorch's torch::nn::Cloneable): the base of modules that can be deep
// copied with clone(), which DataParallel needs to put a replica on each device. A module derives
// from Cloneable<Itself> instead of Module and implements reset(), which (re)creates its
// parameters, buffers and submodules, i.e. the body of its constructor:
//
//   struct NetImpl : ember::nn::Cloneable<NetImpl> {
//     NetImpl() { reset(); }
//     void reset() override {
//       fc1 = register_module("fc1", ember::nn::Linear(784, 64));
//       fc2 = register_module("fc2", ember::nn::Linear(64, 10));
//     }
//     ember::Tensor forward(const ember::Tensor& x) { return fc2(fc1(x).relu()); }
//     ember::nn::Linear fc1{nullptr}, fc2{nullptr};
//   };
//
// clone() copies the object, calls reset() on the copy (with the random generator's state kept),
// then gives the new parameters and buffers copies of the original's values and replaces each
// new submodule by a clone of the original's.
#include <memory>
#include <optional>

#include "ember/nn/module.h"

namespace ember::nn {

// Cloneable's clone()/clone_() for a class whose base is another module class (so it cannot
// derive from Cloneable<Self>); the class provides reset().
#define EMBER_CLONEABLE(Self)                                                                      \
 public:                                                                                           \
  std::shared_ptr<::ember::nn::Module> clone(const std::optional<::ember::Device>& device =        \
                                                 std::nullopt) const override {                    \
    return clone_by_reset(static_cast<const Self&>(*this), device);                                \
  }                                                                                                \
                                                                                                   \
 protected:                                                                                        \
  void clone_(::ember::nn::Module& other, const std::optional<::ember::Device>& device) override { \
    auto copy = std::dynamic_pointer_cast<Self>(other.clone(device));                              \
    EMBER_CHECK(copy != nullptr, TypeError, "clone(): the submodule ", other.name(), " is not a ", \
                ::ember::nn::Module::name());                                                      \
    static_cast<Self&>(*this) = std::move(*copy);                                                  \
  }                                                                                                \
                                                                                                   \
 public:

template <typename Derived>
class Cloneable : public Module {
 public:
  using Module::Module;

  // (Re)creates the parameters, buffers and submodules.
  virtual void reset() = 0;

  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override {
    return clone_by_reset(static_cast<const Derived&>(*this), device);
  }

 protected:
  void clone_(Module& other, const std::optional<Device>& device) override {
    auto copy = std::dynamic_pointer_cast<Derived>(other.clone(device));
    EMBER_CHECK(copy != nullptr, TypeError, "clone(): the submodule ", other.name(), " is not a ",
                Module::name(), " (did reset() register another type?)");
    static_cast<Derived&>(*this) = std::move(*copy);
  }
};

}  // namespace ember::nn
