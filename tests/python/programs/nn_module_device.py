# A Module subclass moved with .to(device): its repr, parameter devices, state_dict keys and
# shapes, buffers, train/eval, zero_grad, and a Parameter's repr.
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, kernel_size=3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(2)
        self.flatten = nn.Flatten()
        self.fc1 = nn.Linear(784, 128)
        self.fc2 = nn.Linear(128, 10, bias=False)
        self.act = nn.Sequential(nn.ReLU(), nn.Dropout(0.25), nn.LeakyReLU(0.2))
        self.register_buffer("scale", torch.ones(3))

    def forward(self, x):
        x = self.pool(self.bn(self.conv1(x)))
        return self.fc2(self.act(self.fc1(self.flatten(x))))


model = Net().to(device)
print(model)
print(next(model.parameters()).device)
print(model.fc1.weight.is_cuda == (device.type == "cuda"), model.scale.device)
for key, value in model.state_dict().items():
    print(key, tuple(value.shape), value.dtype)
print([name for name, _ in model.named_parameters()])
print([name for name, _ in model.named_buffers()])
print([name for name, _ in model.named_children()])
print(len(list(model.modules())), sum(p.numel() for p in model.parameters()))
print(model.training, model.eval().training, model.act[1].training, model.train().training)

small = nn.Linear(2, 3).to(device)
with torch.no_grad():
    small.weight.copy_(torch.arange(6.0).reshape(3, 2))
    small.bias.fill_(0.5)
print(small.weight)
print(small.bias)
out = small(torch.ones(1, 2, device=device))
print(out.shape, out.device)
out.sum().backward()
print(small.weight.grad)
small.zero_grad()
print(small.weight.grad)
small.zero_grad(set_to_none=True)
print(small.weight.grad)

half = nn.Linear(2, 2).double()
print(half.weight.dtype, half.bias.dtype)
print(isinstance(small.weight, nn.Parameter), isinstance(small.weight, torch.Tensor))
print(nn.Parameter(torch.zeros(2)))
