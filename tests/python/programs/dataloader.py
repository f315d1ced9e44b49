# A DataLoader over a TensorDataset, batches moved to the device, as the tutorials' loops do.
import torch
from torch.utils.data import DataLoader, TensorDataset, random_split

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print("Using", device.type, "device")

X = torch.arange(200, dtype=torch.float32).reshape(50, 4) / 10
y = torch.arange(50) % 3
dataset = TensorDataset(X, y)
print(len(dataset), dataset[7][0], dataset[7][1])

loader = DataLoader(dataset, batch_size=16, shuffle=False)
print("batches:", len(loader))
for batch, (inputs, labels) in enumerate(loader):
    inputs, labels = inputs.to(device), labels.to(device)
    print(batch, inputs.shape, labels.shape, round(inputs.sum().item(), 3), labels.sum().item(),
          inputs.dtype, labels.dtype)

dropped = DataLoader(dataset, batch_size=16, drop_last=True)
print("drop_last batches:", len(dropped), [b[1].shape[0] for b in dropped])

threads = DataLoader(dataset, batch_size=8, num_workers=2)
print("workers:", [round(xb.sum().item(), 2) for xb, _ in threads])

train, test = random_split(dataset, [40, 10], generator=torch.Generator().manual_seed(42))
print("split:", len(train), len(test))
shuffled = DataLoader(train, batch_size=10, shuffle=True)
total = sum(xb.shape[0] for xb, _ in shuffled)
print("shuffled epoch:", total, len(shuffled))

pairs = DataLoader([(i, float(i) / 2) for i in range(5)], batch_size=2)
for a, b in pairs:
    print(a, b)
dicts = DataLoader([{"x": torch.ones(2) * i, "id": i} for i in range(4)], batch_size=4)
batch = next(iter(dicts))
print(sorted(batch.keys()), batch["x"].shape, batch["id"])
print(next(iter(DataLoader(dataset, batch_size=None)))[0])
