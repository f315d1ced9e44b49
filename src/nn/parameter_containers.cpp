// ParameterList and ParameterDict (nn/modules/parameter_containers.h): registration, clone and
// libtorch's printout.
#include "ember/nn/modules/parameter_containers.h"

#include <ostream>

#include "ember/autograd.h"

namespace ember::nn {
namespace {

// libtorch's line for one parameter: "(key): Parameter containing: [Float of size [2, 3]]".
void print_parameters(std::ostream& stream, const char* name,
                      const OrderedDict<std::string, Tensor>& parameters) {
  stream << "ember::nn::" << name << "(\n";
  for (const auto& item : parameters) {
    stream << "(" << item.key() << "): Parameter containing: [" << item.value().scalar_type()
           << " of size " << item.value().sizes() << "]";
    if (item.value().is_cuda()) stream << " (GPU " << item.value().device().index() << ")";
    stream << "\n";
  }
  stream << ")";
}

// A detached copy of `t` on `device` (or its own), with t's requires_grad.
Tensor copied(const Tensor& t, const std::optional<Device>& device) {
  NoGradGuard no_grad;
  Tensor c = t.detach().to(device.value_or(t.device()), /*non_blocking=*/false, /*copy=*/true);
  c.set_requires_grad(t.requires_grad());
  return c;
}

}  // namespace

void ParameterListImpl::append(const Tensor& param) {
  register_parameter(std::to_string(parameters_.size()), param, param.requires_grad());
}

Tensor& ParameterListImpl::at(size_t idx) {
  EMBER_CHECK(idx < size(), IndexError, "ParameterList: index ", idx, " is out of range (size ",
              size(), ")");
  return parameters_[std::to_string(idx)];
}

const Tensor& ParameterListImpl::at(size_t idx) const {
  return const_cast<ParameterListImpl*>(this)->at(idx);
}

std::shared_ptr<Module> ParameterListImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ParameterListImpl>();
  for (const auto& item : parameters_) copy->append(copied(item.value(), device));
  if (!is_training()) copy->eval();
  return copy;
}

void ParameterListImpl::pretty_print(std::ostream& stream) const {
  print_parameters(stream, "ParameterList", parameters_);
}

Tensor& ParameterDictImpl::insert(std::string key, Tensor param) {
  const bool requires_grad = param.requires_grad();
  return register_parameter(std::move(key), std::move(param), requires_grad);
}

Tensor ParameterDictImpl::pop(const std::string& key) {
  Tensor value = parameters_[key];
  parameters_.erase(key);
  return value;
}

std::shared_ptr<Module> ParameterDictImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ParameterDictImpl>();
  for (const auto& item : parameters_) copy->insert(item.key(), copied(item.value(), device));
  if (!is_training()) copy->eval();
  return copy;
}

void ParameterDictImpl::pretty_print(std::ostream& stream) const {
  print_parameters(stream, "ParameterDict", parameters_);
}

}  // namespace ember::nn
