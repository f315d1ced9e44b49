#pragma once
// Pickle protocol 2 output, the protocol torch.save uses: the opcodes for plain data, globals,
// calls and persistent ids. The caller composes them (pt_writer.cpp writes a checkpoint).
#include <cstdint>
#include <string>

namespace ember::pickle {

class Writer {
 public:
  Writer();  // starts with PROTO 2
  void none() { op('N'); }
  void boolean(bool v) { op(v ? '\x88' : '\x89'); }
  void integer(int64_t v);
  void floating(double v);
  void string(const std::string& s);
  // module.name, pushed as a class or function.
  void global(const std::string& module, const std::string& name);
  void mark() { op('('); }
  void empty_dict() { op('}'); }
  void empty_list() { op(']'); }
  void empty_tuple() { op(')'); }
  void tuple_from_mark() { op('t'); }
  void setitems_from_mark() { op('u'); }
  void appends_from_mark() { op('e'); }
  void reduce() { op('R'); }
  void persistent_id() { op('Q'); }
  // The object on top of the stack into memo slot `index` / a memoized object pushed again.
  void memo_put(uint32_t index);
  void memo_get(uint32_t index);
  // STOP; returns the finished pickle.
  std::string finish();

 private:
  void op(char c) { out_.push_back(c); }
  std::string out_;
};

}  // namespace ember::pickle
