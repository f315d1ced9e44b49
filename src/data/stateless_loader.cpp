// make_data_loader's check that a libtorch-style dataset has a size.
#include "ember/data/stateless_loader.h"

namespace ember::data::detail {

size_t required_dataset_size(std::optional<size_t> size) {
  EMBER_CHECK(size.has_value(), ValueError,
              "make_data_loader: the dataset's size() returned nullopt; a sampler needs the "
              "dataset's size (return it from size(), or pass a sampler)");
  return *size;
}

}  // namespace ember::data::detail
