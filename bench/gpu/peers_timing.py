"""What bench/gpu's Python peers share (reduce/peers_reduce.py, scan/peers_scan.py):
their options, timing a torch call with CUDA events, and the table they print."""
import sys


def options(defaults):
    """`defaults` ({"size": 8192, "reps": 50}) updated from --size N and --reps R."""
    o = dict(defaults)
    args = sys.argv[1:]
    for i, a in enumerate(args):
        if a in ("--size", "--reps") and i + 1 < len(args):
            o[a[2:]] = int(args[i + 1])
    return o


def median(ts):
    ts = sorted(ts)
    return ts[len(ts) // 2]


def torch_ms(torch, f, reps):
    """The median of `reps` runs of f() after 5 warm-up runs, in ms by CUDA events."""
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
    return median(ts)


def print_table(rows, n, reps):
    print(f"\nPython peers, {n}x{n} float32, median of {reps} runs\n")
    print("| peer | median ms |\n|---|---|")
    for name, ms in rows:
        print(f"| {name} | {ms:.4f} |")
