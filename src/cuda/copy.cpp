// Copies that involve a CUDA tensor: device to device (same or peer device), host to device and
// device to host. A non_blocking copy from or to pinned memory is queued on the current stream
// and the pinned block is protected until it finishes; pageable memory copies block, as in
// PyTorch. Casts and layout changes happen on the device when the device holds the source, on
// the host otherwise, so only dense bytes cross the bus.
#include <chrono>
#include <cstring>

#include "core/device_audit.h"
#include "core/tensor_factory.h"
#include "cuda/cuda_backend.h"
#include "cuda/cuda_internal.h"

namespace ember::cuda {
namespace {

// An implicit host sync inside a copy: reported to the sync debug mode and the transfer audit.
void wait_for(cudaStream_t stream, const char* what) {
  audit::before_implicit_sync(what);
  const auto t0 = std::chrono::steady_clock::now();
  EMBER_CUDA_CHECK(cudaStreamSynchronize(stream));
  audit::record_sync(
      /*implicit=*/true,
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(),
      "cudaStreamSynchronize", what);
}

bool dense_match(const Tensor& t, const Tensor& like) {
  return t.is_contiguous() && t.dtype() == like.dtype() && t.sizes() == like.sizes();
}

void host_to_device(const Tensor& dst, const Tensor& src, bool non_blocking) {
  DeviceGuard guard(dst.device().index());
  cudaStream_t stream = detail::stream_of(dst);
  // A dense host buffer with dst's dtype and shape (cast and broadcast on the CPU).
  Tensor host = src;
  if (!dense_match(src, dst)) {
    host = make_empty(dst.sizes(), dst.dtype(), Device(kCPU));
    cpu_backend().copy(host, src, false);
  }
  Tensor dev = dst.is_contiguous() ? dst : make_empty(dst.sizes(), dst.dtype(), dst.device());
  if (dst.nbytes() == 0) return;
  EMBER_CUDA_CHECK(cudaMemcpyAsync(dev.data_ptr(), host.data_ptr(), dst.nbytes(),
                                   cudaMemcpyHostToDevice, stream));
  if (!dev.is_same(dst)) cast_copy(dst, dev);
  const bool async = non_blocking && host.is_same(src) &&
                     detail::record_pinned_use(src, stream, dst.device().index());
  audit::record_copy(audit::CopyDirection::HostToDevice, dst.nbytes(), src.is_pinned(), !async);
  if (!async) wait_for(stream, "a blocking host-to-device copy");
}

void device_to_host(const Tensor& dst, const Tensor& src, bool non_blocking) {
  DeviceGuard guard(src.device().index());
  cudaStream_t stream = detail::stream_of(src);
  Tensor dev = src;
  if (!dense_match(src, dst)) {
    dev = make_empty(dst.sizes(), dst.dtype(), src.device());
    cast_copy(dev, src);
  }
  if (dst.nbytes() == 0) return;
  if (dst.is_contiguous()) {
    EMBER_CUDA_CHECK(cudaMemcpyAsync(dst.data_ptr(), dev.data_ptr(), dst.nbytes(),
                                     cudaMemcpyDeviceToHost, stream));
    if (non_blocking && detail::record_pinned_use(dst, stream, src.device().index())) {
      audit::record_copy(audit::CopyDirection::DeviceToHost, dst.nbytes(), true, false);
      return;
    }
    audit::record_copy(audit::CopyDirection::DeviceToHost, dst.nbytes(), dst.is_pinned(), true);
    wait_for(stream, "a blocking device-to-host copy");
    return;
  }
  Tensor host = make_empty(dst.sizes(), dst.dtype(), Device(kCPU));
  EMBER_CUDA_CHECK(cudaMemcpyAsync(host.data_ptr(), dev.data_ptr(), dst.nbytes(),
                                   cudaMemcpyDeviceToHost, stream));
  audit::record_copy(audit::CopyDirection::DeviceToHost, dst.nbytes(), false, true);
  wait_for(stream, "a blocking device-to-host copy");
  cpu_backend().copy(dst, host, false);
}

// Between two GPUs: dense bytes travel peer to peer on dst's stream, after src's stream.
void device_to_device(const Tensor& dst, const Tensor& src) {
  const int sd = src.device().index(), dd = dst.device().index();
  Tensor packed = src;
  if (!dense_match(src, dst)) {
    packed = make_empty(dst.sizes(), dst.dtype(), src.device());
    cast_copy(packed, src);
  }
  Tensor landing = dst.is_contiguous() ? dst : make_empty(dst.sizes(), dst.dtype(), dst.device());
  if (dst.nbytes() == 0) return;
  audit::record_copy(audit::CopyDirection::DeviceToDevice, dst.nbytes(), false, false);
  Event ready;
  ready.record(current_stream(sd));
  Stream dst_stream = current_stream(dd);
  ready.wait(dst_stream);
  {
    DeviceGuard guard(dd);
    EMBER_CUDA_CHECK(cudaMemcpyPeerAsync(landing.data_ptr(), dd, packed.data_ptr(), sd,
                                         dst.nbytes(),
                                         static_cast<cudaStream_t>(dst_stream.stream())));
  }
  // src's stream (which frees `packed`) waits until dst's stream has read it.
  Event done;
  done.record(dst_stream);
  done.wait(current_stream(sd));
  if (!landing.is_same(dst)) cast_copy(dst, landing);
}

}  // namespace

void CudaBackend::copy(const Tensor& dst, const Tensor& src, bool non_blocking) {
  if (dst.is_cuda() && src.is_cuda()) {
    if (dst.device() == src.device()) {
      cast_copy(dst, src);
    } else {
      device_to_device(dst, src);
    }
  } else if (dst.is_cuda()) {
    host_to_device(dst, src, non_blocking);
  } else if (src.is_cuda()) {
    device_to_host(dst, src, non_blocking);
  } else {
    cpu_backend().copy(dst, src, non_blocking);
  }
}

}  // namespace ember::cuda
