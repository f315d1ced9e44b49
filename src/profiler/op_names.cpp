// "ember::" + the snake_case form of each op's enum name (GeluTanh -> ember::gelu_tanh).
#include "profiler/op_names.h"

#include <cctype>
#include <string>
#include <vector>

namespace ember::profiler::detail {
namespace {

std::string profiler_name(const char* camel) {
  std::string out = "ember::";
  for (const char* c = camel; *c; ++c) {
    if (std::isupper(static_cast<unsigned char>(*c))) {
      if (c != camel) out += '_';
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(*c)));
    } else {
      out += *c;
    }
  }
  return out;
}

std::vector<std::string> names(std::initializer_list<const char*> camel) {
  std::vector<std::string> out;
  for (const char* c : camel) out.push_back(profiler_name(c));
  return out;
}

}  // namespace

// Made at the first profiled op: a program that never profiles allocates nothing for them.
#define EMBER_OP_NAME(name, ...) #name,
const char* op_name(UnaryOp op) {
  static const std::vector<std::string> n = names({EMBER_UNARY_OPS(EMBER_OP_NAME)});
  return n.at(static_cast<size_t>(op)).c_str();
}
const char* op_name(BinaryOp op) {
  static const std::vector<std::string> n = names({EMBER_BINARY_OPS(EMBER_OP_NAME)});
  return n.at(static_cast<size_t>(op)).c_str();
}
const char* op_name(ReduceOp op) {
  static const std::vector<std::string> n = names({EMBER_REDUCE_OPS(EMBER_OP_NAME)});
  return n.at(static_cast<size_t>(op)).c_str();
}
#undef EMBER_OP_NAME

}  // namespace ember::profiler::detail
