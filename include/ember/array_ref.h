#pragma once
// ArrayRef: a non-owning view of a contiguous array (libtorch's IntArrayRef), and DimVector: the
// small vector holding sizes and strides inline for ranks up to 6.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <ostream>
#include <vector>

// A braced list bound to an ArrayRef lives until the end of the full expression, which is how
// libtorch's IntArrayRef is used too; GCC warns about it regardless.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif

namespace ember {

template <typename T>
class ArrayRef {
 public:
  constexpr ArrayRef() = default;
  constexpr ArrayRef(const T& one) : data_(&one), size_(1) {}
  constexpr ArrayRef(const T* data, size_t size) : data_(data), size_(size) {}
  ArrayRef(const std::vector<T>& v) : data_(v.data()), size_(v.size()) {}
  // Like libtorch's IntArrayRef: valid for the full expression the braced list appears in.
  constexpr ArrayRef(std::initializer_list<T> il) : data_(il.begin()), size_(il.size()) {}
  template <typename C, typename = decltype(std::declval<const C&>().data()),
            typename = std::enable_if_t<!std::is_same_v<C, std::vector<T>>>>
  ArrayRef(const C& c) : data_(c.data()), size_(c.size()) {}

  constexpr const T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr const T* begin() const { return data_; }
  constexpr const T* end() const { return data_ + size_; }
  constexpr const T& operator[](size_t i) const { return data_[i]; }
  const T& back() const { return data_[size_ - 1]; }
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }
  bool equals(ArrayRef o) const {
    return size_ == o.size_ && std::equal(begin(), end(), o.begin());
  }
  bool operator==(ArrayRef o) const { return equals(o); }
  bool operator!=(ArrayRef o) const { return !equals(o); }

 private:
  const T* data_ = nullptr;
  size_t size_ = 0;
};
using IntArrayRef = ArrayRef<int64_t>;

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

template <typename T>
std::ostream& operator<<(std::ostream& os, ArrayRef<T> a) {
  os << "[";
  for (size_t i = 0; i < a.size(); ++i) os << (i ? ", " : "") << a[i];
  return os << "]";
}

// Sizes and strides: kept inline up to 6 dims so a small op allocates nothing for metadata.
class DimVector {
 public:
  static constexpr size_t kInline = 6;
  DimVector() = default;
  explicit DimVector(size_t n, int64_t v = 0) { resize(n, v); }
  DimVector(IntArrayRef a) { assign(a); }
  DimVector(std::initializer_list<int64_t> il) { assign(IntArrayRef(il)); }
  DimVector(const DimVector& o) { assign(o); }
  DimVector(DimVector&& o) noexcept { move_from(o); }
  DimVector& operator=(const DimVector& o) {
    if (this != &o) assign(o);
    return *this;
  }
  DimVector& operator=(DimVector&& o) noexcept {
    if (this != &o) {
      release();
      move_from(o);
    }
    return *this;
  }
  ~DimVector() { release(); }

  void assign(IntArrayRef a) {
    resize(a.size());
    if (!a.empty()) std::memmove(data(), a.data(), a.size() * sizeof(int64_t));
  }
  void resize(size_t n, int64_t v = 0) {
    if (n > cap_) grow(n);
    for (size_t i = size_; i < n; ++i) data()[i] = v;
    size_ = n;
  }
  void push_back(int64_t v) {
    if (size_ == cap_) grow(cap_ * 2);
    data()[size_++] = v;
  }
  void insert(size_t pos, int64_t v) {
    push_back(0);
    for (size_t i = size_ - 1; i > pos; --i) data()[i] = data()[i - 1];
    data()[pos] = v;
  }
  void erase(size_t pos) {
    for (size_t i = pos; i + 1 < size_; ++i) data()[i] = data()[i + 1];
    --size_;
  }
  void clear() { size_ = 0; }

  int64_t* data() { return heap_ ? heap_ : inline_; }
  const int64_t* data() const { return heap_ ? heap_ : inline_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t& operator[](size_t i) { return data()[i]; }
  int64_t operator[](size_t i) const { return data()[i]; }
  int64_t* begin() { return data(); }
  int64_t* end() { return data() + size_; }
  const int64_t* begin() const { return data(); }
  const int64_t* end() const { return data() + size_; }
  int64_t& back() { return data()[size_ - 1]; }
  operator IntArrayRef() const { return IntArrayRef(data(), size_); }
  IntArrayRef ref() const { return IntArrayRef(data(), size_); }

 private:
  void grow(size_t n) {
    int64_t* p = new int64_t[n];
    std::memcpy(p, data(), size_ * sizeof(int64_t));
    delete[] heap_;
    heap_ = p;
    cap_ = n;
  }
  void release() {
    delete[] heap_;
    heap_ = nullptr;
    cap_ = kInline;
    size_ = 0;
  }
  void move_from(DimVector& o) {
    if (o.heap_) {
      heap_ = o.heap_;
      cap_ = o.cap_;
      o.heap_ = nullptr;
      o.cap_ = kInline;
    } else {
      std::memcpy(inline_, o.inline_, o.size_ * sizeof(int64_t));
    }
    size_ = o.size_;
    o.size_ = 0;
  }
  int64_t inline_[kInline];
  int64_t* heap_ = nullptr;
  size_t size_ = 0;
  size_t cap_ = kInline;
};

}  // namespace ember
