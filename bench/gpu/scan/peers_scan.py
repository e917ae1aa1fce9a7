"""bench/gpu/scan: the Python peers of formac's SAT, written the usual way for each
library: torch.cumsum(1).cumsum(0), jax.jit of jnp.cumsum twice, CuPy's cumsum
twice, float32 in and the accumulation type each library uses by default (and
float64 where it matters), median of repeated runs timed with CUDA events
(peers_timing.py)."""
import time

from peers_timing import median, options, print_table, torch_ms

o = options({"size": 8192, "reps": 50})
n, reps = o["size"], o["reps"]
rows = []

try:
    import torch
    x = torch.rand(n, n, device="cuda", dtype=torch.float32)
    for name, f in [("torch cumsum(1).cumsum(0) float32", lambda: x.cumsum(1).cumsum(0)),
                    ("torch cumsum(1).cumsum(0) float32 -> float64", lambda: x.double().cumsum(1).cumsum(0)),
                    ("torch cumsum 1-D float32", lambda: x.view(-1).cumsum(0))]:
        rows.append((name, torch_ms(torch, f, reps)))
except Exception as e:  # a missing library is reported, not fatal
    print("torch:", e)

try:
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
    xj = jax.random.uniform(jax.random.PRNGKey(0), (n, n), dtype=jnp.float32)
    for name, f in [("jax.jit cumsum(1).cumsum(0) float32", jax.jit(lambda v: jnp.cumsum(jnp.cumsum(v, 1), 0))),
                    ("jax.jit cumsum(1).cumsum(0) float32 -> float64",
                     jax.jit(lambda v: jnp.cumsum(jnp.cumsum(v.astype(jnp.float64), 1), 0)))]:
        for _ in range(5):
            f(xj).block_until_ready()
        ts = []
        for _ in range(reps):
            t = time.perf_counter()
            f(xj).block_until_ready()
            ts.append((time.perf_counter() - t) * 1e3)
        rows.append((name + " (wall clock)", median(ts)))
except Exception as e:
    print("jax:", e)

try:
    import cupy as cp
    xc = cp.random.rand(n, n, dtype=cp.float32)
    for name, f in [("cupy cumsum(1).cumsum(0) float32", lambda: cp.cumsum(cp.cumsum(xc, 1), 0))]:
        for _ in range(5):
            f()
        cp.cuda.Device().synchronize()
        ts = []
        for _ in range(reps):
            a, b = cp.cuda.Event(), cp.cuda.Event()
            a.record()
            f()
            b.record()
            b.synchronize()
            ts.append(cp.cuda.get_elapsed_time(a, b))
        rows.append((name, median(ts)))
except Exception as e:
    print("cupy:", e)

print_table(rows, n, reps)
