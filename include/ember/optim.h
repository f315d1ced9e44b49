#pragma once
// Optimizers, learning-rate schedulers and gradient clipping (torch::optim, torch::nn::utils).
#include "ember/optim/adam.h"
#include "ember/optim/adamw.h"
#include "ember/optim/clip_grad.h"
#include "ember/optim/cosine_annealing_lr.h"
#include "ember/optim/lbfgs.h"
#include "ember/optim/lr_scheduler.h"
#include "ember/optim/optimizer.h"
#include "ember/optim/rmsprop.h"
#include "ember/optim/sgd.h"
#include "ember/optim/step_lr.h"
