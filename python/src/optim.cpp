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

// Adam's and AdamW's options: the same keys, different option types.
template <typename Options>
std::unique_ptr<OptimizerOptions> adam_options(const nb::dict& g) {
  auto betas = nb::cast<std::pair<double, double>>(g["betas"]);
  Options o(num(g, "lr"));
  o.betas({betas.first, betas.second}).eps(num(g, "eps"));
  o.weight_decay(num(g, "weight_decay")).amsgrad(nb::cast<bool>(g["amsgrad"]));
  return o.clone();
}

// The options of `kind` from a param_group dict, PyTorch's keys (betas as a pair, max_eval and
// line_search_fn may be None).
std::unique_ptr<OptimizerOptions> options_from(const std::string& kind, const nb::dict& g) {
  if (g.contains("maximize") && nb::cast<bool>(g["maximize"]))
    throw NotImplementedError(kind + ": maximize=True is not supported by ember.optim");
  if (kind == "SGD") {
    optim::SGDOptions o(num(g, "lr"));
    o.momentum(num(g, "momentum")).dampening(num(g, "dampening"));
    o.weight_decay(num(g, "weight_decay")).nesterov(nb::cast<bool>(g["nesterov"]));
    return o.clone();
  }
  if (kind == "Adam") return adam_options<optim::AdamOptions>(g);
  if (kind == "AdamW") return adam_options<optim::AdamWOptions>(g);
  if (kind == "RMSprop") {
    optim::RMSpropOptions o(num(g, "lr"));
    o.alpha(num(g, "alpha")).eps(num(g, "eps")).weight_decay(num(g, "weight_decay"));
    o.momentum(num(g, "momentum")).centered(nb::cast<bool>(g["centered"]));
    return o.clone();
  }
  if (kind == "LBFGS") {
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

std::unique_ptr<optim::Optimizer> make(const std::string& kind, const nb::list& groups) {
  std::vector<optim::OptimizerParamGroup> gs;
  for (nb::handle g : groups) gs.push_back(group_from(kind, nb::borrow<nb::dict>(g)));
  EMBER_CHECK(!gs.empty(), ValueError, "optimizer got an empty parameter list");
  auto& first = gs[0].options();
  if (kind == "SGD")
    return std::make_unique<optim::SGD>(std::move(gs),
                                        static_cast<const optim::SGDOptions&>(first));
  if (kind == "Adam")
    return std::make_unique<optim::Adam>(std::move(gs),
                                         static_cast<const optim::AdamOptions&>(first));
  if (kind == "AdamW")
    return std::make_unique<optim::AdamW>(std::move(gs),
                                          static_cast<const optim::AdamWOptions&>(first));
  if (kind == "RMSprop")
    return std::make_unique<optim::RMSprop>(std::move(gs),
                                            static_cast<const optim::RMSpropOptions&>(first));
  return std::make_unique<optim::LBFGS>(std::move(gs),
                                        static_cast<const optim::LBFGSOptions&>(first));
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

// PyTorch's view of one parameter's state: the state tensors by name, 'step' as a float tensor
// (as PyTorch 1.13 keeps it); None before the first step.
nb::object state_of(const PyOptimizer& self, const Tensor& p) {
  auto it = self.opt->state().find(p.unsafeGetTensorImpl());
  if (it == self.opt->state().end() || !it->second) return nb::none();
  nb::dict d;
  for (auto& [name, t] : it->second->tensors()) {
    if (name == "step" && self.kind == "RMSprop") {
      d[name.c_str()] = t.item().toLong();  // PyTorch 1.13's RMSprop counts in a Python int
    } else if (name == "step" && self.kind != "LBFGS") {
      d[name.c_str()] = t.to(kFloat);
    } else {
      d[name.c_str()] = t;
    }
  }
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
