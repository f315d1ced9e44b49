// Matrix products: mm, bmm and addmm run the backend's batched GEMM and carry gradient rules;
// matmul (every rank case of torch.matmul) and outer are built from them and from views.
#include "autograd/record.h"
#include "core/autocast_hook.h"
#include "core/backend.h"
#include "core/broadcast.h"
#include "core/tensor_factory.h"
#include "ember/ops.h"

namespace ember {
namespace {

using autograd::SavedTensor;
using autograd::variable_list;

// A matrix seen as a batch of one, as the backend's gemm wants.
Tensor as_batch(const Tensor& m) {
  return make_view(m, {1, m.size(0), m.size(1)}, {0, m.stride(0), m.stride(1)}, m.storage_offset());
}

void check_operands(const Tensor& a, const Tensor& b, const char* op) {
  check_same_device(a, b, op);
  EMBER_CHECK(a.dtype() == b.dtype(), TypeError, op, "(): expected both operands to have the same ",
              "dtype, but got ", to_string(a.dtype()), " and ", to_string(b.dtype()),
              " (expected scalar type ", to_string(a.dtype()), " but found ", to_string(b.dtype()),
              ")");
  EMBER_CHECK(a.dtype() != kBool, TypeError, op, "(): does not support dtype Bool");
}

void check_mm_shapes(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.size(1) == b.size(0), ValueError, "mat1 and mat2 shapes cannot be multiplied (",
              a.size(0), "x", a.size(1), " and ", b.size(0), "x", b.size(1), ")");
}

bool wants_grad(const Tensor& t) {
  return autograd::requires_grad_fast(t);
}

// A matrix stored column-major: the transpose of a contiguous one (a Linear layer's weight.t()).
bool is_transposed_contiguous(const Tensor& m) {
  return m.size(0) > 1 && m.size(1) > 1 && m.stride(0) == 1 && m.stride(1) == m.size(0);
}

// The gradients of a @ b from g, each computed in its operand's layout (as PyTorch's
// mm_mat1_backward / mm_mat2_backward do): for a transposed operand the product is formed
// transposed, so the gradient of a Linear layer's weight arrives contiguous, as the weight, and
// accumulating it is a plain add instead of a strided transpose copy.
Tensor mm_grad_a(const Tensor& g, const Tensor& b, bool a_transposed) {
  return a_transposed ? b.mm(g.t()).t() : g.mm(b.t());
}
Tensor mm_grad_b(const Tensor& g, const Tensor& a, bool b_transposed) {
  return b_transposed ? g.t().mm(a).t() : a.t().mm(g);
}

}  // namespace

Tensor mm(const Tensor& a, const Tensor& b) {
  if (amp::autocast_applies(a)) {
    amp::AutocastScope ac(amp::AutocastOp::mm, a);
    return mm(ac.cast(a), ac.cast(b));
  }
  EMBER_CHECK(a.dim() == 2, ValueError, "mm(): self must be a matrix, got a ", a.dim(),
              "-D tensor of shape ", a.sizes());
  EMBER_CHECK(b.dim() == 2, ValueError, "mm(): mat2 must be a matrix, got a ", b.dim(),
              "-D tensor of shape ", b.sizes());
  check_operands(a, b, "mm");
  check_mm_shapes(a, b);
  Tensor out = make_empty({a.size(0), b.size(1)}, a.dtype(), a.device());
  backend_for(a).gemm(as_batch(out), as_batch(a), as_batch(b), 1.0, 0.0);
  if (autograd::needs_grad({a, b})) {
    const bool ga = wants_grad(a), gb = wants_grad(b);
    autograd::record("MmBackward0", out, {a, b},
                     [sa = gb ? SavedTensor(a) : SavedTensor(),
                      sb = ga ? SavedTensor(b) : SavedTensor(), at = is_transposed_contiguous(a),
                      bt = is_transposed_contiguous(b)](const variable_list& g) {
                       return variable_list{
                           sb.defined() ? mm_grad_a(g[0], sb.unpack(), at) : Tensor(),
                           sa.defined() ? mm_grad_b(g[0], sa.unpack(), bt) : Tensor()};
                     });
  }
  return out;
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  if (amp::autocast_applies(a)) {
    amp::AutocastScope ac(amp::AutocastOp::bmm, a);
    return bmm(ac.cast(a), ac.cast(b));
  }
  EMBER_CHECK(a.dim() == 3, ValueError, "bmm(): batch1 must be a 3D tensor, got shape ", a.sizes());
  EMBER_CHECK(b.dim() == 3, ValueError, "bmm(): batch2 must be a 3D tensor, got shape ", b.sizes());
  check_operands(a, b, "bmm");
  EMBER_CHECK(b.size(0) == a.size(0) && b.size(1) == a.size(2), ValueError,
              "Expected size for first two dimensions of batch2 tensor to be: [", a.size(0), ", ",
              a.size(2), "] but got: [", b.size(0), ", ", b.size(1), "].");
  Tensor out = make_empty({a.size(0), a.size(1), b.size(2)}, a.dtype(), a.device());
  backend_for(a).gemm(out, a, b, 1.0, 0.0);
  if (autograd::needs_grad({a, b})) {
    const bool ga = wants_grad(a), gb = wants_grad(b);
    autograd::record("BmmBackward0", out, {a, b},
                     [sa = gb ? SavedTensor(a) : SavedTensor(),
                      sb = ga ? SavedTensor(b) : SavedTensor()](const variable_list& g) {
                       return variable_list{
                           sb.defined() ? g[0].bmm(sb.unpack().transpose(1, 2)) : Tensor(),
                           sa.defined() ? sa.unpack().transpose(1, 2).bmm(g[0]) : Tensor()};
                     });
  }
  return out;
}

Tensor addmm(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,
             const Scalar& alpha) {
  if (amp::autocast_applies(a)) {
    amp::AutocastScope ac(amp::AutocastOp::addmm, a);
    return addmm(ac.cast(self), ac.cast(a), ac.cast(b), beta, alpha);
  }
  EMBER_CHECK(a.dim() == 2, ValueError, "addmm(): mat1 must be a matrix, got a ", a.dim(),
              "-D tensor");
  EMBER_CHECK(b.dim() == 2, ValueError, "addmm(): mat2 must be a matrix, got a ", b.dim(),
              "-D tensor");
  check_operands(a, b, "addmm");
  check_operands(self, a, "addmm");
  check_mm_shapes(a, b);
  const int64_t M = a.size(0), N = b.size(1);
  const DimVector mn{M, N};
  EMBER_CHECK(self.dim() <= 2 && broadcast_dims(self.sizes(), mn).ref() == mn.ref(), ValueError,
              "addmm(): the input of shape ", self.sizes(), " cannot be broadcast to the ", M, "x",
              N, " product");
  const double be = beta.toDouble(), al = alpha.toDouble();
  Tensor out = make_empty(mn, a.dtype(), a.device());
  if (be != 0) {  // out starts as self broadcast to [M, N]; beta == 0 ignores self (even NaN)
    DimVector st(2);
    for (int64_t i = 0; i < 2; ++i) {
      const int64_t sd = i - (2 - self.dim());
      st[i] = (sd < 0 || self.size(sd) == 1) ? 0 : self.stride(sd);
    }
    backend_for(out).copy(out, make_view(self, mn, st, self.storage_offset()), false);
  }
  backend_for(a).gemm(as_batch(out), as_batch(a), as_batch(b), al, be);
  if (autograd::needs_grad({self, a, b})) {
    const bool ga = wants_grad(a), gb = wants_grad(b);
    autograd::record(
        "AddmmBackward0", out, {self, a, b},
        [sa = gb ? SavedTensor(a) : SavedTensor(), sb = ga ? SavedTensor(b) : SavedTensor(),
         at = is_transposed_contiguous(a), bt = is_transposed_contiguous(b),
         self_sizes = DimVector(self.sizes()), be, al](const variable_list& g) {
          Tensor gs = be == 0 ? Tensor() : autograd::sum_to(be == 1 ? g[0] : g[0] * be, self_sizes);
          Tensor gm1, gm2;
          if (sb.defined()) {
            gm1 = mm_grad_a(g[0], sb.unpack(), at);
            if (al != 1) gm1 = gm1 * al;
          }
          if (sa.defined()) {
            gm2 = mm_grad_b(g[0], sa.unpack(), bt);
            if (al != 1) gm2 = gm2 * al;
          }
          return variable_list{gs, gm1, gm2};
        });
  }
  return out;
}

Tensor outer(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.dim() == 1 && b.dim() == 1, ValueError,
              "outer(): expected two 1-D tensors, got shapes ", a.sizes(), " and ", b.sizes());
  check_same_device(a, b, "outer");
  return a.unsqueeze(1) * b.unsqueeze(0);
}

// torch.matmul: 1-D x 1-D is a dot product, 2-D x 2-D a matrix product, a 1-D operand is
// treated as a row (left) or column (right) vector that is removed from the result, and
// higher ranks are batches whose leading dims broadcast.
Tensor matmul(const Tensor& a, const Tensor& b) {
  if (amp::autocast_applies(a)) {
    amp::AutocastScope ac(amp::AutocastOp::matmul, a);
    return matmul(ac.cast(a), ac.cast(b));
  }
  const int64_t da = a.dim(), db = b.dim();
  EMBER_CHECK(da >= 1 && db >= 1, ValueError,
              "both arguments to matmul need to be at least 1D, but they are ", da, "D and ", db,
              "D");
  check_operands(a, b, "matmul");
  if (da == 1 && db == 1) {
    EMBER_CHECK(a.size(0) == b.size(0), ValueError, "inconsistent tensor size, expected tensor [",
                a.size(0), "] and src [", b.size(0),
                "] to have the same number of elements, but got ", a.size(0), " and ", b.size(0),
                " elements respectively");
    return mm(a.unsqueeze(0), b.unsqueeze(1)).reshape({});
  }
  if (da == 2 && db == 1) return mm(a, b.unsqueeze(1)).squeeze(1);
  if (da == 1 && db == 2) return mm(a.unsqueeze(0), b).squeeze(0);
  if (da == 2 && db == 2) return mm(a, b);

  const int64_t K = a.size(-1);
  const int64_t Kb = db == 1 ? b.size(0) : b.size(-2);
  EMBER_CHECK(K == Kb, ValueError, "matmul(): shapes ", a.sizes(), " and ", b.sizes(),
              " cannot be multiplied (", K, " != ", Kb, ")");
  if (da >= 3 && db <= 2) {
    // Fold a's batch dims into its rows: one large matrix product.
    DimVector shape(a.sizes());
    shape.resize(da - 1);  // batch dims and M
    Tensor rows = a.reshape({-1, K});
    if (db == 1) return mm(rows, b.unsqueeze(1)).reshape(shape);
    shape.push_back(b.size(1));
    return mm(rows, b).reshape(shape);
  }
  const Tensor a2 = da == 1 ? a.unsqueeze(0) : a;  // [..., M, K]
  const Tensor b2 = db == 1 ? b.unsqueeze(1) : b;  // [..., K, N]
  const int64_t M = a2.size(-2), N = b2.size(-1);
  IntArrayRef ba(a2.sizes().data(), a2.dim() - 2), bb(b2.sizes().data(), b2.dim() - 2);
  DimVector batch = broadcast_dims(ba, bb);
  int64_t B = 1;
  for (int64_t s : batch) B *= s;
  DimVector ea(batch), eb(batch), shape(batch);
  ea.push_back(M);
  ea.push_back(K);
  eb.push_back(K);
  eb.push_back(N);
  shape.push_back(M);
  shape.push_back(N);
  Tensor out =
      bmm(a2.expand(ea).reshape({B, M, K}), b2.expand(eb).reshape({B, K, N})).reshape(shape);
  if (da == 1) out = out.squeeze(-2);
  if (db == 1) out = out.squeeze(-1);
  return out;
}

Tensor Tensor::matmul(const Tensor& o) const {
  return ember::matmul(*this, o);
}
Tensor Tensor::mm(const Tensor& o) const {
  return ember::mm(*this, o);
}
Tensor Tensor::bmm(const Tensor& o) const {
  return ember::bmm(*this, o);
}

}  // namespace ember
