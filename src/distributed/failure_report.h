#pragma once
// What to tell the user when a collective fails: which rank is gone (the store knows whose
// connection closed without a goodbye) or that the operation timed out, plus the backend's own
// words.
#include <chrono>
#include <string>

#include "ember/distributed/store.h"

namespace ember::distributed {

std::string describe_collective_failure(const std::string& backend, const std::string& op, int rank,
                                        int size, const std::string& backend_message,
                                        bool timed_out, std::chrono::milliseconds timeout,
                                        Store* store);

}  // namespace ember::distributed
