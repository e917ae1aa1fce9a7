"""bench/gpu/reduce: the Python peer of formac's topk, written the usual way:
torch.topk of the flattened float32 image (K = 1000, largest first, sorted),
median of repeated runs timed with CUDA events (peers_timing.py)."""
from peers_timing import options, print_table, torch_ms

o = options({"size": 8192, "reps": 50})
n, reps, k = o["size"], o["reps"], 1000
rows = []

try:
    import torch
    x = torch.rand(n, n, device="cuda", dtype=torch.float32)
    for name, f in [(f"torch.topk(img.view(-1), {k}) float32", lambda: torch.topk(x.view(-1), k)),
                    ("torch.nonzero(img > 0.5) (where, for scale)", lambda: torch.nonzero(x.view(-1) > 0.5))]:
        rows.append((name, torch_ms(torch, f, reps)))
except Exception as e:  # a missing library is reported, not fatal
    print("torch:", e)

print_table(rows, n, reps)
