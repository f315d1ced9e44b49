# The new_* factories, repeat, tril/triu, diag/diagonal/trace, movedim, unflatten and argwhere,
# with gradients through them.
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.tensor([[1., 2., 3.], [4., 5., 6.], [7., 8., 9.]], device=device)
print(x.new_zeros(2, 3), x.new_ones((2,)), x.new_full((2, 2), 7.), x.new_tensor([1, 2]))
print(x.new_empty(0).shape, x.long().new_zeros(2).dtype, x.new_zeros(1, dtype=torch.float64))
print(x[0].repeat(2), x[0].repeat(2, 2), x.repeat(1, 2).shape, x.repeat(2, 1, 1).shape)
print(torch.tril(x), x.triu(1), torch.tril(x, -1), x.clone().tril_(), x.clone().triu_(-1))
print(torch.diag(x), torch.diag(x, 1), torch.diag(x, -2), torch.diag(x[0]))
print(torch.diag(x[0], 1), torch.diag(x[0], -1))
print(x.diagonal(), torch.diagonal(x, -1), torch.trace(x), x.trace())
y = torch.arange(24., device=device).reshape(2, 3, 4)
print(torch.movedim(y, 0, 2).shape, y.movedim(-1, 0).shape, y.movedim((0, 1), (2, 0)).shape)
print(y.unflatten(2, (2, 2)).shape, torch.argwhere(x > 5))
# A causal mask, as the attention tutorials build it.
scores = torch.ones(4, 4, device=device)
mask = torch.triu(torch.ones(4, 4, device=device), diagonal=1).bool()
print(torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1))
w = x.clone().requires_grad_()
loss = w.repeat(2, 1).sum() + w.tril().pow(2).sum() + torch.diag(w).sum() * 3 + w.trace()
loss = loss + torch.diag(w[0], 1).sum() + w.movedim(0, 1)[0].sum()
loss.backward()
print(loss, w.grad)
