// Compiled with the core layer's include directories by test layering_compiler_rejects_upward:
// the profiler is above core, so this include must not be found.
#include "profiler/session.h"
