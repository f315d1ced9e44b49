#pragma once
// The vector form of an elementwise functor, for launch_elementwise's Vectorized path
// (src/cuda_policy/elementwise_path.h). A functor opts in by naming its operands' element types,
// output first, and computing one output value from its inputs' values:
//
//   using operand_types = OperandTypes<out_t, in_t>;
//   __device__ out_t value(in_t x) const;
//
// (zero to two inputs). Its char** operator() stays the one every other path calls; functors
// that need the linear index (random numbers) or more inputs simply have no vector form.
#include <algorithm>
#include <cstdint>
#include <tuple>
#include <type_traits>

#include "cuda_policy/elementwise_path.h"

namespace ember::cuda {

// A 1-D layout for the Vectorized path: stride[k] is operand k's element size, or 0 for an input
// that is one broadcast value.
template <int N>
struct LinearLayout {
  uint32_t numel;
  int64_t stride[N];  // bytes
  char* base[N];
  template <typename F>
  void visit_pointers(F&& f) const {
    for (int k = 0; k < N; ++k) f(static_cast<const void*>(base[k]));
  }
};

// `V` elements that one 16-byte (or narrower) load or store moves.
template <typename T, int V>
struct alignas(sizeof(T) * V) AlignedVector {
  T v[V];
};

template <typename T, int V>
__device__ __forceinline__ AlignedVector<T, V> load_vector(const char* base, int64_t stride,
                                                           uint32_t j) {
  if (stride == 0) {  // one broadcast value (uniform across the launch: no divergence)
    AlignedVector<T, V> r;
    const T x = *reinterpret_cast<const T*>(base);
#pragma unroll
    for (int e = 0; e < V; ++e) r.v[e] = x;
    return r;
  }
  return reinterpret_cast<const AlignedVector<T, V>*>(base)[j];
}

template <typename Out, typename... In>
struct OperandTypes {
  static_assert(sizeof...(In) <= 2, "vector forms take at most two inputs");
  static constexpr int kCount = 1 + static_cast<int>(sizeof...(In));
  static constexpr int64_t kMaxSize = std::max({sizeof(Out), sizeof(In)...});
  // Elements per thread: one 16-byte access of the widest operand.
  static constexpr int kWidth = static_cast<int>(16 / kMaxSize);

  static cuda_policy::VectorForm<kCount> host_form() {
    return {kWidth, {static_cast<int64_t>(sizeof(Out)), static_cast<int64_t>(sizeof(In))...}};
  }

  // Computes vector j (elements j*kWidth ...) of the output.
  template <typename F>
  static __device__ __forceinline__ void apply(const F& f, const LinearLayout<kCount>& L,
                                               uint32_t j) {
    constexpr int V = kWidth;
    AlignedVector<Out, V> out;
    if constexpr (sizeof...(In) == 0) {
#pragma unroll
      for (int e = 0; e < V; ++e) out.v[e] = f.value();
    } else if constexpr (sizeof...(In) == 1) {
      using A = std::tuple_element_t<0, std::tuple<In...>>;
      const AlignedVector<A, V> a = load_vector<A, V>(L.base[1], L.stride[1], j);
#pragma unroll
      for (int e = 0; e < V; ++e) out.v[e] = f.value(a.v[e]);
    } else {
      using A = std::tuple_element_t<0, std::tuple<In...>>;
      using B = std::tuple_element_t<1, std::tuple<In...>>;
      const AlignedVector<A, V> a = load_vector<A, V>(L.base[1], L.stride[1], j);
      const AlignedVector<B, V> b = load_vector<B, V>(L.base[2], L.stride[2], j);
#pragma unroll
      for (int e = 0; e < V; ++e) out.v[e] = f.value(a.v[e], b.v[e]);
    }
    reinterpret_cast<AlignedVector<Out, V>*>(L.base[0])[j] = out;
  }
};

template <typename F, typename = void>
struct has_vector_form : std::false_type {};
template <typename F>
struct has_vector_form<F, std::void_t<typename F::operand_types>> : std::true_type {};

}  // namespace ember::cuda
