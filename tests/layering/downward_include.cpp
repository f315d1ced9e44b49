// Compiled with the profiler layer's include directories by test
// layering_compiler_accepts_downward (the control for layering_compiler_rejects_upward): core is
// below the profiler, so this compiles.
#include "core/device_audit.h"
