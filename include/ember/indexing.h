#pragma once
// ember::indexing: Python's subscripts as libtorch spells them, for Tensor::index and
// Tensor::index_put_ (included by ember/tensor.h after Tensor is complete).
//
//   Python            Ember
//   x[None]           x.index({None})
//   x[..., 0]         x.index({"...", 0})  or  x.index({Ellipsis, 0})
//   x[1:3, ::2]       x.index({Slice(1, 3), Slice(None, None, 2)})
//   x[mask]           x.index({mask})                   (bool tensor)
//   x[idx, :] = v     x.index_put_({idx, Slice()}, v)   (int64 tensor)
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <type_traits>

#include "ember/tensor.h"

namespace ember::indexing {

constexpr int64_t INDEX_MAX = std::numeric_limits<int64_t>::max();
constexpr int64_t INDEX_MIN = std::numeric_limits<int64_t>::min();

// `None` adds a dim of size 1 (Python's None); also the open end of a Slice.
constexpr std::nullopt_t None = std::nullopt;

struct EllipsisIndexType final {};
// `...`: as many whole dims as the other indices leave.
inline constexpr EllipsisIndexType Ellipsis{};

// start:stop:step with Python's defaults for the ends left open. The step must be positive.
class Slice final {
 public:
  Slice(std::optional<int64_t> start = std::nullopt, std::optional<int64_t> stop = std::nullopt,
        std::optional<int64_t> step = std::nullopt)
      : step_(step.value_or(1)) {
    EMBER_CHECK(step_ != 0, ValueError, "slice step cannot be zero");
    start_ = start.value_or(step_ < 0 ? INDEX_MAX : 0);
    stop_ = stop.value_or(step_ < 0 ? INDEX_MIN : INDEX_MAX);
  }
  int64_t start() const { return start_; }
  int64_t stop() const { return stop_; }
  int64_t step() const { return step_; }

 private:
  int64_t start_;
  int64_t stop_;
  int64_t step_;
};

enum class TensorIndexType { None, Ellipsis, Integer, Boolean, Slice, Tensor };

// One subscript: None, Ellipsis ("..."), an integer, a bool, a Slice or an index tensor.
class TensorIndex final {
 public:
  TensorIndex(std::nullopt_t) : type_(TensorIndexType::None) {}
  TensorIndex(EllipsisIndexType) : type_(TensorIndexType::Ellipsis) {}
  // Only "..." (libtorch's spelling of Ellipsis).
  TensorIndex(const char* str) : type_(TensorIndexType::Ellipsis) {
    // strcmp-like (stops at the first difference): compare(.., 4) may read past a shorter string.
    EMBER_CHECK(str != nullptr && std::string_view(str) == "...", ValueError,
                "Expected \"...\" to represent an ellipsis index, but got \"", str ? str : "(null)",
                "\"");
  }
  TensorIndex(int64_t integer) : integer_(integer), type_(TensorIndexType::Integer) {}
  TensorIndex(int integer) : TensorIndex(static_cast<int64_t>(integer)) {}
  template <class T, class = std::enable_if_t<std::is_same_v<bool, T>>>
  TensorIndex(T boolean) : boolean_(boolean), type_(TensorIndexType::Boolean) {}
  TensorIndex(Slice slice) : slice_(slice), type_(TensorIndexType::Slice) {}
  TensorIndex(Tensor tensor) : tensor_(std::move(tensor)), type_(TensorIndexType::Tensor) {}

  TensorIndexType type() const { return type_; }
  bool is_none() const { return type_ == TensorIndexType::None; }
  bool is_ellipsis() const { return type_ == TensorIndexType::Ellipsis; }
  bool is_integer() const { return type_ == TensorIndexType::Integer; }
  bool is_boolean() const { return type_ == TensorIndexType::Boolean; }
  bool is_slice() const { return type_ == TensorIndexType::Slice; }
  bool is_tensor() const { return type_ == TensorIndexType::Tensor; }
  int64_t integer() const { return integer_; }
  bool boolean() const { return boolean_; }
  const Slice& slice() const { return slice_; }
  const Tensor& tensor() const { return tensor_; }

 private:
  int64_t integer_ = 0;
  bool boolean_ = false;
  Slice slice_;
  Tensor tensor_;
  TensorIndexType type_;
};

}  // namespace ember::indexing
