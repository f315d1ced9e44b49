"""Python autograd Functions, tensor hooks and inference_mode against PyTorch; reference cycles
through them are collected (checked with weakref after gc.collect())."""
import gc
import weakref

import pytest
import torch

import ember


def make_functions(lib):
    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y

    class Split(lib.autograd.Function):
        """Two outputs, a non-tensor argument, and a None gradient for it."""

        @staticmethod
        def forward(ctx, x, k):
            ctx.k = k
            return x * k, x + k

        @staticmethod
        def backward(ctx, ga, gb):
            return ga * ctx.k + gb, None

    class Ident(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return 2 * g

    return Exp, Split, Ident


E_EXP, E_SPLIT, E_IDENT = make_functions(ember)
T_EXP, T_SPLIT, T_IDENT = make_functions(torch)


def pair(values):
    return (ember.tensor(values, requires_grad=True), torch.tensor(values, requires_grad=True))


def test_function_forward_backward_match_pytorch():
    e, t = pair([-1.0, 0.5, 2.0])
    ey, ty = E_EXP.apply(e), T_EXP.apply(t)
    assert ey.grad_fn.name() == "ExpBackward" and ey.requires_grad
    (ey * ember.tensor([1.0, 2.0, 3.0])).sum().backward()
    (ty * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert e.grad.tolist() == pytest.approx(t.grad.tolist())
    e, t = pair([1.0, 2.0])
    ea, eb = E_SPLIT.apply(e, 3.0)
    ta, tb = T_SPLIT.apply(t, 3.0)
    (ea.sum() + eb.sum() * 2).backward()
    (ta.sum() + tb.sum() * 2).backward()
    assert e.grad.tolist() == t.grad.tolist() == [5.0, 5.0]
    e, t = pair([1.0])
    ei, ti = E_IDENT.apply(e), T_IDENT.apply(t)
    assert not ei.is_leaf and e.is_leaf
    ei.sum().backward()
    ti.sum().backward()
    assert e.grad.tolist() == t.grad.tolist() == [2.0]


def test_function_ctx_needs_input_grad_and_materialize():
    seen = {}

    class F(ember.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, k):
            seen["needs"] = ctx.needs_input_grad
            return a * k, b * k

        @staticmethod
        def backward(ctx, ga, gb):
            seen["gb"] = gb
            return ga, gb, None

    a = ember.ones(2, requires_grad=True)
    x, _ = F.apply(a, ember.ones(2), 2.0)
    x.sum().backward()
    assert seen["needs"] == (True, False, False)
    assert seen["gb"].tolist() == [0.0, 0.0]  # materialized, as PyTorch does by default
    with ember.no_grad():
        assert not F.apply(a, a, 1.0)[0].requires_grad


def test_function_errors_match_pytorch_types():
    class Wrong(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g, g

    x = ember.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="incorrect number of gradients"):
        Wrong.apply(x).sum().backward()

    class BadShape(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return ember.ones(5)

    with pytest.raises(RuntimeError, match="invalid gradient"):
        BadShape.apply(x).sum().backward()

    class Raises(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            raise KeyError("from backward")

    with pytest.raises(KeyError, match="from backward"):
        Raises.apply(x).sum().backward()
    with pytest.raises(RuntimeError, match="apply"):
        Wrong()
    with pytest.raises(TypeError, match="save_for_backward"):
        ember.autograd.FunctionCtx().save_for_backward(3)


def test_once_differentiable_and_autograd_grad():
    class Sq(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @ember.autograd.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = ember.tensor([3.0], requires_grad=True)
    (g,) = ember.autograd.grad(Sq.apply(x), x)
    assert g.tolist() == [6.0] and x.grad is None


def test_register_hook_matches_pytorch():
    for lib in (ember, torch):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = a * 3
        calls = []
        h = b.register_hook(lambda g: calls.append(g.tolist()) or g * 10)
        (b * b).sum().backward()
        assert calls == [[6.0, 12.0]] and a.grad.tolist() == [180.0, 360.0]
        h.remove()
        a.grad = None
        c = a * 3
        c.sum().backward()
        assert a.grad.tolist() == [3.0, 3.0]
        # A leaf's hook changes what is accumulated; None leaves it.
        a.grad = None
        leaf_calls = []
        a.register_hook(lambda g: g + 1)
        a.register_hook(lambda g: leaf_calls.append(g.tolist()))
        (a * a).sum().backward()
        assert a.grad.tolist() == [3.0, 5.0] and a.is_leaf and a.grad_fn is None
        assert leaf_calls == [[3.0, 5.0]]


def test_hook_errors_and_autograd_grad_leaves_grad_alone():
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        ember.ones(2).register_hook(lambda g: g)
    a = ember.ones(2, requires_grad=True)
    b = a * 2
    b.register_hook(lambda g: ember.ones(3))
    with pytest.raises(RuntimeError, match="size"):
        b.sum().backward()
    c = a * 2
    c.register_hook(lambda g: "no")
    with pytest.raises(TypeError, match="str"):
        c.sum().backward()
    w = ember.ones(2, requires_grad=True)
    w.register_hook(lambda g: g * 2)
    x = ember.ones(2, requires_grad=True)
    (gx,) = ember.autograd.grad((w * x).sum(), x)
    assert gx.tolist() == [1.0, 1.0] and w.grad is None
    with pytest.raises(TypeError, match="callable"):
        w.register_hook(3)


def test_inference_mode_matches_pytorch():
    for lib in (ember, torch):
        x = lib.ones(2, requires_grad=True)
        with lib.inference_mode():
            assert not (x * 2).requires_grad and lib.is_inference_mode_enabled()
            with lib.inference_mode(False):
                assert not lib.is_inference_mode_enabled()
        assert (x * 2).requires_grad and not lib.is_inference_mode_enabled()

        @lib.inference_mode()
        def f(t):
            return t * 2, lib.is_inference_mode_enabled()

        y, on = f(x)
        assert not y.requires_grad and on
    with pytest.raises(TypeError, match="bool"):
        ember.inference_mode("yes")


class Marker:
    pass


def test_cycle_through_a_hook_is_collected():
    gc.collect()
    for leaf in (False, True):
        x = ember.ones(3, requires_grad=True)
        t = x if leaf else x * 2
        holder = Marker()
        holder.t = t
        t.register_hook(lambda g, holder=holder: g)  # holder -> t -> hook -> holder
        ref = weakref.ref(holder)
        del t, holder, x
        gc.collect()
        assert ref() is None, f"leaf={leaf}"


def test_cycle_through_a_function_ctx_is_collected():
    class Keep(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x, marker):
            y = x * 2
            ctx.save_for_backward(y)  # the output, saved: kept detached
            ctx.marker = marker
            return y

        @staticmethod
        def backward(ctx, g):
            return g * 2, None

    gc.collect()
    marker = Marker()
    x = ember.ones(2, requires_grad=True)
    y = Keep.apply(x, marker)
    marker.y = y  # marker -> y -> node -> backward -> ctx -> marker
    ref = weakref.ref(marker)
    del marker, y
    gc.collect()
    assert ref() is None


def test_hooks_and_functions_free_their_python_objects():
    class Big:
        pass

    obj = Big()
    ref = weakref.ref(obj)
    x = ember.ones(2, requires_grad=True)
    y = x * 2
    y.register_hook(lambda g, obj=obj: g)
    del obj
    y.sum().backward()
    del y
    gc.collect()
    assert ref() is None


def gradcheck_cases(lib):
    class Doubled(lib.autograd.Function):
        """The identity with a wrong backward (twice the gradient)."""

        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g * 2

    def inputs():
        a = lib.linspace(-1.0, 1.5, 6, dtype=lib.float64).reshape(2, 3).requires_grad_()
        b = lib.linspace(0.5, 2.0, 3, dtype=lib.float64).requires_grad_()
        return a, b

    return Doubled, inputs


def test_gradcheck_passes_and_fails_as_pytorchs():
    from ember.autograd.gradcheck import GradcheckError
    from torch.autograd.gradcheck import GradcheckError as TorchGradcheckError

    for lib, error in ((ember, GradcheckError), (torch, TorchGradcheckError)):
        Doubled, inputs = gradcheck_cases(lib)
        a, b = inputs()
        # Two inputs, two outputs, a broadcast and a reduction.
        assert lib.autograd.gradcheck(lambda x, y: (x.sin() * y, (x * y).sum(1).tanh()), (a, b))
        assert lib.autograd.gradcheck(lambda x: x.exp(), a)
        with pytest.raises(error) as info:
            lib.autograd.gradcheck(Doubled.apply, (a,))
        assert isinstance(info.value, RuntimeError)
        assert "Jacobian mismatch for output 0 with respect to input 0" in str(info.value)
        assert lib.autograd.gradcheck(Doubled.apply, (a,), raise_exception=False) is False
        # An input that does not require grad is not checked; none at all is an error.
        assert lib.autograd.gradcheck(lambda x, y: x * y, (a, b.detach()))
        with pytest.raises(ValueError):
            lib.autograd.gradcheck(lambda x: x * 2, (a.detach(),))
        # The inputs are left as they were (the nudges are undone).
        a2, _ = inputs()
        assert bool((a.detach() == a2.detach()).all())


def test_gradgradcheck_and_fast_mode_pass_and_fail_as_pytorchs():
    from ember.autograd.gradcheck import GradcheckError
    from torch.autograd.gradcheck import GradcheckError as TorchGradcheckError

    for lib, error in ((ember, GradcheckError), (torch, TorchGradcheckError)):
        Doubled, inputs = gradcheck_cases(lib)
        a, b = inputs()

        class LostSecond(lib.autograd.Function):
            """sin with a right first derivative whose own derivative is lost (cos detached)."""

            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x.sin()

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * x.detach().cos()

        def two_outputs(x, y):
            return x.sin() * y, (x * y).sum(1).tanh()

        assert lib.autograd.gradgradcheck(two_outputs, (a, b))
        assert lib.autograd.gradgradcheck(lambda x: x.exp() * x, (a,))
        go = lib.linspace(-1.0, 1.0, 6, dtype=lib.float64).reshape(2, 3).requires_grad_()
        assert lib.autograd.gradgradcheck(lambda x: x.sin() * x, (a,), (go,))
        # The first derivative is right, the second is not: only gradgradcheck sees it.
        assert lib.autograd.gradcheck(LostSecond.apply, (a,))
        with pytest.raises(error) as info:
            lib.autograd.gradgradcheck(LostSecond.apply, (a,))
        assert "Jacobian mismatch" in str(info.value)
        assert lib.autograd.gradgradcheck(LostSecond.apply, (a,), raise_exception=False) is False
        # Fast mode: one random direction, the same verdicts.
        assert lib.autograd.gradcheck(two_outputs, (a, b), fast_mode=True)
        with pytest.raises(error) as info:
            lib.autograd.gradcheck(Doubled.apply, (a,), fast_mode=True)
        if lib is ember:  # PyTorch words it otherwise
            assert "fast mode: one random direction" in str(info.value)
        assert lib.autograd.gradcheck(Doubled.apply, (a,), fast_mode=True,
                                      raise_exception=False) is False
        assert lib.autograd.gradgradcheck(two_outputs, (a, b), fast_mode=True)
        with pytest.raises(error):
            lib.autograd.gradgradcheck(LostSecond.apply, (a,), fast_mode=True)
        a2, _ = inputs()
        assert bool((a.detach() == a2.detach()).all())  # the nudges are undone


def test_gradcheck_warns_for_single_precision_like_pytorch():
    for lib in (ember, torch):
        x = lib.ones(3).requires_grad_()
        with pytest.warns(UserWarning, match="not a double precision"):
            lib.autograd.gradcheck(lambda t: t * 2, (x,), eps=1e-3, atol=1e-2)
