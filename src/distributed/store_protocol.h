#pragma once
// The TCPStore wire format. Every message is [u32 body length][body]; a request body is
// [u8 command][fields], a reply body is [u8 status][fields]. Fields: byte strings as
// [u32 length][bytes], integers as 8 little-endian bytes, lists as [u32 count][items].
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ember/distributed/errors.h"
#include "ember/distributed/tcp_store.h"

namespace ember::distributed::store_protocol {

enum class Command : uint8_t {
  kSet = 1,
  kGet,         // key, timeout_ms -> value | timeout
  kWait,        // keys, timeout_ms -> ok | timeout
  kCheck,       // keys -> bool
  kAdd,         // key, amount -> new value
  kCompareSet,  // key, expected, desired -> value now stored
  kDelete,      // key -> bool (existed)
  kNumKeys,     // -> count
  kRegister,    // rank: this connection belongs to that rank (liveness)
  kUnregister,  // the rank leaves cleanly
  kDeparted,    // -> ranks whose connection closed without kUnregister
};

// kError carries a message (a request the store cannot satisfy, e.g. add() on a non-integer).
enum class Status : uint8_t { kOk = 0, kTimeout = 1, kError = 2 };

// The largest message accepted (TCPStore::kMaxMessageBytes, 64 MiB): protects the server from a
// stray client announcing or sending more.
constexpr uint32_t kMaxMessageBytes = TCPStore::kMaxMessageBytes;

class Writer {
 public:
  Writer() { buf_.resize(4); }
  Writer& u8(uint8_t v) {
    buf_.push_back(static_cast<char>(v));
    return *this;
  }
  Writer& i64(int64_t v) {
    char b[8];
    std::memcpy(b, &v, 8);
    buf_.append(b, 8);
    return *this;
  }
  Writer& u32(uint32_t v) {
    char b[4];
    std::memcpy(b, &v, 4);
    buf_.append(b, 4);
    return *this;
  }
  Writer& bytes(const void* data, size_t n) {
    u32(static_cast<uint32_t>(n));
    buf_.append(static_cast<const char*>(data), n);
    return *this;
  }
  Writer& str(const std::string& s) { return bytes(s.data(), s.size()); }
  Writer& blob(const std::vector<uint8_t>& v) { return bytes(v.data(), v.size()); }
  Writer& strs(const std::vector<std::string>& v) {
    u32(static_cast<uint32_t>(v.size()));
    for (const auto& s : v) str(s);
    return *this;
  }
  // The framed message (length prefix filled in).
  const std::string& finish() {
    uint32_t body = static_cast<uint32_t>(buf_.size() - 4);
    std::memcpy(buf_.data(), &body, 4);
    return buf_;
  }

 private:
  std::string buf_;
};

// Reads the fields of one message body; a short or inconsistent body throws DistStoreError.
class Reader {
 public:
  Reader(const char* data, size_t n) : p_(data), end_(data + n) {}
  uint8_t u8() {
    need(1);
    return static_cast<uint8_t>(*p_++);
  }
  uint32_t u32() {
    uint32_t v;
    need(4);
    std::memcpy(&v, p_, 4);
    p_ += 4;
    return v;
  }
  int64_t i64() {
    int64_t v;
    need(8);
    std::memcpy(&v, p_, 8);
    p_ += 8;
    return v;
  }
  std::string str() {
    uint32_t n = u32();
    need(n);
    std::string s(p_, n);
    p_ += n;
    return s;
  }
  std::vector<uint8_t> blob() {
    std::string s = str();
    return std::vector<uint8_t>(s.begin(), s.end());
  }
  std::vector<std::string> strs() {
    uint32_t n = u32();
    std::vector<std::string> v;
    for (uint32_t i = 0; i < n; ++i) v.push_back(str());
    return v;
  }

 private:
  void need(size_t n) const {
    if (static_cast<size_t>(end_ - p_) < n) {
      throw DistStoreError("malformed TCPStore message (truncated field)");
    }
  }
  const char* p_;
  const char* end_;
};

}  // namespace ember::distributed::store_protocol
