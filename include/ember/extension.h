#pragma once
// What an extension's source includes, as PyTorch's torch/extension.h: all of Ember's C++ API.
// ember.utils.cpp_extension.load_inline (Python) puts it in front of the C++ sources, as
// torch.utils.cpp_extension.load_inline does torch/extension.h.
#include "ember/cpp_extension.h"
#include "ember/cpp_extension_python.h"
#include "ember/ember.h"
