# Errors PyTorch raises, caught and printed by type.
import torch


def attempt(what, f):
    try:
        f()
        print(what, "ok")
    except Exception as e:
        print(what, type(e).__name__)


x = torch.arange(6).reshape(2, 3)
attempt("index out of range", lambda: x[5])
attempt("too many indices", lambda: x[0, 0, 0])
attempt("numpy of requires_grad", lambda: torch.ones(2, requires_grad=True).numpy())
attempt("item of many", lambda: torch.ones(3).item())
attempt("bad device string", lambda: torch.device("gpu"))
attempt("bool of many", lambda: bool(torch.ones(2)))
attempt("len of 0-d", lambda: len(torch.tensor(3.0)))
attempt("backward twice", lambda: [y := (torch.ones(2, requires_grad=True) * 2).sum(),
                                   y.backward(), y.backward()])
attempt("bad dim", lambda: x.sum(dim=5))
attempt("bad dtype arg", lambda: torch.zeros(2, dtype="float"))
attempt("from_numpy of list", lambda: torch.from_numpy([1, 2]))
