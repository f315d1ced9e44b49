#pragma once
// Free functions: factories, math, views and reductions with libtorch's names and signatures.
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "ember/tensor.h"

namespace ember {

// ---- random numbers (Philox 4x32-10, counter based: same seed, same numbers on every device) ----
EMBER_API void manual_seed(uint64_t seed);
EMBER_API uint64_t initial_seed();

// ---- factories ----
EMBER_API Tensor empty(IntArrayRef sizes, const TensorOptions& options = {});
EMBER_API Tensor empty_strided(IntArrayRef sizes, IntArrayRef strides,
                               const TensorOptions& options = {});
EMBER_API Tensor zeros(IntArrayRef sizes, const TensorOptions& options = {});
EMBER_API Tensor ones(IntArrayRef sizes, const TensorOptions& options = {});
EMBER_API Tensor full(IntArrayRef sizes, const Scalar& value, const TensorOptions& options = {});
EMBER_API Tensor rand(IntArrayRef sizes, const TensorOptions& options = {});
EMBER_API Tensor randn(IntArrayRef sizes, const TensorOptions& options = {});
EMBER_API Tensor randint(int64_t low, int64_t high, IntArrayRef sizes,
                         const TensorOptions& options = kLong);
EMBER_API Tensor randint(int64_t high, IntArrayRef sizes, const TensorOptions& options = kLong);
EMBER_API Tensor randperm(int64_t n, const TensorOptions& options = kLong);
// num_samples category indices (int64) per row of input, a [K] or [rows, K] tensor of
// non-negative weights (any sum > 0): with replacement by the inverse cumulative sum, without by
// the exponential race (src/ops/multinomial.cpp). Draws from the default Philox generator.
EMBER_API Tensor multinomial(const Tensor& input, int64_t num_samples, bool replacement = false);
EMBER_API Tensor arange(const Scalar& end, const TensorOptions& options = {});
EMBER_API Tensor arange(const Scalar& start, const Scalar& end, const TensorOptions& options = {});
EMBER_API Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step,
                        const TensorOptions& options = {});
EMBER_API Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps,
                          const TensorOptions& options = {});
EMBER_API Tensor eye(int64_t n, const TensorOptions& options = {});
EMBER_API Tensor eye(int64_t n, int64_t m, const TensorOptions& options = {});
EMBER_API Tensor empty_like(const Tensor& t, const TensorOptions& options = {});
EMBER_API Tensor zeros_like(const Tensor& t, const TensorOptions& options = {});
EMBER_API Tensor ones_like(const Tensor& t, const TensorOptions& options = {});
EMBER_API Tensor full_like(const Tensor& t, const Scalar& v, const TensorOptions& options = {});
EMBER_API Tensor rand_like(const Tensor& t, const TensorOptions& options = {});
EMBER_API Tensor randn_like(const Tensor& t, const TensorOptions& options = {});
EMBER_API Tensor scalar_tensor(const Scalar& s, const TensorOptions& options = {});
// Wraps memory the caller owns (CPU, or CUDA memory with a CUDA device in options).
EMBER_API Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options = {});
EMBER_API Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides,
                           const TensorOptions& options = {});

// ---- elementwise ----
// The ops of ember/op_table.h (neg ... bitwise_not, mul ... bitwise_xor, and the aliases fix,
// arcsin, arccos, arctan), declared from the table; what each does is said there.
#define EMBER_FREE_UNARY(name, Prim, method, inplace) EMBER_API Tensor name(const Tensor& a);
#define EMBER_FREE_BINARY(name, Prim, scalar, inplace)     \
  EMBER_API Tensor name(const Tensor& a, const Tensor& b); \
  EMBER_OP_IF(scalar, EMBER_API Tensor name(const Tensor& a, const Scalar& b);)
#define EMBER_FREE_UNARY_ALIAS(alias, target, method, inplace) \
  inline Tensor alias(const Tensor& a) {                       \
    return target(a);                                          \
  }
EMBER_OP_TABLE_UNARY(EMBER_FREE_UNARY)
EMBER_OP_TABLE_BINARY(EMBER_FREE_BINARY)
EMBER_OP_TABLE_UNARY_ALIASES(EMBER_FREE_UNARY_ALIAS)
#undef EMBER_FREE_UNARY
#undef EMBER_FREE_BINARY
#undef EMBER_FREE_UNARY_ALIAS

// The irregular ones.
EMBER_API Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
EMBER_API Tensor add(const Tensor& a, const Scalar& b, const Scalar& alpha = 1);
EMBER_API Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
EMBER_API Tensor sub(const Tensor& a, const Scalar& b, const Scalar& alpha = 1);
EMBER_API Tensor pow(const Scalar& a, const Tensor& e);
EMBER_API Tensor remainder(const Scalar& a, const Tensor& b);
// rounding_mode: nullopt (true division), "trunc" or "floor" (integers kept, zero gradient).
EMBER_API Tensor div(const Tensor& a, const Tensor& b,
                     std::optional<std::string_view> rounding_mode);
EMBER_API Tensor div(const Tensor& a, const Scalar& b,
                     std::optional<std::string_view> rounding_mode);
// start + weight * (end - start); start, end (and a tensor weight) share one floating dtype.
EMBER_API Tensor lerp(const Tensor& start, const Tensor& end, const Scalar& weight);
EMBER_API Tensor lerp(const Tensor& start, const Tensor& end, const Tensor& weight);
// self + value * tensor1 * tensor2 and self + value * tensor1 / tensor2.
EMBER_API Tensor addcmul(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2,
                         const Scalar& value = 1);
EMBER_API Tensor addcdiv(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2,
                         const Scalar& value = 1);
EMBER_API Tensor gelu(const Tensor& a, const std::string& approximate = "none");
EMBER_API Tensor clamp(const Tensor& a, std::optional<Scalar> min, std::optional<Scalar> max = {});
inline Tensor clamp_min(const Tensor& a, const Scalar& min) {
  return clamp(a, min, std::nullopt);
}
inline Tensor clamp_max(const Tensor& a, const Scalar& max) {
  return clamp(a, std::nullopt, max);
}
EMBER_API Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
EMBER_API Tensor where(const Tensor& cond, const Tensor& a, const Scalar& b);
EMBER_API Tensor where(const Tensor& cond, const Scalar& a, const Tensor& b);
// The dtype PyTorch's promotion gives an op over these operands.
EMBER_API ScalarType result_type(const Tensor& a, const Tensor& b);
EMBER_API ScalarType result_type(const Tensor& a, const Scalar& b);
// log(a / (1 - a)), a first clamped to [eps, 1 - eps] when eps is given.
EMBER_API Tensor logit(const Tensor& a, std::optional<double> eps = std::nullopt);
// The n-th derivative of digamma (n >= 0; polygamma(0, a) is digamma(a)).
EMBER_API Tensor polygamma(int64_t n, const Tensor& a);
// NaN, +inf and -inf replaced by nan (default 0), posinf and neginf (default: the dtype's
// largest and lowest finite values); integer and bool tensors are returned as copies.
EMBER_API Tensor nan_to_num(const Tensor& a, std::optional<double> nan = std::nullopt,
                            std::optional<double> posinf = std::nullopt,
                            std::optional<double> neginf = std::nullopt);
// |a - b| <= atol + rtol * |b| elementwise (bool, broadcast); infinities close only to
// themselves, NaNs to NaNs when equal_nan.
EMBER_API Tensor isclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8,
                         bool equal_nan = false);
// bool of elements' shape: whether each element occurs in test_elements (not, with invert).
EMBER_API Tensor isin(const Tensor& elements, const Tensor& test_elements,
                      bool assume_unique = false, bool invert = false);

// ---- random sampling (the default generator; src/ops/random_sampling.cpp) ----
// 0 or 1 with probability p (elementwise), in p's dtype.
EMBER_API Tensor bernoulli(const Tensor& p);
// 0 or 1 with probability p, in self's shape and dtype.
EMBER_API Tensor bernoulli(const Tensor& self, double p);
// Normal draws with elementwise means and standard deviations (broadcast).
EMBER_API Tensor normal(const Tensor& mean, const Tensor& std);
EMBER_API Tensor normal(const Tensor& mean, double std = 1);
EMBER_API Tensor normal(double mean, const Tensor& std);

// ---- linear algebra ----
EMBER_API Tensor matmul(const Tensor& a, const Tensor& b);
EMBER_API Tensor mm(const Tensor& a, const Tensor& b);
EMBER_API Tensor bmm(const Tensor& a, const Tensor& b);
EMBER_API Tensor addmm(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta = 1,
                       const Scalar& alpha = 1);
EMBER_API Tensor outer(const Tensor& a, const Tensor& b);
// Matrix-vector and vector-vector products (src/ops/linalg_products.cpp); vdot is dot for real
// tensors. addmv: beta * self + alpha * (mat @ vec); baddbmm: beta * self + alpha * bmm(b1, b2);
// addbmm: the same with the bmm summed over the batch. matrix_power: n-th power of square
// matrices (n = 0: identity; n < 0 is not supported).
EMBER_API Tensor mv(const Tensor& mat, const Tensor& vec);
EMBER_API Tensor dot(const Tensor& a, const Tensor& b);
EMBER_API Tensor vdot(const Tensor& a, const Tensor& b);
EMBER_API Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec,
                       const Scalar& beta = 1, const Scalar& alpha = 1);
EMBER_API Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2,
                         const Scalar& beta = 1, const Scalar& alpha = 1);
EMBER_API Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2,
                        const Scalar& beta = 1, const Scalar& alpha = 1);
EMBER_API Tensor matrix_power(const Tensor& a, int64_t n);

// ---- reductions ----
EMBER_API Tensor sum(const Tensor& a, std::optional<ScalarType> dtype = std::nullopt);
EMBER_API Tensor sum(const Tensor& a, IntArrayRef dims, bool keepdim = false,
                     std::optional<ScalarType> dtype = std::nullopt);
EMBER_API Tensor mean(const Tensor& a, std::optional<ScalarType> dtype = std::nullopt);
EMBER_API Tensor mean(const Tensor& a, IntArrayRef dims, bool keepdim = false,
                      std::optional<ScalarType> dtype = std::nullopt);
EMBER_API Tensor prod(const Tensor& a);
EMBER_API Tensor prod(const Tensor& a, int64_t dim, bool keepdim = false,
                      std::optional<ScalarType> dtype = std::nullopt);
EMBER_API Tensor all(const Tensor& a);
EMBER_API Tensor all(const Tensor& a, int64_t dim, bool keepdim = false);
EMBER_API Tensor any(const Tensor& a);
EMBER_API Tensor any(const Tensor& a, int64_t dim, bool keepdim = false);
// The vector p-norm over `dim` (every dim when empty); p unset is 2, inf and -inf the largest and
// smallest magnitude, 0 the count of non-zeros.
EMBER_API Tensor norm(const Tensor& a, const std::optional<Scalar>& p, IntArrayRef dim,
                      bool keepdim = false);
EMBER_API Tensor max(const Tensor& a);
EMBER_API std::tuple<Tensor, Tensor> max(const Tensor& a, int64_t dim, bool keepdim = false);
EMBER_API Tensor min(const Tensor& a);
EMBER_API std::tuple<Tensor, Tensor> min(const Tensor& a, int64_t dim, bool keepdim = false);
EMBER_API Tensor amax(const Tensor& a, IntArrayRef dims = {}, bool keepdim = false);
EMBER_API Tensor amin(const Tensor& a, IntArrayRef dims = {}, bool keepdim = false);
EMBER_API Tensor argmax(const Tensor& a, std::optional<int64_t> dim = std::nullopt,
                        bool keepdim = false);
EMBER_API Tensor argmin(const Tensor& a, std::optional<int64_t> dim = std::nullopt,
                        bool keepdim = false);
EMBER_API Tensor var(const Tensor& a, IntArrayRef dims, bool unbiased = true, bool keepdim = false);
EMBER_API Tensor std(const Tensor& a, IntArrayRef dims, bool unbiased = true, bool keepdim = false);
EMBER_API Tensor softmax(const Tensor& a, int64_t dim,
                         std::optional<ScalarType> dtype = std::nullopt);
EMBER_API Tensor log_softmax(const Tensor& a, int64_t dim,
                             std::optional<ScalarType> dtype = std::nullopt);
EMBER_API Tensor logsumexp(const Tensor& a, IntArrayRef dims, bool keepdim = false);
EMBER_API bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8,
                        bool equal_nan = false);
EMBER_API bool equal(const Tensor& a, const Tensor& b);

// ---- sorting and scans (libtorch 1.13's overloads; every sort is stable, NaN sorts greatest) ----
EMBER_API std::tuple<Tensor, Tensor> sort(const Tensor& a, int64_t dim = -1,
                                          bool descending = false);
EMBER_API std::tuple<Tensor, Tensor> sort(const Tensor& a, std::optional<bool> stable,
                                          int64_t dim = -1, bool descending = false);
EMBER_API Tensor argsort(const Tensor& a, int64_t dim = -1, bool descending = false);
EMBER_API Tensor argsort(const Tensor& a, bool stable, int64_t dim = -1, bool descending = false);
EMBER_API std::tuple<Tensor, Tensor> topk(const Tensor& a, int64_t k, int64_t dim = -1,
                                          bool largest = true, bool sorted = true);
// Integer and bool inputs accumulate (and return) int64 unless `dtype` says otherwise.
EMBER_API Tensor cumsum(const Tensor& a, int64_t dim,
                        std::optional<ScalarType> dtype = std::nullopt);
EMBER_API Tensor cumprod(const Tensor& a, int64_t dim,
                         std::optional<ScalarType> dtype = std::nullopt);
EMBER_API Tensor flip(const Tensor& a, IntArrayRef dims);
// `value` where the bool `mask` (broadcast) is true; the result keeps a's dtype.
EMBER_API Tensor masked_fill(const Tensor& a, const Tensor& mask, const Scalar& value);
EMBER_API Tensor masked_fill(const Tensor& a, const Tensor& mask, const Tensor& value);
// round(a * 10^decimals) / 10^decimals, half to even.
EMBER_API Tensor round(const Tensor& a, int64_t decimals);
EMBER_API Tensor var(const Tensor& a, bool unbiased = true);
EMBER_API Tensor std(const Tensor& a, bool unbiased = true);
// libtorch 1.13's correction overloads: divide by max(0, N - correction); nullopt dims reduce
// every dim, nullopt correction is 1. As in libtorch, var(t, IntArrayRef{1}, 0) picks the bool
// overload above (0 converts to bool first): spell the correction std::optional<int64_t>(0).
EMBER_API Tensor var(const Tensor& a, std::optional<IntArrayRef> dims,
                     std::optional<int64_t> correction, bool keepdim = false);
EMBER_API Tensor std(const Tensor& a, std::optional<IntArrayRef> dims,
                     std::optional<int64_t> correction, bool keepdim = false);
// (var, mean) and (std, mean) over dims, as torch::var_mean / torch::std_mean.
EMBER_API std::tuple<Tensor, Tensor> var_mean(const Tensor& a, IntArrayRef dims,
                                              bool unbiased = true, bool keepdim = false);
EMBER_API std::tuple<Tensor, Tensor> std_mean(const Tensor& a, IntArrayRef dims,
                                              bool unbiased = true, bool keepdim = false);
// Braced dims (var(t, {1}), std(t, {-1}), var(t, {})) pick these over the bool overloads, as
// they pick libtorch's dims overloads.
inline Tensor var(const Tensor& a, std::initializer_list<int64_t> dims, bool unbiased = true,
                  bool keepdim = false) {
  return var(a, IntArrayRef(dims), unbiased, keepdim);
}
inline Tensor std(const Tensor& a, std::initializer_list<int64_t> dims, bool unbiased = true,
                  bool keepdim = false) {
  return std(a, IntArrayRef(dims), unbiased, keepdim);
}
// ---- statistics (src/ops/statistics.cpp) ----
// (amin, amax) over dim, or over every element when dim is nullopt.
EMBER_API std::tuple<Tensor, Tensor> aminmax(const Tensor& a,
                                             std::optional<int64_t> dim = std::nullopt,
                                             bool keepdim = false);
// Running max / min along dim with the index where each was reached (the last of equal values).
EMBER_API std::tuple<Tensor, Tensor> cummax(const Tensor& a, int64_t dim);
EMBER_API std::tuple<Tensor, Tensor> cummin(const Tensor& a, int64_t dim);
// log(cumsum(exp(a))) along dim without overflow.
EMBER_API Tensor logcumsumexp(const Tensor& a, int64_t dim);
// The k-th smallest element (k from 1) along dim and its index.
EMBER_API std::tuple<Tensor, Tensor> kthvalue(const Tensor& a, int64_t k, int64_t dim = -1,
                                              bool keepdim = false);
// The lower median (the element of rank (n - 1) / 2); NaN when a NaN is present. nanmedian
// ignores NaNs.
EMBER_API Tensor median(const Tensor& a);
EMBER_API std::tuple<Tensor, Tensor> median(const Tensor& a, int64_t dim, bool keepdim = false);
EMBER_API Tensor nanmedian(const Tensor& a);
EMBER_API std::tuple<Tensor, Tensor> nanmedian(const Tensor& a, int64_t dim, bool keepdim = false);
// The q-quantiles (q in [0, 1]; a 1-D q adds a leading dim) over dim or every element;
// interpolation "linear", "lower", "higher", "midpoint" or "nearest". nanquantile ignores NaNs.
EMBER_API Tensor quantile(const Tensor& a, const Tensor& q,
                          std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                          std::string_view interpolation = "linear");
EMBER_API Tensor quantile(const Tensor& a, double q, std::optional<int64_t> dim = std::nullopt,
                          bool keepdim = false, std::string_view interpolation = "linear");
EMBER_API Tensor nanquantile(const Tensor& a, const Tensor& q,
                             std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                             std::string_view interpolation = "linear");
EMBER_API Tensor nanquantile(const Tensor& a, double q, std::optional<int64_t> dim = std::nullopt,
                             bool keepdim = false, std::string_view interpolation = "linear");
// The n-th forward difference along dim, prepend / append joined first.
EMBER_API Tensor diff(const Tensor& a, int64_t n = 1, int64_t dim = -1,
                      const std::optional<Tensor>& prepend = std::nullopt,
                      const std::optional<Tensor>& append = std::nullopt);
// The trapezoidal rule along dim, with sample points x or a constant spacing dx; trapz is its
// older name; cumulative_trapezoid keeps the running sums.
EMBER_API Tensor trapezoid(const Tensor& y, const Tensor& x, int64_t dim = -1);
EMBER_API Tensor trapezoid(const Tensor& y, const Scalar& dx = 1, int64_t dim = -1);
EMBER_API Tensor trapz(const Tensor& y, const Tensor& x, int64_t dim = -1);
EMBER_API Tensor trapz(const Tensor& y, double dx = 1, int64_t dim = -1);
EMBER_API Tensor cumulative_trapezoid(const Tensor& y, const Tensor& x, int64_t dim = -1);
EMBER_API Tensor cumulative_trapezoid(const Tensor& y, const Scalar& dx = 1, int64_t dim = -1);
// The p-norm of a - b (broadcast).
EMBER_API Tensor dist(const Tensor& a, const Tensor& b, const Scalar& p = 2);
// Each slice along dim whose p-norm exceeds maxnorm scaled down to norm maxnorm.
EMBER_API Tensor renorm(const Tensor& a, const Scalar& p, int64_t dim, const Scalar& maxnorm);
// [..., P, R]: the p-norm distances between the rows of x1 [..., P, M] and x2 [..., R, M].
// compute_mode nullopt or 0 takes the matrix-product form for p = 2 beyond 25 rows, 1 always,
// 2 never.
EMBER_API Tensor cdist(const Tensor& x1, const Tensor& x2, double p = 2,
                       std::optional<int64_t> compute_mode = std::nullopt);

// ---- search and counting (src/ops/search.cpp); data-dependent shapes are read on the host ----
// The index of each value's bucket among sorted boundaries (1-D): the first boundary >= value
// (> value with right).
EMBER_API Tensor bucketize(const Tensor& self, const Tensor& boundaries, bool out_int32 = false,
                           bool right = false);
// The insertion points of self into the innermost dim of sorted_sequence (sorted, or sorted
// through the permutation `sorter`); side "left" / "right" as right = false / true.
EMBER_API Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& self,
                              bool out_int32 = false, bool right = false,
                              std::optional<std::string_view> side = std::nullopt,
                              const std::optional<Tensor>& sorter = std::nullopt);
// Counts of each non-negative integer of a 1-D tensor (sums of weights with weights), at least
// minlength long.
EMBER_API Tensor bincount(const Tensor& self, const std::optional<Tensor>& weights = std::nullopt,
                          int64_t minlength = 0);
// A histogram of bins equal bins over [min, max] (min == max: the data's range); elements
// outside are ignored.
EMBER_API Tensor histc(const Tensor& self, int64_t bins = 100, const Scalar& min = 0,
                       const Scalar& max = 0);
// (values, inverse, counts): the distinct elements of the flattened tensor (sorted), the index
// of each element's value in them and each value's count; inverse and counts are empty tensors
// unless asked for. unique_consecutive drops only repeats next to each other (dim: whole slices).
EMBER_API std::tuple<Tensor, Tensor, Tensor> _unique2(const Tensor& self, bool sorted = true,
                                                      bool return_inverse = false,
                                                      bool return_counts = false);
EMBER_API std::tuple<Tensor, Tensor, Tensor> unique_consecutive(
    const Tensor& self, bool return_inverse = false, bool return_counts = false,
    std::optional<int64_t> dim = std::nullopt);
// Einstein summation ("ij,jk->ik", "bij,bjk->bik", "ii", "...ij->...ji", "i,j->ij"), composed
// from permute, sum, diagonal views and bmm.
EMBER_API Tensor einsum(std::string_view equation, TensorList tensors);

// ---- shape ----
EMBER_API Tensor cat(TensorList tensors, int64_t dim = 0);
EMBER_API Tensor stack(TensorList tensors, int64_t dim = 0);
EMBER_API Tensor flatten(const Tensor& a, int64_t start_dim = 0, int64_t end_dim = -1);
EMBER_API Tensor reshape(const Tensor& a, IntArrayRef sizes);
EMBER_API Tensor transpose(const Tensor& a, int64_t d0, int64_t d1);
EMBER_API Tensor permute(const Tensor& a, IntArrayRef dims);
EMBER_API Tensor unsqueeze(const Tensor& a, int64_t dim);
EMBER_API Tensor squeeze(const Tensor& a);
EMBER_API Tensor squeeze(const Tensor& a, int64_t dim);
EMBER_API Tensor index_select(const Tensor& a, int64_t dim, const Tensor& index);
EMBER_API Tensor narrow(const Tensor& a, int64_t dim, int64_t start, int64_t length);
EMBER_API Tensor as_strided(const Tensor& a, IntArrayRef size, IntArrayRef stride,
                            std::optional<int64_t> storage_offset = std::nullopt);
EMBER_API Tensor select(const Tensor& a, int64_t dim, int64_t index);
EMBER_API Tensor gather(const Tensor& a, int64_t dim, const Tensor& index);
EMBER_API Tensor one_hot(const Tensor& a, int64_t num_classes = -1);
// self with src's elements added at index along dim (index, self and src of one rank).
EMBER_API Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index,
                             const Tensor& src);
// self with alpha * source's slices added at the positions `index` (1-D) names along dim.
EMBER_API Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index,
                           const Tensor& source, const Scalar& alpha = 1);
// self with its slices at `index` (1-D, int64) along dim replaced by source's.
EMBER_API Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index,
                            const Tensor& source);
// a's diagonal `offset` (above the main one when positive) of dims dim1 and dim2, as a view:
// those dims are removed and the diagonal is the last dim.
EMBER_API Tensor diagonal(const Tensor& a, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);
// Moves dims `source` to the places `destination`; the others keep their order.
EMBER_API Tensor movedim(const Tensor& a, IntArrayRef source, IntArrayRef destination);
EMBER_API Tensor movedim(const Tensor& a, int64_t source, int64_t destination);
// Dim `dim` split into `sizes` (one may be -1), as a view.
EMBER_API Tensor unflatten(const Tensor& a, int64_t dim, IntArrayRef sizes);
// Views of consecutive pieces of dim `dim`, of the given lengths (they must sum to its size).
EMBER_API std::vector<Tensor> split_with_sizes(const Tensor& a, IntArrayRef split_sizes,
                                               int64_t dim = 0);
// ---- rearranging (src/ops/rearrange.cpp) ----
// Elements shifted by shifts[i] places along dims[i], wrapping round; with no dims, along the
// flattened tensor (shifts then has one value).
EMBER_API Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims = {});
// Rotated by 90 degrees k times (negative k: the other way) in the plane of dims, from the
// first dim towards the second.
EMBER_API Tensor rot90(const Tensor& self, int64_t k = 1, IntArrayRef dims = {0, 1});
// flip along dim 1 (left-right; at least 2-D) and dim 0 (up-down; at least 1-D).
EMBER_API Tensor fliplr(const Tensor& self);
EMBER_API Tensor flipud(const Tensor& self);
// NumPy's names of transpose.
EMBER_API Tensor swapaxes(const Tensor& self, int64_t axis0, int64_t axis1);
EMBER_API Tensor swapdims(const Tensor& self, int64_t dim0, int64_t dim1);
// ---- broadcasting and repeating (src/ops/broadcasting.cpp, src/ops/repeat_ops.cpp) ----
// self expanded (a view) to `size`, by the broadcasting rules (-1 keeps a size).
EMBER_API Tensor broadcast_to(const Tensor& self, IntArrayRef size);
// Each tensor expanded to the broadcast shape of them all.
EMBER_API std::vector<Tensor> broadcast_tensors(TensorList tensors);
// Coordinate grids of 1-D (or 0-dim) tensors: indexing "ij" (the default; result dim i follows
// tensors[i]) or "xy" (the first two dims swapped, as NumPy's default).
EMBER_API std::vector<Tensor> meshgrid(TensorList tensors);
EMBER_API std::vector<Tensor> meshgrid(TensorList tensors, std::string_view indexing);
// repeat() with NumPy's rules: dims shorter than self.dim() are padded with leading 1s.
EMBER_API Tensor tile(const Tensor& self, IntArrayRef dims);
// Each element (with dim: each slice along dim; without: of the flattened tensor) repeated
// repeats[i] times. The one-argument form repeats the indices 0..n-1 (int64) repeats[i] times.
EMBER_API Tensor repeat_interleave(const Tensor& repeats,
                                   std::optional<int64_t> output_size = std::nullopt);
EMBER_API Tensor repeat_interleave(const Tensor& self, const Tensor& repeats,
                                   std::optional<int64_t> dim = std::nullopt,
                                   std::optional<int64_t> output_size = std::nullopt);
EMBER_API Tensor repeat_interleave(const Tensor& self, int64_t repeats,
                                   std::optional<int64_t> dim = std::nullopt,
                                   std::optional<int64_t> output_size = std::nullopt);
// ---- splitting and stacking (src/ops/split_stack.cpp) ----
// Views of self split along dim into `sections` near-equal pieces (the first size % sections one
// longer), or at the given indices, or by a 0-dim (sections) or 1-D (indices) int64 tensor.
EMBER_API std::vector<Tensor> tensor_split(const Tensor& self, int64_t sections, int64_t dim = 0);
EMBER_API std::vector<Tensor> tensor_split(const Tensor& self, IntArrayRef indices,
                                           int64_t dim = 0);
EMBER_API std::vector<Tensor> tensor_split(const Tensor& self,
                                           const Tensor& tensor_indices_or_sections,
                                           int64_t dim = 0);
// tensor_split along dim 1 (dim 0 for 1-D), 0 and 2; sections must divide the size evenly.
EMBER_API std::vector<Tensor> hsplit(const Tensor& self, int64_t sections);
EMBER_API std::vector<Tensor> hsplit(const Tensor& self, IntArrayRef indices);
EMBER_API std::vector<Tensor> vsplit(const Tensor& self, int64_t sections);
EMBER_API std::vector<Tensor> vsplit(const Tensor& self, IntArrayRef indices);
EMBER_API std::vector<Tensor> dsplit(const Tensor& self, int64_t sections);
EMBER_API std::vector<Tensor> dsplit(const Tensor& self, IntArrayRef indices);
// cat along dim 1 (dim 0 for 1-D), along dim 0 of at least 2-D tensors, along dim 2 of at least
// 3-D tensors; column_stack makes 0-dim and 1-D tensors columns first.
EMBER_API Tensor hstack(TensorList tensors);
EMBER_API Tensor vstack(TensorList tensors);
EMBER_API Tensor dstack(TensorList tensors);
EMBER_API Tensor column_stack(TensorList tensors);
// ---- selecting and writing by index (src/ops/select_by_index.cpp, scatter.cpp,
// index_fill_put.cpp) ---- The elements of self where the bool mask (broadcast with self) is true,
// as a 1-D tensor.
EMBER_API Tensor masked_select(const Tensor& self, const Tensor& mask);
// self read as 1-D at the int64 indices (negative count from the end); the result has index's
// shape.
EMBER_API Tensor take(const Tensor& self, const Tensor& index);
// gather along dim with indices broadcast against self; no dim: over the flattened tensor.
EMBER_API Tensor take_along_dim(const Tensor& self, const Tensor& indices,
                                std::optional<int64_t> dim = std::nullopt);
// The number of nonzero elements (int64) over dims (all dims when none are given).
EMBER_API Tensor count_nonzero(const Tensor& self, IntArrayRef dim);
EMBER_API Tensor count_nonzero(const Tensor& self, std::optional<int64_t> dim = std::nullopt);
// self with src's elements (or `value`) written at index along dim: out[i][index[i][j]] = src[i][j]
// for dim 1. reduce "add" or "multiply" combines them with self's instead.
EMBER_API Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
EMBER_API Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
EMBER_API Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                         std::string_view reduce);
EMBER_API Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                         std::string_view reduce);
// src's elements reduced into self's at index along dim: reduce "sum", "prod", "mean", "amax" or
// "amin"; include_self false leaves self's old values out wherever something is scattered.
EMBER_API Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index,
                                const Tensor& src, std::string_view reduce,
                                bool include_self = true);
// self with the slices at `index` (1-D int64) along dim set to value (a Scalar or 0-dim tensor).
EMBER_API Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index,
                            const Scalar& value);
EMBER_API Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index,
                            const Tensor& value);
// self[indices] = values (or += with accumulate) on a copy of self (Tensor::index_put_ writes
// self).
EMBER_API Tensor index_put(const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                           const Tensor& values, bool accumulate = false);
// ---- products and combinations (src/ops/products.cpp, src/ops/combinatorics.cpp) ----
// The Kronecker product (self's dims and other's padded with leading 1s to one rank).
EMBER_API Tensor kron(const Tensor& self, const Tensor& other);
// The sum of products over self's dims_self paired with other's dims_other; the result has
// self's other dims, then other's.
EMBER_API Tensor tensordot(const Tensor& self, const Tensor& other, IntArrayRef dims_self,
                           IntArrayRef dims_other);
// The cross product of 3-vectors along dim (broadcasting the other dims); with no dim, the first
// dim of size 3 (PyTorch 1.13's deprecated default).
EMBER_API Tensor cross(const Tensor& self, const Tensor& other,
                       std::optional<int64_t> dim = std::nullopt);
// Every combination of one element of each 1-D tensor, as rows [n1 * n2 * ..., len(tensors)].
EMBER_API Tensor cartesian_prod(TensorList tensors);
// The r-element combinations of a 1-D tensor's elements, in order, as rows (itertools'
// combinations, or combinations_with_replacement).
EMBER_API Tensor combinations(const Tensor& self, int64_t r = 2, bool with_replacement = false);
// [2, n]: the (row, column) coordinates of the lower (upper) triangle of a row x col matrix with
// the given diagonal offset, in row-major order.
EMBER_API Tensor tril_indices(int64_t row, int64_t col, int64_t offset = 0,
                              const TensorOptions& options = kLong);
EMBER_API Tensor triu_indices(int64_t row, int64_t col, int64_t offset = 0,
                              const TensorOptions& options = kLong);
// ---- parts of matrices (src/ops/matrix_parts.cpp): over the last two dims ----
// The lower (tril) or upper (triu) triangle: elements with column - row <= diagonal (tril) or
// >= diagonal (triu) are kept, the others are zero.
EMBER_API Tensor tril(const Tensor& a, int64_t diagonal = 0);
EMBER_API Tensor triu(const Tensor& a, int64_t diagonal = 0);
// 1-D a: the square matrix with a on its diagonal `diagonal`; 2-D a: that diagonal, copied.
EMBER_API Tensor diag(const Tensor& a, int64_t diagonal = 0);
// Matrices with self's last dim on their diagonal `offset` in the plane of dims dim1 and dim2 of
// the result (one dim larger than self).
EMBER_API Tensor diag_embed(const Tensor& self, int64_t offset = 0, int64_t dim1 = -2,
                            int64_t dim2 = -1);
// The tensors (0-, 1- or 2-D) as the blocks down the diagonal of one matrix.
EMBER_API Tensor block_diag(TensorList tensors);
// The sum of a matrix's main diagonal (integers sum to int64, as sum does).
EMBER_API Tensor trace(const Tensor& a);
// int64 [n, a.dim()]: the coordinates of a's nonzero elements in row-major order.
EMBER_API Tensor nonzero(const Tensor& a);
// The same (PyTorch's name for NumPy's).
EMBER_API Tensor argwhere(const Tensor& a);
// One-argument where: nonzero(condition) as one 1-D index tensor per dim.
EMBER_API std::vector<Tensor> where(const Tensor& condition);
// Broadcast shape of two shapes; throws naming both when they do not broadcast.
EMBER_API std::vector<int64_t> broadcast_shapes(IntArrayRef a, IntArrayRef b);

// ---- operators ----
inline Tensor operator+(const Tensor& a, const Tensor& b) {
  return add(a, b);
}
inline Tensor operator+(const Tensor& a, const Scalar& b) {
  return add(a, b);
}
inline Tensor operator+(const Scalar& a, const Tensor& b) {
  return add(b, a);
}
inline Tensor operator-(const Tensor& a, const Tensor& b) {
  return sub(a, b);
}
inline Tensor operator-(const Tensor& a, const Scalar& b) {
  return sub(a, b);
}
EMBER_API Tensor operator-(const Scalar& a, const Tensor& b);
inline Tensor operator*(const Tensor& a, const Tensor& b) {
  return mul(a, b);
}
inline Tensor operator*(const Tensor& a, const Scalar& b) {
  return mul(a, b);
}
inline Tensor operator*(const Scalar& a, const Tensor& b) {
  return mul(b, a);
}
inline Tensor operator/(const Tensor& a, const Tensor& b) {
  return div(a, b);
}
inline Tensor operator/(const Tensor& a, const Scalar& b) {
  return div(a, b);
}
EMBER_API Tensor operator/(const Scalar& a, const Tensor& b);
inline Tensor operator%(const Tensor& a, const Tensor& b) {
  return remainder(a, b);
}
inline Tensor operator%(const Tensor& a, const Scalar& b) {
  return remainder(a, b);
}
inline Tensor operator%(const Scalar& a, const Tensor& b) {
  return remainder(a, b);
}
inline Tensor operator&(const Tensor& a, const Tensor& b) {
  return bitwise_and(a, b);
}
inline Tensor operator&(const Tensor& a, const Scalar& b) {
  return bitwise_and(a, b);
}
inline Tensor operator&(const Scalar& a, const Tensor& b) {
  return bitwise_and(b, a);
}
inline Tensor operator|(const Tensor& a, const Tensor& b) {
  return bitwise_or(a, b);
}
inline Tensor operator|(const Tensor& a, const Scalar& b) {
  return bitwise_or(a, b);
}
inline Tensor operator|(const Scalar& a, const Tensor& b) {
  return bitwise_or(b, a);
}
inline Tensor operator^(const Tensor& a, const Tensor& b) {
  return bitwise_xor(a, b);
}
inline Tensor operator^(const Tensor& a, const Scalar& b) {
  return bitwise_xor(a, b);
}
inline Tensor operator^(const Scalar& a, const Tensor& b) {
  return bitwise_xor(b, a);
}
inline Tensor operator~(const Tensor& a) {
  return bitwise_not(a);
}
inline Tensor operator==(const Tensor& a, const Tensor& b) {
  return eq(a, b);
}
inline Tensor operator!=(const Tensor& a, const Tensor& b) {
  return ne(a, b);
}
inline Tensor operator<(const Tensor& a, const Tensor& b) {
  return lt(a, b);
}
inline Tensor operator<=(const Tensor& a, const Tensor& b) {
  return le(a, b);
}
inline Tensor operator>(const Tensor& a, const Tensor& b) {
  return gt(a, b);
}
inline Tensor operator>=(const Tensor& a, const Tensor& b) {
  return ge(a, b);
}
inline Tensor operator==(const Tensor& a, const Scalar& b) {
  return a.eq(b);
}
inline Tensor operator!=(const Tensor& a, const Scalar& b) {
  return a.ne(b);
}
inline Tensor operator<(const Tensor& a, const Scalar& b) {
  return a.lt(b);
}
inline Tensor operator<=(const Tensor& a, const Scalar& b) {
  return a.le(b);
}
inline Tensor operator>(const Tensor& a, const Scalar& b) {
  return a.gt(b);
}
inline Tensor operator>=(const Tensor& a, const Scalar& b) {
  return a.ge(b);
}
inline Tensor operator!(const Tensor& a) {
  return logical_not(a);
}

}  // namespace ember
