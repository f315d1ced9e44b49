#pragma once
// ember::optional / ember::nullopt: libtorch's torch::optional / torch::nullopt spellings (its
// dataset interface returns torch::optional<size_t> from size()), which are std::optional here.
#include <optional>

namespace ember {
using std::nullopt;
using std::nullopt_t;
using std::optional;
}  // namespace ember
