// nn::DataParallel's pieces: scatter/gather (differentiable copies between devices), replicate
// (clones whose parameters are autograd outputs of the module's), and parallel_run (a thread per
// device with the caller's grad and autocast modes).
#include "ember/nn/parallel/data_parallel.h"

#include <exception>
#include <thread>

#include "autograd/record.h"
#include "ember/amp/autocast.h"
#include "ember/cuda.h"
#include "ember/ops.h"

namespace ember::nn::parallel {

std::vector<Device> all_cuda_devices() {
  std::vector<Device> out;
  if (!cuda::is_available()) return out;
  for (int i = 0; i < cuda::device_count(); ++i)
    out.emplace_back(kCUDA, static_cast<DeviceIndex>(i));
  return out;
}

void check_module_on_device(const Module& module, const Device& device) {
  auto check = [&](const Tensor& t) {
    EMBER_CHECK(!t.defined() || t.device() == device, DeviceError,
                "module must have its parameters and buffers on device ", device,
                " (device_ids[0]) but found one of them on device: ", t.device());
  };
  for (const Tensor& p : module.parameters()) check(p);
  for (const Tensor& b : module.buffers()) check(b);
}

std::vector<Tensor> scatter(const Tensor& input, const std::vector<Device>& devices, int64_t dim) {
  EMBER_CHECK(!devices.empty(), ValueError, "scatter: no devices");
  std::vector<Tensor> chunks = input.chunk(static_cast<int64_t>(devices.size()), dim);
  std::vector<Tensor> out;
  for (size_t i = 0; i < chunks.size(); ++i) out.push_back(chunks[i].to(devices[i]));
  return out;
}

Tensor gather(const std::vector<Tensor>& outputs, const Device& destination, int64_t dim) {
  EMBER_CHECK(!outputs.empty(), ValueError, "gather: no outputs");
  std::vector<Tensor> moved;
  for (const Tensor& o : outputs) moved.push_back(o.to(destination));
  return moved.size() == 1 ? moved[0] : cat(moved, dim);
}

std::vector<std::shared_ptr<Module>> replicate(const std::shared_ptr<Module>& module,
                                               const std::vector<Device>& devices) {
  auto originals = module->named_parameters();
  auto original_buffers = module->named_buffers();
  std::vector<std::shared_ptr<Module>> replicas;
  for (const Device& device : devices) {
    std::shared_ptr<Module> replica = module->clone(device);
    auto params = replica->named_parameters();
    EMBER_CHECK(params.keys() == originals.keys(), Error, "replicate: the clone of ",
                module->name(), " has other parameters than it");
    if (GradMode::is_enabled()) {
      for (size_t i = 0; i < params.size(); ++i) {
        const Tensor& source = originals[i].value();
        if (!source.defined() || !source.requires_grad()) continue;
        // The replica's parameter becomes a copy of the module's in the graph: its gradient
        // flows back (to the module's device) into the module's .grad.
        autograd::record("BroadcastBackward", params[i].value(), {source},
                         [to = source.device()](const autograd::variable_list& g) {
                           return autograd::variable_list{g[0].to(to)};
                         });
      }
    }
    // The replica on the module's own device updates the module's buffers in place.
    auto buffers = replica->named_buffers();
    for (size_t i = 0; i < buffers.size(); ++i) {
      const Tensor& source = original_buffers[i].value();
      Tensor& mine = buffers[i].value();
      if (source.defined() && mine.defined() && source.device() == device) {
        TensorImpl* impl = mine.unsafeGetTensorImpl();
        impl->set_storage(source.impl()->storage(), source.storage_offset(), source.dtype());
        impl->set_sizes_strides(source.sizes(), source.strides());
      }
    }
    replicas.push_back(std::move(replica));
  }
  return replicas;
}

void parallel_run(const std::vector<Device>& devices, const std::function<void(size_t)>& fn) {
  const bool grad = GradMode::is_enabled();
  struct Autocast {
    DeviceType type;
    bool enabled;
    ScalarType dtype;
  };
  std::vector<Autocast> autocast;
  for (DeviceType t : {kCPU, kCUDA}) {
    autocast.push_back({t, amp::is_autocast_enabled(t), amp::get_autocast_dtype(t)});
  }
  std::vector<std::exception_ptr> errors(devices.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < devices.size(); ++i) {
    threads.emplace_back([&, i] {
      try {
        autograd::AutoGradMode grad_mode(grad);
        for (const auto& a : autocast) {
          amp::set_autocast_enabled(a.type, a.enabled);
          amp::set_autocast_dtype(a.type, a.dtype);
        }
        std::optional<cuda::DeviceGuard> guard;
        if (devices[i].is_cuda()) guard.emplace(devices[i]);
        fn(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < devices.size(); ++i) {
    if (!errors[i]) continue;
    try {
      std::rethrow_exception(errors[i]);
    } catch (const std::exception& e) {
      throw Error(detail::str_cat("Caught an error in replica ", i, " on device ", devices[i], ": ",
                                  e.what()));
    }
  }
}

}  // namespace ember::nn::parallel
