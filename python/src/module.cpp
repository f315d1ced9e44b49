// ember._C: the compiled half of the Python package (python/ember is the other half).
#include "common.h"

NB_MODULE(_C, m) {
  using namespace ember::python;
  m.doc() = "Ember's C++ library bound for Python; import ember, not this module";
  init_errors(m);
  init_dtype(m);
  init_device(m);
  nb::class_<ember::Tensor> cls(m, "Tensor", nb::type_slots(tensor_type_slots()));
  init_tensor(m, cls);
  init_return_types(m);
  init_ops_operators(cls);
  init_ops_elementwise(m, cls);
  init_ops_reduction(m, cls);
  init_ops_sort_scan(m, cls);
  init_ops_indexing(m, cls);
  init_ops_linalg(m, cls);
  init_ops_shape(m, cls);
  init_ops_elementwise_table(m, cls);
  init_ops_random(m, cls);
  init_ops_math(m, cls);  // after the table: adds scalar-first overloads to two of its ops
  init_factories(m);
  init_numpy(m, cls);
  init_autograd(m);
  init_cuda(m);
  init_parameter(cls);
  init_nn_functional(m);
  init_optim(m);
  init_data(m, cls);
  init_serialize(m);
  init_dlpack(m, cls);
  init_hooks(cls);
  init_python_function(m);
  init_cuda_streams(m);
  init_amp(m);
  init_profiler(m);
  init_distributed(m);
  init_raw_kernel(m);
  init_cpp_extension(m);
  init_backends(m);
  init_nn_init(m);
  init_nn_utils(m);
  init_checkpoint(m);
}
