// linalg::qr and the top-level qr (include/ember/linalg.h): the `geqrf` family factorises a
// column-major copy into R and Householder reflectors, and `householder_product` turns the
// reflectors into Q's columns. The gradient is PyTorch's, written with ember ops so that it is
// differentiable again.
#include <string>
#include <vector>

#include "autograd/record.h"
#include "core/backend.h"
#include "core/tensor_factory.h"
#include "ember/linalg.h"
#include "ember/ops.h"
#include "ops/linalg_helpers.h"

namespace ember::linalg {
namespace {

using namespace linalg_helpers;

// X + X^T with the diagonal counted once, from the upper triangle of X.
Tensor symmetric_from_upper(const Tensor& X) {
  const Tensor upper = X.triu();
  return upper + mT(upper.triu(1));
}

// The gradient of a square or tall A (m >= n, Q [m, n], R [n, n]) from gQ and gR, either of
// which may be undefined: gA = (gQ + Q copyutl(gR R^T - Q^T gQ)) R^-T.
Tensor tall_backward(const Tensor& Q, const Tensor& R, const Tensor& gQ, const Tensor& gR) {
  Tensor M;
  if (gR.defined()) M = gR.matmul(mT(R));
  if (gQ.defined()) M = M.defined() ? M - mT(Q).matmul(gQ) : -mT(Q).matmul(gQ);
  Tensor gA = Q.matmul(symmetric_from_upper(M));
  if (gQ.defined()) gA = gA + gQ;
  return linalg::solve(mT(R), gA, /*left=*/false);
}

// A = [X | Y] with X square: X = Q U and Y = Q V for R = [U | V]. Y's gradient is Q gV, and Y
// adds Y gV^T to Q's gradient before X's square case.
Tensor wide_backward(const Tensor& A, const Tensor& Q, const Tensor& R, const Tensor& gQ,
                     const Tensor& gR) {
  const int64_t m = A.size(-2), n = A.size(-1);
  const Tensor U = R.narrow(-1, 0, m);
  const Tensor Y = A.narrow(-1, m, n - m);
  Tensor gU, gV, gQ_total = gQ;
  if (gR.defined()) {
    gU = gR.narrow(-1, 0, m);
    gV = gR.narrow(-1, m, n - m);
    const Tensor via_y = Y.matmul(mT(gV));
    gQ_total = gQ.defined() ? gQ + via_y : via_y;
  }
  const Tensor gX = tall_backward(Q, U, gQ_total, gU);
  if (!gV.defined()) return cat({gX, zeros_like(Y)}, -1);
  return cat({gX, Q.matmul(gV)}, -1);
}

enum class Mode { Reduced, Complete, R };

Mode parse_mode(std::string_view mode) {
  if (mode == "reduced") return Mode::Reduced;
  if (mode == "complete") return Mode::Complete;
  if (mode == "r") return Mode::R;
  throw ValueError(
      detail::str_cat("qr received unrecognized mode '", std::string(mode),
                      "' but expected one of 'reduced' (default), 'r', or 'complete'"));
}

}  // namespace

std::tuple<Tensor, Tensor> qr(const Tensor& A, std::string_view mode_name) {
  check_matrices(A, "linalg.qr");
  const Mode mode = parse_mode(mode_name);
  if (is_16bit(A)) {
    auto [Q, R] = linalg::qr(A.to(kFloat), mode_name);
    return {Q.to(A.scalar_type()), R.to(A.scalar_type())};
  }
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const std::vector<int64_t> batch = batch_of(A);
  const int64_t b = count(batch);
  Tensor factors = column_major_copy(A.detach().reshape({b, m, n}));
  Tensor tau = make_empty({b, k}, A.scalar_type(), A.device());
  backend_for(factors).geqrf(factors, tau);
  const int64_t r_rows = mode == Mode::Complete ? m : k;
  // R is the upper triangle of the factored matrix's first r_rows rows (rows past n are zero).
  Tensor R =
      mT(factors).narrow(-2, 0, std::min(r_rows, m)).triu().reshape(with_matrix(batch, r_rows, n));
  R = R.contiguous();
  Tensor Q;
  if (mode == Mode::R) {
    Q = make_empty({0}, A.scalar_type(), A.device());
  } else {
    const int64_t q_columns = mode == Mode::Complete ? m : k;
    Tensor q = make_empty({b, q_columns, m}, A.scalar_type(), A.device());
    q.narrow(1, 0, k).copy_(factors.narrow(1, 0, k));
    backend_for(q).householder_product(q, tau);
    Q = mT(q).reshape(with_matrix(batch, m, q_columns)).contiguous();
  }
  if (autograd::needs_grad({A})) {
    autograd::record(
        "LinalgQrBackward0", {Q, R}, {A},
        [mode, sa = autograd::SavedTensor(A), sq = autograd::SavedTensor(Q, true, 0),
         sr = autograd::SavedTensor(R, true, 1)](const autograd::variable_list& g) {
          EMBER_CHECK(mode != Mode::R, Error,
                      "The derivative of linalg.qr depends on Q, which is not computed when "
                      "mode='r'. Please use linalg.qr(A, mode='reduced') if you are going to "
                      "differentiate through linalg.qr.");
          const Tensor A = sa.unpack(), Q = sq.unpack(), R = sr.unpack();
          const int64_t m = A.size(-2), n = A.size(-1);
          EMBER_CHECK(mode != Mode::Complete || m <= n, Error,
                      "The QR decomposition is not differentiable when mode='complete' and "
                      "nrows > ncols.");
          if (!g[0].defined() && !g[1].defined()) return autograd::variable_list{Tensor()};
          if (m >= n) return autograd::variable_list{tall_backward(Q, R, g[0], g[1])};
          return autograd::variable_list{wide_backward(A, Q, R, g[0], g[1])};
        });
  }
  return {Q, R};
}

}  // namespace ember::linalg

namespace ember {

std::tuple<Tensor, Tensor> qr(const Tensor& A, bool some) {
  return linalg::qr(A, some ? "reduced" : "complete");
}

}  // namespace ember
