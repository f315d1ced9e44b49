#pragma once
// An optimizer's state from PyTorch's optimizer.state_dict() in a torch.save file, so that
// training started in PyTorch resumes in Ember with the same next steps:
//
//   ember::PtValue ckpt = ember::load_pt_object("ckpt.pt");
//   model->load_state_dict(ember::pt_as_state_dict(*ckpt.get("model")));
//   ember::optim::Adam opt(model->parameters(), ember::optim::AdamOptions(1e-3));
//   ember::load_pt_optimizer_state(opt, *ckpt.get("optimizer"));
#include "ember/optim/optimizer.h"
#include "ember/serialize_pt.h"

namespace ember {

// PyTorch's {"state": {index: {name: tensor}}, "param_groups": [{option: value, "params": [..]}]}
// as Ember's flat optimizer state dict (optim/optimizer.h): each group's options by name (a
// tuple option such as betas becomes beta1, beta2), its params as indices, each parameter's
// state tensors by name (PyTorch's float step counts included). Options that PyTorch has and
// Ember's optimizer does not are left out when off (None or False: foreach, maximize,
// capturable, differentiable, fused); one that is on throws ValueError naming it.
EMBER_API optim::OptimizerStateDict pt_optimizer_state_dict(const PtValue& state_dict,
                                                            const optim::Optimizer& optimizer);
// optimizer.load_state_dict(pt_optimizer_state_dict(state_dict, optimizer)).
EMBER_API void load_pt_optimizer_state(optim::Optimizer& optimizer, const PtValue& state_dict);

}  // namespace ember
