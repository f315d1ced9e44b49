// ember::save / ember::load of an optimizer: its state dict through the safetensors writer and
// reader, tagged with the optimizer's kind so a mismatched file is named, not half-applied.
#include "ember/serialize_optimizer.h"
#include "serialize/content_kind.h"

namespace ember {

void save(const optim::Optimizer& optimizer, const std::string& path) {
  const optim::OptimizerStateDict state = optimizer.state_dict();
  save(state, path,
       {{serialize_detail::kContentKey, "optimizer"},
        {"ember.optimizer", optimizer.defaults().type_name()}});
}

void load(optim::Optimizer& optimizer, const std::string& path) {
  const std::string what = std::string("an optimizer (") + optimizer.defaults().type_name() + ")";
  const TensorMetadata metadata = load_metadata(path);
  serialize_detail::expect_content(metadata, "optimizer", false, what, path);
  auto kind = metadata.find("ember.optimizer");
  EMBER_CHECK(kind != metadata.end() && kind->second == optimizer.defaults().type_name(),
              ValueError, "ember::load(", what, ", '", path, "'): the file holds the state of ",
              kind == metadata.end() ? std::string("an unnamed optimizer") : kind->second, ", not ",
              optimizer.defaults().type_name());
  try {
    optimizer.load_state_dict(load(path));
  } catch (const ValueError& e) {
    throw ValueError("ember::load(" + what + ", '" + path + "'): " + e.what());
  }
}

}  // namespace ember
