# Sourced by scripts/train and scripts/test: which CUDA build this machine should make.
# Real-GPU kernels are compiled only for the GPUs this machine has (CMake's "native"); with no
# GPU listed by nvidia-smi the CUDA backend is left out, since nothing here could run it (the
# simulated build, -DEMBER_CUDA=SIM, still compiles and tests the CUDA sources). EMBER_CUDA=
# ON|OFF|SIM|AUTO overrides the choice; EMBER_CUDA_ARCHS="80;90" asks for other architectures.
# Sets the array cuda_args; $1 names the caller for the message.
choose_cuda_args() {
  cuda_args=()
  if [ -n "${EMBER_CUDA:-}" ]; then
    cuda_args+=(-DEMBER_CUDA="$EMBER_CUDA")
  elif command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    cuda_args+=(-DEMBER_CUDA=AUTO)
  else
    cuda_args+=(-DEMBER_CUDA=OFF)
    echo "$1: no GPU listed by nvidia-smi: building for the CPU (EMBER_CUDA=ON builds CUDA anyway)"
  fi
  if [ "${cuda_args[0]}" != "-DEMBER_CUDA=OFF" ] && [ "${cuda_args[0]}" != "-DEMBER_CUDA=SIM" ]; then
    cuda_args+=(-DCMAKE_CUDA_ARCHITECTURES="${EMBER_CUDA_ARCHS:-native}")
  fi
}
