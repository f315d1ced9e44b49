#pragma once
// ember::amp: mixed precision (torch.autocast and torch.cuda.amp.GradScaler in C++ spelling).
#include "ember/amp/autocast.h"
