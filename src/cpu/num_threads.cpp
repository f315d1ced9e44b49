// set_num_threads: one process-wide count, adopted lazily by each thread, because OpenMP's
// omp_set_num_threads changes only the calling thread's setting.
#include "cpu/num_threads.h"

#include <omp.h>

#include <atomic>

#include "ember/error.h"
#include "ember/parallel.h"

namespace ember {
namespace {

std::atomic<int> g_num_threads{0};  // 0: never set, OpenMP's default stands

}  // namespace

void set_num_threads(int n) {
  EMBER_CHECK(n > 0, Error, "set_num_threads expects a positive integer, got ", n);
  g_num_threads.store(n, std::memory_order_relaxed);
  omp_set_num_threads(n);
}

int get_num_threads() {
  return cpu::intra_op_threads();
}

namespace cpu {

int intra_op_threads() {
  const int wanted = g_num_threads.load(std::memory_order_relaxed);
  // Inside a parallel region the setting is the region's own (nested regions run on one thread).
  if (wanted > 0 && !omp_in_parallel() && omp_get_max_threads() != wanted) {
    omp_set_num_threads(wanted);
  }
  return omp_get_max_threads();
}

}  // namespace cpu
}  // namespace ember
