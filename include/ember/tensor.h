#pragma once
// Tensor: a reference-counted handle to a TensorImpl, with libtorch's method names.
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "ember/error.h"
#include "ember/op_table.h"
#include "ember/options.h"
#include "ember/scalar.h"
#include "ember/tensor_impl.h"

namespace ember {

namespace autograd {
class Node;
}
namespace indexing {
class TensorIndex;  // ember/indexing.h, included at the end of this header
}
template <typename T, size_t N>
class TensorAccessor;  // ember/accessor.h, included at the end of this header

// Stream identity passed to record_stream (kept tiny so tensor.h needs no CUDA header).
struct StreamRef {
  Device device;
  void* handle;  // cudaStream_t, or nullptr for the default stream
  int64_t id;
};

class Tensor;
using TensorList = ArrayRef<Tensor>;

class EMBER_API Tensor {
 public:
  Tensor() = default;
  explicit Tensor(Ref<TensorImpl> impl) : impl_(std::move(impl)) {}
  Tensor(const Tensor&) = default;
  Tensor(Tensor&&) = default;
  // Assigning to a named tensor rebinds the handle; assigning to a temporary (a view such as
  // t[i][j] or t.index({...})) writes into the elements it views, as libtorch does.
  Tensor& operator=(const Tensor&) & = default;
  Tensor& operator=(Tensor&&) & = default;
  Tensor& operator=(const Scalar& v) && { return fill_(v); }
  Tensor& operator=(const Tensor& rhs) && { return copy_(rhs); }
  Tensor& operator=(Tensor&& rhs) && { return copy_(rhs); }

  // ---- identity and metadata ----
  bool defined() const { return static_cast<bool>(impl_); }
  TensorImpl* unsafeGetTensorImpl() const { return impl_.get(); }
  const Ref<TensorImpl>& impl() const { return impl_; }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }
  int32_t use_count() const { return impl_.use_count(); }
  void reset() { impl_.reset(); }

  IntArrayRef sizes() const { return checked()->sizes(); }
  IntArrayRef strides() const { return checked()->strides(); }
  int64_t size(int64_t dim) const;
  int64_t stride(int64_t dim) const;
  int64_t dim() const { return checked()->dim(); }
  int64_t ndimension() const { return dim(); }
  int64_t numel() const { return checked()->numel(); }
  // As libtorch: dtype() is a TypeMeta (prints "float"), scalar_type() a ScalarType ("Float").
  TypeMeta dtype() const { return TypeMeta::fromScalarType(checked()->dtype()); }
  ScalarType scalar_type() const { return checked()->dtype(); }
  Device device() const { return checked()->device(); }
  TensorOptions options() const { return TensorOptions().dtype(scalar_type()).device(device()); }
  bool is_cuda() const { return device().is_cuda(); }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_meta() const { return device().is_meta(); }
  bool is_contiguous() const { return checked()->is_contiguous(); }
  bool is_floating_point() const { return ember::is_floating_point(dtype()); }
  int64_t storage_offset() const { return checked()->storage_offset(); }
  size_t element_size() const { return ember::element_size(dtype()); }
  size_t itemsize() const { return element_size(); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * element_size(); }
  bool is_pinned() const;
  // Bumped by every in-place write; autograd uses it to detect stale saved tensors.
  uint32_t _version() const { return checked()->storage()->version.load(); }
  void bump_version() const { checked()->storage()->version.fetch_add(1); }

  void* data_ptr() const { return checked()->data(); }
  template <typename T>
  T* data_ptr() const;
  template <typename T>
  T item() const {
    return item().to<T>();
  }
  Scalar item() const;
  // Copies the elements to a std::vector<T> (through the CPU, cast to T).
  template <typename T>
  std::vector<T> to_vector() const;

  // Elements seen through a TensorAccessor<T, N> (CPU tensors of dtype T and N dims only); the
  // accessor points into this tensor, so it is not available on a temporary.
  template <typename T, size_t N>
  TensorAccessor<T, N> accessor() const&;
  template <typename T, size_t N>
  TensorAccessor<T, N> accessor() && = delete;

  // ---- conversion and copies ----
  Tensor to(Device device, bool non_blocking = false, bool copy = false) const;
  Tensor to(ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(TypeMeta dtype, bool non_blocking = false, bool copy = false) const {
    return to(dtype.toScalarType(), non_blocking, copy);
  }
  Tensor to(Device device, ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(const TensorOptions& options, bool non_blocking = false, bool copy = false) const;
  Tensor to(const Tensor& other, bool non_blocking = false, bool copy = false) const;
  Tensor to(DeviceType type, bool non_blocking = false, bool copy = false) const {
    return to(Device(type), non_blocking, copy);
  }
  Tensor to(const char* device, bool non_blocking = false, bool copy = false) const {
    return to(Device(device), non_blocking, copy);
  }
  Tensor cpu() const;
  Tensor cuda() const;
  Tensor pin_memory() const;
  Tensor contiguous() const;
  Tensor clone() const;
  Tensor detach() const;
  Tensor& detach_() const;
  // libtorch's data(): a detached alias (same storage, no history, not requiring grad).
  Tensor data() const { return detach(); }
  Tensor& copy_(const Tensor& src, bool non_blocking = false) const;
  Tensor& fill_(const Scalar& value) const;
  Tensor& zero_() const;
  Tensor toType(ScalarType t) const { return to(t); }
  Tensor type_as(const Tensor& o) const { return to(o.scalar_type()); }
  Tensor to_dense() const { return *this; }
  // Tells the caching allocator that this tensor's memory is in use on stream `stream_id`.
  void record_stream(const StreamRef& stream) const;

  // ---- views (share storage) ----
  Tensor view(IntArrayRef sizes) const;
  Tensor reshape(IntArrayRef sizes) const;
  Tensor view_as(const Tensor& o) const { return view(o.sizes()); }
  Tensor reshape_as(const Tensor& o) const { return reshape(o.sizes()); }
  Tensor t() const;
  Tensor transpose(int64_t d0, int64_t d1) const;
  Tensor permute(IntArrayRef dims) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor expand(IntArrayRef sizes) const;
  Tensor expand_as(const Tensor& o) const { return expand(o.sizes()); }
  Tensor slice(int64_t dim = 0, std::optional<int64_t> start = std::nullopt,
               std::optional<int64_t> end = std::nullopt, int64_t step = 1) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  // A view of this tensor's storage with the given sizes, strides and storage offset (default:
  // this tensor's). Strides must be non-negative and every element must lie in the storage.
  Tensor as_strided(IntArrayRef size, IntArrayRef stride,
                    std::optional<int64_t> storage_offset = std::nullopt) const;
  Tensor index_select(int64_t dim, const Tensor& index) const;
  Tensor operator[](int64_t index) const { return select(0, index); }
  // t[i] with i a 0-dim integer tensor, as libtorch's operator[](Tensor).
  Tensor operator[](const Tensor& index) const;
  // Index writes (src/ops/index_write.cpp); the _ forms write self.
  Tensor scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor& scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor index_add(int64_t dim, const Tensor& index, const Tensor& source,
                   const Scalar& alpha = 1) const;
  Tensor& index_add_(int64_t dim, const Tensor& index, const Tensor& source,
                     const Scalar& alpha = 1) const;
  Tensor index_copy(int64_t dim, const Tensor& index, const Tensor& source) const;
  Tensor& index_copy_(int64_t dim, const Tensor& index, const Tensor& source) const;
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0) const;
  // Pieces of the given lengths; split({2, 3}) is split_with_sizes({2, 3}), as in libtorch.
  std::vector<Tensor> split_with_sizes(IntArrayRef split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> split(IntArrayRef split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> unbind(int64_t dim = 0) const;
  Tensor diagonal(int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) const;
  Tensor movedim(IntArrayRef source, IntArrayRef destination) const;
  Tensor movedim(int64_t source, int64_t destination) const;
  Tensor unflatten(int64_t dim, IntArrayRef sizes) const;
  // The tensor tiled: dim i repeated repeats[i] times (leading new dims allowed), a copy.
  Tensor repeat(IntArrayRef repeats) const;
  Tensor tril(int64_t diagonal = 0) const;
  Tensor triu(int64_t diagonal = 0) const;
  Tensor& tril_(int64_t diagonal = 0) const;
  Tensor& triu_(int64_t diagonal = 0) const;
  Tensor diag(int64_t diagonal = 0) const;
  Tensor trace() const;

  // Shape and indexing ops whose free functions ops.h declares (and says what they do).
  Tensor roll(IntArrayRef shifts, IntArrayRef dims = {}) const;
  Tensor rot90(int64_t k = 1, IntArrayRef dims = {0, 1}) const;
  Tensor fliplr() const;
  Tensor flipud() const;
  Tensor swapaxes(int64_t axis0, int64_t axis1) const;
  Tensor swapdims(int64_t dim0, int64_t dim1) const;
  Tensor broadcast_to(IntArrayRef size) const;
  Tensor tile(IntArrayRef dims) const;
  Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> dim = std::nullopt,
                           std::optional<int64_t> output_size = std::nullopt) const;
  Tensor repeat_interleave(int64_t repeats, std::optional<int64_t> dim = std::nullopt,
                           std::optional<int64_t> output_size = std::nullopt) const;
  std::vector<Tensor> tensor_split(int64_t sections, int64_t dim = 0) const;
  std::vector<Tensor> tensor_split(IntArrayRef indices, int64_t dim = 0) const;
  std::vector<Tensor> tensor_split(const Tensor& tensor_indices_or_sections, int64_t dim = 0) const;
  std::vector<Tensor> hsplit(int64_t sections) const;
  std::vector<Tensor> hsplit(IntArrayRef indices) const;
  std::vector<Tensor> vsplit(int64_t sections) const;
  std::vector<Tensor> vsplit(IntArrayRef indices) const;
  std::vector<Tensor> dsplit(int64_t sections) const;
  std::vector<Tensor> dsplit(IntArrayRef indices) const;
  Tensor masked_select(const Tensor& mask) const;
  Tensor take(const Tensor& index) const;
  Tensor take_along_dim(const Tensor& indices, std::optional<int64_t> dim = std::nullopt) const;
  Tensor count_nonzero(IntArrayRef dim) const;
  Tensor count_nonzero(std::optional<int64_t> dim = std::nullopt) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src,
                 std::string_view reduce) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Scalar& value,
                 std::string_view reduce) const;
  Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor& scatter_(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src,
                   std::string_view reduce) const;
  Tensor& scatter_(int64_t dim, const Tensor& index, const Scalar& value,
                   std::string_view reduce) const;
  Tensor scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src,
                        std::string_view reduce, bool include_self = true) const;
  Tensor& scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src,
                          std::string_view reduce, bool include_self = true) const;
  Tensor index_fill(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor index_fill(int64_t dim, const Tensor& index, const Tensor& value) const;
  Tensor& index_fill_(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor& index_fill_(int64_t dim, const Tensor& index, const Tensor& value) const;
  Tensor index_put(const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                   bool accumulate = false) const;
  Tensor diag_embed(int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1) const;
  Tensor kron(const Tensor& other) const;
  Tensor cross(const Tensor& other, std::optional<int64_t> dim = std::nullopt) const;

  // ---- indexing (ember/indexing.h): Python's x[...] as libtorch spells it ----
  // x.index({Slice(), 0}) is x[:, 0]; integers and slices give views, index tensors (int64, or
  // bool masks) copy, as in PyTorch.
  Tensor index(ArrayRef<indexing::TensorIndex> indices) const;
  Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
  // x.index_put_({...}, v) is x[...] = v.
  Tensor& index_put_(ArrayRef<indexing::TensorIndex> indices, const Tensor& rhs) const;
  Tensor& index_put_(ArrayRef<indexing::TensorIndex> indices, const Scalar& v) const;
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Tensor& rhs) const;
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Scalar& v) const;
  // The advanced-indexing forms: one optional index tensor per leading dim (nullopt: the whole
  // dim). With accumulate, values at repeated indices are summed instead of one of them kept.
  Tensor index(const std::vector<std::optional<Tensor>>& indices) const;
  Tensor& index_put_(const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                     bool accumulate = false) const;
  // int64 [n, dim()]: the coordinates of the nonzero elements, in row-major order.
  Tensor nonzero() const;
  Tensor argwhere() const;

  // ---- math ----
  // The ops of ember/op_table.h (x.exp(), x.mul(y), x.mul(2), x.eq(0), x.exp_(), x.mul_(y), the
  // aliases x.fix(), x.arcsin()) are declared from the table after the operators below; the
  // irregular ones follow, written out.
  Tensor add(const Tensor& o, const Scalar& alpha = 1) const;
  Tensor add(const Scalar& o, const Scalar& alpha = 1) const;
  Tensor sub(const Tensor& o, const Scalar& alpha = 1) const;
  Tensor sub(const Scalar& o, const Scalar& alpha = 1) const;
  Tensor div(const Tensor& o, std::optional<std::string_view> rounding_mode) const;
  Tensor div(const Scalar& o, std::optional<std::string_view> rounding_mode) const;
  Tensor lerp(const Tensor& end, const Scalar& weight) const;
  Tensor lerp(const Tensor& end, const Tensor& weight) const;
  Tensor addcmul(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1) const;
  Tensor addcdiv(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1) const;
  Tensor clamp(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  Tensor clamp_min(const Scalar& min) const { return clamp(min, std::nullopt); }
  Tensor clamp_max(const Scalar& max) const { return clamp(std::nullopt, max); }
  // libtorch's method spellings of irregular free functions (src/ops/tensor_methods.cpp).
  Tensor gather(int64_t dim, const Tensor& index) const;
  Tensor logsumexp(IntArrayRef dims, bool keepdim = false) const;
  Tensor outer(const Tensor& o) const;
  Tensor addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
               const Scalar& alpha = 1) const;
  Tensor matmul(const Tensor& o) const;
  Tensor mm(const Tensor& o) const;
  Tensor bmm(const Tensor& o) const;
  Tensor sum(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor sum(IntArrayRef dims, bool keepdim = false,
             std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor mean(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor mean(IntArrayRef dims, bool keepdim = false,
              std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor prod() const;
  Tensor prod(int64_t dim, bool keepdim = false,
              std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor max() const;
  std::tuple<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;
  Tensor min() const;
  std::tuple<Tensor, Tensor> min(int64_t dim, bool keepdim = false) const;
  Tensor amax(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor amin(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor argmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor argmin(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor var(IntArrayRef dims, bool unbiased = true, bool keepdim = false) const;
  Tensor std(IntArrayRef dims, bool unbiased = true, bool keepdim = false) const;
  Tensor norm(const Scalar& p = 2) const;
  Tensor norm(const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim = false) const;
  Tensor softmax(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor log_softmax(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  bool allclose(const Tensor& o, double rtol = 1e-5, double atol = 1e-8,
                bool equal_nan = false) const;
  // sorting (ops.h has the free functions)
  std::tuple<Tensor, Tensor> sort(int64_t dim = -1, bool descending = false) const;
  std::tuple<Tensor, Tensor> sort(std::optional<bool> stable, int64_t dim = -1,
                                  bool descending = false) const;
  Tensor argsort(int64_t dim = -1, bool descending = false) const;
  Tensor argsort(bool stable, int64_t dim = -1, bool descending = false) const;
  std::tuple<Tensor, Tensor> topk(int64_t k, int64_t dim = -1, bool largest = true,
                                  bool sorted = true) const;
  Tensor multinomial(int64_t num_samples, bool replacement = false) const;
  Tensor cumsum(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor cumprod(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor flip(IntArrayRef dims) const;
  Tensor masked_fill(const Tensor& mask, const Scalar& value) const;
  Tensor masked_fill(const Tensor& mask, const Tensor& value) const;
  Tensor& masked_fill_(const Tensor& mask, const Scalar& value) const;
  Tensor& masked_fill_(const Tensor& mask, const Tensor& value) const;
  Tensor round(int64_t decimals) const;
  Tensor var(bool unbiased = true) const;
  Tensor std(bool unbiased = true) const;
  // The correction overloads (see ember::var in ops.h).
  Tensor var(std::optional<IntArrayRef> dims, std::optional<int64_t> correction,
             bool keepdim = false) const;
  Tensor std(std::optional<IntArrayRef> dims, std::optional<int64_t> correction,
             bool keepdim = false) const;
  // As libtorch: x.var(0) reduces dim 0 (an int converts to bool before IntArrayRef).
  Tensor var(int dim) const { return var(IntArrayRef{dim}); }
  Tensor std(int dim) const { return std(IntArrayRef{dim}); }
  // Braced dims ({1}, {0, 2}, {}) pick these over var(bool), as libtorch's dims overloads.
  Tensor var(std::initializer_list<int64_t> dims, bool unbiased = true,
             bool keepdim = false) const {
    return var(IntArrayRef(dims), unbiased, keepdim);
  }
  Tensor std(std::initializer_list<int64_t> dims, bool unbiased = true,
             bool keepdim = false) const {
    return std(IntArrayRef(dims), unbiased, keepdim);
  }
  bool equal(const Tensor& o) const;
  Tensor all() const;
  Tensor all(int64_t dim, bool keepdim = false) const;
  Tensor any() const;
  Tensor any(int64_t dim, bool keepdim = false) const;
  // The irregular math of ember/ops.h (src/ops/math_extra_methods.cpp forwards each).
  Tensor logit(std::optional<double> eps = std::nullopt) const;
  Tensor polygamma(int64_t n) const;
  Tensor nan_to_num(std::optional<double> nan = std::nullopt,
                    std::optional<double> posinf = std::nullopt,
                    std::optional<double> neginf = std::nullopt) const;
  Tensor isclose(const Tensor& other, double rtol = 1e-5, double atol = 1e-8,
                 bool equal_nan = false) const;
  Tensor mv(const Tensor& vec) const;
  Tensor dot(const Tensor& other) const;
  Tensor vdot(const Tensor& other) const;
  Tensor addmv(const Tensor& mat, const Tensor& vec, const Scalar& beta = 1,
               const Scalar& alpha = 1) const;
  Tensor baddbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
                 const Scalar& alpha = 1) const;
  Tensor addbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
                const Scalar& alpha = 1) const;
  Tensor matrix_power(int64_t n) const;
  // Square-matrix functions through an LU factorisation (include/ember/linalg.h).
  Tensor det() const;
  Tensor logdet() const;
  std::tuple<Tensor, Tensor> slogdet() const;
  Tensor inverse() const;
  Tensor cholesky(bool upper = false) const;
  std::tuple<Tensor, Tensor> aminmax(std::optional<int64_t> dim = std::nullopt,
                                     bool keepdim = false) const;
  std::tuple<Tensor, Tensor> cummax(int64_t dim) const;
  std::tuple<Tensor, Tensor> cummin(int64_t dim) const;
  Tensor logcumsumexp(int64_t dim) const;
  std::tuple<Tensor, Tensor> kthvalue(int64_t k, int64_t dim = -1, bool keepdim = false) const;
  Tensor median() const;
  std::tuple<Tensor, Tensor> median(int64_t dim, bool keepdim = false) const;
  Tensor nanmedian() const;
  std::tuple<Tensor, Tensor> nanmedian(int64_t dim, bool keepdim = false) const;
  Tensor quantile(const Tensor& q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                  std::string_view interpolation = "linear") const;
  Tensor quantile(double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                  std::string_view interpolation = "linear") const;
  Tensor nanquantile(const Tensor& q, std::optional<int64_t> dim = std::nullopt,
                     bool keepdim = false, std::string_view interpolation = "linear") const;
  Tensor nanquantile(double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                     std::string_view interpolation = "linear") const;
  Tensor diff(int64_t n = 1, int64_t dim = -1, const std::optional<Tensor>& prepend = std::nullopt,
              const std::optional<Tensor>& append = std::nullopt) const;
  Tensor dist(const Tensor& other, const Scalar& p = 2) const;
  Tensor renorm(const Scalar& p, int64_t dim, const Scalar& maxnorm) const;
  Tensor bincount(const std::optional<Tensor>& weights = std::nullopt, int64_t minlength = 0) const;
  Tensor histc(int64_t bins = 100, const Scalar& min = 0, const Scalar& max = 0) const;
  std::tuple<Tensor, Tensor, Tensor> unique_consecutive(
      bool return_inverse = false, bool return_counts = false,
      std::optional<int64_t> dim = std::nullopt) const;

  // ---- in place ----
  // const, as libtorch's: a Tensor is a handle, and writing through it does not change the handle
  // (x.grad().zero_(), p.grad().mul_(..) on the const Tensor& that grad() returns).
  Tensor& add_(const Tensor& o, const Scalar& alpha = 1) const;
  Tensor& add_(const Scalar& o, const Scalar& alpha = 1) const;
  Tensor& sub_(const Tensor& o, const Scalar& alpha = 1) const;
  Tensor& sub_(const Scalar& o, const Scalar& alpha = 1) const;
  Tensor& clamp_(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  Tensor& uniform_(double from = 0, double to = 1) const;
  Tensor& normal_(double mean = 0, double std = 1) const;
  // Further distributions, drawn from the same generator (src/ops/random_sampling.cpp).
  Tensor& exponential_(double lambd = 1) const;
  Tensor& geometric_(double p) const;
  Tensor& cauchy_(double median = 0, double sigma = 1) const;
  Tensor& log_normal_(double mean = 1, double std = 2) const;
  Tensor& bernoulli_(double p = 0.5) const;
  Tensor& bernoulli_(const Tensor& p) const;
  // Integers in [from, to); to unset: up to the largest integer the dtype holds exactly.
  Tensor& random_(int64_t from, std::optional<int64_t> to) const;
  Tensor& random_(int64_t to) const;
  Tensor& random_() const;
  Tensor bernoulli() const;
  Tensor bernoulli(double p) const;

  // ---- autograd ----
  bool requires_grad() const;
  Tensor& requires_grad_(bool requires_grad = true) const;
  Tensor& set_requires_grad(bool r) const { return requires_grad_(r); }
  const Tensor& grad() const;
  Tensor& mutable_grad() const;
  std::shared_ptr<autograd::Node> grad_fn() const;
  bool is_leaf() const;
  void retain_grad() const;
  bool retains_grad() const;
  void backward(const Tensor& gradient = {}, std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false) const;
  uint32_t output_nr() const;

  // ---- operators ----
  Tensor operator-() const { return neg(); }
  Tensor& operator+=(const Tensor& o) const { return add_(o); }
  Tensor& operator+=(const Scalar& o) const { return add_(o); }
  Tensor& operator-=(const Tensor& o) const { return sub_(o); }
  Tensor& operator-=(const Scalar& o) const { return sub_(o); }
  Tensor& operator*=(const Tensor& o) const { return mul_(o); }
  Tensor& operator*=(const Scalar& o) const { return mul_(o); }
  Tensor& operator/=(const Tensor& o) const { return div_(o); }
  Tensor& operator/=(const Scalar& o) const { return div_(o); }

  // libtorch's type string: "CPUFloatType", "CUDALongType" ("UndefinedType" when undefined).
  std::string toString() const;
  // libtorch's print(): the type and the sizes, e.g. "[CPUFloatType [3, 3]]", on std::cerr.
  void print() const;

  // ---- the op table (ember/op_table.h; defined in src/ops/op_table.cpp) ----
  // clang-format off
#define EMBER_TENSOR_UNARY_METHOD(name, Prim, method, inplace) \
  EMBER_OP_IF(method, Tensor name() const;)                    \
  EMBER_OP_IF(inplace, Tensor& name##_() const;)
#define EMBER_TENSOR_BINARY_METHOD(name, Prim, scalar, inplace)     \
  Tensor name(const Tensor& other) const;                           \
  EMBER_OP_IF(scalar, Tensor name(const Scalar& other) const;)      \
  EMBER_OP_IF(inplace, Tensor& name##_(const Tensor& other) const;) \
  EMBER_OP_IF(inplace, EMBER_OP_IF(scalar, Tensor& name##_(const Scalar& other) const;))
#define EMBER_TENSOR_UNARY_ALIAS(alias, target, method, inplace)  \
  EMBER_OP_IF(method, Tensor alias() const { return target(); })  \
  EMBER_OP_IF(inplace, Tensor& alias##_() const { return target##_(); })
  EMBER_OP_TABLE_UNARY(EMBER_TENSOR_UNARY_METHOD)
  EMBER_OP_TABLE_BINARY(EMBER_TENSOR_BINARY_METHOD)
  EMBER_OP_TABLE_UNARY_ALIASES(EMBER_TENSOR_UNARY_ALIAS)
#undef EMBER_TENSOR_UNARY_METHOD
#undef EMBER_TENSOR_BINARY_METHOD
#undef EMBER_TENSOR_UNARY_ALIAS
  // clang-format on

 private:
  TensorImpl* checked() const {
    EMBER_CHECK(impl_, Error, "the tensor is undefined (default-constructed or reset)");
    return impl_.get();
  }
  Ref<TensorImpl> impl_;
};

template <typename T>
T* Tensor::data_ptr() const {
  EMBER_CHECK(CppTypeToScalarType<T>::value == dtype(), TypeError, "data_ptr<",
              to_string(CppTypeToScalarType<T>::value), ">() called on a tensor of dtype ",
              to_string(dtype()));
  return static_cast<T*>(data_ptr());
}

// Printing as libtorch's C++ prints, digit for digit: the elements (a scale factor such as
// "1e-05 *" above them where libtorch prints one, matrices split into "Columns 1 to 8" blocks at
// `linesize` characters, higher dims as "(1,.,.) = " slices), then the type and the sizes:
//    1.5000 -2.0000
//    3.2500  4.0000
//   [ CPUFloatType{2,2} ]
// print(stream, t, linesize) is libtorch's at::print; print(t) writes to std::cout. Neither ends
// with a newline. CUDA tensors are copied to the CPU to be printed (a synchronizing copy).
EMBER_API std::ostream& print(std::ostream& stream, const Tensor& t, int64_t linesize);
EMBER_API void print(const Tensor& t, int64_t linesize = 80);
EMBER_API std::ostream& operator<<(std::ostream& os, const Tensor& t);

namespace detail {
// Python's repr of a tensor, as PyTorch's Python prints it (for the Python bindings):
// tensor([[1., 2.]], dtype=torch.float64), `...` summaries above 1000 elements.
EMBER_API std::string python_repr(const Tensor& t);
}  // namespace detail

}  // namespace ember

// After Tensor is complete: what Tensor::index and Tensor::accessor take and return.
#include "ember/accessor.h"
#include "ember/indexing.h"
