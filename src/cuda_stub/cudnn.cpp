// Without the CUDA backend there is no cuDNN: torch.backends.cudnn.is_available() is false.
#include "ember/backends.h"

namespace ember::backends::cudnn {
bool is_available() {
  return false;
}
int64_t version() {
  return -1;
}
}  // namespace ember::backends::cudnn
