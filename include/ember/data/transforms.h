#pragma once
// libtorch's data transforms (torch::data::transforms), applied with dataset.map(...):
//   Stack<>          a std::vector<Example<>> batch -> one Example<> with data and target stacked
//   Normalize<>      example.data -> (data - mean) / stddev, mean/stddev per channel ([C, 1, 1])
//   Lambda<In, Out>  any function of one example; BatchLambda of a whole batch
//   TensorLambda<>   any function of example.data
#include <functional>
#include <utility>
#include <vector>

#include "ember/array_ref.h"
#include "ember/data/dataset.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"

namespace ember::data::transforms {

// Maps a whole batch.
template <typename InputBatch, typename OutputBatch>
class BatchTransform {
 public:
  using InputBatchType = InputBatch;
  using OutputBatchType = OutputBatch;
  virtual ~BatchTransform() = default;
  virtual OutputBatch apply_batch(InputBatch input_batch) = 0;
};

// Maps each example of a std::vector batch.
template <typename Input, typename Output>
class Transform : public BatchTransform<std::vector<Input>, std::vector<Output>> {
 public:
  using InputType = Input;
  using OutputType = Output;
  virtual OutputType apply(InputType input) = 0;
  std::vector<Output> apply_batch(std::vector<Input> input_batch) override {
    std::vector<Output> output_batch;
    output_batch.reserve(input_batch.size());
    for (auto&& input : input_batch) output_batch.push_back(apply(std::move(input)));
    return output_batch;
  }
};

// Turns a std::vector of examples into one batch example.
template <typename T = Example<>>
using Collation = BatchTransform<std::vector<T>, T>;

template <typename T = Example<>>
struct Stack;

template <>
struct Stack<Example<>> : public Collation<Example<>> {
  // Throws ember::Error (from stack) when the examples' shapes differ, naming them.
  Example<> apply_batch(std::vector<Example<>> examples) override {
    std::vector<Tensor> data, targets;
    data.reserve(examples.size());
    targets.reserve(examples.size());
    for (auto& example : examples) {
      data.push_back(std::move(example.data));
      targets.push_back(std::move(example.target));
    }
    return {ember::stack(data), ember::stack(targets)};
  }
};

template <typename Input, typename Output = Input>
class BatchLambda : public BatchTransform<Input, Output> {
 public:
  using FunctionType = std::function<Output(Input)>;
  explicit BatchLambda(FunctionType function) : function_(std::move(function)) {}
  Output apply_batch(Input input_batch) override { return function_(std::move(input_batch)); }

 private:
  FunctionType function_;
};

template <typename Input, typename Output = Input>
class Lambda : public Transform<Input, Output> {
 public:
  using FunctionType = std::function<Output(Input)>;
  explicit Lambda(FunctionType function) : function_(std::move(function)) {}
  Output apply(Input input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

// Maps example.data and keeps the target.
template <typename Target = Tensor>
class TensorTransform : public Transform<Example<Tensor, Target>, Example<Tensor, Target>> {
 public:
  using E = Example<Tensor, Target>;
  virtual Tensor operator()(Tensor input) = 0;
  E apply(E input) override {
    input.data = (*this)(std::move(input.data));
    return input;
  }
};

template <typename Target = Tensor>
class TensorLambda : public TensorTransform<Target> {
 public:
  using FunctionType = std::function<Tensor(Tensor)>;
  explicit TensorLambda(FunctionType function) : function_(std::move(function)) {}
  Tensor operator()(Tensor input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

// (data - mean) / stddev with one value per channel, broadcast as float32 [C, 1, 1] tensors
// exactly as libtorch's Normalize (so a [C, H, W] image is normalised per channel).
template <typename Target = Tensor>
struct Normalize : public TensorTransform<Target> {
  Normalize(ArrayRef<double> mean, ArrayRef<double> stddev)
      : mean(ember::tensor(mean, kFloat).unsqueeze(1).unsqueeze(2)),
        stddev(ember::tensor(stddev, kFloat).unsqueeze(1).unsqueeze(2)) {}
  Tensor operator()(Tensor input) override { return input.sub(mean).div(stddev); }
  Tensor mean, stddev;
};

}  // namespace ember::data::transforms
