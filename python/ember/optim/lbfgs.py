"""L-BFGS (the C++ ember::optim::LBFGS): step(closure) re-evaluates the loss through the
closure, a Python function called back from C++."""
from .optimizer import Optimizer


class LBFGS(Optimizer):
    _kind = "LBFGS"

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        if line_search_fn not in (None, "strong_wolfe"):
            raise RuntimeError("only 'strong_wolfe' is supported")
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                        tolerance_grad=tolerance_grad, tolerance_change=tolerance_change,
                        history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")

    def step(self, closure):
        if closure is None:
            raise RuntimeError("LBFGS requires a closure that reevaluates the model and returns "
                               "the loss")
        return super().step(closure)
