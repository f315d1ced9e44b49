// Validation follows the safetensors specification: every tensor's byte range must match its
// dtype and shape, and the ranges must tile the data section exactly (no gaps, no overlap).
#include "serialize/safetensors_format.h"

#include <algorithm>
#include <exception>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ember/error.h"

namespace ember::safetensors_format {
namespace {

struct DtypeName {
  const char* name;
  ScalarType type;
};
constexpr DtypeName kDtypes[] = {
    {"BOOL", kBool}, {"U8", kByte},  {"I8", kChar},       {"I16", kShort}, {"I32", kInt},
    {"I64", kLong},  {"F16", kHalf}, {"BF16", kBFloat16}, {"F32", kFloat}, {"F64", kDouble},
};
// In the specification but without an Ember dtype.
constexpr const char* kUnsupported[] = {"U16",     "U32",     "U64",     "F8_E4M3",
                                        "F8_E5M2", "F8_E8M0", "F6_E2M3", "F6_E3M2",
                                        "F4",      "C64",     "C128"};

[[noreturn]] void fail(const std::string& file, const std::string& what) {
  throw ValueError("safetensors file " + file + ": " + what);
}

std::string supported_list() {
  std::string s;
  for (const auto& d : kDtypes) s += std::string(s.empty() ? "" : ", ") + d.name;
  return s;
}

ScalarType parse_dtype(const std::string& name, const std::string& tensor,
                       const std::string& file) {
  for (const auto& d : kDtypes) {
    if (name == d.name) return d.type;
  }
  for (const char* u : kUnsupported) {
    if (name == u) {
      throw TypeError("safetensors file " + file + ": tensor \"" + tensor + "\" has dtype " + name +
                      ", which Ember does not support (supported: " + supported_list() + ")");
    }
  }
  fail(file, "tensor \"" + tensor + "\" has unknown dtype \"" + name + "\" (expected one of " +
                 supported_list() + ")");
}

// Rejects nesting deeper than a header ever needs before the recursive JSON machinery sees it.
void check_nesting(const char* p, size_t n, const std::string& file) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < n; ++i) {
    char c = p[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > 8) fail(file, "the JSON header is nested more than 8 levels deep");
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
}

uint64_t get_unsigned(const nlohmann::json& v, const std::string& what, const std::string& file) {
  if (!v.is_number_unsigned()) {
    std::string got = v.dump(-1, ' ', true);
    if (got.size() > 40) got = got.substr(0, 37) + "...";
    fail(file, what + " must be a non-negative integer, got " + got);
  }
  return v.get<uint64_t>();
}

Entry parse_entry(const std::string& name, const nlohmann::json& v, const std::string& file) {
  const std::string where = "tensor \"" + name + "\"";
  if (!v.is_object()) fail(file, where + " must be a JSON object, got " + v.type_name());
  for (const char* key : {"dtype", "shape", "data_offsets"}) {
    if (!v.contains(key)) fail(file, where + " has no \"" + key + "\"");
  }
  Entry e;
  e.name = name;
  const auto& dtype = v.at("dtype");
  if (!dtype.is_string()) fail(file, where + ": \"dtype\" must be a string");
  e.dtype = parse_dtype(dtype.get<std::string>(), name, file);

  const auto& shape = v.at("shape");
  if (!shape.is_array()) fail(file, where + ": \"shape\" must be an array");
  uint64_t numel = 1;
  // The product of the sizes with zeros counted as 1: the largest contiguous stride, and a bound
  // on every partial product of the sizes that tensor code computes.
  uint64_t extent = 1;
  bool overflow = false, extent_overflow = false;
  for (const auto& s : shape) {
    uint64_t d = get_unsigned(s, where + ": each shape entry", file);
    if (d > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) overflow = true;
    e.shape.push_back(static_cast<int64_t>(d));
    if (__builtin_mul_overflow(numel, d, &numel)) overflow = true;
    if (__builtin_mul_overflow(extent, std::max<uint64_t>(d, 1), &extent)) extent_overflow = true;
  }
  const auto& offsets = v.at("data_offsets");
  if (!offsets.is_array() || offsets.size() != 2) {
    fail(file, where + ": \"data_offsets\" must be an array [begin, end]");
  }
  e.begin = get_unsigned(offsets[0], where + ": data_offsets begin", file);
  e.end = get_unsigned(offsets[1], where + ": data_offsets end", file);
  if (e.end < e.begin) {
    fail(file, where + " has data_offsets [" + std::to_string(e.begin) + ", " +
                   std::to_string(e.end) + "] with end before begin");
  }
  uint64_t nbytes = 0;
  if (overflow || __builtin_mul_overflow(numel, element_size(e.dtype), &nbytes) ||
      nbytes > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    fail(file, where + " has a shape whose byte count overflows");
  }
  std::string shape_str;
  for (int64_t d : e.shape) shape_str += (shape_str.empty() ? "" : ", ") + std::to_string(d);
  // An empty tensor can still have sizes whose strides overflow, e.g. [0, 2^62, 2^62].
  if (extent_overflow || extent > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    fail(file, where + " has shape [" + shape_str +
                   "], whose strides overflow (the product of its non-zero sizes exceeds "
                   "2^63 - 1)");
  }
  if (nbytes != e.end - e.begin) {
    fail(file, where + " of dtype " + dtype_name(e.dtype) + " and shape [" + shape_str +
                   "] needs " + std::to_string(nbytes) + " bytes but data_offsets [" +
                   std::to_string(e.begin) + ", " + std::to_string(e.end) + "] hold " +
                   std::to_string(e.end - e.begin));
  }
  return e;
}

// Reads the header in one pass over its JSON: each top-level value (a tensor's entry or
// "__metadata__") is built as a small document, validated into the Header, and dropped, so the
// cost is linear in the header's size and no document of the whole header is kept. (Not
// json::parse with a callback: its callback parser rescans the enclosing object after every
// nested object ends, which made loading quadratic in the number of tensors; nor a whole-header
// document, whose million small allocations took most of the time.)
//
// Errors are reported as a whole-document parse would: invalid JSON first, then a header that is
// not an object, then a name given twice (at any depth: JSON allows duplicate keys and readers
// disagree on which one counts), then the first invalid entry.
class HeaderReader final : public nlohmann::json_sax<nlohmann::json> {
 public:
  HeaderReader(Header& header, size_t header_bytes, uint64_t data_size, const std::string& file)
      : header_(header), data_size_(data_size), file_(file) {
    names_.reserve(header_bytes / 64);  // an entry takes some 60-100 bytes of JSON
  }

  // Throws the first problem found, in the order above; `parsed` is what sax_parse returned.
  void finish(bool parsed) const {
    if (!parsed || !syntax_error_.empty()) {
      fail(file_, "the header is not valid JSON: " + syntax_error_);
    }
    if (!root_type_.empty()) fail(file_, "the header must be a JSON object, got " + root_type_);
    if (!duplicate_.empty()) fail(file_, duplicate_);
    if (entry_error_) std::rethrow_exception(entry_error_);
  }

  bool null() override { return put(nullptr); }
  bool boolean(bool v) override { return put(v); }
  bool number_integer(number_integer_t v) override { return put(v); }
  bool number_unsigned(number_unsigned_t v) override { return put(v); }
  bool number_float(number_float_t v, const string_t&) override { return put(v); }
  bool string(string_t& v) override { return put(std::move(v)); }
  bool binary(binary_t& v) override { return put(nlohmann::json::binary(std::move(v))); }
  bool start_object(std::size_t) override {
    if (depth_++ == 0) return true;  // the header itself
    open(nlohmann::json::object());
    return true;
  }
  bool start_array(std::size_t) override {
    if (depth_++ == 0) {
      root_type_ = "array";
      return true;
    }
    open(nlohmann::json::array());
    return true;
  }
  bool key(string_t& k) override {
    if (!root_type_.empty()) return true;
    if (depth_ == 1) {
      if (!names_.insert(k).second) note_duplicate("the header names \"" + k + "\" twice");
      name_ = std::move(k);
      return true;
    }
    auto& object = open_.back()->get_ref<nlohmann::json::object_t&>();
    auto [it, inserted] = object.try_emplace(k);
    if (!inserted) note_duplicate("\"" + name_ + "\" names \"" + k + "\" twice");
    slot_ = &it->second;
    return true;
  }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::json::exception& e) override {
    syntax_error_ = e.what();
    return false;
  }

 private:
  // Stores a value where the document is at: the current top-level value, the next element of
  // an array, or the value of the latest key. Returns where it went. A pointer into an array
  // stays valid while it is on open_: the array grows only after that element is closed.
  nlohmann::json* place(nlohmann::json v) {
    if (open_.empty()) {
      value_ = std::move(v);
      return &value_;
    }
    nlohmann::json& parent = *open_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(v));
      return &parent.back();
    }
    *slot_ = std::move(v);
    return slot_;
  }
  void open(nlohmann::json container) {
    if (root_type_.empty()) open_.push_back(place(std::move(container)));
  }
  bool close() {
    if (--depth_ == 0 || !root_type_.empty()) return true;
    open_.pop_back();
    if (open_.empty()) take_value();
    return true;
  }
  bool put(nlohmann::json v) {
    if (depth_ == 0) {
      root_type_ = v.type_name();
    } else if (root_type_.empty()) {
      place(std::move(v));
      if (open_.empty()) take_value();
    }
    return true;
  }
  void note_duplicate(std::string what) {
    if (duplicate_.empty()) duplicate_ = std::move(what);
  }

  // The top-level value `value_` named `name_` is complete: into the header with it.
  void take_value() {
    if (!entry_error_ && duplicate_.empty()) {
      try {
        add(name_, value_);
      } catch (const Error&) {
        entry_error_ = std::current_exception();  // thrown once the parse has finished
      }
    }
    value_ = nullptr;
  }

  void add(const std::string& key, const nlohmann::json& value) {
    if (key == "__metadata__") {
      if (!value.is_object()) fail(file_, "\"__metadata__\" must be an object of strings");
      for (const auto& [mk, mv] : value.items()) {
        if (!mv.is_string()) {
          fail(file_,
               "\"__metadata__\" value for \"" + mk + "\" must be a string, got " + mv.type_name());
        }
        header_.metadata[mk] = mv.get<std::string>();
      }
      return;
    }
    Entry e = parse_entry(key, value, file_);
    if (e.end > data_size_) {
      fail(file_, "tensor \"" + key + "\" has data_offsets [" + std::to_string(e.begin) + ", " +
                      std::to_string(e.end) + "] beyond the " + std::to_string(data_size_) +
                      "-byte data section (truncated file?)");
    }
    header_.entries.push_back(std::move(e));
  }

  Header& header_;
  const uint64_t data_size_;
  const std::string& file_;
  int depth_ = 0;                          // containers open, the header's own object included
  std::string root_type_;                  // the header's JSON type when it is not an object
  std::unordered_set<std::string> names_;  // top-level keys so far
  std::string name_;                       // the latest top-level key
  nlohmann::json value_;                   // its value, being built
  std::vector<nlohmann::json*> open_;      // containers of value_ being filled, innermost last
  nlohmann::json* slot_ = nullptr;         // the value of the latest key below the top level
  std::string syntax_error_, duplicate_;
  std::exception_ptr entry_error_;
};

}  // namespace

const char* dtype_name(ScalarType t) {
  for (const auto& d : kDtypes) {
    if (d.type == t) return d.name;
  }
  return "?";
}

uint64_t header_length(const unsigned char prefix[8], uint64_t file_size, const std::string& file) {
  if (file_size < 8) {
    fail(file,
         "is " + std::to_string(file_size) + " bytes long, too short for the 8-byte header length");
  }
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | prefix[i];
  // libtorch's torch::save and PyTorch's torch.save write a zip archive ("PK\3\4", whose length
  // field would read as a 67 MB+ header); PyTorch before 1.6 wrote a pickle stream (0x80 and the
  // protocol, 2 to 5), whose length field reads as far above the limit. Say which it is.
  const bool zip = prefix[0] == 'P' && prefix[1] == 'K' && prefix[2] == 3 && prefix[3] == 4;
  const bool pickle = prefix[0] == 0x80 && prefix[1] >= 2 && prefix[1] <= 5 && n > kMaxHeaderBytes;
  if (zip || pickle) {
    throw ValueError(
        file + " is a libtorch/PyTorch archive (" +
        (zip ? "the zip format of torch::save / torch.save"
             : "the legacy pickle format of torch.save") +
        "), not a safetensors file. A file of Python's torch.save (zip format) loads with "
        "ember::load_pt / ember::load_pt_object (include/ember/serialize_pt.h; in Python "
        "ember.load reads both formats). Others (TorchScript archives of libtorch's "
        "torch::save(model, path), the legacy format): convert them with PyTorch, e.g. "
        "torch.jit.load(path).state_dict() written with "
        "safetensors.torch.save_file(tensors, 'file.safetensors')");
  }
  if (n > kMaxHeaderBytes) {
    fail(file, "header length " + std::to_string(n) + " exceeds the 100 MB limit (corrupt file?)");
  }
  if (n > file_size - 8) {
    fail(file, "header length " + std::to_string(n) + " exceeds the " +
                   std::to_string(file_size - 8) +
                   " bytes that follow the length field "
                   "(truncated or not a safetensors file)");
  }
  return n;
}

Header parse_header(const char* json, size_t len, uint64_t file_size, const std::string& file) {
  check_nesting(json, len, file);
  Header h;
  h.data_start = 8 + len;
  const uint64_t data_size = file_size - h.data_start;
  HeaderReader reader(h, len, data_size, file);
  bool parsed = false;
  try {
    parsed = nlohmann::json::sax_parse(json, json + len, &reader);
  } catch (const nlohmann::json::exception& e) {
    fail(file, std::string("the header is not valid JSON: ") + e.what());
  }
  reader.finish(parsed);

  std::sort(h.entries.begin(), h.entries.end(), [](const Entry& a, const Entry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t cursor = 0;
  const Entry* prev = nullptr;
  for (const Entry& e : h.entries) {
    if (e.begin < cursor) {
      fail(file, "tensors \"" + prev->name + "\" and \"" + e.name + "\" overlap (bytes [" +
                     std::to_string(e.begin) + ", " + std::to_string(cursor) + "))");
    }
    if (e.begin > cursor) {
      fail(file, "bytes [" + std::to_string(cursor) + ", " + std::to_string(e.begin) +
                     ") of the data section belong to no tensor (before \"" + e.name + "\")");
    }
    cursor = e.end;
    prev = &e;
  }
  if (cursor != data_size) {
    fail(file, "the data section has " + std::to_string(data_size) +
                   " bytes but the tensors cover " + std::to_string(cursor) + " (" +
                   std::to_string(data_size - cursor) + " trailing bytes)");
  }
  return h;
}

std::string make_header(const std::vector<Entry>& entries,
                        const std::map<std::string, std::string>& metadata) {
  // Written as text: nlohmann::ordered_json finds each key by a linear search, which made saving
  // 100,000 tensors take 10 s. The names are unique (the callers check), so nothing is looked up.
  // nlohmann still writes the strings (escapes, and refuses invalid UTF-8).
  std::string json = "{";
  try {
    if (!metadata.empty()) json += "\"__metadata__\":" + nlohmann::json(metadata).dump();
    for (const Entry& e : entries) {
      if (json.size() > 1) json += ',';
      json += nlohmann::json(e.name).dump();
      json += ":{\"dtype\":\"";
      json += dtype_name(e.dtype);
      json += "\",\"shape\":[";
      for (size_t i = 0; i < e.shape.size(); ++i) {
        if (i > 0) json += ',';
        json += std::to_string(e.shape[i]);
      }
      json += "],\"data_offsets\":[" + std::to_string(e.begin) + "," + std::to_string(e.end) + "]}";
    }
  } catch (const nlohmann::json::exception& e) {
    throw ValueError(std::string("safetensors: a tensor name or metadata string is not valid "
                                 "UTF-8 (") +
                     e.what() + ")");
  }
  json += '}';
  json.append((8 - json.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  uint64_t n = json.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out + json;
}

}  // namespace ember::safetensors_format
