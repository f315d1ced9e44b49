// ZIP records (APPNOTE.TXT): local file header, central directory header, end of central
// directory (EOCD), and the ZIP64 end record and locator. All fields are little-endian.
#include "serialize/zip_archive.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <vector>

#include "ember/error.h"

namespace ember::zip {
namespace {

constexpr uint32_t kLocalHeader = 0x04034b50, kCentralHeader = 0x02014b50, kEnd = 0x06054b50,
                   kZip64End = 0x06064b50, kZip64Locator = 0x07064b50;
constexpr uint16_t kZip64Extra = 0x0001;
// PyTorch's writer pads local headers with an extra field of this id ("FB") to align the data.
constexpr uint16_t kPaddingExtra = 0x4246;
constexpr uint64_t kAlignment = 64;
constexpr size_t kLocalHeaderBytes = 30, kCentralHeaderBytes = 46, kEndBytes = 22,
                 kZip64EndBytes = 56, kZip64LocatorBytes = 20;
constexpr uint32_t k32 = 0xffffffffu;
constexpr uint16_t k16 = 0xffff;

uint64_t le(const unsigned char* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

void put_le(std::string& out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

[[noreturn]] void fail(const std::string& archive, const std::string& what) {
  throw ValueError("PyTorch file " + archive + ": " + what);
}

// Names that could escape a directory if extracted, or that no writer of ours produces.
void check_name(const std::string& name, const std::string& archive) {
  if (name.empty()) fail(archive, "a zip entry has an empty name");
  const bool bad_char = name.find('\0') != std::string::npos ||
                        name.find('\\') != std::string::npos || name.front() == '/';
  bool dot_dot = false;
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find('/', start);
    if (end == std::string::npos) end = name.size();
    if (name.compare(start, end - start, "..") == 0 && end - start == 2) dot_dot = true;
    start = end + 1;
  }
  if (bad_char || dot_dot) {
    fail(archive, "zip entry name \"" + name +
                      "\" is absolute, contains \"..\", a backslash or a NUL byte; refused");
  }
}

}  // namespace

uint32_t crc32(uint32_t crc, const void* data, size_t n) {
  const auto* p = static_cast<const Bytef*>(data);
  uLong c = crc;
  while (n > 0) {
    const uInt chunk = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
    c = ::crc32(c, p, chunk);
    p += chunk;
    n -= chunk;
  }
  return static_cast<uint32_t>(c);
}

Reader::Reader(uint64_t archive_size, ReadAt read, std::string archive)
    : size_(archive_size), read_(std::move(read)), archive_(std::move(archive)) {
  // The EOCD is the last record; a comment of up to 65535 bytes may follow it.
  if (size_ < kEndBytes) fail(archive_, "is too short to be a zip archive");
  const uint64_t tail_size = std::min<uint64_t>(size_, kEndBytes + 65535);
  std::string tail(tail_size, '\0');
  read_(size_ - tail_size, tail.data(), tail_size);
  const auto* t = reinterpret_cast<const unsigned char*>(tail.data());
  int64_t at = -1;
  for (int64_t i = static_cast<int64_t>(tail_size - kEndBytes); i >= 0; --i) {
    if (le(t + i, 4) == kEnd && i + kEndBytes + le(t + i + 20, 2) <= tail_size) {
      at = i;
      break;
    }
  }
  if (at < 0) fail(archive_, "has no zip end-of-central-directory record (not a zip archive?)");
  const unsigned char* end = t + at;
  const uint64_t end_offset = size_ - tail_size + static_cast<uint64_t>(at);
  uint64_t disk = le(end + 4, 2), cd_disk = le(end + 6, 2), count = le(end + 10, 2);
  uint64_t cd_size = le(end + 12, 4), cd_offset = le(end + 16, 4);
  uint64_t cd_limit = end_offset;  // the central directory ends before the end records
  if (count == k16 || cd_size == k32 || cd_offset == k32 || le(end + 8, 2) == k16) {
    if (end_offset < kZip64LocatorBytes) fail(archive_, "has a truncated ZIP64 locator");
    unsigned char loc[kZip64LocatorBytes];
    read_(end_offset - kZip64LocatorBytes, loc, sizeof loc);
    if (le(loc, 4) != kZip64Locator) {
      fail(archive_, "its end record asks for ZIP64 but there is no ZIP64 locator");
    }
    const uint64_t z_offset = le(loc + 8, 8);
    if (z_offset > end_offset - kZip64LocatorBytes ||
        end_offset - kZip64LocatorBytes - z_offset < kZip64EndBytes) {
      fail(archive_,
           "its ZIP64 end record offset " + std::to_string(z_offset) + " lies outside the archive");
    }
    unsigned char z[kZip64EndBytes];
    read_(z_offset, z, sizeof z);
    if (le(z, 4) != kZip64End) fail(archive_, "has no ZIP64 end record where its locator points");
    disk = le(z + 16, 4);
    cd_disk = le(z + 20, 4);
    count = le(z + 32, 8);
    cd_size = le(z + 40, 8);
    cd_offset = le(z + 48, 8);
    cd_limit = z_offset;
  }
  if (disk != 0 || cd_disk != 0) fail(archive_, "is a multi-disk zip archive; refused");
  if (cd_offset > cd_limit || cd_size > cd_limit - cd_offset) {
    fail(archive_, "its central directory [" + std::to_string(cd_offset) + ", +" +
                       std::to_string(cd_size) + ") lies past the end of the archive (" +
                       std::to_string(cd_limit) + " bytes before the end records)");
  }
  if (cd_size > kMaxCentralDirectoryBytes) {
    fail(archive_, "its central directory of " + std::to_string(cd_size) +
                       " bytes exceeds the limit of " + std::to_string(kMaxCentralDirectoryBytes));
  }
  if (count > cd_size / kCentralHeaderBytes) {
    fail(archive_, "claims " + std::to_string(count) + " entries in a central directory of " +
                       std::to_string(cd_size) + " bytes");
  }
  std::string cd(cd_size, '\0');
  read_(cd_offset, cd.data(), cd_size);
  const auto* c = reinterpret_cast<const unsigned char*>(cd.data());
  uint64_t pos = 0;
  std::vector<std::pair<uint64_t, uint64_t>> spans;  // [local header, end of data) per entry
  entries_.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    if (cd_size - pos < kCentralHeaderBytes || le(c + pos, 4) != kCentralHeader) {
      fail(archive_, "central directory entry " + std::to_string(i) + " is malformed");
    }
    const unsigned char* h = c + pos;
    const uint64_t flags = le(h + 8, 2), method = le(h + 10, 2);
    uint64_t csize = le(h + 20, 4), usize = le(h + 24, 4), local = le(h + 42, 4);
    const uint64_t name_len = le(h + 28, 2), extra_len = le(h + 30, 2), comment_len = le(h + 32, 2);
    if (cd_size - pos - kCentralHeaderBytes < name_len + extra_len + comment_len) {
      fail(archive_, "central directory entry " + std::to_string(i) + " runs past its end");
    }
    Entry e;
    e.name.assign(reinterpret_cast<const char*>(h + kCentralHeaderBytes), name_len);
    e.crc32 = static_cast<uint32_t>(le(h + 16, 4));
    check_name(e.name, archive_);
    // ZIP64 extra: the 64-bit values of the fields that hold 0xffffffff, in this order.
    const unsigned char* x = h + kCentralHeaderBytes + name_len;
    for (uint64_t xp = 0; xp + 4 <= extra_len;) {
      const uint64_t id = le(x + xp, 2), len = le(x + xp + 2, 2);
      if (xp + 4 + len > extra_len)
        fail(archive_, "entry \"" + e.name + "\" has a bad extra field");
      if (id == kZip64Extra) {
        uint64_t q = xp + 4;
        for (uint64_t* field : {&usize, &csize, &local}) {
          if (*field != k32) continue;
          if (q + 8 > xp + 4 + len) {
            fail(archive_, "entry \"" + e.name + "\" has a truncated ZIP64 extra field");
          }
          *field = le(x + q, 8);
          q += 8;
        }
      }
      xp += 4 + len;
    }
    if (method != 0) {
      fail(archive_, "entry \"" + e.name + "\" is compressed (method " + std::to_string(method) +
                         "); PyTorch writes stored entries only, so this file is refused");
    }
    if (flags & 1) fail(archive_, "entry \"" + e.name + "\" is encrypted; refused");
    if (csize != usize) {
      fail(archive_, "stored entry \"" + e.name + "\" has compressed size " +
                         std::to_string(csize) + " but size " + std::to_string(usize));
    }
    if (!index_.emplace(e.name, entries_.size()).second) {
      fail(archive_, "names the entry \"" + e.name + "\" twice");
    }
    // The local header repeats the name; its own lengths say where the data starts.
    if (local > cd_offset || cd_offset - local < kLocalHeaderBytes) {
      fail(archive_, "entry \"" + e.name + "\" has its local header at " + std::to_string(local) +
                         ", past the archive's entries");
    }
    unsigned char lh[kLocalHeaderBytes];
    read_(local, lh, sizeof lh);
    if (le(lh, 4) != kLocalHeader) {
      fail(archive_, "entry \"" + e.name + "\" has no local header at " + std::to_string(local));
    }
    const uint64_t lname = le(lh + 26, 2), lextra = le(lh + 28, 2);
    const uint64_t data = local + kLocalHeaderBytes + lname + lextra;
    if (data > cd_offset || usize > cd_offset - data) {
      fail(archive_, "entry \"" + e.name + "\" of " + std::to_string(usize) + " bytes at offset " +
                         std::to_string(data) +
                         " extends past the archive's entries (truncated or hostile file)");
    }
    std::string local_name(lname, '\0');
    read_(local + kLocalHeaderBytes, local_name.data(), lname);
    if (local_name != e.name) {
      fail(archive_,
           "entry \"" + e.name + "\" is named \"" + local_name + "\" in its local header");
    }
    e.data_offset = data;
    e.size = usize;
    spans.emplace_back(local, data + usize);
    entries_.push_back(std::move(e));
    pos += kCentralHeaderBytes + name_len + extra_len + comment_len;
  }
  // Overlapping entries would let a small file stand for many large records.
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i) {
    if (spans[i].first < spans[i - 1].second) {
      fail(archive_, "two zip entries overlap at byte " + std::to_string(spans[i].first) +
                         " (hostile file?)");
    }
  }
}

const Entry* Reader::find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &entries_[it->second];
}

void Reader::read(const Entry& entry, void* dst) const {
  // The CRC-32 costs about as much as the read: large records are read and checked in chunks
  // over the threads, while each chunk is still in cache, and zlib's crc32_combine joins the
  // chunks' CRCs in order.
  constexpr uint64_t kChunk = 8ull << 20;
  auto* out = static_cast<unsigned char*>(dst);
  const int64_t chunks = static_cast<int64_t>((entry.size + kChunk - 1) / kChunk);
  std::vector<uint32_t> crcs(std::max<int64_t>(chunks, 1), 0);
  std::exception_ptr error;
#pragma omp parallel for schedule(dynamic) if (chunks > 1)
  for (int64_t c = 0; c < chunks; ++c) {
    const uint64_t begin = static_cast<uint64_t>(c) * kChunk;
    const size_t n = static_cast<size_t>(std::min(kChunk, entry.size - begin));
    try {
      read_(entry.data_offset + begin, out + begin, n);
      crcs[c] = crc32(0, out + begin, n);
    } catch (...) {
#pragma omp critical(ember_zip_read_error)
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
  uLong crc = crcs[0];
  for (int64_t c = 1; c < chunks; ++c) {
    const uint64_t n = std::min(kChunk, entry.size - static_cast<uint64_t>(c) * kChunk);
    crc = ::crc32_combine(crc, crcs[c], static_cast<z_off_t>(n));
  }
  if (static_cast<uint32_t>(crc) != entry.crc32) {
    fail(archive_, "entry \"" + entry.name + "\" fails its CRC-32 check (corrupt file)");
  }
}

std::string Reader::read_string(const Entry& entry, uint64_t max_bytes) const {
  if (entry.size > max_bytes) {
    fail(archive_, "entry \"" + entry.name + "\" has " + std::to_string(entry.size) +
                       " bytes, more than the limit of " + std::to_string(max_bytes));
  }
  std::string out(entry.size, '\0');
  read(entry, out.data());
  return out;
}

Writer::Writer(Write write, bool force_zip64)
    : write_(std::move(write)), force_zip64_(force_zip64) {}

void Writer::put(const std::string& bytes) {
  write_(bytes.data(), bytes.size());
  offset_ += bytes.size();
}

void Writer::add(const std::string& name, const void* data, size_t n) {
  EMBER_CHECK(!finished_, ValueError, "zip::Writer::add after finish");
  const uint32_t crc = crc32(0, data, n);
  const bool zip64 = force_zip64_ || n >= k32;
  std::string h;
  put_le(h, kLocalHeader, 4);
  put_le(h, zip64 ? 45 : 20, 2);  // version needed
  put_le(h, 0, 2);                // flags
  put_le(h, 0, 2);                // stored
  put_le(h, 0, 2);                // time
  put_le(h, 0x21, 2);             // date: 1980-01-01
  put_le(h, crc, 4);
  put_le(h, zip64 ? k32 : n, 4);
  put_le(h, zip64 ? k32 : n, 4);
  put_le(h, name.size(), 2);
  std::string extra;
  if (zip64) {
    put_le(extra, kZip64Extra, 2);
    put_le(extra, 16, 2);
    put_le(extra, n, 8);
    put_le(extra, n, 8);
  }
  // Padding so that the data starts at a multiple of kAlignment.
  const uint64_t unpadded = offset_ + kLocalHeaderBytes + name.size() + extra.size() + 4;
  const uint64_t pad = (kAlignment - unpadded % kAlignment) % kAlignment;
  put_le(extra, kPaddingExtra, 2);
  put_le(extra, pad, 2);
  extra.append(pad, 'Z');
  put_le(h, extra.size(), 2);
  written_.push_back({name, offset_, n, crc});
  put(h + name + extra);
  if (n > 0) write_(data, n);
  offset_ += n;
}

void Writer::finish() {
  EMBER_CHECK(!finished_, ValueError, "zip::Writer::finish called twice");
  finished_ = true;
  const uint64_t cd_offset = offset_;
  for (const Written& w : written_) {
    const bool zip64 = force_zip64_ || w.size >= k32 || w.header_offset >= k32;
    std::string extra;
    if (zip64) {
      put_le(extra, kZip64Extra, 2);
      put_le(extra, 24, 2);
      put_le(extra, w.size, 8);
      put_le(extra, w.size, 8);
      put_le(extra, w.header_offset, 8);
    }
    std::string h;
    put_le(h, kCentralHeader, 4);
    put_le(h, zip64 ? 45 : 20, 2);  // version made by
    put_le(h, zip64 ? 45 : 20, 2);  // version needed
    put_le(h, 0, 2);
    put_le(h, 0, 2);
    put_le(h, 0, 2);
    put_le(h, 0x21, 2);
    put_le(h, w.crc32, 4);
    put_le(h, zip64 ? k32 : w.size, 4);
    put_le(h, zip64 ? k32 : w.size, 4);
    put_le(h, w.name.size(), 2);
    put_le(h, extra.size(), 2);
    put_le(h, 0, 2);  // comment
    put_le(h, 0, 2);  // disk
    put_le(h, 0, 2);  // internal attributes
    put_le(h, 0, 4);  // external attributes
    put_le(h, zip64 ? k32 : w.header_offset, 4);
    put(h + w.name + extra);
  }
  const uint64_t cd_size = offset_ - cd_offset;
  const uint64_t count = written_.size();
  const bool zip64 = force_zip64_ || count >= k16 || cd_size >= k32 || cd_offset >= k32;
  if (zip64) {
    const uint64_t z_offset = offset_;
    std::string z;
    put_le(z, kZip64End, 4);
    put_le(z, kZip64EndBytes - 12, 8);
    put_le(z, 45, 2);
    put_le(z, 45, 2);
    put_le(z, 0, 4);
    put_le(z, 0, 4);
    put_le(z, count, 8);
    put_le(z, count, 8);
    put_le(z, cd_size, 8);
    put_le(z, cd_offset, 8);
    put_le(z, kZip64Locator, 4);
    put_le(z, 0, 4);
    put_le(z, z_offset, 8);
    put_le(z, 1, 4);
    put(z);
  }
  std::string e;
  put_le(e, kEnd, 4);
  put_le(e, 0, 2);
  put_le(e, 0, 2);
  put_le(e, zip64 ? k16 : count, 2);
  put_le(e, zip64 ? k16 : count, 2);
  put_le(e, zip64 ? k32 : cd_size, 4);
  put_le(e, zip64 ? k32 : cd_offset, 4);
  put_le(e, 0, 2);
  put(e);
}

}  // namespace ember::zip
