#pragma once
// Ref<T>: an intrusive reference-counted pointer. One allocation per object and one pointer per
// handle, which keeps the small-op path light.
#include <atomic>
#include <cstdint>
#include <utility>

namespace ember {

class RefCounted {
 public:
  virtual ~RefCounted() = default;
  void incref() const noexcept { refcount_.fetch_add(1, std::memory_order_relaxed); }
  // Returns true when the last reference went away.
  bool decref() const noexcept { return refcount_.fetch_sub(1, std::memory_order_acq_rel) == 1; }
  int32_t use_count() const noexcept { return refcount_.load(std::memory_order_relaxed); }

 private:
  mutable std::atomic<int32_t> refcount_{0};
};

template <typename T>
class Ref {
 public:
  Ref() = default;
  Ref(std::nullptr_t) {}
  explicit Ref(T* p) : p_(p) {
    if (p_) p_->incref();
  }
  Ref(const Ref& o) : p_(o.p_) {
    if (p_) p_->incref();
  }
  Ref(Ref&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  template <typename U, typename = std::enable_if_t<std::is_convertible_v<U*, T*>>>
  Ref(Ref<U> o) : p_(o.release()) {}
  ~Ref() { reset(); }
  Ref& operator=(Ref o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  void reset() {
    if (p_ && p_->decref()) delete p_;
    p_ = nullptr;
  }
  T* release() {
    T* p = p_;
    p_ = nullptr;
    return p;
  }
  T* get() const { return p_; }
  T* operator->() const { return p_; }
  T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  bool operator==(const Ref& o) const { return p_ == o.p_; }
  bool operator!=(const Ref& o) const { return p_ != o.p_; }
  int32_t use_count() const { return p_ ? p_->use_count() : 0; }

 private:
  template <typename U>
  friend class Ref;
  T* p_ = nullptr;
};

template <typename T, typename... Args>
Ref<T> make_ref(Args&&... args) {
  return Ref<T>(new T(std::forward<Args>(args)...));
}

}  // namespace ember
