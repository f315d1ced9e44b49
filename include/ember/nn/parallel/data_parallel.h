#pragma once
// DataParallel (torch.nn.DataParallel): one process, a replica of the module on each device.
// Every forward scatters the batch along `dim` over the devices, replicates the module onto them
// (replica parameters are differentiable copies of the module's, so backward sums every
// replica's gradient into the module's .grad), runs the replicas in threads, one per device, and
// gathers the outputs on the output device. The tutorials' snippet:
//
//   auto model = ember::nn::Sequential(...);
//   model->to(ember::Device("cuda:0"));
//   auto dp = ember::nn::DataParallel(model);      // every CUDA device (or device_ids {0, 1})
//   auto loss = loss_fn(dp(x), y);                  // x on cuda:0, split over the devices
//   loss.backward();                                // model's .grad: the whole batch's gradient
//
// The module must be cloneable (nn::Cloneable<Self>, as every built-in module is) and live on
// device_ids[0]. Without CUDA devices the module runs as it is. Replicas are recreated at each
// forward; in-place changes to their parameters are lost, and only the replica on device_ids[0]
// shares the module's buffers (batch norm statistics are updated from that device's chunk), as in
// PyTorch.
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "ember/nn/module.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {
namespace parallel {

// The chunks of `input` along `dim` on `devices` (fewer when that dim is shorter); differentiable.
EMBER_API std::vector<Tensor> scatter(const Tensor& input, const std::vector<Device>& devices,
                                      int64_t dim = 0);
// The outputs concatenated along `dim` on `destination`; differentiable.
EMBER_API Tensor gather(const std::vector<Tensor>& outputs, const Device& destination,
                        int64_t dim = 0);
// A clone of `module` on each device whose parameters are differentiable copies of the module's
// (gradients flow back into module's .grad); the replica on the module's own device shares its
// buffers.
EMBER_API std::vector<std::shared_ptr<Module>> replicate(const std::shared_ptr<Module>& module,
                                                         const std::vector<Device>& devices);
// Runs fn(i) for i in 0..devices.size()-1, each on its own thread with devices[i] current and the
// caller's grad and autocast modes; rethrows the first failure naming its replica and device.
EMBER_API void parallel_run(const std::vector<Device>& devices,
                            const std::function<void(size_t)>& fn);
// Throws unless every parameter and buffer of `module` is on `device` (PyTorch's message).
EMBER_API void check_module_on_device(const Module& module, const Device& device);
// Every CUDA device, in order (DataParallel's default device_ids).
EMBER_API std::vector<Device> all_cuda_devices();

}  // namespace parallel

template <typename ModuleType>
class DataParallelImpl : public Module {
 public:
  explicit DataParallelImpl(std::shared_ptr<ModuleType> module, std::vector<Device> device_ids = {},
                            std::optional<Device> output_device = std::nullopt, int64_t dim = 0)
      : Module("DataParallel"),
        module_(std::move(module)),
        device_ids_(device_ids.empty() ? parallel::all_cuda_devices() : std::move(device_ids)),
        output_device_(output_device ? *output_device
                                     : (device_ids_.empty() ? Device(kCPU) : device_ids_[0])),
        dim_(dim) {
    EMBER_CHECK(module_ != nullptr, ValueError, "DataParallel: the module is null");
    register_module("module", module_);
  }
  // device_ids as CUDA ordinals, as in Python: DataParallel(model, {0, 1}).
  DataParallelImpl(std::shared_ptr<ModuleType> module, const std::vector<int>& device_ids,
                   std::optional<Device> output_device = std::nullopt, int64_t dim = 0)
      : DataParallelImpl(std::move(module), cuda_devices(device_ids), output_device, dim) {}

  Tensor forward(const Tensor& input) {
    if (device_ids_.empty()) return module_->forward(input);  // no CUDA: the module as it is
    parallel::check_module_on_device(*module_, device_ids_[0]);
    std::vector<Tensor> inputs = parallel::scatter(input, device_ids_, dim_);
    if (inputs.size() == 1) {
      return parallel::gather({module_->forward(inputs[0])}, output_device_, dim_);
    }
    std::vector<Device> used(device_ids_.begin(),
                             device_ids_.begin() + static_cast<std::ptrdiff_t>(inputs.size()));
    auto replicas = parallel::replicate(module_, used);
    std::vector<Tensor> outputs(inputs.size());
    parallel::parallel_run(used, [&](size_t i) {
      outputs[i] = std::static_pointer_cast<ModuleType>(replicas[i])->forward(inputs[i]);
    });
    return parallel::gather(outputs, output_device_, dim_);
  }

  const std::shared_ptr<ModuleType>& module() const { return module_; }
  const std::vector<Device>& device_ids() const { return device_ids_; }
  const Device& output_device() const { return output_device_; }

 private:
  static std::vector<Device> cuda_devices(const std::vector<int>& ordinals) {
    std::vector<Device> out;
    for (int i : ordinals) out.emplace_back(kCUDA, i);  // checked: 257 is no cuda:1
    return out;
  }

  std::shared_ptr<ModuleType> module_;
  std::vector<Device> device_ids_;
  Device output_device_;
  int64_t dim_;
};

template <typename ModuleType>
class DataParallel : public ModuleHolder<DataParallelImpl<ModuleType>> {
 public:
  // No inherited forwarding constructor: it would take DataParallel(model, ...) for itself.
  DataParallel(std::nullptr_t) : ModuleHolder<DataParallelImpl<ModuleType>>(nullptr) {}  // NOLINT
  DataParallel(std::shared_ptr<DataParallelImpl<ModuleType>> impl)  // NOLINT: as ModuleHolder
      : ModuleHolder<DataParallelImpl<ModuleType>>(std::move(impl)) {}
  template <typename... Args>
  explicit DataParallel(const ModuleHolder<ModuleType>& module, Args&&... args)
      : ModuleHolder<DataParallelImpl<ModuleType>>(std::make_shared<DataParallelImpl<ModuleType>>(
            module.ptr(), std::forward<Args>(args)...)) {}
  template <typename... Args>
  explicit DataParallel(std::shared_ptr<ModuleType> module, Args&&... args)
      : ModuleHolder<DataParallelImpl<ModuleType>>(std::make_shared<DataParallelImpl<ModuleType>>(
            std::move(module), std::forward<Args>(args)...)) {}
};
template <typename M, typename... Args>
DataParallel(const ModuleHolder<M>&, Args&&...) -> DataParallel<M>;
template <typename M, typename... Args>
DataParallel(std::shared_ptr<M>, Args&&...) -> DataParallel<M>;

}  // namespace ember::nn
