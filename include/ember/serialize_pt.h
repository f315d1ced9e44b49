#pragma once
// PyTorch's own checkpoint files (torch.save's zip format, PyTorch 1.6 and later: `.pt`, `.pth`),
// read and written without Python:
//
//   auto state = ember::load_pt("resnet.pth");          // name -> tensor, in the file's order
//   model->load_state_dict(state);                       // or ember::load_pt(*model, path)
//   ember::PtValue ckpt = ember::load_pt_object("ckpt.pt");  // {"model": .., "epoch": ..}
//   model->load_state_dict(ember::pt_as_state_dict(*ckpt.get("model")));
//   ember::save_pt(model->named_parameters(), "out.pt"); // torch.load("out.pt") reads it
//
// Reading is safe for files from anywhere: the pickle inside is interpreted by a restricted
// unpickler of Ember's own that knows only the objects a weights file holds (tensors, their
// storages, dicts, OrderedDicts, lists, tuples, numbers, strings, None, torch.device, dtypes:
// the allowlist of PyTorch's torch.load(weights_only=True)) and refuses any other global with an
// ember::Error naming it; nothing in the file is ever executed. Sizes, counts and nesting depth
// are bounded, and every offset is checked against the file. PyTorch's legacy (pre-1.6, non-zip)
// format is read too (pickle protocol 2, as torch.save wrote it), to the CPU.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/serialize.h"
#include "ember/tensor.h"

namespace ember {

// A file whose pickle Ember refuses (a global outside the allowlist, a bad opcode, a tensor that
// does not fit its storage, ...): Python's pickle.UnpicklingError, as torch.load(weights_only=True)
// raises. Damage to the zip archive itself throws ValueError (RuntimeError in Python, as PyTorch).
class EMBER_API UnpicklingError : public ValueError {
 public:
  using ValueError::ValueError;
};

struct PtValue;
using PtValuePtr = std::shared_ptr<const PtValue>;

// One object of a checkpoint. Containers hold their items by shared pointer: an object that the
// file references twice (the same tensor under two names) is one node.
struct EMBER_API PtValue {
  enum class Kind { None, Bool, Int, Float, String, List, Tuple, Dict, Tensor, Device, Dtype };
  Kind kind = Kind::None;
  bool boolean = false;
  int64_t integer = 0;
  double floating = 0;
  std::string string;                                      // String; Device: "cpu", "cuda:0"
  ScalarType dtype = kFloat;                               // Dtype
  std::vector<PtValuePtr> items;                           // List, Tuple
  std::vector<std::pair<PtValuePtr, PtValuePtr>> entries;  // Dict, in insertion order
  bool ordered = false;                                    // Dict: a collections.OrderedDict
  bool is_size = false;                                    // Tuple: a torch.Size
  // Tensor: the data (views of one storage share it), where it was saved ("cpu", "cuda:0"),
  // and whether it was a torch.nn.Parameter / required grad.
  Tensor tensor;
  std::string location;
  bool requires_grad = false, is_parameter = false;

  // The value under a string key of a Dict, or nullptr.
  PtValuePtr get(const std::string& key) const;
  // Python's repr-like type name, for error messages: "dict", "list", "int", "Tensor", ...
  const char* type_name() const;
};

struct PtLoadOptions {
  // Where the tensors go; the CPU unless given (libtorch has no Python map_location; the device
  // each tensor was saved from is kept in PtValue::location).
  std::optional<Device> device;
};

// The whole object a torch.save file holds.
EMBER_API PtValue load_pt_object(const std::string& path, const PtLoadOptions& options = {});
// A state dict: the file must hold a dict (or OrderedDict) of string -> tensor, as
// torch.save(model.state_dict(), path) writes. Otherwise throws ValueError saying what it holds
// (for a training checkpoint, its keys, so that load_pt_object(path).get("model") is the way).
EMBER_API NamedTensors load_pt(const std::string& path, const PtLoadOptions& options = {});
// A dict of string -> tensor as a state dict (ValueError naming `what` and the dict's keys and
// value types otherwise): ember::pt_as_state_dict(*ckpt.get("model")).
EMBER_API NamedTensors pt_as_state_dict(const PtValue& dict,
                                        const std::string& what = "the object");
// The same from bytes in memory (io.BytesIO of torch.save); `name` names them in errors.
EMBER_API PtValue load_pt_object_bytes(const std::string& bytes,
                                       const std::string& name = "<memory>",
                                       const PtLoadOptions& options = {});

// Writes `obj` as torch.save does (zip format, pickle protocol 2), atomically as ember::save.
// PyTorch 1.6+ reads it with torch.load, also with weights_only=True. Tensors that share a
// storage are written once and stay views of one storage; CUDA tensors keep their device as
// their location ("cuda:0"), so PyTorch restores them there unless given map_location.
EMBER_API void save_pt(const PtValue& obj, const std::string& path);
// The same into memory.
EMBER_API std::string save_pt_bytes(const PtValue& obj);
// A state dict: an OrderedDict of name -> tensor, as model.state_dict() is pickled.
EMBER_API void save_pt(const NamedTensors& state_dict, const std::string& path);

// Builders for checkpoints to save.
EMBER_API PtValuePtr pt_tensor(const Tensor& t);
EMBER_API PtValuePtr pt_int(int64_t v);
EMBER_API PtValuePtr pt_float(double v);
EMBER_API PtValuePtr pt_string(std::string v);
EMBER_API PtValuePtr pt_bool(bool v);
EMBER_API PtValuePtr pt_none();
EMBER_API PtValuePtr pt_list(std::vector<PtValuePtr> items);
EMBER_API PtValuePtr pt_tuple(std::vector<PtValuePtr> items);
// A dict with string keys (`ordered`: a collections.OrderedDict).
EMBER_API PtValuePtr pt_dict(std::vector<std::pair<std::string, PtValuePtr>> entries,
                             bool ordered = false);
EMBER_API PtValuePtr pt_state_dict(const NamedTensors& tensors);

}  // namespace ember
