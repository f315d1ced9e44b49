#include "amp/cast_cache.h"

#include <unordered_map>

#include "ember/autograd.h"

namespace ember::amp::detail {
namespace {

struct Key {
  const TensorImpl* source;
  ScalarType dtype;
  bool operator==(const Key& o) const { return source == o.source && dtype == o.dtype; }
};
struct KeyHash {
  size_t operator()(const Key& k) const {
    return std::hash<const void*>()(k.source) ^ (static_cast<size_t>(k.dtype) << 1);
  }
};
struct Entry {
  Tensor source;  // held so that its address cannot be reused by another tensor while cached
  Tensor cast;
};

std::unordered_map<Key, Entry, KeyHash>& cache() {
  thread_local std::unordered_map<Key, Entry, KeyHash> entries;
  return entries;
}

}  // namespace

bool is_cacheable(const Tensor& t) {
  return t.dtype() == kFloat && t.requires_grad() && t.is_leaf() && GradMode::is_enabled();
}

Tensor cached_cast(const Tensor& t, ScalarType dtype) {
  auto& entries = cache();
  const Key key{t.unsafeGetTensorImpl(), dtype};
  auto it = entries.find(key);
  if (it != entries.end()) return it->second.cast;
  Tensor cast = t.to(dtype);
  entries.emplace(key, Entry{t, cast});
  return cast;
}

void clear_cast_cache() {
  cache().clear();
}

}  // namespace ember::amp::detail
