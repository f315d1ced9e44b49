// Tensor methods: metadata, conversions and copies, and the autograd accessors.
#include "ember/tensor.h"
#include "core/device_audit.h"

#include "autograd/node_impl.h"
#include "autograd/record.h"
#include "core/backend.h"
#include "core/generator.h"
#include "core/scalar_range.h"
#include "core/tensor_factory.h"
#include "ember/cuda.h"
#include "ember/ops.h"
#include "kernel_math/dispatch.h"

namespace ember {

int64_t Tensor::size(int64_t d) const {
  return sizes()[wrap_dim(d, dim(), "size")];
}
int64_t Tensor::stride(int64_t d) const {
  return strides()[wrap_dim(d, dim(), "stride")];
}
bool Tensor::is_pinned() const {
  return is_cpu() && checked()->storage()->pinned;
}

Scalar Tensor::item() const {
  EMBER_CHECK(numel() == 1, ValueError, "a Tensor with ", numel(),
              " elements cannot be converted to Scalar");
  audit::SyncReason why("item()");
  Tensor c = is_cpu() ? *this : cpu();
  Scalar s;
  EMBER_DISPATCH_ALL(dtype(), "item", [&] {
    scalar_t v = *static_cast<const scalar_t*>(c.data_ptr());
    if constexpr (std::is_same_v<scalar_t, Half> || std::is_same_v<scalar_t, BFloat16>) {
      s = Scalar(static_cast<double>(static_cast<float>(v)));
    } else {
      s = Scalar(v);
    }
  });
  return s;
}

template <typename T>
std::vector<T> Tensor::to_vector() const {
  Tensor c = to(kCPU).to(CppTypeToScalarType<T>::value).contiguous();
  const T* p = static_cast<const T*>(c.data_ptr());
  return std::vector<T>(p, p + c.numel());
}
template EMBER_API std::vector<float> Tensor::to_vector<float>() const;
template EMBER_API std::vector<double> Tensor::to_vector<double>() const;
template EMBER_API std::vector<int64_t> Tensor::to_vector<int64_t>() const;
template EMBER_API std::vector<int32_t> Tensor::to_vector<int32_t>() const;
template EMBER_API std::vector<uint8_t> Tensor::to_vector<uint8_t>() const;
template EMBER_API std::vector<bool> Tensor::to_vector<bool>() const;

namespace {
// Resolves "cuda" to "cuda:<current>" and checks that the device exists.
Device resolve(Device d) {
  if (d.is_cuda()) {
    cuda::check_device(d);
    if (!d.has_index()) d.set_index(static_cast<DeviceIndex>(cuda::current_device()));
  }
  return d;
}
}  // namespace

Tensor Tensor::to(const TensorOptions& options, bool non_blocking, bool copy) const {
  Device target = options.has_device() ? resolve(options.device()) : device();
  ScalarType dt = options.has_dtype() ? options.dtype() : dtype();
  if (!copy && target == device() && dt == dtype()) return *this;
  Tensor out = make_empty(sizes(), dt, target);
  {
    NoGradGuard no_grad;
    out.copy_(*this, non_blocking);
  }
  if (autograd::needs_grad({*this})) {
    Device src_device = device();
    ScalarType src_dtype = dtype();
    autograd::record("ToCopyBackward0", out, {*this}, [=](const autograd::variable_list& g) {
      return autograd::variable_list{g[0].to(src_device, src_dtype)};
    });
  }
  return out;
}
Tensor Tensor::to(Device d, bool nb, bool copy) const {
  return to(TensorOptions(d), nb, copy);
}
Tensor Tensor::to(ScalarType t, bool nb, bool copy) const {
  return to(TensorOptions(t), nb, copy);
}
Tensor Tensor::to(Device d, ScalarType t, bool nb, bool copy) const {
  return to(TensorOptions().device(d).dtype(t), nb, copy);
}
Tensor Tensor::to(const Tensor& o, bool nb, bool copy) const {
  return to(o.device(), o.dtype(), nb, copy);
}
Tensor Tensor::cpu() const {
  return to(Device(kCPU));
}
Tensor Tensor::cuda() const {
  return to(Device(kCUDA));
}

Tensor Tensor::pin_memory() const {
  EMBER_CHECK(is_cpu(), ValueError, "cannot pin '", device(),
              "' memory: only CPU tensors can be pinned");
  if (is_pinned()) return *this;
  Tensor out = make_empty(sizes(), dtype(), Device(kCPU), /*pinned=*/true);
  observed(cpu_backend()).copy(out, *this, false);
  return out;
}

Tensor Tensor::contiguous() const {
  if (is_contiguous()) return *this;
  return clone();
}

Tensor Tensor::clone() const {
  Tensor out = make_empty(sizes(), dtype(), device());
  backend_for(out).copy(out, *this, false);
  if (autograd::needs_grad({*this})) {
    autograd::record("CloneBackward0", out, {*this},
                     [](const autograd::variable_list& g) { return g; });
  }
  return out;
}

Tensor Tensor::detach() const {
  const TensorImpl* s = checked();
  return Tensor(make_ref<TensorImpl>(s->storage(), s->dtype(), s->sizes(), s->strides(),
                                     s->storage_offset()));
}

Tensor& Tensor::detach_() const {
  checked()->clear_autograd_meta();
  return const_cast<Tensor&>(*this);
}

Tensor& Tensor::copy_(const Tensor& src, bool non_blocking) const {
  autograd::check_inplace_allowed(*this, "copy_");
  // src must broadcast to self.
  broadcast_shapes(sizes(), src.sizes());
  int64_t lead = dim() - src.dim();
  for (int64_t d = 0; d < src.dim(); ++d) {
    EMBER_CHECK(lead >= 0 && (src.size(d) == 1 || src.size(d) == size(d + lead)), ValueError,
                "copy_: the source of shape ", src.sizes(),
                " cannot be broadcast to the destination shape ", sizes());
  }
  EMBER_CHECK(lead >= 0, ValueError, "copy_: the source of shape ", src.sizes(),
              " cannot be broadcast to the destination shape ", sizes());
  if (is_meta() || src.is_meta()) {
    observed(meta_backend()).copy(*this, src, non_blocking);  // into meta only
  } else if (is_cuda() || src.is_cuda()) {
    observed(cuda_backend()).copy(*this, src, non_blocking);
  } else {
    observed(cpu_backend()).copy(*this, src, non_blocking);
  }
  bump_version();
  if (autograd::needs_grad({*this, src})) {
    std::vector<int64_t> src_sizes = src.sizes().vec();
    Device src_device = src.device();
    ScalarType src_dtype = src.dtype();
    // self's old history is overwritten: its gradient is zero; src gets the incoming gradient.
    autograd::record("CopyBackwards", *this, {Tensor(), src},
                     [=](const autograd::variable_list& g) {
                       return autograd::variable_list{
                           Tensor(), autograd::sum_to(g[0], src_sizes).to(src_device, src_dtype)};
                     });
  }
  return const_cast<Tensor&>(*this);
}

Tensor& Tensor::fill_(const Scalar& value) const {
  autograd::check_inplace_allowed(*this, "fill_");
  check_scalar_fits(value, dtype(), "fill_");
  backend_for(*this).fill(*this, value);
  bump_version();
  if (auto* m = checked()->autograd_meta(); m && m->grad_fn && autograd::GradMode::is_enabled()) {
    autograd::record("FillBackward0", *this, {},
                     [](const autograd::variable_list&) { return autograd::variable_list{}; });
  }
  return const_cast<Tensor&>(*this);
}
Tensor& Tensor::zero_() const {
  return fill_(0);
}

Tensor& Tensor::uniform_(double from, double to) const {
  autograd::check_inplace_allowed(*this, "uniform_");
  auto st = reserve_random_blocks(static_cast<uint64_t>(numel()));
  backend_for(*this).random(*this, RandomKind::Uniform, from, to, st.seed, st.offset);
  bump_version();
  return const_cast<Tensor&>(*this);
}

Tensor& Tensor::normal_(double mean, double std) const {
  autograd::check_inplace_allowed(*this, "normal_");
  auto st = reserve_random_blocks(static_cast<uint64_t>(numel()));
  backend_for(*this).random(*this, RandomKind::Normal, mean, std, st.seed, st.offset);
  bump_version();
  return const_cast<Tensor&>(*this);
}

// ---- autograd accessors ----

bool Tensor::requires_grad() const {
  return autograd::requires_grad_fast(*this);
}

Tensor& Tensor::requires_grad_(bool r) const {
  auto* m = checked()->autograd_meta();
  if (!r && m && m->grad_fn) {
    throw Error(
        "you can only change requires_grad flags of leaf variables. If you want to use a "
        "computed variable in a subgraph that doesn't require differentiation use "
        "var_no_grad = var.detach().");
  }
  EMBER_CHECK(!r || is_floating_point(), TypeError,
              "only Tensors of floating point dtype can require gradients (got ",
              to_string(dtype()), ")");
  if (r || m) checked()->ensure_autograd_meta().requires_grad = r;
  return const_cast<Tensor&>(*this);
}

const Tensor& Tensor::grad() const {
  static const Tensor undefined;
  auto* m = checked()->autograd_meta();
  return m ? m->grad : undefined;
}

Tensor& Tensor::mutable_grad() const {
  return checked()->ensure_autograd_meta().grad;
}

std::shared_ptr<autograd::Node> Tensor::grad_fn() const {
  auto* m = checked()->autograd_meta();
  return m ? m->grad_fn : nullptr;
}

bool Tensor::is_leaf() const {
  auto* m = checked()->autograd_meta();
  return !m || !m->grad_fn;
}

uint32_t Tensor::output_nr() const {
  auto* m = checked()->autograd_meta();
  return m ? m->output_nr : 0;
}

void Tensor::retain_grad() const {
  EMBER_CHECK(requires_grad(), Error, "can't retain_grad on Tensor that has requires_grad=False");
  auto* m = checked()->autograd_meta();
  if (!m->grad_fn || m->retains_grad) return;
  m->retains_grad = true;
  if (auto* fn = dynamic_cast<autograd::FunctionNode*>(m->grad_fn.get())) {
    fn->retained_.emplace_back(m->output_nr, *this);
  }
}

bool Tensor::retains_grad() const {
  auto* m = checked()->autograd_meta();
  return m && m->retains_grad;
}

void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph,
                      bool create_graph) const {
  autograd::backward({*this}, {gradient}, retain_graph.value_or(create_graph), create_graph);
}

}  // namespace ember
