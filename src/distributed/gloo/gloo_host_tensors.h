#pragma once
// How a tensor meets Gloo: the C++ type of its dtype, Ember's reductions as Gloo's functions, the
// host copies Gloo reads and writes, and one collective call's tag, timeout and tensors.
// Private to process_group_gloo.cpp, its one includer (hence the unnamed namespace).
#include <gloo/allreduce.h>
#include <gloo/reduce_scatter.h>

#include <chrono>
#include <memory>

#include "distributed/reduce_functions.h"
#include "ember/distributed/process_group.h"
#include "ember/tensor.h"

namespace ember::distributed {
namespace {

template <typename T>
struct TypeTag {
  using type = T;
};

// Calls f(TypeTag<T>{}) for the C++ type of `dtype`.
template <typename F>
void dispatch_dtype(ScalarType dtype, const char* op, F&& f) {
  switch (dtype) {
    case kFloat:
      return f(TypeTag<float>{});
    case kDouble:
      return f(TypeTag<double>{});
    case kHalf:
      return f(TypeTag<Half>{});
    case kBFloat16:
      return f(TypeTag<BFloat16>{});
    case kLong:
      return f(TypeTag<int64_t>{});
    case kInt:
      return f(TypeTag<int32_t>{});
    case kShort:
      return f(TypeTag<int16_t>{});
    case kChar:
      return f(TypeTag<int8_t>{});
    case kByte:
      return f(TypeTag<uint8_t>{});
    case kBool:
      return f(TypeTag<bool>{});
    default:
      break;
  }
  throw TypeError(
      detail::str_cat(op, ": the Gloo backend does not support dtype ", to_string(dtype)));
}

template <typename T>
gloo::AllreduceOptions::Func combine3_for(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM:
    case ReduceOp::AVG:
      return &reduce::combine3<T, ReduceOp::SUM>;
    case ReduceOp::PRODUCT:
      return &reduce::combine3<T, ReduceOp::PRODUCT>;
    case ReduceOp::MIN:
      return &reduce::combine3<T, ReduceOp::MIN>;
    case ReduceOp::MAX:
      return &reduce::combine3<T, ReduceOp::MAX>;
  }
  return nullptr;
}

template <typename T>
const gloo::ReductionFunction<T>* reduction_for(ReduceOp op) {
  static const gloo::ReductionFunction<T> sum(gloo::SUM, &reduce::combine2<T, ReduceOp::SUM>);
  static const gloo::ReductionFunction<T> prod(gloo::PRODUCT,
                                               &reduce::combine2<T, ReduceOp::PRODUCT>);
  static const gloo::ReductionFunction<T> min(gloo::MIN, &reduce::combine2<T, ReduceOp::MIN>);
  static const gloo::ReductionFunction<T> max(gloo::MAX, &reduce::combine2<T, ReduceOp::MAX>);
  switch (op) {
    case ReduceOp::PRODUCT:
      return &prod;
    case ReduceOp::MIN:
      return &min;
    case ReduceOp::MAX:
      return &max;
    default:
      return &sum;
  }
}

// A CUDA tensor's host copy (Gloo reads and writes host memory); CPU tensors are used as they are.
struct Staged {
  Tensor user;
  Tensor host;
  explicit Staged(const Tensor& t) : user(t), host(t.is_cuda() ? t.to(kCPU) : t) {}
  Staged(const Tensor& t, Tensor host_copy) : user(t), host(std::move(host_copy)) {}
  void write_back() {
    if (!user.is_same(host)) user.copy_(host);
  }
};

// The host tensors of one collective, taken when it is issued. Each way of taking them first
// checks that Gloo has the dtype (TypeError naming `op` otherwise).
struct Staging {
  std::shared_ptr<Staged> input, output;
  bool write_back = true;  // whether the output's host copy goes back to the user's tensor

  // One tensor that Gloo reads and writes (all_reduce, broadcast).
  static Staging in_place(const Tensor& t, const char* op) {
    dispatch_dtype(t.dtype(), op, [](auto) {});
    auto staged = std::make_shared<Staged>(t);
    return {staged, staged};
  }
  // An input that Gloo reads and an output that it writes (all_gather).
  static Staging between(const Tensor& input, const Tensor& output, const char* op) {
    dispatch_dtype(input.dtype(), op, [](auto) {});
    auto in = std::make_shared<Staged>(input);
    return {in, std::make_shared<Staged>(output)};
  }
  // A private host copy of the input in `dtype`, for an algorithm that works in place on its
  // input (reduce_scatter), and an output.
  static Staging private_input(const Tensor& input, ScalarType dtype, const Tensor& output,
                               const char* op) {
    dispatch_dtype(input.dtype(), op, [](auto) {});
    auto in = std::make_shared<Staged>(
        input, input.to(kCPU, dtype, /*non_blocking=*/false, /*copy=*/true));
    return {in, std::make_shared<Staged>(output)};
  }
};

// Gloo's view of a host tensor: its elements as T*, and how many there are.
template <typename T>
T* elements(const Tensor& t) {
  return static_cast<T*>(t.data_ptr());
}
size_t element_count(const Tensor& t) {
  return static_cast<size_t>(t.numel());
}

// One collective on the worker thread: its Gloo tag and timeout, and its host tensors (the same
// one for in-place collectives).
struct GlooCall {
  uint32_t tag;
  std::chrono::milliseconds timeout;
  Tensor& input;
  Tensor& output;
  // Gives Gloo's options for this call its tag and timeout.
  template <typename GlooOptions>
  void configure(GlooOptions& o) const {
    o.setTag(tag);
    o.setTimeout(timeout);
  }
};

}  // namespace
}  // namespace ember::distributed
