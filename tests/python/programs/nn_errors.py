# The errors PyTorch programs meet with nn and optim, printed as type and message where the
# message is PyTorch's.
import torch
import torch.nn as nn
import torch.optim as optim


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 3)
        self.fc2 = nn.Linear(3, 2)


net = Net()
state = net.state_dict()
del state["fc2.bias"]
state["extra"] = torch.zeros(1)
try:
    net.load_state_dict(state)
except RuntimeError as e:
    print(type(e).__name__, e)
print(net.load_state_dict(state, strict=False))
print(net.load_state_dict(net.state_dict()))

wrong = Net().state_dict()
wrong["fc1.weight"] = torch.zeros(5, 4)
try:
    net.load_state_dict(wrong)
except RuntimeError as e:
    print(type(e).__name__, e)

try:
    net.fc1.weight = torch.zeros(3, 4)
except TypeError as e:
    print(type(e).__name__)

for make in [lambda: optim.SGD(net.parameters(), lr=-1),
             lambda: optim.Adam(net.parameters(), betas=(1.5, 0.9)),
             lambda: optim.SGD([], lr=0.1),
             lambda: optim.SGD(net.parameters(), lr=0.1, nesterov=True),
             lambda: optim.SGD(net.parameters())]:
    try:
        make()
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)

try:
    nn.Dropout(p=1.5)
except ValueError as e:
    print(type(e).__name__, e)
try:
    nn.MSELoss(reduction="avg")(torch.zeros(2), torch.zeros(2))
except ValueError as e:
    print(type(e).__name__, e)
try:
    nn.BatchNorm2d(3)(torch.zeros(2, 3))
except ValueError as e:
    print(type(e).__name__, e)
try:
    nn.Module()(torch.zeros(1))
except NotImplementedError as e:
    print(type(e).__name__)
try:
    net.nothing
except AttributeError as e:
    print(type(e).__name__, e)
