#pragma once
// Errors of torch.distributed, in C++ spelling: DistError and the kinds PyTorch distinguishes.
#include "ember/error.h"

namespace ember::distributed {

// Any failure of a process group, a collective or the rendezvous.
class EMBER_API DistError : public Error {
 public:
  using Error::Error;
};
// The rendezvous store: unreachable, timed out waiting for a key, or in an inconsistent state.
class EMBER_API DistStoreError : public DistError {
 public:
  using DistError::DistError;
};
// Network failures outside the store (a peer's connection, an address that cannot be used).
class EMBER_API DistNetworkError : public DistError {
 public:
  using DistError::DistError;
};
// A collective failed in the backend (Gloo or NCCL): a peer died, or the operation timed out.
class EMBER_API DistBackendError : public DistError {
 public:
  using DistError::DistError;
};

}  // namespace ember::distributed
