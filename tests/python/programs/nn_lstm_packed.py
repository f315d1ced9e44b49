# A bidirectional LSTM classifier over padded batches of different lengths, packed with
# pack_padded_sequence (unsorted) and unpacked with pad_packed_sequence, trained a few steps.
import torch
import torch.nn as nn
import torch.optim as optim
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(12, 6, padding_idx=0)
        self.lstm = nn.LSTM(6, 5, num_layers=2, batch_first=True, bidirectional=True)
        self.head = nn.Linear(10, 3)

    def forward(self, tokens, lengths):
        packed = pack_padded_sequence(self.embedding(tokens), lengths, batch_first=True,
                                      enforce_sorted=False)
        out, (h, c) = self.lstm(packed)
        padded, out_lengths = pad_packed_sequence(out, batch_first=True)
        summary = torch.cat([h[-2], h[-1]], dim=1)
        return self.head(summary), padded, out_lengths


model = Tagger()
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_((torch.arange(p.numel(), dtype=torch.float32).reshape(p.shape) * 0.53 + i)
                .sin() * 0.3)
print(model)

tokens = torch.tensor([[3, 5, 7, 0, 0], [1, 2, 3, 4, 5], [9, 8, 0, 0, 0], [4, 4, 6, 10, 0]])
lengths = torch.tensor([3, 5, 2, 4])
labels = torch.tensor([0, 1, 2, 1])
optimizer = optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    optimizer.zero_grad()
    logits, padded, out_lengths = model(tokens, lengths)
    loss = nn.functional.cross_entropy(logits, labels)
    loss.backward()
    optimizer.step()
    print(step, tuple(padded.shape), out_lengths.tolist(), f"{loss.item():.4f}")
print([round(v, 4) for v in model.head.bias.tolist()])
print(f"{model.lstm.weight_hh_l1_reverse.grad.abs().sum().item():.4f}")
print(f"{padded[2, 2:].abs().sum().item():.4f}")
