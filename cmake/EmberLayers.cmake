# The layers of src/: the one table of which folder belongs to which layer and which layers each
# layer's code may include, and of which folders each build compiles. cmake/EmberLibrary.cmake
# builds one object library per layer from its folders, whose only view of src/ is a folder of
# links to the folders it may include (so an upward include does not compile), and
# cmake/check_layers.cmake checks every #include of src/ against the same table (headers too, and
# "../" paths, which the compiler alone would not catch). docs/architecture.md explains the layers.
#
# EMBER_LAYER_<layer>_FOLDERS: the folders of src/ in the layer; their *.cpp and *.cu (not
#                              recursive) are the layer's sources, those of a folder of the second
#                              table (EMBER_FOLDER_CHOICES, below) in the builds that choose it.
# EMBER_LAYER_<layer>_USES:    the other layers its code may include (listed in full, not
#                              transitively). The public headers (include/ember) are open to all.
# Bottom up:
set(EMBER_LAYERS kernel_math core backends frontend amp profiler distributed extension cuda_sim)

# The kernel math both backends compile, g++ for the CPU and nvcc for CUDA (EMBER_HD): the op
# lists and their functors, dtype dispatch, Philox, casts, reductions, scans, softmax rows, sort
# order, pooling windows, the strided layout. Headers only, on the public value types alone
# (include/ember: dtypes, half, macros, the Tensor of reduce_plan.h and strided_layout.h); every
# layer above core may include it, as core's headers do (core/backend.h names its op enums).
set(EMBER_LAYER_kernel_math_FOLDERS kernel_math)
set(EMBER_LAYER_kernel_math_USES "")

# Tensors, dtypes, devices, the Backend interface, the autograd tape, and the hooks that the layers
# above attach to (core/listener.h, core/autocast_hook.h). core/tensor.cpp records autograd nodes
# and autograd/node_impl.h builds tensors, so the two folders are one layer.
set(EMBER_LAYER_core_FOLDERS core autograd)
set(EMBER_LAYER_core_USES kernel_math)

# The backends: they implement core/backend.h. cuda_stub stands in for cuda and implements one of
# its headers (cuda/cublas_workspace.h), so both folders are visible in either build. What a GPU
# build and the simulator do differently is cuda_nvcc or cuda_sim/backend (one is built; src/cuda
# reaches its headers through the include path). meta computes shapes and no data.
set(EMBER_LAYER_backends_FOLDERS cuda_policy cpu cpu_dnnl cpu_dnnl_off cuda cuda_stub cuda_nvcc
  cuda_sim/backend cuda_cudnn cuda_cudnn_off meta)
set(EMBER_LAYER_backends_USES kernel_math core)

# The front ends (include/ember/ops.h, nn, optim, data, serialize): they reach a backend only
# through core's backend_for().
set(EMBER_LAYER_frontend_FOLDERS ops nn optim data serialize)
set(EMBER_LAYER_frontend_USES kernel_math core)

# Attach to core's hooks: autocast (core/autocast_hook.h) and the profiler (core/listener.h).
set(EMBER_LAYER_amp_FOLDERS amp)
set(EMBER_LAYER_amp_USES kernel_math core)
set(EMBER_LAYER_profiler_FOLDERS profiler)
set(EMBER_LAYER_profiler_USES kernel_math core)

# DistributedDataParallel hooks gradients with the front ends' elementwise helpers.
set(EMBER_LAYER_distributed_FOLDERS distributed)
set(EMBER_LAYER_distributed_USES kernel_math core frontend)

set(EMBER_LAYER_extension_FOLDERS extension)
set(EMBER_LAYER_extension_USES kernel_math core)

# Folders that reach a backend only through the front ends of src/ops (which hold the checks, the
# dtype rules and the gradients): cmake/check_layers.cmake rejects "core/backend.h" and
# backend_for( in them.
set(EMBER_FRONT_END_CALLERS nn optim data serialize distributed)

# A library of its own (src/cuda_sim/CMakeLists.txt, on SIM builds), below everything: it sees no
# folder of src/ (its backend/ sub-folder belongs to the backends layer). Not part of libember.
set(EMBER_LAYER_cuda_sim_FOLDERS cuda_sim)
set(EMBER_LAYER_cuda_sim_USES "")
set(EMBER_LAYER_cuda_sim_OWN_LIBRARY ON)

# The second table, the alternatives: the folders that only some builds compile, one row per
# choice, "<variable> <folder built when it is true> <folder built when it is false, or ->". The
# variables are set by cmake/EmberCuda.cmake and cmake/EmberDependencies.cmake. Each folder is one
# of the table above or a sub-folder of one (cpu/simd, distributed/gloo), in that folder's layer.
# A layer compiles its other folders first, then the folders chosen here, in this order.
set(EMBER_FOLDER_CHOICES
  # Vector math kernels built per instruction set, when SLEEF is found (x86-64).
  "EMBER_WITH_SLEEF         cpu/simd           -"
  # CPU bfloat16 GEMMs through oneDNN, or "not available" (the caller widens to float32).
  "EMBER_WITH_DNNL          cpu_dnnl           cpu_dnnl_off"
  # The CUDA backend (nvcc or the simulator), or the stub that says CUDA is not built.
  "EMBER_WITH_CUDA_BACKEND  cuda               cuda_stub"
  # The half of the CUDA backend that differs: on a GPU (nvcc) or on the simulator.
  "EMBER_WITH_CUDA          cuda_nvcc          -"
  "EMBER_CUDA_SIM           cuda_sim/backend   -"
  # The CUDA backend's convolutions through cuDNN (found, or the simulator's shim), or none.
  "EMBER_WITH_CUDNN         cuda_cudnn         -"
  "EMBER_CUDA_WITHOUT_CUDNN cuda_cudnn_off     -"
  # torch.distributed backends, or the ones that say why they are missing.
  "EMBER_WITH_GLOO          distributed/gloo   distributed/gloo_unavailable"
  "EMBER_WITH_NCCL          distributed/nccl   distributed/nccl_unavailable")

# The folders whose sources include CUDA headers (the toolkit's or the simulator's). A layer
# compiles them in an object library of their own, ember_<layer>_cuda, the only one that sees
# those headers, so that every other source compiles alike on GPU and SIM builds (one ccache entry).
set(EMBER_CUDA_HEADER_FOLDERS cuda cuda_stub cuda_nvcc cuda_sim/backend cuda_cudnn cuda_cudnn_off
  distributed/nccl)

# The folders that `layer`'s code may include: its own and those of the layers it uses.
function(ember_layer_visible_folders layer out)
  set(folders ${EMBER_LAYER_${layer}_FOLDERS})
  foreach(used ${EMBER_LAYER_${layer}_USES})
    list(APPEND folders ${EMBER_LAYER_${used}_FOLDERS})
  endforeach()
  set(${out} ${folders} PARENT_SCOPE)
endfunction()

# The folder of the table that a path relative to src/ lies in: a nested folder listed in the table
# (cuda_sim/backend) before its parent (cuda_sim). Empty when no layer lists it.
function(ember_layer_folder_of rel out)
  string(REGEX MATCH "^[^/]+/[^/]+" nested "${rel}")
  string(REGEX MATCH "^[^/]+" top "${rel}")
  set(found "")
  foreach(layer ${EMBER_LAYERS})
    if(nested AND nested IN_LIST EMBER_LAYER_${layer}_FOLDERS)
      set(${out} ${nested} PARENT_SCOPE)
      return()
    endif()
    if(top IN_LIST EMBER_LAYER_${layer}_FOLDERS)
      set(found ${top})
    endif()
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

# The layer of a folder of the table or of a sub-folder of one (cpu/simd): empty when none.
function(ember_layer_of rel out)
  ember_layer_folder_of(${rel} folder)
  foreach(layer ${EMBER_LAYERS})
    if(folder AND folder IN_LIST EMBER_LAYER_${layer}_FOLDERS)
      set(${out} ${layer} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out} "" PARENT_SCOPE)
endfunction()
