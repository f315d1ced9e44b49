// Tensor factories with PyTorch's keyword arguments: ember.zeros(2, 3, dtype=, device=,
// requires_grad=), arange, linspace, eye, rand*, the *_like forms, manual_seed.
#include "common.h"
#include "ember/parallel.h"
#include "ember/random_state.h"

namespace ember::python {
namespace {

using RG = nb::call_guard<nb::gil_scoped_release>;
using Sizes = std::vector<int64_t>;

// f(*size, dtype=None, device=None, requires_grad=False) for a factory of (sizes, options).
template <typename F>
void def_sized(nb::module_& m, const char* name, F f) {
  m.def(
      name,
      [name, f](nb::args size, nb::handle dtype, nb::handle device, bool requires_grad) {
        Sizes s = sizes_from_args(size, name);
        TensorOptions o = options_from(dtype, device, requires_grad);
        nb::gil_scoped_release release;
        return f(s, o);
      },
      "size"_a, "dtype"_a = nb::none(), "device"_a = nb::none(), "requires_grad"_a = false);
}

// f(input, dtype=None, device=None, requires_grad=False): input's dtype and device by default.
template <typename F>
void def_like(nb::module_& m, const char* name, F f) {
  m.def(
      name,
      [f](const Tensor& t, nb::handle dtype, nb::handle device, bool requires_grad) {
        TensorOptions o = t.options();
        if (auto d = dtype_arg(dtype)) o = o.dtype(*d);
        if (auto d = device_arg(device)) o = o.device(*d);
        nb::gil_scoped_release release;
        return f(t, o.requires_grad(requires_grad));
      },
      "input"_a, nb::kw_only(), "dtype"_a = nb::none(), "device"_a = nb::none(),
      "requires_grad"_a = false);
}

}  // namespace

void init_factories(nb::module_& m) {
  def_sized(m, "zeros", [](const Sizes& s, const TensorOptions& o) { return zeros(s, o); });
  def_sized(m, "ones", [](const Sizes& s, const TensorOptions& o) { return ones(s, o); });
  def_sized(m, "empty", [](const Sizes& s, const TensorOptions& o) { return empty(s, o); });
  def_sized(m, "rand", [](const Sizes& s, const TensorOptions& o) { return rand(s, o); });
  def_sized(m, "randn", [](const Sizes& s, const TensorOptions& o) { return randn(s, o); });
  def_like(m, "zeros_like",
           [](const Tensor& t, const TensorOptions& o) { return zeros(t.sizes(), o); });
  def_like(m, "ones_like",
           [](const Tensor& t, const TensorOptions& o) { return ones(t.sizes(), o); });
  def_like(m, "empty_like",
           [](const Tensor& t, const TensorOptions& o) { return empty(t.sizes(), o); });
  def_like(m, "rand_like",
           [](const Tensor& t, const TensorOptions& o) { return rand(t.sizes(), o); });
  def_like(m, "randn_like",
           [](const Tensor& t, const TensorOptions& o) { return randn(t.sizes(), o); });
  m.def(
      "full",
      [](nb::handle size, const Scalar& v, nb::handle dtype, nb::handle device, bool rg) {
        Sizes s = int_list(size, "full");
        TensorOptions o = options_from(dtype, device, rg);
        nb::gil_scoped_release release;
        return full(s, v, o);
      },
      "size"_a, "fill_value"_a, nb::kw_only(), "dtype"_a = nb::none(), "device"_a = nb::none(),
      "requires_grad"_a = false);
  m.def(
      "full_like",
      [](const Tensor& t, const Scalar& v, nb::handle dtype, nb::handle device, bool rg) {
        TensorOptions o = t.options();
        if (auto d = dtype_arg(dtype)) o = o.dtype(*d);
        if (auto d = device_arg(device)) o = o.device(*d);
        nb::gil_scoped_release release;
        return full_like(t, v, o.requires_grad(rg));
      },
      "input"_a, "fill_value"_a, nb::kw_only(), "dtype"_a = nb::none(), "device"_a = nb::none(),
      "requires_grad"_a = false);
  m.def(
      "arange",
      [](const Scalar& start, std::optional<Scalar> end, const Scalar& step, nb::handle dtype,
         nb::handle device, bool rg) {
        TensorOptions o = options_from(dtype, device, rg);
        nb::gil_scoped_release release;
        return end ? arange(start, *end, step, o) : arange(Scalar(int64_t(0)), start, step, o);
      },
      "start"_a, "end"_a = nb::none(), "step"_a = 1, nb::kw_only(), "dtype"_a = nb::none(),
      "device"_a = nb::none(), "requires_grad"_a = false);
  m.def(
      "linspace",
      [](const Scalar& start, const Scalar& end, int64_t steps, nb::handle dtype, nb::handle device,
         bool rg) {
        TensorOptions o = options_from(dtype, device, rg);
        nb::gil_scoped_release release;
        return linspace(start, end, steps, o);
      },
      "start"_a, "end"_a, "steps"_a, nb::kw_only(), "dtype"_a = nb::none(), "device"_a = nb::none(),
      "requires_grad"_a = false);
  m.def(
      "eye",
      [](int64_t n, std::optional<int64_t> m_, nb::handle dtype, nb::handle device, bool rg) {
        TensorOptions o = options_from(dtype, device, rg);
        nb::gil_scoped_release release;
        return m_ ? eye(n, *m_, o) : eye(n, o);
      },
      "n"_a, "m"_a = nb::none(), nb::kw_only(), "dtype"_a = nb::none(), "device"_a = nb::none(),
      "requires_grad"_a = false);
  // randint(high, size) or randint(low, high, size), int64 unless dtype= says otherwise.
  m.def(
      "randint",
      [](nb::args args, nb::handle dtype, nb::handle device, bool rg) {
        size_t n = args.size();
        EMBER_CHECK(n == 2 || n == 3, ArgumentTypeError,
                    "randint() takes (high, size) or (low, high, size), got ", n, " arguments");
        int64_t low = n == 3 ? nb::cast<int64_t>(args[0]) : 0;
        int64_t high = nb::cast<int64_t>(args[n - 2]);
        Sizes s = int_list(args[n - 1], "randint");
        TensorOptions o = options_from(dtype, device, rg);
        if (dtype.is_none()) o = o.dtype(kLong);
        nb::gil_scoped_release release;
        return randint(low, high, s, o);
      },
      "args"_a, "dtype"_a = nb::none(), "device"_a = nb::none(), "requires_grad"_a = false);
  m.def(
      "manual_seed", [](uint64_t seed) { manual_seed(seed); }, "seed"_a);
  m.def("initial_seed", &initial_seed);
  // torch.set_num_threads / get_num_threads: the CPU's intra-op threads (ember/parallel.h).
  m.def(
      "set_num_threads",
      [](nb::handle n) {
        // PyTorch's errors: RuntimeError for a non-int as for a non-positive count.
        EMBER_CHECK(PyLong_Check(n.ptr()) && !PyBool_Check(n.ptr()), Error,
                    "set_num_threads expects an int, but got ", nb::type_name(n.type()).c_str());
        set_num_threads(nb::cast<int>(n));
      },
      "int"_a);
  m.def("get_num_threads", &get_num_threads);
  m.def("get_rng_state", &get_rng_state);
  m.def("set_rng_state", &set_rng_state, "new_state"_a);
  m.def("is_tensor", [](nb::handle h) { return nb::isinstance<Tensor>(h); });
}

}  // namespace ember::python
