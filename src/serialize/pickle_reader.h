#pragma once
// A restricted unpickler: runs the opcodes of pickle protocols 2 to 5 that build plain data
// (containers, numbers, strings) on its own, and hands everything that would make or call an
// object (GLOBAL, REDUCE, BUILD, persistent ids) to PickleHooks, which decide what is allowed.
// Nothing is ever imported or executed. Opcodes that make arbitrary objects (INST, OBJ, NEWOBJ,
// EXT*) are refused outright. Bounds: nesting depth, the length of strings and numbers (within
// the pickle's own bytes), and no container may change after another holds it, so the result
// is an acyclic tree whatever the pickle does (no self-references, no memory cycles).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ember/serialize_pt.h"

namespace ember::pickle {

struct Node;
using NodePtr = std::shared_ptr<Node>;

// What is on the unpickler's stack and in its memo.
struct Node {
  enum class Kind {
    Value,    // plain data (and tensors): `value`
    Global,   // a class or function named by GLOBAL that the hooks allowed: module.name
    Storage,  // a tensor storage from a persistent id: `storage` (1-D), `location`
  };
  Kind kind = Kind::Value;
  std::shared_ptr<PtValue> value;
  std::string module, name;
  std::vector<NodePtr> tuple;  // a Tuple's items as nodes (they may be Globals or Storages)
  Tensor storage;
  std::string location;
  // Set once a container holds this node; a sealed list or dict is never changed again.
  bool sealed = false;
  // A Tuple with a Global or Storage inside: a call's arguments, not data.
  bool opaque = false;
  int depth = 1;  // containers nested in this one, itself included

  std::string describe() const;  // "dict", "global torch.FloatStorage", ...
};

NodePtr make_value(PtValue v);

class PickleHooks {
 public:
  virtual ~PickleHooks() = default;
  // GLOBAL module.name: a Global node (or a Value, e.g. a dtype); throws when not allowed.
  virtual NodePtr global(const std::string& module, const std::string& name) = 0;
  virtual NodePtr persistent_load(const Node& pid) = 0;
  // callable(*args) for REDUCE; `args` is a Tuple.
  virtual NodePtr reduce(const Node& callable, const Node& args) = 0;
  // BUILD: obj.__setstate__(state).
  virtual void build(Node& obj, const Node& state) = 0;
};

struct Limits {
  int max_depth = 200;  // nested containers
};

// Runs the pickle in `bytes` (named `where` in errors) and returns its result, a Value node.
// Throws ember::ValueError naming `where`, the opcode's byte offset and the problem.
NodePtr unpickle(const std::string& bytes, PickleHooks& hooks, const std::string& where,
                 const Limits& limits = {});
// The pickle that starts at byte `pos` of `bytes` (one of several in a row, as PyTorch's legacy
// format writes them); `pos` is left just past its STOP.
NodePtr unpickle_at(const std::string& bytes, size_t& pos, PickleHooks& hooks,
                    const std::string& where, const Limits& limits = {});

}  // namespace ember::pickle
