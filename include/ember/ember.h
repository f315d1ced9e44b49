#pragma once
// The umbrella header: #include <ember/ember.h> as one would #include <torch/torch.h>.
#include "ember/autograd.h"
#include "ember/cuda.h"
#include "ember/device.h"
#include "ember/dtype.h"
#include "ember/error.h"
#include "ember/nn.h"
#include "ember/ops.h"
#include "ember/optim.h"
#include "ember/options.h"
#include "ember/scalar.h"
#include "ember/tensor.h"
#include "ember/tensor_data.h"
