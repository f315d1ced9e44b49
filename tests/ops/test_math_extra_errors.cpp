// Bad input to issue 34's ops (the special functions, statistics, searches and products of
// src/ops/special_math.cpp, elementwise_composites.cpp, statistics.cpp, search.cpp and
// linalg_products.cpp): each is refused with the ember::Error subclass that maps to PyTorch's
// Python exception, a text naming the values (PyTorch's own where it has one), on every device,
// before any work. tests/python/test_ops_math_extra.py compares the exception types with torch.
#include <gtest/gtest.h>

#include "ember/ops.h"
#include "ember/tensor_data.h"
#include "support/test_util.h"

namespace ember::testing {
namespace {

struct BadCall {
  const char* what;
  std::function<void(Device)> call;
  std::vector<std::string> parts;  // what the message must contain
};

template <typename E>
void expect_refused(const BadCall& c, Device device) {
  const std::string msg = error_of<E>([&] { c.call(device); });
  for (const std::string& part : c.parts) {
    EXPECT_TRUE(contains(msg, part))
        << c.what << " on " << device << ": \"" << msg << "\" does not contain \"" << part << "\"";
  }
}

Tensor on(Device d, std::initializer_list<double> v, ScalarType dt = kFloat) {
  return tensor(std::vector<double>(v), kDouble).to(d, dt);
}
TensorOptions opts(Device d, ScalarType dt = kFloat) {
  return TensorOptions().dtype(dt).device(d);
}

TEST(MathExtraErrors, ValuesOutOfRangeAreValueErrors) {
  const std::vector<BadCall> calls = {
      {"polygamma(-1)", [](Device d) { polygamma(-1, ones({2}, opts(d))); }, {"negative n", "-1"}},
      {"kthvalue k = 9",
       [](Device d) {
         kthvalue(ones({2, 3}, opts(d)), 9);
       },
       {"out of range", "k = 9", "size 3"}},
      {"quantile q = 1.5", [](Device d) { quantile(ones({3}, opts(d)), 1.5); }, {"[0, 1]", "1.5"}},
      {"quantile tensor q",
       [](Device d) {
         quantile(ones({3}, opts(d)), on(d, {0.5, 1.5}));
       },
       {"q values must be in the range [0, 1]"}},
      {"quantile interpolation",
       [](Device d) { quantile(ones({3}, opts(d)), 0.5, 0, false, "x"); },
       {"interpolation", "but got x"}},
      {"quantile of nothing", [](Device d) { quantile(ones({0}, opts(d)), 0.5); }, {"non-empty"}},
      {"aminmax of nothing", [](Device d) { aminmax(ones({0}, opts(d))); }, {"empty"}},
      {"renorm p = 0",
       [](Device d) {
         renorm(ones({2, 3}, opts(d)), 0, 0, 1);
       },
       {"non-positive-norm", "p = 0"}},
      {"renorm maxnorm -1",
       [](Device d) {
         renorm(ones({2, 3}, opts(d)), 2, 0, -1);
       },
       {"maxnorm", "-1"}},
      {"cdist columns",
       [](Device d) {
         cdist(ones({2, 3}, opts(d)), ones({2, 4}, opts(d)));
       },
       {"X1: 3 X2: 4"}},
      {"bincount negative",
       [](Device d) {
         bincount(tensor(std::vector<int64_t>{-1, 2}).to(d));
       },
       {"non-negative"}},
      {"bincount minlength",
       [](Device d) { bincount(ones({2}, opts(d, kLong)), {}, -2); },
       {"minlength", "-2"}},
      {"histc bins", [](Device d) { histc(ones({3}, opts(d)), 0); }, {"bins must be > 0", "0"}},
      {"searchsorted shapes",
       [](Device d) {
         searchsorted(ones({2, 3}, opts(d)), ones({3, 2}, opts(d)));
       },
       {"[2, 3]", "[3, 2]"}},
      {"searchsorted side",
       [](Device d) {
         searchsorted(ones({3}, opts(d)), ones({2}, opts(d)), false, false, "middle");
       },
       {"'left' or 'right'", "middle"}},
      {"bucketize boundaries",
       [](Device d) {
         bucketize(ones({3}, opts(d)), ones({2, 2}, opts(d)));
       },
       {"dim(2)"}},
      {"matrix_power of a vector",
       [](Device d) { matrix_power(ones({3}, opts(d)), 2); },
       {"at least 2 dimensions"}},
      {"matrix_power of 2x3",
       [](Device d) {
         matrix_power(ones({2, 3}, opts(d)), 2);
       },
       {"2 by 3"}},
      {"mv sizes",
       [](Device d) {
         mv(ones({2, 3}, opts(d)), ones({2}, opts(d)));
       },
       {"size mismatch, got 2, 2x3,2"}},
      {"dot sizes",
       [](Device d) { dot(ones({2}, opts(d)), ones({3}, opts(d))); },
       {"but got 2 and 3"}},
      {"addmv sizes",
       [](Device d) {
         addmv(ones({2}, opts(d)), ones({3, 4}, opts(d)), ones({4}, opts(d)));
       },
       {"size mismatch, got 2, 3x4,4"}},
      {"trapezoid x",
       [](Device d) {
         trapezoid(ones({2, 3}, opts(d)), ones({2}, opts(d)));
       },
       {"one `x` value for each sample point"}},
      {"isclose rtol",
       [](Device d) { isclose(ones({2}, opts(d)), ones({2}, opts(d)), -1); },
       {"rtol", "-1"}},
  };
  for (const Device& d : test_devices()) {
    for (const BadCall& c : calls) expect_refused<Error>(c, d);
  }
}

TEST(MathExtraErrors, UnsupportedDtypesNameTheDtypes) {
  const std::vector<BadCall> calls = {
      {"gcd of floats",
       [](Device d) { gcd(ones({2}, opts(d)), ones({2}, opts(d))); },
       {"gcd_cpu", "'Float'"}},
      {"lcm of bools",
       [](Device d) { lcm(ones({2}, opts(d, kBool)), ones({2}, opts(d, kBool))); },
       {"lcm_cpu", "'Bool'"}},
      {"logaddexp of int64",
       [](Device d) { logaddexp(ones({2}, opts(d, kLong)), ones({2}, opts(d, kInt))); },
       {"logaddexp_cpu", "'Long'", "Int"}},
      {"logcumsumexp of int64",
       [](Device d) { logcumsumexp(ones({2}, opts(d, kLong)), 0); },
       {"'Long'"}},
      {"quantile of int64",
       [](Device d) { quantile(ones({3}, opts(d, kLong)), 0.5); },
       {"float or double"}},
      {"cdist of int64",
       [](Device d) {
         cdist(ones({2, 3}, opts(d, kLong)), ones({2, 3}, opts(d, kLong)));
       },
       {"floating-point", "Long"}},
      {"bincount of floats", [](Device d) { bincount(ones({3}, opts(d))); }, {"'Float'"}},
      {"histc of int64", [](Device d) { histc(ones({3}, opts(d, kLong))); }, {"'Long'"}},
      {"dot of float and double",
       [](Device d) { dot(ones({2}, opts(d)), ones({2}, opts(d, kDouble))); },
       {"Float and Double"}},
      {"heaviside of float and int64",
       [](Device d) { heaviside(ones({2}, opts(d)), ones({2}, opts(d, kLong))); },
       {"different dtypes", "Float and Long"}},
      {"isclose of float and int64",
       [](Device d) { isclose(ones({2}, opts(d)), ones({2}, opts(d, kLong))); },
       {"Float did not match Long"}},
  };
  for (const Device& d : test_devices()) {
    for (const BadCall& c : calls) expect_refused<Error>(c, d);
  }
}

// The kinds that map to other Python exceptions: an empty reduction dim is PyTorch's IndexError,
// a negative power of a singular matrix has no inverse to take.
TEST(MathExtraErrors, OtherKinds) {
  for (const Device& d : test_devices()) {
    expect_refused<IndexError>({"median over an empty dim",
                                [](Device dv) {
                                  median(ones({0, 2}, opts(dv)), 0);
                                },
                                {"non-zero size"}},
                               d);
    expect_refused<IndexError>({"cummax dim 5",
                                [](Device dv) {
                                  cummax(ones({2, 3}, opts(dv)), 5);
                                },
                                {"5"}},
                               d);
    expect_refused<LinAlgError>({"matrix_power -1 of a singular matrix",
                                 [](Device dv) {
                                   matrix_power(ones({2, 2}, opts(dv)), -1);
                                 },
                                 {"linalg.inv", "singular"}},
                                d);
  }
}

}  // namespace
}  // namespace ember::testing
