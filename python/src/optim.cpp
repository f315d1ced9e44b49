// ember._C._optim.Optimizer: the C++ optimizers (include/ember/optim) behind ember.optim's Python
// classes. Python keeps PyTorch's param_groups (a list of dicts); every step() reads each group's
// hyper-parameters and parameter list from those dicts and runs the whole update in one C++ call
// (Adam's fused CPU kernel included), so changing group['lr'] between steps works as in PyTorch.
#include <nanobind/stl/function.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>

#include <map>
#include <memory>
#include <string>

#include "common.h"

namespace ember::python {
namespace {

using optim::OptimizerOptions;

double num(const nb::dict& g, const char* key) {
  if (!g.contains(key))
    throw nb::key_error((std::string("parameter group has no '") + key + "'").c_str());
  return nb::cast<double>(g[key]);
}

// A bool option; false when the group lacks it (maximize is not an option of every optimizer).
bool flag(const nb::dict& g, const char* key) {
  return g.contains(key) && nb::cast<bool>(g[key]);
}

std::pair<double, double> pair_of(const nb::dict& g, const char* key) {
  if (!g.contains(key))
    throw nb::key_error((std::string("parameter group has no '") + key + "'").c_str());
  return nb::cast<std::pair<double, double>>(g[key]);
}

// Options of the Adam family (Adam, AdamW, Adamax, NAdam, RAdam): lr, betas, eps, weight_decay.
template <typename Options>
Options adam_like(const nb::dict& g) {
  auto betas = pair_of(g, "betas");
  Options o(num(g, "lr"));
  o.betas({betas.first, betas.second}).eps(num(g, "eps")).weight_decay(num(g, "weight_decay"));
  return o;
}

// The options of `kind` from a param_group dict, PyTorch's keys (betas, etas and step_sizes as
// pairs, max_eval and line_search_fn may be None).
std::unique_ptr<OptimizerOptions> options_from(const std::string& kind, const nb::dict& g) {
  const bool maximize = flag(g, "maximize");
  if (kind == "SGD") {
    optim::SGDOptions o(num(g, "lr"));
    o.momentum(num(g, "momentum")).dampening(num(g, "dampening"));
    o.weight_decay(num(g, "weight_decay")).nesterov(flag(g, "nesterov")).maximize(maximize);
    return o.clone();
  }
  if (kind == "Adam") {
    return adam_like<optim::AdamOptions>(g).amsgrad(flag(g, "amsgrad")).maximize(maximize).clone();
  }
  if (kind == "AdamW") {
    return adam_like<optim::AdamWOptions>(g).amsgrad(flag(g, "amsgrad")).maximize(maximize).clone();
  }
  if (kind == "Adamax") return adam_like<optim::AdamaxOptions>(g).maximize(maximize).clone();
  if (kind == "RAdam") return adam_like<optim::RAdamOptions>(g).clone();
  if (kind == "NAdam") {
    return adam_like<optim::NAdamOptions>(g).momentum_decay(num(g, "momentum_decay")).clone();
  }
  if (kind == "RMSprop") {
    optim::RMSpropOptions o(num(g, "lr"));
    o.alpha(num(g, "alpha")).eps(num(g, "eps")).weight_decay(num(g, "weight_decay"));
    o.momentum(num(g, "momentum")).centered(flag(g, "centered")).maximize(maximize);
    return o.clone();
  }
  if (kind == "Adagrad") {
    optim::AdagradOptions o(num(g, "lr"));
    o.lr_decay(num(g, "lr_decay")).weight_decay(num(g, "weight_decay"));
    o.initial_accumulator_value(num(g, "initial_accumulator_value")).eps(num(g, "eps"));
    return o.maximize(maximize).clone();
  }
  if (kind == "Adadelta") {
    optim::AdadeltaOptions o(num(g, "lr"));
    o.rho(num(g, "rho")).eps(num(g, "eps")).weight_decay(num(g, "weight_decay"));
    return o.maximize(maximize).clone();
  }
  if (kind == "Rprop") {
    optim::RpropOptions o(num(g, "lr"));
    auto etas = pair_of(g, "etas");
    auto sizes = pair_of(g, "step_sizes");
    o.etas({etas.first, etas.second}).step_sizes({sizes.first, sizes.second});
    return o.maximize(maximize).clone();
  }
  if (kind == "ASGD") {
    optim::ASGDOptions o(num(g, "lr"));
    o.lambd(num(g, "lambd")).alpha(num(g, "alpha")).t0(num(g, "t0"));
    o.weight_decay(num(g, "weight_decay"));
    return o.maximize(maximize).clone();
  }
  if (kind == "LBFGS") {
    if (maximize) throw NotImplementedError("LBFGS has no maximize option");
    optim::LBFGSOptions o(num(g, "lr"));
    o.max_iter(nb::cast<int64_t>(g["max_iter"]));
    if (!g["max_eval"].is_none()) o.max_eval(nb::cast<int64_t>(g["max_eval"]));
    o.tolerance_grad(num(g, "tolerance_grad")).tolerance_change(num(g, "tolerance_change"));
    o.history_size(nb::cast<int64_t>(g["history_size"]));
    if (!g["line_search_fn"].is_none())
      o.line_search_fn(nb::cast<std::string>(g["line_search_fn"]));
    return o.clone();
  }
  throw ValueError("unknown optimizer kind " + kind);
}

std::vector<Tensor> params_of(const nb::dict& g) {
  return nb::cast<std::vector<Tensor>>(g["params"]);
}

optim::OptimizerParamGroup group_from(const std::string& kind, const nb::dict& g) {
  auto o = options_from(kind, g);
  o->validate();
  return optim::OptimizerParamGroup(params_of(g), std::move(o));
}

template <typename Opt, typename Options>
std::unique_ptr<optim::Optimizer> make_as(std::vector<optim::OptimizerParamGroup> gs) {
  const auto defaults = static_cast<const Options&>(gs[0].options());
  return std::make_unique<Opt>(std::move(gs), defaults);
}

std::unique_ptr<optim::Optimizer> make(const std::string& kind, const nb::list& groups) {
  std::vector<optim::OptimizerParamGroup> gs;
  for (nb::handle g : groups) gs.push_back(group_from(kind, nb::borrow<nb::dict>(g)));
  EMBER_CHECK(!gs.empty(), ValueError, "optimizer got an empty parameter list");
  using namespace optim;
  if (kind == "SGD") return make_as<SGD, SGDOptions>(std::move(gs));
  if (kind == "Adam") return make_as<Adam, AdamOptions>(std::move(gs));
  if (kind == "AdamW") return make_as<AdamW, AdamWOptions>(std::move(gs));
  if (kind == "Adamax") return make_as<Adamax, AdamaxOptions>(std::move(gs));
  if (kind == "RAdam") return make_as<RAdam, RAdamOptions>(std::move(gs));
  if (kind == "NAdam") return make_as<NAdam, NAdamOptions>(std::move(gs));
  if (kind == "RMSprop") return make_as<RMSprop, RMSpropOptions>(std::move(gs));
  if (kind == "Adagrad") return make_as<Adagrad, AdagradOptions>(std::move(gs));
  if (kind == "Adadelta") return make_as<Adadelta, AdadeltaOptions>(std::move(gs));
  if (kind == "Rprop") return make_as<Rprop, RpropOptions>(std::move(gs));
  if (kind == "ASGD") return make_as<ASGD, ASGDOptions>(std::move(gs));
  return make_as<LBFGS, LBFGSOptions>(std::move(gs));
}

struct PyOptimizer {
  std::string kind;
  std::unique_ptr<optim::Optimizer> opt;

  // The C++ groups take the Python groups' parameters and hyper-parameters.
  void sync(const nb::list& groups) {
    auto& gs = opt->param_groups();
    EMBER_CHECK(gs.size() == groups.size(), ValueError, "the optimizer has ", gs.size(),
                " parameter groups but param_groups holds ", groups.size(),
                " (use add_param_group to add one)");
    for (size_t i = 0; i < gs.size(); ++i) {
      nb::dict g = nb::borrow<nb::dict>(groups[i]);
      gs[i].set_options(options_from(kind, g));
      nb::list ps = nb::borrow<nb::list>(g["params"]);
      auto& mine = gs[i].params();
      bool same = mine.size() == ps.size();
      for (size_t j = 0; same && j < mine.size(); ++j)
        same = nb::cast<const Tensor&>(ps[j]).is_same(mine[j]);
      if (!same) mine = params_of(g);
    }
  }
};

nb::object step(PyOptimizer& self, const nb::list& groups, nb::handle closure) {
  self.sync(groups);
  optim::LossClosure fn;
  if (!closure.is_none()) {
    nb::object c = nb::borrow(closure);
    fn = [c]() {
      nb::gil_scoped_acquire acquire;
      nb::object r = c();
      return r.is_none() ? Tensor() : nb::cast<Tensor>(r);
    };
  }
  Tensor loss;
  {
    nb::gil_scoped_release release;
    loss = self.opt->step(fn);
  }
  return tensor_or_none(loss);
}

// PyTorch 1.13's RMSprop, Adadelta and Rprop count steps in a Python int, the others (LBFGS
// aside) in a float tensor.
bool counts_in_int(const std::string& kind) {
  return kind == "RMSprop" || kind == "Adadelta" || kind == "Rprop";
}

// PyTorch's view of one parameter's state: the state tensors by name, 'step' as a float tensor
// (as PyTorch 1.13 keeps it); None before the first step.
nb::object state_of(const PyOptimizer& self, const Tensor& p) {
  auto it = self.opt->state().find(p.unsafeGetTensorImpl());
  if (it == self.opt->state().end() || !it->second) return nb::none();
  nb::dict d;
  for (auto& [name, t] : it->second->tensors()) {
    if (name == "step" && counts_in_int(self.kind)) {
      d[name.c_str()] = t.item().toLong();
    } else if (name == "step" && self.kind != "LBFGS") {
      d[name.c_str()] = t.to(kFloat);
    } else {
      d[name.c_str()] = t;
    }
  }
  // PyTorch's SGD keeps the key without momentum.
  if (self.kind == "SGD" && !d.contains("momentum_buffer")) d["momentum_buffer"] = nb::none();
  return d;
}

}  // namespace

void init_optim(nb::module_& m) {
  nb::module_ om = m.def_submodule("_optim", "the C++ optimizers behind ember.optim");
  nb::class_<PyOptimizer>(om, "Optimizer")
      .def(
          "__init__",
          [](PyOptimizer* self, const std::string& kind, const nb::list& groups) {
            new (self) PyOptimizer{kind, make(kind, groups)};
          },
          "kind"_a, "param_groups"_a)
      .def("step", &step, "param_groups"_a, "closure"_a = nb::none())
      .def(
          "add_param_group",
          [](PyOptimizer& self, const nb::dict& g) {
            self.opt->add_param_group(group_from(self.kind, g));
          },
          "param_group"_a)
      .def("state_of", &state_of, "param"_a)
      .def("state_dict",
           [](const PyOptimizer& self) {
             nb::gil_scoped_release release;
             return self.opt->state_dict();
           })
      // Restores per-parameter state (PyTorch's state entries as "state.<i>.<name>") after
      // the groups' hyper-parameters, already updated in the Python dicts, are synced.
      .def(
          "load_state",
          [](PyOptimizer& self, const nb::list& groups,
             const std::map<std::string, Tensor>& state) {
            self.sync(groups);
            nb::gil_scoped_release release;
            optim::OptimizerStateDict flat = self.opt->state_dict();
            for (auto it = flat.begin(); it != flat.end();)
              it = it->first.rfind("state.", 0) == 0 ? flat.erase(it) : std::next(it);
            flat.insert(state.begin(), state.end());
            self.opt->load_state_dict(flat);
          },
          "param_groups"_a, "state"_a);
  // zero_grad over the Python groups' parameters: grads dropped (set_to_none) or zeroed.
  om.def(
      "zero_grad",
      [](const nb::list& groups, bool set_to_none) {
        for (nb::handle g : groups) {
          for (nb::handle h : nb::borrow<nb::list>(nb::borrow<nb::dict>(g)["params"])) {
            const Tensor& p = nb::cast<const Tensor&>(h);
            Tensor& grad = p.mutable_grad();
            if (!grad.defined()) continue;
            if (set_to_none) {
              grad = Tensor();
            } else {
              nb::gil_scoped_release release;
              if (grad.grad_fn()) grad = grad.detach();
              grad.requires_grad_(false);
              grad.zero_();
            }
          }
        }
      },
      "param_groups"_a, "set_to_none"_a = true);
}

}  // namespace ember::python
