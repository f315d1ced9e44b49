// ember._C._backends: the switches of ember.backends and ember.use_deterministic_algorithms
// (ember/backends.h); the Python modules over them give PyTorch's attribute spelling.
#include "ember/backends.h"
#include "common.h"
#include "ember/cuda.h"

namespace ember::python {

void init_backends(nb::module_& parent) {
  nb::module_ m = parent.def_submodule("_backends", "ember.backends' compiled half");
  namespace cudnn = backends::cudnn;
  m.def("use_deterministic_algorithms", &use_deterministic_algorithms, "mode"_a,
        "warn_only"_a = false);
  m.def("are_deterministic_algorithms_enabled", &are_deterministic_algorithms_enabled);
  m.def("is_deterministic_algorithms_warn_only_enabled",
        &is_deterministic_algorithms_warn_only_enabled);
  m.def("matmul_allow_tf32", &cuda::matmul_allow_tf32);
  m.def("set_matmul_allow_tf32", &cuda::set_matmul_allow_tf32, "allow"_a);
  m.def("cudnn_is_available", &cudnn::is_available);
  m.def("cudnn_version", &cudnn::version);
  m.def("cudnn_enabled", &cudnn::enabled);
  m.def("set_cudnn_enabled", &cudnn::set_enabled, "value"_a);
  m.def("cudnn_benchmark", &cudnn::benchmark);
  m.def("set_cudnn_benchmark", &cudnn::set_benchmark, "value"_a);
  m.def("cudnn_deterministic", &cudnn::deterministic);
  m.def("set_cudnn_deterministic", &cudnn::set_deterministic, "value"_a);
  m.def("cudnn_allow_tf32", &cudnn::allow_tf32);
  m.def("set_cudnn_allow_tf32", &cudnn::set_allow_tf32, "value"_a);
  m.def("mkldnn_is_available", &backends::mkldnn::is_available);
  m.def("mkldnn_enabled", &backends::mkldnn::enabled);
  m.def("set_mkldnn_enabled", &backends::mkldnn::set_enabled, "value"_a);
}

}  // namespace ember::python
