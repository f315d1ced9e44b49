#include "serialize/pt_format.h"

namespace ember::pt_format {
namespace {

struct Name {
  const char* name;
  ScalarType type;
};
constexpr Name kStorages[] = {
    {"FloatStorage", kFloat},       {"DoubleStorage", kDouble}, {"HalfStorage", kHalf},
    {"BFloat16Storage", kBFloat16}, {"LongStorage", kLong},     {"IntStorage", kInt},
    {"ShortStorage", kShort},       {"CharStorage", kChar},     {"ByteStorage", kByte},
    {"BoolStorage", kBool},
};
// Canonical names first: dtype_name returns the first match.
constexpr Name kDtypes[] = {
    {"float32", kFloat}, {"float64", kDouble}, {"float16", kHalf}, {"bfloat16", kBFloat16},
    {"int64", kLong},    {"int32", kInt},      {"int16", kShort},  {"int8", kChar},
    {"uint8", kByte},    {"bool", kBool},      {"float", kFloat},  {"double", kDouble},
    {"half", kHalf},     {"long", kLong},      {"int", kInt},      {"short", kShort},
};

}  // namespace

bool storage_dtype(const std::string& storage_class, ScalarType& out) {
  for (const Name& n : kStorages) {
    if (storage_class == n.name) {
      out = n.type;
      return true;
    }
  }
  return false;
}

const char* storage_class(ScalarType t) {
  for (const Name& n : kStorages) {
    if (n.type == t) return n.name;
  }
  return "?";
}

bool dtype_from_name(const std::string& name, ScalarType& out) {
  for (const Name& n : kDtypes) {
    if (name == n.name) {
      out = n.type;
      return true;
    }
  }
  return false;
}

const char* dtype_name(ScalarType t) {
  for (const Name& n : kDtypes) {
    if (n.type == t) return n.name;
  }
  return "?";
}

}  // namespace ember::pt_format
