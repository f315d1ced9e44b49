#pragma once
// The autocast cast cache: a float32 leaf that requires grad (a parameter) used by several ops
// of one region is cast to the region's dtype once, and every use shares that cast (and its
// ToCopyBackward node), as PyTorch's cached_cast does. Per thread; autocast empties it when the
// outermost region exits.
#include "ember/tensor.h"

namespace ember::amp::detail {

// Whether `t` is one whose casts are cached: a float32 leaf that requires grad, with grad mode
// on (a cast made under no_grad has no graph, so it must not serve a later use that needs one).
bool is_cacheable(const Tensor& t);
// t.to(dtype), made once per (t, dtype) until the cache is cleared.
Tensor cached_cast(const Tensor& t, ScalarType dtype);
void clear_cast_cache();

}  // namespace ember::amp::detail
