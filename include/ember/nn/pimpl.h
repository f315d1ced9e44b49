#pragma once
// ModuleHolder and EMBER_MODULE: libtorch's holder style. `EMBER_MODULE(Linear)` defines
// `Linear`, a value type sharing a std::shared_ptr<LinearImpl>, so that
//   auto m = ember::nn::Linear(784, 256); m->forward(x); m(x); m->to(dev);
// and `ember::nn::Linear fc{nullptr};` (an empty holder to be assigned later) both work.
#include <memory>
#include <type_traits>
#include <utility>

#include "ember/error.h"

namespace ember::nn {

template <typename Contained>
class ModuleHolder {
 public:
  using ContainedType = Contained;

  // Default-constructs the module; only usable when Contained has a default constructor.
  ModuleHolder() : impl_(default_construct()) {}
  ModuleHolder(std::nullptr_t) : impl_(nullptr) {}  // NOLINT: implicit as in libtorch
  // Forwards the arguments to Contained's constructor.
  template <typename Head, typename... Tail,
            typename = std::enable_if_t<!(std::is_same_v<std::decay_t<Head>, ModuleHolder> &&
                                          sizeof...(Tail) == 0)>>
  explicit ModuleHolder(Head&& head, Tail&&... tail)
      : impl_(new Contained(std::forward<Head>(head), std::forward<Tail>(tail)...)) {}
  ModuleHolder(std::shared_ptr<Contained> module)  // NOLINT: implicit as in libtorch
      : impl_(std::move(module)) {}

  explicit operator bool() const noexcept { return !is_empty(); }
  bool is_empty() const noexcept { return impl_ == nullptr; }

  Contained* operator->() { return get(); }
  const Contained* operator->() const { return get(); }
  Contained& operator*() { return *get(); }
  const Contained& operator*() const { return *get(); }
  const std::shared_ptr<Contained>& ptr() const {
    check();
    return impl_;
  }
  Contained* get() {
    check();
    return impl_.get();
  }
  const Contained* get() const {
    check();
    return impl_.get();
  }

  // m(x) calls m->forward(x).
  template <typename... Args>
  decltype(auto) operator()(Args&&... args) {
    return get()->forward(std::forward<Args>(args)...);
  }
  template <typename Arg>
  decltype(auto) operator[](Arg&& arg) {
    return (*get())[std::forward<Arg>(arg)];
  }

 protected:
  std::shared_ptr<Contained> impl_;

 private:
  void check() const {
    EMBER_CHECK(impl_ != nullptr, Error,
                "Accessing an empty ModuleHolder (it was constructed from nullptr and never "
                "assigned a module)");
  }
  static std::shared_ptr<Contained> default_construct() {
    if constexpr (std::is_default_constructible_v<Contained>) {
      return std::make_shared<Contained>();
    } else {
      static_assert(std::is_default_constructible_v<Contained>,
                    "This module has no default constructor: pass its arguments, or nullptr "
                    "for an empty holder (e.g. ember::nn::Linear fc{nullptr};)");
      return nullptr;
    }
  }
};

}  // namespace ember::nn

// Defines holder `Name` for the module class `ImplType`.
#define EMBER_MODULE_IMPL(Name, ImplType)                    \
  class Name : public ::ember::nn::ModuleHolder<ImplType> {  \
   public:                                                   \
    using ::ember::nn::ModuleHolder<ImplType>::ModuleHolder; \
    using Impl = ImplType;                                   \
  }

// Defines holder `Name` for the module class `NameImpl`, as libtorch's TORCH_MODULE.
#define EMBER_MODULE(Name) EMBER_MODULE_IMPL(Name, Name##Impl)

// libtorch's spellings, so a libtorch program compiles after the documented rename (`torch::` ->
// `ember::`, the header), which leaves macro names alone: TORCH_MODULE(Net) is EMBER_MODULE(Net).
#ifndef TORCH_MODULE
#define TORCH_MODULE(Name) EMBER_MODULE(Name)
#endif
#ifndef TORCH_MODULE_IMPL
#define TORCH_MODULE_IMPL(Name, ImplType) EMBER_MODULE_IMPL(Name, ImplType)
#endif
