// Indexing family on the CPU: index_select, index_add, index_copy, gather, scatter_add.
// Indices are validated before anything is written, so a bad index leaves `out` untouched and
// no exception escapes an OpenMP region.
#include "core/tensor_factory.h"
#include "cpu/cpu_backend.h"
#include "cpu/loop.h"
#include "kernel_math/dispatch.h"

namespace ember::cpu {
namespace {

// An index out of range is an IndexError for index_select/index_add/index_copy and a ValueError
// (Python's RuntimeError) for gather/scatter_add, as ATen checks them.
template <typename OutOfRange = IndexError>
void check_indices(const Tensor& index, int64_t size, int64_t dim, const char* op) {
  EMBER_CHECK(index.dtype() == kLong, TypeError, op, "(): Expected dtype int64 for index, got ",
              to_string(index.dtype()));
  for_each<1>(
      {&index},
      [&](char** p, const int64_t* s, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          const int64_t v = *reinterpret_cast<const int64_t*>(p[0] + i * s[0]);
          if (v < 0 || v >= size) {
            throw OutOfRange(detail::str_cat(
                op, "(): index ", v, " is out of bounds for dimension ", dim, " with size ", size));
          }
        }
      },
      INT64_MAX);
}

// `t` with `dim` shrunk to one element: loops over it visit every slice position once.
Tensor one_along(const Tensor& t, int64_t dim) {
  DimVector sizes(t.sizes());
  sizes[dim] = 1;
  return make_view(t, sizes, t.strides(), t.storage_offset());
}

// `t`'s storage seen with `shape` and a zero stride along `dim` (the position comes from an index).
Tensor restrided(const Tensor& t, IntArrayRef shape, int64_t dim) {
  DimVector strides(t.strides());
  strides[dim] = 0;
  return make_view(t, shape, strides, t.storage_offset());
}

template <typename T>
inline T add_values(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a || b;
  } else {
    return static_cast<T>(static_cast<acc_t<T>>(a) + static_cast<acc_t<T>>(b));
  }
}

std::vector<int64_t> read_index(const Tensor& index) {
  std::vector<int64_t> v(static_cast<size_t>(index.numel()));
  size_t k = 0;
  for_each<1>(
      {&index},
      [&](char** p, const int64_t* s, int64_t n) {
        for (int64_t i = 0; i < n; ++i) v[k++] = *reinterpret_cast<const int64_t*>(p[0] + i * s[0]);
      },
      INT64_MAX);
  return v;
}

// gather/scatter: index has t's rank and is no larger than t outside `dim` (or anywhere, when
// `all_dims`, as for scatter's src).
void check_index_shape(const Tensor& t, const Tensor& index, int64_t dim, bool all_dims,
                       const char* op, const char* what) {
  EMBER_CHECK(t.dim() == index.dim(), ValueError, op,
              "(): Index tensor must have the same number of dimensions as ", what, " tensor (",
              index.dim(), " vs ", t.dim(), ")");
  for (int64_t d = 0; d < t.dim(); ++d) {
    EMBER_CHECK((d == dim && !all_dims) || index.size(d) <= t.size(d), ValueError, op,
                "(): Size does not match at dimension ", d, " expected index ", index.sizes(),
                " to be smaller than ", what, " ", t.sizes(),
                all_dims ? "" : " apart from dimension ", all_dims ? "" : std::to_string(dim));
  }
}

// The slice loop of index_select, index_add and index_copy: for each j, the slice at position
// idx[j] along `dim` of one side meets slice j of the other, and write(dst_element, src_element)
// combines them. kIndexedIsSource: the index picks source slices (index_select), else
// destination slices (index_add, index_copy). Threads split the positions outside `dim`, and
// each walks `idx` in order, so a repeated index never races and its last slice comes last.
template <typename T, bool kIndexedIsSource, typename Write>
void for_each_indexed_slice(const Tensor& dst, const Tensor& src, int64_t dim,
                            const std::vector<int64_t>& idx, Write write) {
  const int64_t dsd = dst.stride(dim), ssd = src.stride(dim);
  Tensor dst1 = one_along(dst, dim), src1 = one_along(src, dim);
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<size_t>(idx.size(), 1));
  for_each<2>(
      {&dst1, &src1},
      [&](char** p, const int64_t* s, int64_t n) {
        auto* d = reinterpret_cast<T*>(p[0]);
        auto* x = reinterpret_cast<const T*>(p[1]);
        const int64_t sd = s[0] / int64_t(sizeof(T)), sx = s[1] / int64_t(sizeof(T));
        for (size_t j = 0; j < idx.size(); ++j) {
          const auto jj = static_cast<int64_t>(j);
          T* dj = d + (kIndexedIsSource ? jj : idx[j]) * dsd;
          const T* xj = x + (kIndexedIsSource ? idx[j] : jj) * ssd;
          if (sd == 1 && sx == 1) {  // rows stay contiguous: a loop the compiler vectorises
            for (int64_t i = 0; i < n; ++i) write(dj[i], xj[i]);
          } else {
            for (int64_t i = 0; i < n; ++i) write(dj[i * sd], xj[i * sx]);
          }
        }
      },
      grain);
}

}  // namespace

void CpuBackend::index_select(const Tensor& out, const Tensor& in, int64_t dim,
                              const Tensor& index) {
  const int64_t size = in.dim() == 0 ? 1 : in.size(dim);
  check_indices(index, size, dim, "index_select");
  if (out.numel() == 0) return;
  if (in.dim() == 0) {
    copy(out, in, false);
    return;
  }
  const std::vector<int64_t> idx = read_index(index);
  EMBER_DISPATCH_ALL(in.dtype(), "index_select", [&] {
    for_each_indexed_slice<scalar_t, true>(out, in, dim, idx,
                                           [](scalar_t& o, const scalar_t& x) { o = x; });
  });
}

void CpuBackend::index_add(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) {
  const int64_t size = out.dim() == 0 ? 1 : out.size(dim);
  check_indices(index, size, dim, "index_add");
  if (src.numel() == 0) return;
  if (out.dim() == 0) {
    binary(BinaryOp::Add, out, out, src, OpParams{1.0, 0.0});
    return;
  }
  const std::vector<int64_t> idx = read_index(index);
  EMBER_DISPATCH_ALL(out.dtype(), "index_add", [&] {
    for_each_indexed_slice<scalar_t, false>(
        out, src, dim, idx, [](scalar_t& o, const scalar_t& x) { o = add_values(o, x); });
  });
}

void CpuBackend::gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  const int64_t size = in.dim() == 0 ? 1 : in.size(dim);
  check_indices<ValueError>(index, size, dim, "gather");
  if (out.numel() == 0) return;
  if (in.dim() == 0) {
    copy(out, in, false);
    return;
  }
  check_index_shape(in, index, dim, false, "gather", "input");
  EMBER_CHECK(out.sizes() == index.sizes(), ValueError, "gather(): output shape ", out.sizes(),
              " differs from index shape ", index.sizes());
  const int64_t isd = in.stride(dim);
  Tensor in_r = restrided(in, index.sizes(), dim);
  EMBER_DISPATCH_ALL(in.dtype(), "gather", [&] {
    for_each<3>({&out, &index, &in_r}, [&](char** p, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        const int64_t k = *reinterpret_cast<const int64_t*>(p[1] + i * s[1]);
        *reinterpret_cast<scalar_t*>(p[0] + i * s[0]) =
            reinterpret_cast<const scalar_t*>(p[2] + i * s[2])[k * isd];
      }
    });
  });
}

void CpuBackend::scatter_add(const Tensor& out, int64_t dim, const Tensor& index,
                             const Tensor& src) {
  const int64_t size = out.dim() == 0 ? 1 : out.size(dim);
  check_indices<ValueError>(index, size, dim, "scatter_add");
  if (index.numel() == 0) return;
  if (out.dim() == 0) {
    binary(BinaryOp::Add, out, out, src, OpParams{1.0, 0.0});
    return;
  }
  check_index_shape(out, index, dim, false, "scatter_add", "self");
  check_index_shape(src, index, dim, true, "scatter_add", "src");
  const int64_t osd = out.stride(dim);
  Tensor out_r = restrided(out, index.sizes(), dim);
  Tensor src_r = make_view(src, index.sizes(), src.strides(), src.storage_offset());
  EMBER_DISPATCH_ALL(out.dtype(), "scatter_add", [&] {
    // Serial: two index entries may name the same output element.
    for_each<3>(
        {&index, &src_r, &out_r},
        [&](char** p, const int64_t* s, int64_t n) {
          for (int64_t i = 0; i < n; ++i) {
            const int64_t k = *reinterpret_cast<const int64_t*>(p[0] + i * s[0]);
            scalar_t& o = reinterpret_cast<scalar_t*>(p[2] + i * s[2])[k * osd];
            o = add_values(o, *reinterpret_cast<const scalar_t*>(p[1] + i * s[1]));
          }
        },
        INT64_MAX);
  });
}

void CpuBackend::index_copy(const Tensor& out, int64_t dim, const Tensor& index,
                            const Tensor& src) {
  const int64_t size = out.dim() == 0 ? 1 : out.size(dim);
  check_indices(index, size, dim, "index_copy");
  if (src.numel() == 0) return;
  if (out.dim() == 0) {
    copy(out, src, false);
    return;
  }
  const std::vector<int64_t> idx = read_index(index);
  EMBER_DISPATCH_ALL(out.dtype(), "index_copy", [&] {
    for_each_indexed_slice<scalar_t, false>(out, src, dim, idx,
                                            [](scalar_t& o, const scalar_t& x) { o = x; });
  });
}

}  // namespace ember::cpu
