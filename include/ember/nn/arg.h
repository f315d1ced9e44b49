#pragma once
// EMBER_ARG: the chainable option setters of libtorch's TORCH_ARG,
// e.g. LinearOptions(784, 256).bias(false).
#include <utility>

#define EMBER_ARG(T, name)                                 \
 public:                                                   \
  inline auto name(const T& new_##name)->decltype(*this) { \
    this->name##_ = new_##name;                            \
    return *this;                                          \
  }                                                        \
  inline auto name(T&& new_##name)->decltype(*this) {      \
    this->name##_ = std::move(new_##name);                 \
    return *this;                                          \
  }                                                        \
  inline const T& name() const noexcept {                  \
    return this->name##_;                                  \
  }                                                        \
  inline T& name() noexcept {                              \
    return this->name##_;                                  \
  }                                                        \
                                                           \
 private:                                                  \
  T name##_

// libtorch's spelling (see TORCH_MODULE in ember/nn/pimpl.h): options structs written for libtorch
// keep compiling after the rename.
#ifndef TORCH_ARG
#define TORCH_ARG(T, name) EMBER_ARG(T, name)
#endif
