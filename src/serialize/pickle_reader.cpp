// Opcode names and semantics follow Python's Lib/pickletools.py (the facts of the format).
#include "serialize/pickle_reader.h"

#include <bit>
#include <cstring>
#include <unordered_map>

#include "ember/error.h"

namespace ember::pickle {

std::string Node::describe() const {
  switch (kind) {
    case Kind::Global:
      return "global " + module + "." + name;
    case Kind::Storage:
      return "a tensor storage";
    case Kind::Value:
      break;
  }
  return value ? value->type_name() : "nothing";
}

NodePtr make_value(PtValue v) {
  auto n = std::make_shared<Node>();
  n->value = std::make_shared<PtValue>(std::move(v));
  return n;
}

namespace {

using Kind = PtValue::Kind;

class Unpickler {
 public:
  Unpickler(const std::string& bytes, PickleHooks& hooks, const std::string& where,
            const Limits& limits)
      : p_(reinterpret_cast<const unsigned char*>(bytes.data())),
        size_(bytes.size()),
        hooks_(hooks),
        where_(where),
        limits_(limits) {}

  NodePtr run(size_t start, size_t* end) {
    if (start > size_) fail("no pickle starts past the end of the data");
    pos_ = start;
    op_at_ = start;
    while (true) {
      op_at_ = pos_;
      const unsigned char op = take(1)[0];
      if (op == '.') break;  // STOP
      step(op);
    }
    if (stack_.size() != 1 || !marks_.empty()) {
      fail("the pickle ends with " + std::to_string(stack_.size()) + " objects and " +
           std::to_string(marks_.size()) + " marks on its stack, expected one object");
    }
    NodePtr result = stack_.back();
    if (result->kind != Node::Kind::Value || result->opaque) {
      fail("the pickle's result is " + result->describe() + ", not data");
    }
    if (end != nullptr) *end = pos_;
    return result;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw UnpicklingError(where_ + ": at byte " + std::to_string(op_at_) + ": " + what);
  }

  const unsigned char* take(uint64_t n) {
    if (n > size_ - pos_) {
      fail("needs " + std::to_string(n) + " bytes but the pickle has " +
           std::to_string(size_ - pos_) + " left (truncated, or a hostile length)");
    }
    const unsigned char* out = p_ + pos_;
    pos_ += n;
    return out;
  }
  uint64_t take_le(int n) {
    const unsigned char* b = take(n);
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | b[i];
    return v;
  }
  std::string take_line() {
    // GLOBAL's module and name, each ended by a newline; short in any real file.
    for (uint64_t i = pos_; i < size_ && i - pos_ < 256; ++i) {
      if (p_[i] == '\n') {
        std::string s(reinterpret_cast<const char*>(p_ + pos_), i - pos_);
        pos_ = i + 1;
        return s;
      }
    }
    fail("GLOBAL's module or name is not a line of at most 256 bytes");
  }

  NodePtr pop() {
    if (stack_.empty() || (!marks_.empty() && stack_.size() == marks_.back())) {
      fail("pops from an empty stack (or past a mark)");
    }
    NodePtr n = std::move(stack_.back());
    stack_.pop_back();
    return n;
  }
  NodePtr& top() {
    if (stack_.empty() || (!marks_.empty() && stack_.size() == marks_.back())) {
      fail("reads an empty stack");
    }
    return stack_.back();
  }
  // The objects above the latest mark, removing them and the mark.
  std::vector<NodePtr> pop_mark() {
    if (marks_.empty()) fail("has no mark to pop to");
    const size_t m = marks_.back();
    marks_.pop_back();
    std::vector<NodePtr> items(std::make_move_iterator(stack_.begin() + m),
                               std::make_move_iterator(stack_.end()));
    stack_.resize(m);
    return items;
  }

  void push_value(PtValue v) { stack_.push_back(make_value(std::move(v))); }
  void push_int(int64_t v) {
    PtValue x;
    x.kind = Kind::Int;
    x.integer = v;
    push_value(std::move(x));
  }
  void push_string(uint64_t n) {
    const unsigned char* b = take(n);
    PtValue x;
    x.kind = Kind::String;
    x.string.assign(reinterpret_cast<const char*>(b), n);
    push_value(std::move(x));
  }
  void push_long(uint64_t n) {
    if (n > 8) {
      fail("an integer of " + std::to_string(n) + " bytes does not fit in 64 bits");
    }
    const unsigned char* b = take(n);
    uint64_t v = 0;
    for (int i = static_cast<int>(n) - 1; i >= 0; --i) v = (v << 8) | b[i];
    if (n > 0 && n < 8 && (b[n - 1] & 0x80)) v |= ~uint64_t{0} << (8 * n);  // sign-extend
    push_int(static_cast<int64_t>(v));
  }

  // `child` goes into container `parent` (a list, dict or tuple being built).
  void adopt(Node& parent, Node& child, const char* what) {
    if (child.kind != Node::Kind::Value || child.opaque) {
      fail(std::string("a ") + what + " cannot hold " + child.describe());
    }
    child.sealed = true;
    parent.depth = std::max(parent.depth, child.depth + 1);
    if (parent.depth > limits_.max_depth) {
      fail("containers are nested more than " + std::to_string(limits_.max_depth) + " levels deep");
    }
  }
  Node& mutable_container(NodePtr& n, Kind kind, const char* op) {
    if (n->kind != Node::Kind::Value || n->value->kind != kind) {
      fail(std::string(op) + " applies to " + n->describe());
    }
    if (n->sealed) {
      fail(std::string(op) + " changes a " + n->describe() +
           " that another container already holds (a self-referencing structure); refused");
    }
    return *n;
  }
  void append(NodePtr& list, std::vector<NodePtr> items) {
    Node& l = mutable_container(list, Kind::List, "APPEND");
    for (NodePtr& item : items) {
      if (item.get() == &l) fail("APPEND puts a list into itself; refused");
      adopt(l, *item, "list");
      l.value->items.push_back(item->value);
    }
  }
  void set_items(NodePtr& dict, std::vector<NodePtr> items) {
    if (items.size() % 2 != 0) fail("SETITEMS has an odd number of keys and values");
    Node& d = mutable_container(dict, Kind::Dict, "SETITEM");
    for (size_t i = 0; i < items.size(); i += 2) {
      if (items[i].get() == &d || items[i + 1].get() == &d) {
        fail("SETITEM puts a dict into itself; refused");
      }
      adopt(d, *items[i], "dict key");
      adopt(d, *items[i + 1], "dict");
      d.value->entries.emplace_back(items[i]->value, items[i + 1]->value);
    }
  }
  void push_tuple(std::vector<NodePtr> items) {
    auto t = std::make_shared<Node>();
    t->value = std::make_shared<PtValue>();
    t->value->kind = Kind::Tuple;
    for (NodePtr& item : items) {
      if (item->kind != Node::Kind::Value || item->opaque) {
        t->opaque = true;
        item->sealed = true;
        t->depth = std::max(t->depth, item->depth + 1);
        if (t->depth > limits_.max_depth) {
          fail("tuples are nested more than " + std::to_string(limits_.max_depth) + " levels deep");
        }
      } else {
        adopt(*t, *item, "tuple");
        t->value->items.push_back(item->value);
      }
    }
    t->tuple = std::move(items);
    stack_.push_back(std::move(t));
  }
  void put(uint64_t index) { memo_[index] = top(); }
  void get(uint64_t index) {
    auto it = memo_.find(index);
    if (it == memo_.end()) fail("memo entry " + std::to_string(index) + " is not defined");
    stack_.push_back(it->second);
  }

  void step(unsigned char op) {
    switch (op) {
      case 0x80: {  // PROTO
        const unsigned v = take(1)[0];
        if (v < 2 || v > 5) fail("pickle protocol " + std::to_string(v) + " is not 2 to 5");
        break;
      }
      case 0x95:  // FRAME: a length hint; the whole pickle is in memory already
        take(8);
        break;
      case '(':
        marks_.push_back(stack_.size());
        break;
      case '0':
        pop();
        break;
      case '1':
        pop_mark();
        break;
      case '2':
        stack_.push_back(top());
        break;
      case 'N':
        push_value(PtValue{});
        break;
      case 0x88:
      case 0x89: {
        PtValue b;
        b.kind = Kind::Bool;
        b.boolean = op == 0x88;
        push_value(std::move(b));
        break;
      }
      case 'J':
        push_int(static_cast<int32_t>(static_cast<uint32_t>(take_le(4))));
        break;
      case 'K':
        push_int(static_cast<int64_t>(take_le(1)));
        break;
      case 'M':
        push_int(static_cast<int64_t>(take_le(2)));
        break;
      case 0x8a:
        push_long(take_le(1));
        break;
      case 0x8b:
        push_long(take_le(4));
        break;
      case 'G': {
        const unsigned char* b = take(8);
        uint64_t bits = 0;
        for (int i = 0; i < 8; ++i) bits = (bits << 8) | b[i];  // big-endian
        PtValue f;
        f.kind = Kind::Float;
        f.floating = std::bit_cast<double>(bits);
        push_value(std::move(f));
        break;
      }
      case 0x8c:
        push_string(take_le(1));
        break;
      case 'X':
        push_string(take_le(4));
        break;
      case 0x8d:
        push_string(take_le(8));
        break;
      case ']': {
        PtValue l;
        l.kind = Kind::List;
        push_value(std::move(l));
        break;
      }
      case '}': {
        PtValue d;
        d.kind = Kind::Dict;
        push_value(std::move(d));
        break;
      }
      case ')':
        push_tuple({});
        break;
      case 0x85:
      case 0x86:
      case 0x87: {
        std::vector<NodePtr> items(op - 0x84);
        for (size_t i = items.size(); i-- > 0;) items[i] = pop();
        push_tuple(std::move(items));
        break;
      }
      case 't':
        push_tuple(pop_mark());
        break;
      case 'a': {
        NodePtr item = pop();
        append(top(), {std::move(item)});
        break;
      }
      case 'e': {
        std::vector<NodePtr> items = pop_mark();
        append(top(), std::move(items));
        break;
      }
      case 's': {
        NodePtr value = pop();
        NodePtr key = pop();
        set_items(top(), {std::move(key), std::move(value)});
        break;
      }
      case 'u': {
        std::vector<NodePtr> items = pop_mark();
        set_items(top(), std::move(items));
        break;
      }
      case 'q':
        put(take_le(1));
        break;
      case 'r':
        put(take_le(4));
        break;
      case 0x94:
        put(memo_.size());
        break;
      case 'h':
        get(take_le(1));
        break;
      case 'j':
        get(take_le(4));
        break;
      case 'c': {
        const std::string module = take_line();
        const std::string name = take_line();
        stack_.push_back(hooks_.global(module, name));
        break;
      }
      case 0x93: {  // STACK_GLOBAL
        NodePtr name = pop();
        NodePtr module = pop();
        for (const NodePtr& s : {module, name}) {
          if (s->kind != Node::Kind::Value || s->value->kind != Kind::String) {
            fail("STACK_GLOBAL needs two strings, got " + s->describe());
          }
        }
        stack_.push_back(hooks_.global(module->value->string, name->value->string));
        break;
      }
      case 'Q': {
        NodePtr pid = pop();
        stack_.push_back(hooks_.persistent_load(*pid));
        break;
      }
      case 'R': {
        NodePtr args = pop();
        NodePtr callable = pop();
        if (args->kind != Node::Kind::Value || args->value->kind != Kind::Tuple) {
          fail("REDUCE's arguments are " + args->describe() + ", not a tuple");
        }
        stack_.push_back(hooks_.reduce(*callable, *args));
        break;
      }
      case 'b': {
        NodePtr state = pop();
        hooks_.build(*top(), *state);
        break;
      }
      case 'B':
      case 'C':
      case 0x8e:
        fail("holds a bytes object, which a weights file does not (refused)");
      default: {
        const char* name = nullptr;
        switch (op) {
          case 'i':
            name = "INST";
            break;
          case 'o':
            name = "OBJ";
            break;
          case 0x81:
            name = "NEWOBJ";
            break;
          case 0x92:
            name = "NEWOBJ_EX";
            break;
          case 0x82:
          case 0x83:
          case 0x84:
            name = "EXT";
            break;
          case 'P':
            name = "PERSID";
            break;
          default:
            break;
        }
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", op);
        fail(std::string("opcode ") + hex +
             (name ? std::string(" (") + name + ", which builds arbitrary objects)"
                   : std::string(" is not one that a weights file uses")) +
             "; refused");
      }
    }
  }

  const unsigned char* p_;
  uint64_t size_, pos_ = 0, op_at_ = 0;
  PickleHooks& hooks_;
  const std::string& where_;
  Limits limits_;
  std::vector<NodePtr> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, NodePtr> memo_;
};

}  // namespace

NodePtr unpickle(const std::string& bytes, PickleHooks& hooks, const std::string& where,
                 const Limits& limits) {
  return Unpickler(bytes, hooks, where, limits).run(0, nullptr);
}

NodePtr unpickle_at(const std::string& bytes, size_t& pos, PickleHooks& hooks,
                    const std::string& where, const Limits& limits) {
  return Unpickler(bytes, hooks, where, limits).run(pos, &pos);
}

}  // namespace ember::pickle
