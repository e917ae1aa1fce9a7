"""bench/gpu/reduce: the Python peer of formac's topk, written the usual way:
torch.topk of the flattened float32 image (K = 1000, largest first, sorted),
median of repeated runs timed with CUDA events (as bench/gpu/scan/peers_scan.py)."""
import sys

n, reps, k = 8192, 50, 1000
args = sys.argv[1:]
for i, a in enumerate(args):
    if a == "--size":
        n = int(args[i + 1])
    if a == "--reps":
        reps = int(args[i + 1])
rows = []


def median(ts):
    ts = sorted(ts)
    return ts[len(ts) // 2]


try:
    import torch
    x = torch.rand(n, n, device="cuda", dtype=torch.float32)
    for name, f in [(f"torch.topk(img.view(-1), {k}) float32", lambda: torch.topk(x.view(-1), k)),
                    ("torch.nonzero(img > 0.5) (where, for scale)", lambda: torch.nonzero(x.view(-1) > 0.5))]:
        for _ in range(5):
            f()
        torch.cuda.synchronize()
        ts = []
        for _ in range(reps):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            f()
            b.record()
            b.synchronize()
            ts.append(a.elapsed_time(b))
        rows.append((name, median(ts)))
except Exception as e:  # a missing library is reported, not fatal
    print("torch:", e)

print(f"\nPython peers, {n}x{n} float32, median of {reps} runs\n")
print("| peer | median ms |\n|---|---|")
for name, ms in rows:
    print(f"| {name} | {ms:.4f} |")
