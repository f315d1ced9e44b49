#pragma once
// The subset of the ZIP format that PyTorch's torch.save writes (and reads): stored (uncompressed)
// entries, ZIP64 records for large archives, one disk. The reader treats the bytes as hostile:
// every offset and size is checked against the archive before it is used, and compressed,
// encrypted, overlapping, duplicated or path-escaping ("..") entries are refused with an
// ember::Error naming the archive and the entry. Pure functions on bytes reached through a read
// callback (no files, no tensors), so the fuzz target can compile it on its own.
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ember::zip {

// Reads exactly n bytes at `offset` of the archive into dst (the caller checks the range). May be
// called from several threads at once (Reader::read reads large entries in parallel chunks).
using ReadAt = std::function<void(uint64_t offset, void* dst, size_t n)>;
// Appends n bytes to the archive being written.
using Write = std::function<void(const void* data, size_t n)>;

struct Entry {
  std::string name;
  uint64_t data_offset = 0;  // of the entry's bytes within the archive
  uint64_t size = 0;
  uint32_t crc32 = 0;
};

// Refused beyond these, whatever the archive claims.
constexpr uint64_t kMaxCentralDirectoryBytes = 256ull << 20;
constexpr size_t kMaxNameBytes = 4096;

class Reader {
 public:
  // Reads and checks the central directory and every entry's local header. `archive` names the
  // file in errors.
  Reader(uint64_t archive_size, ReadAt read, std::string archive);

  const std::vector<Entry>& entries() const { return entries_; }
  // The entry named `name`, or nullptr.
  const Entry* find(const std::string& name) const;
  // Reads the entry's bytes into dst (entry.size bytes) and checks its CRC-32.
  void read(const Entry& entry, void* dst) const;
  // The entry's bytes as a string; refuses entries larger than `max_bytes`.
  std::string read_string(const Entry& entry, uint64_t max_bytes) const;

 private:
  uint64_t size_;
  ReadAt read_;
  std::string archive_;
  std::vector<Entry> entries_;                     // in central-directory order
  std::unordered_map<std::string, size_t> index_;  // name -> position in entries_
};

class Writer {
 public:
  // `force_zip64` writes ZIP64 records for every entry and the end of the archive, which
  // otherwise appear only where a size or offset needs more than 32 bits (tests use it to cover
  // the ZIP64 reader on small archives).
  explicit Writer(Write write, bool force_zip64 = false);
  // Adds a stored entry whose bytes start at a multiple of 64 in the archive (as PyTorch aligns
  // its records, so that they can be memory-mapped).
  void add(const std::string& name, const void* data, size_t n);
  // Writes the central directory and the end records. No entries may be added after.
  void finish();

 private:
  struct Written {
    std::string name;
    uint64_t header_offset, size;
    uint32_t crc32;
  };
  void put(const std::string& bytes);
  Write write_;
  bool force_zip64_;
  bool finished_ = false;
  uint64_t offset_ = 0;
  std::vector<Written> written_;
};

// zlib's CRC-32 of n bytes, continuing from `crc` (0 to start).
uint32_t crc32(uint32_t crc, const void* data, size_t n);

}  // namespace ember::zip
