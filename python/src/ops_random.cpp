// The random distributions beyond rand/randn: Tensor.exponential_, geometric_, cauchy_,
// log_normal_, bernoulli_, random_, and ember.bernoulli / ember.normal with PyTorch 1.13's
// forms. Draws run without the GIL; each in-place method returns the same Python object.
#include "common.h"

namespace ember::python {
namespace {

using T = const Tensor&;

}  // namespace

void init_ops_random(nb::module_& m, nb::class_<Tensor>& cls) {
  cls.def(
      "exponential_",
      [](nb::handle s, double lambd) { return inplace(s, [&](T t) { t.exponential_(lambd); }); },
      "lambd"_a = 1.0);
  cls.def(
      "geometric_",
      [](nb::handle s, double p) { return inplace(s, [&](T t) { t.geometric_(p); }); }, "p"_a);
  cls.def(
      "cauchy_",
      [](nb::handle s, double median, double sigma) {
        return inplace(s, [&](T t) { t.cauchy_(median, sigma); });
      },
      "median"_a = 0.0, "sigma"_a = 1.0);
  cls.def(
      "log_normal_",
      [](nb::handle s, double mean, double std) {
        return inplace(s, [&](T t) { t.log_normal_(mean, std); });
      },
      "mean"_a = 1.0, "std"_a = 2.0);
  cls.def(
      "bernoulli_",
      [](nb::handle s, nb::handle p) {
        if (nb::isinstance<Tensor>(p)) {
          Tensor probs = nb::cast<Tensor>(p);
          return inplace(s, [&](T t) { t.bernoulli_(probs); });
        }
        const double pv = nb::cast<double>(p);
        return inplace(s, [&](T t) { t.bernoulli_(pv); });
      },
      "p"_a = 0.5);
  // random_(), random_(to), random_(from, to): PyTorch's three forms.
  cls.def(
      "random_",
      [](nb::handle s, std::optional<int64_t> from, std::optional<int64_t> to) {
        return inplace(s, [&](T t) {
          if (from && to) {
            t.random_(*from, *to);
          } else if (from) {
            t.random_(*from);
          } else {
            t.random_();
          }
        });
      },
      "from_"_a = nb::none(), "to"_a = nb::none());
  const auto bernoulli = [](T t, std::optional<double> p) {
    nb::gil_scoped_release release;
    return p ? t.bernoulli(*p) : t.bernoulli();
  };
  m.def("bernoulli", bernoulli, "input"_a, "p"_a = nb::none());
  cls.def("bernoulli", bernoulli, "p"_a = nb::none());
  // normal(mean, std) with either a tensor; normal(mean, std, size) with two numbers.
  m.def(
      "normal",
      [](nb::handle mean, nb::handle std, nb::handle size, nb::handle dtype,
         nb::handle device) -> Tensor {
        const bool mt = nb::isinstance<Tensor>(mean), st = nb::isinstance<Tensor>(std);
        if (mt && st) {
          Tensor a = nb::cast<Tensor>(mean), b = nb::cast<Tensor>(std);
          nb::gil_scoped_release release;
          return normal(a, b);
        }
        if (mt) {
          Tensor a = nb::cast<Tensor>(mean);
          const double b = std.is_none() ? 1.0 : nb::cast<double>(std);
          nb::gil_scoped_release release;
          return normal(a, b);
        }
        if (st) {
          Tensor b = nb::cast<Tensor>(std);
          const double a = nb::cast<double>(mean);
          nb::gil_scoped_release release;
          return normal(a, b);
        }
        EMBER_CHECK(!size.is_none(), ArgumentTypeError,
                    "normal() with a float mean and std needs a size");
        const double a = nb::cast<double>(mean), b = std.is_none() ? 1.0 : nb::cast<double>(std);
        EMBER_CHECK(b >= 0.0, ValueError, "normal expects std >= 0.0, but found std ", b);
        std::vector<int64_t> shape = int_list(size, "size");
        TensorOptions o;
        if (auto dt = dtype_arg(dtype)) o = o.dtype(*dt);
        if (auto dev = device_arg(device)) o = o.device(*dev);
        nb::gil_scoped_release release;
        return randn(shape, o).mul_(b).add_(a);
      },
      "mean"_a, "std"_a = nb::none(), "size"_a = nb::none(), nb::kw_only(), "dtype"_a = nb::none(),
      "device"_a = nb::none());
}

}  // namespace ember::python
