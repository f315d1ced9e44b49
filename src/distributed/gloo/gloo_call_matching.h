#pragma once
// What keeps mismatched calls apart: each collective's signature and the Gloo tag hashed from it,
// the slots of send/recv, and the store keys and delay of the mismatch probe (see
// process_group_gloo_impl.h).
// Private to process_group_gloo.cpp, its one includer (hence the unnamed namespace).
#include <chrono>
#include <cstdint>
#include <string>

#include "ember/tensor.h"

namespace ember::distributed {
namespace {

bool is_timeout_message(const std::string& m) {
  return m.find("Timed out") != std::string::npos || m.find("timed out") != std::string::npos;
}

// How long a collective may block before its rank publishes what it is waiting in, so that a
// mismatch with another rank's call is found (a correct collective that slow costs one store
// request).
constexpr auto kMismatchProbeAfter = std::chrono::seconds(1);
// Store keys (under the group's store prefix): the first signature published for collective #n,
// and the first mismatch found.
const char* const kSignatureKeyPrefix = "ember/collective/";
const char* const kMismatchKey = "ember/collective_mismatch";

// "float32", as in the messages of PyTorch (torch.float32 without its module).
std::string dtype_name(ScalarType t) {
  std::string name = python_name(t);
  return name.rfind("torch.", 0) == 0 ? name.substr(6) : name;
}

// What a collective is, for matching it with the other ranks' calls: e.g.
// "all_reduce(float32, 4 elements, SUM)".
std::string signature_of(const char* op, const Tensor& t, const std::string& extra = {}) {
  return detail::str_cat(op, "(", dtype_name(t.dtype()), ", ", t.numel(),
                         t.numel() == 1 ? " element" : " elements", extra.empty() ? "" : ", ",
                         extra, ")");
}

// The Gloo tag of collective #seq: FNV-1a over the sequence number and the signature, folded to
// the 32 bits Gloo takes. Calls that differ in any part of their signature get different slots
// (a collision needs 2^32 to 1 odds).
uint32_t collective_tag(uint64_t seq, const std::string& signature) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](unsigned char c) {
    h ^= c;
    h *= 1099511628211ull;
  };
  for (int i = 0; i < 8; ++i) mix(static_cast<unsigned char>(seq >> (8 * i)));
  for (char c : signature) mix(static_cast<unsigned char>(c));
  return static_cast<uint32_t>(h ^ (h >> 32));
}

// The Gloo slot of a send or recv of `nbytes` bytes with the user's `tag`. The byte count is part
// of it, so that a send and a recv of different sizes never pair up (Gloo would abort the
// receiving process, on its IO thread, when more bytes arrive than the recv posted): byte counts
// below 8 MiB exactly, larger ones as a 23-bit hash with the top bit set. The top byte 0x80 keeps
// these slots apart from the collectives' (Gloo's Slot::build puts prefixes 1-8 there).
uint64_t p2p_slot(int tag, size_t nbytes) {
  uint64_t size_bits = nbytes;
  if (nbytes >= (size_t(1) << 23)) {
    uint64_t h = nbytes * 0x9E3779B97F4A7C15ull;
    size_bits = ((h >> 40) & 0x7FFFFF) | 0x800000;
  }
  return (uint64_t{0x80} << 56) | (size_bits << 32) | static_cast<uint32_t>(tag);
}

}  // namespace
}  // namespace ember::distributed
