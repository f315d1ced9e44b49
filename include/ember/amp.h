#pragma once
// ember::amp: mixed precision (torch.autocast and torch.cuda.amp.GradScaler in C++ spelling).
#include "ember/amp/autocast.h"
#include "ember/amp/grad_scaler.h"
#include "ember/amp/scaling_ops.h"
