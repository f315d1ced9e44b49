"""optim.Optimizer: PyTorch's param_groups (a list of dicts the user may edit between steps),
state, zero_grad, add_param_group and state_dict, over a C++ optimizer (ember._C._optim) that
runs each step() in one call, reading every group's hyper-parameters from these dicts."""
import copy

from .. import _C
from .._C import _optim


class _Required:
    def __repr__(self):
        return "<required parameter>"


required = _Required()


class _StateView:
    """optimizer.state: per-parameter state dicts read from the C++ optimizer."""

    def __init__(self, optimizer):
        self._opt = optimizer

    def _params(self):
        for g in self._opt.param_groups:
            yield from g["params"]

    def __getitem__(self, param):
        s = self._opt._impl.state_of(param)
        return {} if s is None else s

    def __contains__(self, param):
        return self._opt._impl.state_of(param) is not None

    def __iter__(self):
        return (p for p in self._params() if p in self)

    def __len__(self):
        return sum(1 for _ in self)

    def keys(self):
        return list(iter(self))

    def values(self):
        return [self[p] for p in self]

    def items(self):
        return [(p, self[p]) for p in self]

    def get(self, param, default=None):
        return self[param] if param in self else default

    def __repr__(self):
        return repr(dict(self.items()))


class Optimizer:
    _kind = None

    def __init__(self, params, defaults):
        self.defaults = defaults
        if isinstance(params, _C.Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got ember.Tensor")
        self.param_groups = []
        groups = list(params)
        if len(groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self._check_group(g)
        self._impl = _optim.Optimizer(self._kind, self.param_groups)
        self.state = _StateView(self)

    def _check_group(self, param_group):
        if not isinstance(param_group, dict):
            raise TypeError(f"param group must be a dict, got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, _C.Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            params = list(params)
        for p in params:
            if not isinstance(p, _C.Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + type(p).__name__)
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        param_group["params"] = params
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def add_param_group(self, param_group):
        self._check_group(param_group)
        try:
            self._impl.add_param_group(param_group)
        except Exception:
            self.param_groups.pop()
            raise

    def zero_grad(self, set_to_none=False):
        _optim.zero_grad(self.param_groups, set_to_none)

    def step(self, closure=None):
        return self._impl.step(self.param_groups, closure)

    def state_dict(self):
        index, groups, i = {}, [], 0
        for g in self.param_groups:
            packed = {k: v for k, v in g.items() if k != "params"}
            ids = []
            for p in g["params"]:
                if id(p) not in index:
                    index[id(p)] = i
                    i += 1
                ids.append(index[id(p)])
            packed["params"] = ids
            groups.append(packed)
        state = {}
        for g in self.param_groups:
            for p in g["params"]:
                s = self._impl.state_of(p)
                if s is not None:
                    state[index[id(p)]] = s
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        saved_groups = state_dict["param_groups"]
        if len(saved_groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(a["params"]) != len(b["params"])
               for a, b in zip(self.param_groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        flat = {}
        for idx, entries in state_dict["state"].items():
            for name, value in entries.items():
                if value is None:
                    continue
                if not isinstance(value, _C.Tensor):
                    value = _C.zeros(()).fill_(value) if isinstance(value, float) else \
                        _C.zeros((), dtype=_C.long).fill_(value)
                if name == "step" and self._kind != "LBFGS":
                    value = value.long()
                flat[f"state.{idx}.{name}"] = value
        updated = []
        for group, saved in zip(self.param_groups, saved_groups):
            new = {k: copy.deepcopy(v) for k, v in saved.items() if k != "params"}
            new["params"] = group["params"]
            updated.append(new)
        old = [dict(g) for g in self.param_groups]
        for group, new in zip(self.param_groups, updated):
            group.clear()
            group.update(new)
        try:
            self._impl.load_state(self.param_groups, flat)
        except Exception:
            for group, prev in zip(self.param_groups, old):
                group.clear()
                group.update(prev)
            raise

    def __repr__(self):
        s = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += "\n"
            s += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    s += f"    {key}: {group[key]}\n"
        return s + ")"
