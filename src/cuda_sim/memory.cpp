// Simulated device memory. Each device owns an address range (arena) of its own; cudaMalloc
// places page-aligned allocations in it with an inaccessible guard page after each, fills them
// with poison (uninitialised reads show up as NaN), and counts them against the device's
// capacity. Strict mode (EMBER_SIM_STRICT, default 1): a device's memory is accessible only
// while one of its streams runs a task, so host code that dereferences a device pointer, or a
// kernel that touches another idle device's memory, faults; memory released by cudaFree stays
// inaccessible until reused. The fault handler names who touched what, then aborts, as a
// segmentation fault would.
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "sim_state.h"

namespace cuda_sim {
namespace {

constexpr size_t kPage = 4096;

size_t round_up(size_t n, size_t to) {
  return (n + to - 1) / to * to;
}

bool strict() {
  static const bool s = [] {
    const char* e = std::getenv("EMBER_SIM_STRICT");
    return !(e && std::strcmp(e, "0") == 0);
  }();
  return s;
}

void protect(uintptr_t start, size_t n, bool accessible) {
  mprotect(reinterpret_cast<void*>(start), n, accessible ? PROT_READ | PROT_WRITE : PROT_NONE);
}

std::mutex g_pinned_mutex;
std::map<uintptr_t, size_t>& pinned_map() {
  static auto* m = new std::map<uintptr_t, size_t>;
  return *m;
}

Device* device_of_address(uintptr_t a) {
  for (int i = 0; i < device_count(); ++i) {
    Device* d = device(i);
    const auto base = reinterpret_cast<uintptr_t>(d->arena);
    if (a >= base && a < base + d->arena_size) return d;
  }
  return nullptr;
}

// The entry of `m` whose [start, start + size) holds `a`, or m.end().
template <typename Map, typename SizeOf>
typename Map::const_iterator find_range(const Map& m, uintptr_t a, SizeOf size_of) {
  auto it = m.upper_bound(a);
  if (it == m.begin()) return m.end();
  --it;
  return a < it->first + size_of(*it) ? it : m.end();
}

PointerInfo classify_locked(Device& d, uintptr_t a) {
  PointerInfo info;
  info.device = d.index;
  auto by_size = [](const auto& kv) { return kv.second; };
  if (auto it = find_range(d.live, a, by_size); it != d.live.end()) {
    info.base = it->first;
    info.size = d.requested.count(it->first) ? d.requested.at(it->first) : it->second;
    info.kind = a < info.base + info.size ? MemoryKind::DeviceLive : MemoryKind::DeviceUnmapped;
    if (info.kind == MemoryKind::DeviceLive) {
      auto to_end = [](const auto& kv) { return kv.second - kv.first; };
      if (auto f = find_range(d.cached_free, a, to_end); f != d.cached_free.end()) {
        info.kind = MemoryKind::DeviceCachedFree;
        info.base = f->first;
        info.size = f->second - f->first;
      }
    }
    return info;
  }
  if (auto it = find_range(d.holes, a, by_size); it != d.holes.end()) {
    info.kind = MemoryKind::DeviceFreed;
    info.base = it->first;
    info.size = it->second;
    return info;
  }
  info.kind = MemoryKind::DeviceUnmapped;
  return info;
}

// ---- the fault handler ----
struct sigaction g_previous_segv;

void write_err(const char* s) {
  ssize_t r = ::write(2, s, std::strlen(s));
  (void)r;
}

void on_segv(int sig, siginfo_t* si, void* ctx) {
  const auto a = reinterpret_cast<uintptr_t>(si->si_addr);
  Device* d = device_of_address(a);
  if (!d) {  // not ours: let the previous handler (or the default action) have it
    sigaction(SIGSEGV, &g_previous_segv, nullptr);
    return;
  }
  char who[512];
  if (tls_activity && tls_activity->what) {
    std::snprintf(who, sizeof(who), "%s '%s' running on cuda:%d",
                  std::strncmp(tls_activity->what, "cuda", 4) == 0 ? "operation" : "kernel",
                  tls_activity->what, tls_activity->device);
  } else {
    std::snprintf(who, sizeof(who), "host code (not a kernel)");
  }
  // No allocation here (a signal handler: the fault may have hit inside malloc), only buffers.
  char what[256];
  std::snprintf(what, sizeof(what), "memory of cuda:%d", d->index);
  if (d->m.try_lock()) {
    const PointerInfo info = classify_locked(*d, a);
    d->m.unlock();
    describe_into(what, sizeof(what), info, si->si_addr);
  }
  char buf[2048];
  std::snprintf(buf, sizeof(buf), "ember cuda-sim: %s accessed address %p, which is %s.%s\n", who,
                si->si_addr, what,
                tls_activity ? ""
                             : " Device memory cannot be dereferenced on the host: copy the "
                               "tensor to the CPU first (.cpu() or .to(kCPU)).");
  write_err(buf);
  signal(SIGABRT, SIG_DFL);
  abort();
}

void install_fault_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &g_previous_segv);
  });
}

}  // namespace

void init_memory(Device& d) {
  // Address space only (no memory is committed): room for the capacity plus guard pages.
  d.arena_size = round_up(d.capacity * 4 + (size_t(1) << 30), kPage);
  void* p = mmap(nullptr, d.arena_size, strict() ? PROT_NONE : PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    std::fprintf(stderr, "ember cuda-sim: cannot reserve %zu bytes of address space for cuda:%d\n",
                 d.arena_size, d.index);
    d.arena_size = 0;
    d.capacity = 0;
    return;
  }
  d.arena = static_cast<char*>(p);
  install_fault_handler();
}

void open_gate(int index) {
  Device* d = device(index);
  if (!d || !strict()) return;
  std::lock_guard<std::mutex> lock(d->m);
  if (d->gate_count++ == 0) {
    for (auto& [start, size] : d->live) protect(start, size, true);
  }
}

void close_gate(int index) {
  Device* d = device(index);
  if (!d || !strict()) return;
  std::lock_guard<std::mutex> lock(d->m);
  if (--d->gate_count == 0) {
    for (auto& [start, size] : d->live) protect(start, size, false);
  }
}

PointerInfo classify(const void* p) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  if (Device* d = device_of_address(a)) {
    std::lock_guard<std::mutex> lock(d->m);
    return classify_locked(*d, a);
  }
  PointerInfo info;
  std::lock_guard<std::mutex> lock(g_pinned_mutex);
  auto& m = pinned_map();
  if (auto it = find_range(m, a, [](const auto& kv) { return kv.second; }); it != m.end()) {
    info.kind = MemoryKind::Pinned;
    info.base = it->first;
    info.size = it->second;
  }
  return info;
}

void describe_into(char* buf, size_t n, const PointerInfo& info, const void* p) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  switch (info.kind) {
    case MemoryKind::Pageable:
      std::snprintf(buf, n,
                    "pageable host memory (not accessible to kernels; pin it or copy it to "
                    "the device)");
      return;
    case MemoryKind::Pinned:
      std::snprintf(buf, n, "pinned host memory (%zu bytes at %#zx)", info.size,
                    static_cast<size_t>(info.base));
      return;
    case MemoryKind::DeviceLive:
      std::snprintf(buf, n, "memory of cuda:%d (byte %zu of an allocation of %zu bytes)",
                    info.device, static_cast<size_t>(a - info.base), info.size);
      return;
    case MemoryKind::DeviceCachedFree:
      std::snprintf(buf, n,
                    "memory of cuda:%d that the caching allocator has freed (a free block of "
                    "%zu bytes at %#zx): use after free",
                    info.device, info.size, static_cast<size_t>(info.base));
      return;
    case MemoryKind::DeviceFreed:
      std::snprintf(buf, n,
                    "memory of cuda:%d released by cudaFree (a freed range of %zu bytes at %#zx): "
                    "use after free",
                    info.device, info.size, static_cast<size_t>(info.base));
      return;
    case MemoryKind::DeviceUnmapped:
      std::snprintf(buf, n,
                    "unallocated memory of cuda:%d (outside every allocation: out of bounds%s)",
                    info.device, info.base ? ", past the end of an allocation" : "");
      return;
  }
  std::snprintf(buf, n, "unknown memory");
}

std::string describe(const PointerInfo& info, const void* p) {
  char buf[256];
  describe_into(buf, sizeof(buf), info, p);
  return buf;
}

void* pinned_alloc(size_t n) {
  void* p = nullptr;
  if (posix_memalign(&p, kPage, round_up(std::max<size_t>(n, 1), kPage)) != 0) return nullptr;
  std::lock_guard<std::mutex> lock(g_pinned_mutex);
  pinned_map()[reinterpret_cast<uintptr_t>(p)] = n;
  return p;
}

bool pinned_free(void* p) {
  {
    std::lock_guard<std::mutex> lock(g_pinned_mutex);
    if (pinned_map().erase(reinterpret_cast<uintptr_t>(p)) == 0) return false;
  }
  std::free(p);
  return true;
}

bool is_pinned(const void* p) {
  return classify(p).kind == MemoryKind::Pinned;
}

void note_block_allocated(const void* ptr, size_t size) {
  const auto a = reinterpret_cast<uintptr_t>(ptr), end = a + size;
  Device* d = device_of_address(a);
  if (!d || size == 0) return;
  std::lock_guard<std::mutex> lock(d->m);
  auto& f = d->cached_free;
  auto it = f.upper_bound(a);
  if (it != f.begin()) --it;
  while (it != f.end() && it->first < end) {
    const uintptr_t s = it->first, e = it->second;
    if (e <= a) {
      ++it;
      continue;
    }
    it = f.erase(it);
    if (s < a) f[s] = a;
    if (e > end) f[end] = e;
  }
}

void note_block_freed(const void* ptr, size_t size, cudaStream_t stream) {
  const auto a = reinterpret_cast<uintptr_t>(ptr);
  Device* d = device_of_address(a);
  if (!d || size == 0) return;
  {
    std::lock_guard<std::mutex> lock(d->m);
    uintptr_t s = a, e = a + size;
    auto& f = d->cached_free;
    auto next = f.lower_bound(s);
    if (next != f.begin()) {
      auto prev = std::prev(next);
      if (prev->second >= s) {
        s = prev->first;
        e = std::max(e, prev->second);
        f.erase(prev);
      }
    }
    next = f.lower_bound(s);
    while (next != f.end() && next->first <= e) {
      e = std::max(e, next->second);
      next = f.erase(next);
    }
    f[s] = e;
  }
  // Poisoned in stream order: later work on the stream that reuses the block writes after it.
  Stream* s = stream ? resolve_stream(stream) : d->legacy;
  if (!s) s = d->legacy;
  void* p = const_cast<void*>(ptr);
  s->enqueue(Task{[p, size] { std::memset(p, kPoisonByte, size); }, {d->index}, "poison"});
}

}  // namespace cuda_sim

using namespace cuda_sim;

cudaError_t cudaMalloc(void** out, size_t n) {
  if (!out) return fail(cudaErrorInvalidValue);
  *out = nullptr;
  Device* d = device(current_device_index());
  if (!d) return fail(cudaErrorNoDevice);
  if (cudaError_t e = sticky_error(d->index)) return fail(e);
  if (n == 0) return cudaSuccess;
  const size_t need = round_up(n, kPage);
  std::lock_guard<std::mutex> lock(d->m);
  if (need > d->capacity - d->used) return fail(cudaErrorMemoryAllocation);
  const auto base = reinterpret_cast<uintptr_t>(d->arena);
  uintptr_t at = 0;
  if (d->bump + need + kPage <= d->arena_size) {  // fresh address space first: freed ranges
    at = base + d->bump;                          // stay inaccessible as long as possible
    d->bump += need + kPage;
  } else {
    for (auto it = d->holes.begin(); it != d->holes.end(); ++it) {
      if (it->second >= need + kPage) {
        at = it->first;
        const size_t rest = it->second - need - kPage;
        d->holes.erase(it);
        if (rest) d->holes[at + need + kPage] = rest;
        break;
      }
    }
    if (!at) return fail(cudaErrorMemoryAllocation);
  }
  d->live[at] = need;
  d->requested[at] = n;
  d->used += need;
  // Never-written device memory reads as poison; accessible only while the gate is open.
  protect(at, need, true);
  std::memset(reinterpret_cast<void*>(at), kPoisonByte, need);
  if (strict() && d->gate_count == 0) protect(at, need, false);
  *out = reinterpret_cast<void*>(at);
  return cudaSuccess;
}

cudaError_t cudaFree(void* p) {
  if (!p) return cudaSuccess;
  const auto a = reinterpret_cast<uintptr_t>(p);
  Device* d = device_of_address(a);
  if (!d) return fail(cudaErrorInvalidValue);
  if (cudaError_t e = sticky_error(d->index)) return fail(e);
  // cudaFree waits for the device, so work queued before it has finished with the memory.
  drain_device(*d);
  std::lock_guard<std::mutex> lock(d->m);
  auto it = d->live.find(a);
  if (it == d->live.end()) return fail(cudaErrorInvalidValue);
  const size_t size = it->second;
  d->live.erase(it);
  d->requested.erase(a);
  d->used -= size;
  // Fresh inaccessible pages: the memory goes back to the system, any later touch faults.
  mmap(p, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  size_t hole = size + kPage;  // with its guard page
  uintptr_t start = a;
  auto next = d->holes.find(start + hole);
  if (next != d->holes.end()) {
    hole += next->second;
    d->holes.erase(next);
  }
  auto prev = d->holes.lower_bound(start);
  if (prev != d->holes.begin()) {
    --prev;
    if (prev->first + prev->second == start) {
      start = prev->first;
      hole += prev->second;
      d->holes.erase(prev);
    }
  }
  d->holes[start] = hole;
  return cudaSuccess;
}

cudaError_t cudaHostAlloc(void** out, size_t n, unsigned) {
  if (!out) return fail(cudaErrorInvalidValue);
  if (device_count() == 0) return fail(cudaErrorNoDevice);
  *out = pinned_alloc(n);
  return *out ? cudaSuccess : fail(cudaErrorMemoryAllocation);
}
cudaError_t cudaMallocHost(void** out, size_t n) {
  return cudaHostAlloc(out, n, cudaHostAllocDefault);
}
cudaError_t cudaFreeHost(void* p) {
  if (!p) return cudaSuccess;
  return pinned_free(p) ? cudaSuccess : fail(cudaErrorInvalidValue);
}
