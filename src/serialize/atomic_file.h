#pragma once
// Atomic file replacement shared by the checkpoint writers (safetensors, PyTorch's zip format): a
// temporary file in the same directory is written and fsync'ed, then renamed over the path, and
// the directory fsync'ed, so a failed or interrupted save leaves the previous file intact.
#include <cstddef>
#include <functional>
#include <string>

namespace ember::serialize_detail {

// Appends n bytes to the file being written.
using WriteBytes = std::function<void(const void* data, size_t n)>;

// Creates the temporary, lets `produce` write the whole content through the WriteBytes it is
// given, then makes it `path`. On any failure (a system call, or an exception from `produce`)
// the temporary is removed and `path` is untouched; system errors throw ember::Error naming the
// path. Temporaries left by dead processes are removed first (remove_stale_temporaries).
void write_file_atomically(const std::string& path,
                           const std::function<void(const WriteBytes&)>& produce);

// Removes the temporaries of `path` that processes no longer alive left behind (a save killed
// before its rename). Best effort, never throws.
void remove_stale_temporaries(const std::string& path) noexcept;

}  // namespace ember::serialize_detail
