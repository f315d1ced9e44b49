#pragma once
// ExpandingArray<D>: a size that is given either as one number for every dimension or as D
// numbers, as libtorch's kernel_size / stride / padding options take it.
#include <array>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <vector>

#include "ember/error.h"

namespace ember {

template <size_t D, typename T = int64_t>
class ExpandingArray {
 public:
  ExpandingArray(T single) { values_.fill(single); }  // NOLINT: implicit as in libtorch
  ExpandingArray(std::initializer_list<T> list) : ExpandingArray(std::vector<T>(list)) {}
  ExpandingArray(const std::vector<T>& list) {
    EMBER_CHECK(list.size() == D, ValueError, "Expected ", D,
                " values for this size argument, but got ", list.size());
    for (size_t i = 0; i < D; ++i) values_[i] = list[i];
  }
  ExpandingArray(const std::array<T, D>& values) : values_(values) {}

  T& operator[](size_t i) { return values_[i]; }
  const T& operator[](size_t i) const { return values_[i]; }
  T* data() { return values_.data(); }
  const T* data() const { return values_.data(); }
  static constexpr size_t size() { return D; }
  std::vector<T> vec() const { return std::vector<T>(values_.begin(), values_.end()); }
  bool operator==(const ExpandingArray& o) const { return values_ == o.values_; }
  bool operator!=(const ExpandingArray& o) const { return values_ != o.values_; }

 private:
  std::array<T, D> values_;
};

// Prints as libtorch does: [3, 3].
template <size_t D, typename T>
std::ostream& operator<<(std::ostream& os, const ExpandingArray<D, T>& a) {
  os << '[';
  for (size_t i = 0; i < D; ++i) os << (i ? ", " : "") << a[i];
  return os << ']';
}

}  // namespace ember
