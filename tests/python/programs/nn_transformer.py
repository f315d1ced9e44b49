# A nanoGPT-style character model: token and position embeddings, a pre-norm GELU
# TransformerEncoder under a causal mask, a linear head; AdamW steps with clip_grad_norm_, then
# greedy decoding.
# Weights are set deterministically (random streams differ between libraries by design).
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyGPT(nn.Module):
    def __init__(self, vocab, d_model=16, nhead=2, layers=2, block=8):
        super().__init__()
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(block, d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=4 * d_model,
                                           dropout=0.0, activation="gelu", batch_first=True,
                                           norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, layers)
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab, bias=False)

    def forward(self, idx):
        T = idx.size(1)
        mask = nn.Transformer.generate_square_subsequent_mask(T)
        x = self.tok(idx) + self.pos(torch.arange(T))
        x = self.blocks(x, mask=mask)
        return self.head(self.ln_f(x))


def fill(model):
    with torch.no_grad():
        for i, (name, p) in enumerate(model.named_parameters()):
            if name.endswith(("norm1.weight", "norm2.weight")) or name == "ln_f.weight":
                p.fill_(1.0)
                continue
            p.copy_((torch.arange(p.numel(), dtype=torch.float32).reshape(p.shape) * 0.61 + i)
                    .sin() * 0.3)


text = "hello transformer, hello attention. "
chars = sorted(set(text))
stoi = {c: i for i, c in enumerate(chars)}
data = torch.tensor([stoi[c] for c in text])
block = 8
starts = torch.arange(0, len(text) - block - 1, 3)
x = torch.stack([data[s:s + block] for s in starts.tolist()])
y = torch.stack([data[s + 1:s + block + 1] for s in starts.tolist()])

model = TinyGPT(len(chars), block=block)
fill(model)
print(model.blocks.layers[0])
print(list(model.state_dict().keys())[:8])
print("parameters", sum(p.numel() for p in model.parameters()))
print("mask", nn.Transformer.generate_square_subsequent_mask(3))

optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.1)
for step in range(8):
    logits = model(x)
    loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    print("step", step, f"{loss.item():.4f}", f"grad norm {norm.item():.3f}")

model.eval()
with torch.no_grad():
    idx = data[:3].unsqueeze(0)
    for _ in range(5):
        logits = model(idx[:, -block:])
        nxt = logits[:, -1].argmax(-1, keepdim=True)
        idx = torch.cat([idx, nxt], dim=1)
print("greedy", repr("".join(chars[i] for i in idx[0].tolist())))

# MultiheadAttention on its own: averaged weights and the output shape.
mha = nn.MultiheadAttention(16, 4, batch_first=True)
fill(mha)
q = torch.linspace(-1, 1, 2 * 3 * 16).reshape(2, 3, 16)
out, w = mha(q, q, q)
print(out.shape, w.shape, [round(v, 4) for v in w[0, 0].tolist()])
