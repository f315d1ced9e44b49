// While a profile records, backend_for() hands out this wrapper (through the listener,
// core/listener.h) instead of the backend: every
// call becomes an op range named as PyTorch users know it (ember::add, ember::mm, ember::copy_),
// on the device of its first CUDA tensor (else the CPU), with its inputs' shapes when asked.
// Every op front end reaches its backend through backend_for(), so this one place times them all.
#include "core/backend.h"
#include "profiler/hooks.h"
#include "profiler/op_names.h"
#include "profiler/range.h"
#include "profiler/session.h"

namespace ember {
namespace profiler::detail {
namespace {

using TensorRefs = std::initializer_list<std::reference_wrapper<const Tensor>>;

Device device_of(TensorRefs tensors) {
  for (const Tensor& t : tensors) {
    if (t.defined() && t.is_cuda()) return t.device();
  }
  return Device(kCPU);
}

// The range of one backend call: `on` picks the device, `inputs` are the recorded shapes.
class OpRange {
 public:
  OpRange(const char* name, TensorRefs on, TensorRefs inputs)
      : range_(name, EventKind::Op, device_of(on)) {
    if (!range_.session()) return;
    for (const Tensor& t : on) claim_output(range_, t);
    if (!range_.records_shapes()) return;
    for (const Tensor& t : inputs) range_.add_input(t);
  }

 private:
  Range range_;
};

// The labels of the families whose profiler name depends on more than one argument (the
// label column of EMBER_BACKEND_FAMILIES calls them, as it calls op_name for the op enums).
const char* gemm_label(const Tensor& out, double beta) {
  const bool batched = out.size(0) > 1;
  return beta != 0 ? (batched ? "ember::baddbmm" : "ember::addmm")
                   : (batched ? "ember::bmm" : "ember::mm");
}
const char* random_label(RandomKind kind) {
  return kind == RandomKind::Uniform  ? "ember::uniform_"
         : kind == RandomKind::Normal ? "ember::normal_"
                                      : "ember::random_";
}

// PyTorch's names: layer_norm's geometry (one group, a weight per element) is native_layer_norm,
// the others native_group_norm (instance_norm is a group_norm of one channel per group here).
const char* row_norm_label(const RowNormGeometry& g, bool backward) {
  const bool layer = g.groups == 1 && g.inner() == 1;
  return layer ? (backward ? "ember::native_layer_norm_backward" : "ember::native_layer_norm")
               : (backward ? "ember::native_group_norm_backward" : "ember::native_group_norm");
}

// A family's forwarder: one op range with the row's label, outputs and inputs around the call.
#define EMBER_PROFILED_FAMILY(name, ret, params, args, label, outputs, inputs, meta) \
  ret name params override {                                                         \
    OpRange r(label, {EMBER_UNPAREN outputs}, {EMBER_UNPAREN inputs});               \
    return inner_.name args;                                                         \
  }
#define EMBER_UNPAREN(...) __VA_ARGS__

class ProfiledBackend final : public Backend {
 public:
  explicit ProfiledBackend(Backend& inner) : inner_(inner) {}

  // By hand: allocating is not an op.
  Allocator* allocator(Device device) override { return inner_.allocator(device); }
  // By hand: a question, not an op (the convolution it allows is one).
  bool has_convolution(const Tensor& in, const Window& g, int64_t groups) override {
    return inner_.has_convolution(in, g, groups);
  }
  EMBER_BACKEND_FAMILIES(EMBER_PROFILED_FAMILY)

 private:
  Backend& inner_;
};

}  // namespace

Backend& wrap_backend(Backend& b) {
  if (!enabled()) return b;
  static ProfiledBackend cpu(cpu_backend());
  if (&b == &cpu_backend()) return cpu;
  static ProfiledBackend meta(meta_backend());
  if (&b == &meta_backend()) return meta;
  static ProfiledBackend cuda(b);  // the only other backend
  return cuda;
}

}  // namespace profiler::detail
}  // namespace ember
