#pragma once
// ember::tensor({...}): builds a tensor from (nested) initializer lists or vectors, as libtorch's
// torch::tensor does. Floating literals give the default dtype, integers int64, bools bool.
#include <initializer_list>
#include <vector>

#include "ember/tensor.h"

namespace ember {

class EMBER_API TensorData {
 public:
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  TensorData(T v) : values_{Scalar(v)}, type_(Scalar(v).type()) {}
  TensorData(Half v) : values_{Scalar(v)}, type_(kHalf) {}
  TensorData(BFloat16 v) : values_{Scalar(v)}, type_(kBFloat16) {}
  TensorData(std::initializer_list<TensorData> nested);
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  TensorData(const std::vector<T>& v) : sizes_{static_cast<int64_t>(v.size())} {
    values_.reserve(v.size());
    for (const T& x : v) values_.push_back(Scalar(x));
    type_ = v.empty() ? get_default_dtype() : values_[0].type();
    if constexpr (std::is_same_v<T, float>) type_ = kFloat;
  }
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  TensorData(ArrayRef<T> v) : TensorData(v.vec()) {}

  const std::vector<int64_t>& sizes() const { return sizes_; }
  const std::vector<Scalar>& values() const { return values_; }
  ScalarType scalar_type() const { return type_; }

 private:
  std::vector<int64_t> sizes_;
  std::vector<Scalar> values_;
  ScalarType type_ = kFloat;
};

EMBER_API Tensor tensor(const TensorData& data, const TensorOptions& options = {});

}  // namespace ember
