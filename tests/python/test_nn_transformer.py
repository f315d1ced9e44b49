"""ember.nn.MultiheadAttention, the Transformer modules, F.multi_head_attention_forward,
F.scaled_dot_product_attention and ember.nn.attention against torch.nn (PyTorch 1.13) with the
same parameters: forward, backward, repr, state_dict keys and bad input."""
import numpy as np
import pytest
import torch

import ember
from nn_compare import close, copy_params, grads_close, pair, to_numpy, wave


def build(text):
    return eval("ember.nn." + text), eval("torch.nn." + text)


def mask_pair(kind, L, S, n_heads=2, batch=3):
    if kind is None:
        return None, None
    if kind == "bool":
        a = np.triu(np.ones((L, S), dtype=bool), 1)
    elif kind == "float":
        a = wave(L, S, offset=0.5)
    elif kind == "causal":
        a = np.triu(np.full((L, S), -np.inf, dtype=np.float32), 1)
    elif kind == "bool3d":
        a = (np.arange(batch * n_heads * L * S).reshape(batch * n_heads, L, S) % 3 == 1)
        a[:, :, 0] = False
    return pair(a)


def kpm_pair(batch, S):
    a = np.zeros((batch, S), dtype=bool)
    a[::2, S - 2:] = True
    return pair(a)


MHA = [
    # (constructor args, batch_first, self-attention, mask kind, key padding, need_weights,
    #  average)
    ("6, 2", False, True, None, False, True, True),
    ("6, 2, batch_first=True", True, True, "bool", True, True, False),
    ("6, 2", False, False, "float", True, False, True),
    ("6, 2, kdim=4, vdim=5, batch_first=True", True, False, None, True, True, True),
    ("6, 2, add_bias_kv=True", False, True, "bool3d", True, True, True),
    ("6, 2, add_zero_attn=True, bias=False", False, False, "causal", True, True, False),
    ("6, 3, add_bias_kv=True, add_zero_attn=True, batch_first=True", True, True, "causal", False,
     False, True),
]


@pytest.mark.parametrize("args,batch_first,self_attn,mask,kpm,need_weights,average", MHA,
                         ids=[m[0] for m in MHA])
def test_multihead_attention_matches_torch(args, batch_first, self_attn, mask, kpm,
                                           need_weights, average):
    e_mod, t_mod = build(f"MultiheadAttention({args})")
    assert repr(e_mod) == repr(t_mod)
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())
    copy_params(e_mod, t_mod)
    L, S, N, E = 4, (4 if self_attn else 5), 3, 6
    kdim, vdim = (4, 5) if "kdim" in args else (E, E)
    shape = (lambda s, e: (N, s, e)) if batch_first else (lambda s, e: (s, N, e))
    e_q, t_q = pair(wave(*shape(L, E), scale=1.5), requires_grad=True)
    if self_attn:
        e_k = e_v = e_q
        t_k = t_v = t_q
    else:
        e_k, t_k = pair(wave(*shape(S, kdim), offset=1.0), requires_grad=True)
        e_v, t_v = pair(wave(*shape(S, vdim), offset=2.0), requires_grad=True)
    heads = e_mod.num_heads
    e_m, t_m = mask_pair(mask, L, S, heads, N)
    e_p, t_p = kpm_pair(N, S) if kpm else (None, None)
    kw = dict(need_weights=need_weights, average_attn_weights=average)
    e_out, e_w = e_mod(e_q, e_k, e_v, key_padding_mask=e_p, attn_mask=e_m, **kw)
    t_out, t_w = t_mod(t_q, t_k, t_v, key_padding_mask=t_p, attn_mask=t_m, **kw)
    close(e_out, t_out, rtol=1e-4, atol=1e-5)
    assert (e_w is None) == (t_w is None)
    loss_e = (e_out * ember.tensor(wave(*t_out.shape, offset=3.0))).sum()
    loss_t = (t_out * torch.tensor(wave(*t_out.shape, offset=3.0))).sum()
    if e_w is not None:
        close(e_w, t_w, rtol=1e-4, atol=1e-5)
        loss_e = loss_e + (e_w * ember.tensor(wave(*t_w.shape, offset=4.0))).sum()
        loss_t = loss_t + (t_w * torch.tensor(wave(*t_w.shape, offset=4.0))).sum()
    loss_e.backward()
    loss_t.backward()
    grads_close(e_mod, t_mod)
    close(e_q.grad, t_q.grad, rtol=1e-4, atol=1e-5)
    if not self_attn:
        close(e_k.grad, t_k.grad, rtol=1e-4, atol=1e-5)


def test_multihead_attention_unbatched_and_functional():
    e_mod, t_mod = build("MultiheadAttention(4, 2)")
    copy_params(e_mod, t_mod)
    e_x, t_x = pair(wave(5, 4), requires_grad=True)
    e_m, t_m = mask_pair("bool3d", 5, 5, 2, 1)
    e_out, e_w = e_mod(e_x, e_x, e_x, attn_mask=e_m, average_attn_weights=False)
    t_out, t_w = t_mod(t_x, t_x, t_x, attn_mask=t_m, average_attn_weights=False)
    close(e_out, t_out, rtol=1e-4, atol=1e-5)
    close(e_w, t_w, rtol=1e-4, atol=1e-5)
    # The functional form with separate projection weights.
    e_q, t_q = pair(wave(3, 2, 4), requires_grad=True)
    e_k, t_k = pair(wave(5, 2, 3, offset=1.0))
    e_v, t_v = pair(wave(5, 2, 6, offset=2.0))
    ws = [pair(wave(*s, offset=i, scale=0.5), requires_grad=True)
          for i, s in enumerate([(4, 4), (4, 3), (4, 6), (12,), (4, 4), (4,)])]
    (e_wq, t_wq), (e_wk, t_wk), (e_wv, t_wv), (e_b, t_b), (e_wo, t_wo), (e_bo, t_bo) = ws
    args = dict(use_separate_proj_weight=True, average_attn_weights=True)
    e_o, e_w = ember.nn.functional.multi_head_attention_forward(
        e_q, e_k, e_v, 4, 2, None, e_b, None, None, False, 0.0, e_wo, e_bo, q_proj_weight=e_wq,
        k_proj_weight=e_wk, v_proj_weight=e_wv, **args)
    t_o, t_w = torch.nn.functional.multi_head_attention_forward(
        t_q, t_k, t_v, 4, 2, None, t_b, None, None, False, 0.0, t_wo, t_bo, q_proj_weight=t_wq,
        k_proj_weight=t_wk, v_proj_weight=t_wv, **args)
    close(e_o, t_o, rtol=1e-4, atol=1e-5)
    close(e_w, t_w, rtol=1e-4, atol=1e-5)
    (e_o.sum() + e_w.sum()).backward()
    (t_o.sum() + t_w.sum()).backward()
    for (e, t) in ws:
        close(e.grad, t.grad, rtol=1e-4, atol=1e-5)


LAYERS = [
    # (constructor, batch_first, mask kind, key padding)
    ("TransformerEncoderLayer(8, 2, 16, 0.0)", False, None, False),
    ("TransformerEncoderLayer(8, 2, 16, 0.0, 'gelu', batch_first=True, norm_first=True)", True,
     "causal", True),
    ("TransformerEncoderLayer(8, 2, 16, 0.0, activation='relu', layer_norm_eps=1e-3)", False,
     "bool", True),
    ("TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, 12, 0.0), 2, "
     "norm=torch.nn.LayerNorm(8))", False, "causal", True),
]


@pytest.mark.parametrize("text,batch_first,mask,kpm", LAYERS, ids=[x[0] for x in LAYERS])
def test_encoder_matches_torch(text, batch_first, mask, kpm):
    t_mod = eval("torch.nn." + text)
    e_mod = eval("ember.nn." + text.replace("torch.nn.", "ember.nn."))
    assert repr(e_mod) == repr(t_mod)
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())
    copy_params(e_mod, t_mod)
    S, N = 5, 3
    e_x, t_x = pair(wave(*((N, S, 8) if batch_first else (S, N, 8))), requires_grad=True)
    e_m, t_m = mask_pair(mask, S, S)
    e_p, t_p = kpm_pair(N, S) if kpm else (None, None)
    if text.startswith("TransformerEncoder("):
        e_out, t_out = e_mod(e_x, e_m, e_p), t_mod(t_x, t_m, t_p)
    else:
        e_out, t_out = e_mod(e_x, src_mask=e_m, src_key_padding_mask=e_p), \
            t_mod(t_x, src_mask=t_m, src_key_padding_mask=t_p)
    close(e_out, t_out, rtol=1e-4, atol=1e-5)
    weights = wave(*t_out.shape, offset=1.0)
    (e_out * ember.tensor(weights)).sum().backward()
    (t_out * torch.tensor(weights)).sum().backward()
    grads_close(e_mod, t_mod)
    close(e_x.grad, t_x.grad, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_and_transformer_match_torch(norm_first):
    text = (f"TransformerDecoder(torch.nn.TransformerDecoderLayer(8, 2, 12, 0.0, 'gelu', "
            f"norm_first={norm_first}), 2)")
    t_mod = eval("torch.nn." + text)
    e_mod = eval("ember.nn." + text.replace("torch.nn.", "ember.nn."))
    assert repr(e_mod) == repr(t_mod)
    copy_params(e_mod, t_mod)
    T, S, N = 4, 5, 2
    e_t, t_t = pair(wave(T, N, 8), requires_grad=True)
    e_mem, t_mem = pair(wave(S, N, 8, offset=1.0), requires_grad=True)
    e_tm, t_tm = mask_pair("causal", T, T)
    e_mm, t_mm = mask_pair("bool", T, S)
    e_tk, t_tk = kpm_pair(N, T)
    e_mk, t_mk = kpm_pair(N, S)
    e_out = e_mod(e_t, e_mem, e_tm, e_mm, e_tk, e_mk)
    t_out = t_mod(t_t, t_mem, t_tm, t_mm, t_tk, t_mk)
    close(e_out, t_out, rtol=1e-4, atol=1e-5)
    e_out.sum().backward()
    t_out.sum().backward()
    grads_close(e_mod, t_mod)
    close(e_mem.grad, t_mem.grad, rtol=1e-4, atol=1e-4)

    # The whole Transformer, batch_first, with its causal mask.
    args = f"8, 2, 1, 2, 12, 0.0, batch_first=True, norm_first={norm_first}"
    e_tr, t_tr = build(f"Transformer({args})")
    assert repr(e_tr) == repr(t_tr)
    assert list(e_tr.state_dict()) == list(t_tr.state_dict())
    copy_params(e_tr, t_tr)
    e_src, t_src = pair(wave(N, S, 8, offset=2.0), requires_grad=True)
    e_tg, t_tg = pair(wave(N, T, 8, offset=3.0), requires_grad=True)
    e_mask = ember.nn.Transformer.generate_square_subsequent_mask(T)
    t_mask = torch.nn.Transformer.generate_square_subsequent_mask(T)
    close(e_mask, t_mask)
    e_out = e_tr(e_src, e_tg, tgt_mask=e_mask, src_key_padding_mask=e_mk)
    t_out = t_tr(t_src, t_tg, tgt_mask=t_mask, src_key_padding_mask=t_mk)
    close(e_out, t_out, rtol=1e-4, atol=1e-5)
    e_out.sum().backward()
    t_out.sum().backward()
    grads_close(e_tr, t_tr)


def test_scaled_dot_product_attention_and_sdpa_kernel():
    from ember.nn.attention import SDPBackend, last_choice, sdpa_kernel
    assert [int(b.value) if hasattr(b, "value") else int(b) for b in
            (SDPBackend.ERROR, SDPBackend.MATH, SDPBackend.FLASH_ATTENTION,
             SDPBackend.EFFICIENT_ATTENTION, SDPBackend.CUDNN_ATTENTION)] == [-1, 0, 1, 2, 3]
    e_q, t_q = pair(wave(2, 2, 4, 8), requires_grad=True)
    e_k, t_k = pair(wave(2, 2, 5, 8, offset=1.0))
    e_v, t_v = pair(wave(2, 2, 5, 8, offset=2.0))
    with sdpa_kernel(SDPBackend.MATH):
        e_o = ember.nn.functional.scaled_dot_product_attention(e_q, e_k, e_v, scale=0.3)
        backend, refused = last_choice()
        assert backend == SDPBackend.MATH
        assert refused == []
    # PyTorch 1.13's own F._scaled_dot_product_attention has no scale: compute the reference.
    w = torch.softmax(t_q @ t_k.transpose(-2, -1) * 0.3, -1)
    close(e_o, w @ t_v, rtol=1e-5, atol=1e-6)
    e_o2 = ember.nn.functional.scaled_dot_product_attention(e_q, e_q, e_q, is_causal=True)
    t_s = (t_q @ t_q.transpose(-2, -1)) / 8 ** 0.5
    t_s = t_s.masked_fill(torch.ones(4, 4, dtype=torch.bool).triu(1), float("-inf"))
    close(e_o2, torch.softmax(t_s, -1) @ t_q, rtol=1e-5, atol=1e-6)
    # Nested blocks restore the outer choice; a backend Ember lacks refuses with its reason.
    with sdpa_kernel([SDPBackend.EFFICIENT_ATTENTION]):
        assert ember.nn.attention.enabled_backends() == [SDPBackend.EFFICIENT_ATTENTION]
        with pytest.raises(RuntimeError, match="no enabled backend"):
            ember.nn.functional.scaled_dot_product_attention(e_q, e_k, e_v)
        backend, refused = last_choice()
        assert backend == SDPBackend.ERROR
        assert refused and refused[0].startswith("EFFICIENT_ATTENTION")
        # MultiheadAttention without weights goes through it; with weights it does not.
        m = ember.nn.MultiheadAttention(8, 2)
        x = ember.randn(3, 2, 8)
        m(x, x, x)
        with pytest.raises(RuntimeError, match="no enabled backend"):
            m(x, x, x, need_weights=False)
    assert SDPBackend.MATH in ember.nn.attention.enabled_backends()


def test_bad_input_raises_pytorch_errors():
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        ember.nn.MultiheadAttention(8, 3)
    m = ember.nn.MultiheadAttention(8, 2)
    x = ember.randn(3, 2, 8)
    with pytest.raises(RuntimeError,
                       match=r"The shape of the 2D attn_mask is .*should be \(3, 3\)"):
        m(x, x, x, attn_mask=ember.zeros(2, 2, dtype=ember.bool))
    with pytest.raises(AssertionError, match="only bool and floating types of key_padding_mask"):
        m(x, x, x, key_padding_mask=ember.zeros(2, 3, dtype=ember.long))
    with pytest.raises(AssertionError, match="query should be unbatched 2D or batched 3D"):
        m(ember.randn(1, 3, 2, 8), x, x)
    with pytest.raises(AssertionError, match="was expecting embedding dimension of 8, but got 6"):
        y = ember.randn(3, 2, 6)
        m(y, y, y)
    out, w = m(x, x, x)  # still works
    assert tuple(out.shape) == (3, 2, 8) and tuple(w.shape) == (2, 3, 3)
    t = ember.nn.Transformer(8, 2, 1, 1, 8)
    with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
        t(ember.randn(3, 2, 8), ember.randn(4, 3, 8))
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        ember.nn.TransformerEncoderLayer(8, 2, activation="tanh")
