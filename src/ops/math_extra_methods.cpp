// The Tensor methods of the special functions, statistics, products and searches of
// special_math.cpp, elementwise_composites.cpp, linalg_products.cpp, statistics.cpp and
// search.cpp: each forwards to the free function, as libtorch's methods do.
#include "ember/ops.h"

namespace ember {

Tensor Tensor::logit(std::optional<double> eps) const {
  return ember::logit(*this, eps);
}
Tensor Tensor::polygamma(int64_t n) const {
  return ember::polygamma(n, *this);
}
Tensor Tensor::nan_to_num(std::optional<double> nan, std::optional<double> posinf,
                          std::optional<double> neginf) const {
  return ember::nan_to_num(*this, nan, posinf, neginf);
}
Tensor Tensor::isclose(const Tensor& other, double rtol, double atol, bool equal_nan) const {
  return ember::isclose(*this, other, rtol, atol, equal_nan);
}
Tensor Tensor::mv(const Tensor& vec) const {
  return ember::mv(*this, vec);
}
Tensor Tensor::dot(const Tensor& other) const {
  return ember::dot(*this, other);
}
Tensor Tensor::vdot(const Tensor& other) const {
  return ember::vdot(*this, other);
}
Tensor Tensor::addmv(const Tensor& mat, const Tensor& vec, const Scalar& beta,
                     const Scalar& alpha) const {
  return ember::addmv(*this, mat, vec, beta, alpha);
}
Tensor Tensor::baddbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                       const Scalar& alpha) const {
  return ember::baddbmm(*this, batch1, batch2, beta, alpha);
}
Tensor Tensor::addbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                      const Scalar& alpha) const {
  return ember::addbmm(*this, batch1, batch2, beta, alpha);
}
Tensor Tensor::matrix_power(int64_t n) const {
  return ember::matrix_power(*this, n);
}
std::tuple<Tensor, Tensor> Tensor::aminmax(std::optional<int64_t> dim, bool keepdim) const {
  return ember::aminmax(*this, dim, keepdim);
}
std::tuple<Tensor, Tensor> Tensor::cummax(int64_t dim) const {
  return ember::cummax(*this, dim);
}
std::tuple<Tensor, Tensor> Tensor::cummin(int64_t dim) const {
  return ember::cummin(*this, dim);
}
Tensor Tensor::logcumsumexp(int64_t dim) const {
  return ember::logcumsumexp(*this, dim);
}
std::tuple<Tensor, Tensor> Tensor::kthvalue(int64_t k, int64_t dim, bool keepdim) const {
  return ember::kthvalue(*this, k, dim, keepdim);
}
Tensor Tensor::median() const {
  return ember::median(*this);
}
std::tuple<Tensor, Tensor> Tensor::median(int64_t dim, bool keepdim) const {
  return ember::median(*this, dim, keepdim);
}
Tensor Tensor::nanmedian() const {
  return ember::nanmedian(*this);
}
std::tuple<Tensor, Tensor> Tensor::nanmedian(int64_t dim, bool keepdim) const {
  return ember::nanmedian(*this, dim, keepdim);
}
Tensor Tensor::quantile(const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                        std::string_view interpolation) const {
  return ember::quantile(*this, q, dim, keepdim, interpolation);
}
Tensor Tensor::quantile(double q, std::optional<int64_t> dim, bool keepdim,
                        std::string_view interpolation) const {
  return ember::quantile(*this, q, dim, keepdim, interpolation);
}
Tensor Tensor::nanquantile(const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                           std::string_view interpolation) const {
  return ember::nanquantile(*this, q, dim, keepdim, interpolation);
}
Tensor Tensor::nanquantile(double q, std::optional<int64_t> dim, bool keepdim,
                           std::string_view interpolation) const {
  return ember::nanquantile(*this, q, dim, keepdim, interpolation);
}
Tensor Tensor::diff(int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
                    const std::optional<Tensor>& append) const {
  return ember::diff(*this, n, dim, prepend, append);
}
Tensor Tensor::dist(const Tensor& other, const Scalar& p) const {
  return ember::dist(*this, other, p);
}
Tensor Tensor::renorm(const Scalar& p, int64_t dim, const Scalar& maxnorm) const {
  return ember::renorm(*this, p, dim, maxnorm);
}
Tensor Tensor::bincount(const std::optional<Tensor>& weights, int64_t minlength) const {
  return ember::bincount(*this, weights, minlength);
}
Tensor Tensor::histc(int64_t bins, const Scalar& min, const Scalar& max) const {
  return ember::histc(*this, bins, min, max);
}
std::tuple<Tensor, Tensor, Tensor> Tensor::unique_consecutive(bool return_inverse,
                                                              bool return_counts,
                                                              std::optional<int64_t> dim) const {
  return ember::unique_consecutive(*this, return_inverse, return_counts, dim);
}

}  // namespace ember
