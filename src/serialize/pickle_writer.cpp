#include "serialize/pickle_writer.h"

#include <bit>

#include "ember/error.h"

namespace ember::pickle {

Writer::Writer() {
  out_ = "\x80\x02";
}

void Writer::integer(int64_t v) {
  if (v >= 0 && v < 256) {
    op('K');
    out_.push_back(static_cast<char>(v));
  } else if (v >= INT32_MIN && v <= INT32_MAX) {
    op('J');
    for (int i = 0; i < 4; ++i)
      out_.push_back(static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff));
  } else {
    op('\x8a');  // LONG1 with 8 bytes, two's complement little-endian
    out_.push_back(8);
    for (int i = 0; i < 8; ++i)
      out_.push_back(static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff));
  }
}

void Writer::floating(double v) {
  op('G');
  const uint64_t bits = std::bit_cast<uint64_t>(v);
  for (int i = 7; i >= 0; --i) out_.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
}

void Writer::string(const std::string& s) {
  EMBER_CHECK(s.size() <= UINT32_MAX, ValueError, "save_pt: a string of ", s.size(),
              " bytes is too long for pickle protocol 2");
  op('X');
  for (int i = 0; i < 4; ++i) out_.push_back(static_cast<char>((s.size() >> (8 * i)) & 0xff));
  out_ += s;
}

void Writer::global(const std::string& module, const std::string& name) {
  op('c');
  out_ += module + "\n" + name + "\n";
}

void Writer::memo_put(uint32_t index) {
  if (index < 256) {
    op('q');
    out_.push_back(static_cast<char>(index));
  } else {
    op('r');
    for (int i = 0; i < 4; ++i) out_.push_back(static_cast<char>((index >> (8 * i)) & 0xff));
  }
}

void Writer::memo_get(uint32_t index) {
  if (index < 256) {
    op('h');
    out_.push_back(static_cast<char>(index));
  } else {
    op('j');
    for (int i = 0; i < 4; ++i) out_.push_back(static_cast<char>((index >> (8 * i)) & 0xff));
  }
}

std::string Writer::finish() {
  op('.');
  return std::move(out_);
}

}  // namespace ember::pickle
