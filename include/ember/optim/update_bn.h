#pragma once
// swa_utils::update_bn: recomputes every BatchNorm's running_mean and running_var in a model as
// the plain average over one pass of `loader` (torch.optim.swa_utils.update_bn), as averaged
// weights need. The batches are tensors, data::Example's (their .data), or pairs/tuples (their
// first element); `model` is anything whose ->forward(tensor) runs it (a module holder, a
// shared_ptr, a pointer to an AveragedModel).
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "ember/autograd.h"
#include "ember/data/dataset.h"
#include "ember/nn/module.h"

namespace ember::optim::swa_utils {

namespace detail {

// Resets the BatchNorms' running statistics to zeros and ones, zeroes num_batches_tracked and
// sets momentum to a cumulative average; returns their previous momenta (empty: no BatchNorm).
struct BatchNormMomenta {
  std::vector<std::pair<std::shared_ptr<nn::Module>, std::optional<double>>> entries;
};
EMBER_API BatchNormMomenta reset_batchnorms(nn::Module& model);
EMBER_API void restore_momenta(const BatchNormMomenta& momenta);

inline const Tensor& batch_input(const Tensor& batch) {
  return batch;
}
template <typename Target>
const Tensor& batch_input(const data::Example<Tensor, Target>& batch) {
  return batch.data;
}
template <typename First, typename Second>
const Tensor& batch_input(const std::pair<First, Second>& batch) {
  return batch_input(batch.first);
}
template <typename... Ts>
const Tensor& batch_input(const std::tuple<Ts...>& batch) {
  return batch_input(std::get<0>(batch));
}
inline const Tensor& batch_input(const std::vector<Tensor>& batch) {
  return batch.at(0);
}

}  // namespace detail

template <typename Loader, typename Model>
void update_bn(Loader&& loader, Model&& model, const std::optional<Device>& device = std::nullopt) {
  nn::Module& root = *model;
  detail::BatchNormMomenta momenta = detail::reset_batchnorms(root);
  if (momenta.entries.empty()) return;
  NoGradGuard no_grad;
  const bool was_training = root.is_training();
  root.train();
  for (auto&& batch : loader) {
    Tensor input = detail::batch_input(batch);
    if (device) input = input.to(*device);
    model->forward(input);
  }
  detail::restore_momenta(momenta);
  root.train(was_training);
}

}  // namespace ember::optim::swa_utils
