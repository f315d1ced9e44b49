#include "ember_train/init_from.h"

#include <fstream>

#include "ember/serialize.h"
#include "ember/serialize_pt.h"

namespace ember::train {
namespace {

bool is_pytorch_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  char head[4] = {};
  f.read(head, 4);
  const bool zip = f.gcount() == 4 && std::string(head, 4) == "PK\x03\x04";
  const bool pickle = f.gcount() >= 2 && static_cast<unsigned char>(head[0]) == 0x80;
  return zip || pickle;
}

// The state dict of a torch.save file: the object itself, or its "model" / "state_dict" entry.
NamedTensors pytorch_state_dict(const std::string& path) {
  const PtValue obj = load_pt_object(path);
  const std::string what = "--init-from " + path + ": the file";
  if (obj.kind == PtValue::Kind::Dict) {
    for (const char* key : {"model", "state_dict"}) {
      if (PtValuePtr inner = obj.get(key); inner && inner->kind == PtValue::Kind::Dict) {
        return pt_as_state_dict(*inner, what + "'s \"" + key + "\"");
      }
    }
  }
  return pt_as_state_dict(obj, what);
}

}  // namespace

void load_initial_weights(nn::Module& model, const std::string& path, std::ostream& out) {
  NamedTensors state;
  if (is_pytorch_file(path)) {
    state = pytorch_state_dict(path);
  } else {
    std::map<std::string, Tensor> tensors = load(path);
    state.assign(tensors.begin(), tensors.end());
  }
  try {
    model.load_state_dict(state, /*strict=*/true);
  } catch (const ValueError& e) {
    throw ValueError("--init-from " + path + ": " + e.what());
  }
  out << "Initialised from " << path << " (" << state.size() << " tensors)\n";
}

}  // namespace ember::train
