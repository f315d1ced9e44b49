#pragma once
// TensorAccessor<T, N>: libtorch's element access by a[i][j] on a CPU tensor, with the sizes and
// strides read from the tensor once (included by ember/tensor.h after Tensor is complete).
#include <cstddef>
#include <cstdint>

#include "ember/array_ref.h"
#include "ember/tensor.h"

namespace ember {

// Views N dims of elements of type T starting at `data`; sizes and strides (in elements) point
// into the tensor that made it, which must outlive the accessor.
template <typename T, size_t N>
class TensorAccessor {
 public:
  TensorAccessor(T* data, const int64_t* sizes, const int64_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  TensorAccessor<T, N - 1> operator[](int64_t i) const {
    return TensorAccessor<T, N - 1>(data_ + strides_[0] * i, sizes_ + 1, strides_ + 1);
  }
  int64_t size(int64_t d) const { return sizes_[d]; }
  int64_t stride(int64_t d) const { return strides_[d]; }
  IntArrayRef sizes() const { return IntArrayRef(sizes_, N); }
  IntArrayRef strides() const { return IntArrayRef(strides_, N); }
  T* data() const { return data_; }

 private:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};

template <typename T>
class TensorAccessor<T, 1> {
 public:
  TensorAccessor(T* data, const int64_t* sizes, const int64_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  T& operator[](int64_t i) const { return data_[strides_[0] * i]; }
  int64_t size(int64_t d) const { return sizes_[d]; }
  int64_t stride(int64_t d) const { return strides_[d]; }
  IntArrayRef sizes() const { return IntArrayRef(sizes_, 1); }
  IntArrayRef strides() const { return IntArrayRef(strides_, 1); }
  T* data() const { return data_; }

 private:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};

template <typename T, size_t N>
TensorAccessor<T, N> Tensor::accessor() const& {
  static_assert(N > 0, "accessor is used for indexing tensor, for scalars use *data_ptr<T>()");
  EMBER_CHECK(is_cpu(), DeviceError, "accessor<", to_string(CppTypeToScalarType<T>::value), ", ", N,
              ">() needs a CPU tensor, got one on ", device().str(),
              " (call .cpu() first, or index the tensor on its device)");
  EMBER_CHECK(CppTypeToScalarType<T>::value == dtype(), TypeError, "expected scalar type ",
              to_string(CppTypeToScalarType<T>::value), " but found ", to_string(dtype()));
  EMBER_CHECK(dim() == static_cast<int64_t>(N), IndexError, "TensorAccessor expected ", N,
              " dims but tensor has ", dim());
  return TensorAccessor<T, N>(data_ptr<T>(), sizes().data(), strides().data());
}

}  // namespace ember
