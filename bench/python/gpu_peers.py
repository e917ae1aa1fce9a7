"""Harris and a summed-area table on the GPU: formac from Python (torch
tensors, target="cuda") against the same computations written the usual way
in torch, CuPy and JAX (jax.jit), in one run; each peer is checked against
formac's result first (Harris: within 1e-4 of the response's range; the SAT
in float64: within 1e-9 relative). Prints a Markdown table with the date and
the GPU; run by tests/gpu/python_gpu.sh.

    PYTHONPATH=build/python python3 bench/python/gpu_peers.py [--size 4096] [--quick]

Harris is examples/harris/harris.idsl: Sobel x/y with mirrored borders
(reflect-101: torch "reflect", scipy/CuPy "mirror", numpy/JAX "reflect"),
the three products, a 3x3 Gaussian of each, det - k trace^2. The SAT is
formac's `sat(img)` of a float image: double sums (JAX: with x64 enabled)."""
import argparse
import datetime
import os
import pathlib
import statistics
import time

import numpy as np

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
import formac  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOBEL_X = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], np.float32)
SOBEL_Y = SOBEL_X.T.copy()
GAUSS = np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]], np.float32) / 16
SAT = "parameter M, N;\nvector#2 float img[M,N];\nI = sat(img);\nreturn I;\n"


def seconds(run, sync, repeat):
    run()
    sync()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        run()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def torch_peers(k):
    import torch
    import torch.nn.functional as F
    w1 = torch.from_numpy(np.stack([SOBEL_X, SOBEL_Y])[:, None]).cuda()
    w2 = torch.from_numpy(np.stack([GAUSS] * 3)[:, None]).cuda()

    def harris(x):
        g = F.conv2d(F.pad(x[None, None], (1, 1, 1, 1), mode="reflect"), w1)
        ix, iy = g[:, 0:1], g[:, 1:2]
        s = F.conv2d(F.pad(torch.cat([ix * ix, iy * iy, ix * iy], 1), (1, 1, 1, 1), mode="reflect"), w2, groups=3)
        sxx, syy, sxy = s[0, 0], s[0, 1], s[0, 2]
        return sxx * syy - sxy * sxy - k * (sxx + syy) ** 2

    def sat(x):
        return torch.cumsum(torch.cumsum(x, 0, dtype=torch.float64), 1)
    return harris, sat, torch.cuda.synchronize, lambda a: torch.from_numpy(a).cuda(), lambda t: t.cpu().numpy()


def cupy_peers(k):
    import cupy
    from cupyx.scipy import ndimage
    sx, sy, g = cupy.asarray(SOBEL_X), cupy.asarray(SOBEL_Y), cupy.asarray(GAUSS)

    def harris(x):
        ix, iy = ndimage.correlate(x, sx, mode="mirror"), ndimage.correlate(x, sy, mode="mirror")
        sxx = ndimage.correlate(ix * ix, g, mode="mirror")
        syy = ndimage.correlate(iy * iy, g, mode="mirror")
        sxy = ndimage.correlate(ix * iy, g, mode="mirror")
        return sxx * syy - sxy * sxy - k * (sxx + syy) ** 2

    def sat(x):
        return cupy.cumsum(cupy.cumsum(x, axis=0, dtype=cupy.float64), axis=1)
    sync = lambda: cupy.cuda.get_current_stream().synchronize()  # noqa: E731
    return harris, sat, sync, cupy.asarray, cupy.asnumpy


def jax_peers(k):
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    def stencil(x, w):
        p = jnp.pad(x, 1, mode="reflect")
        h, wd = x.shape
        return sum(float(w[i, j]) * p[i:i + h, j:j + wd] for i in range(3) for j in range(3) if w[i, j] != 0)

    @jax.jit
    def harris(x):
        ix, iy = stencil(x, SOBEL_X), stencil(x, SOBEL_Y)
        sxx, syy, sxy = stencil(ix * ix, GAUSS), stencil(iy * iy, GAUSS), stencil(ix * iy, GAUSS)
        return sxx * syy - sxy * sxy - jnp.float32(k) * (sxx + syy) ** 2

    @jax.jit
    def sat(x):
        return jnp.cumsum(jnp.cumsum(x.astype(jnp.float64), axis=0), axis=1)
    gpu = jax.devices("gpu")[0]
    # JAX dispatches asynchronously and has no stream to synchronise: each call waits for its result.
    return ((lambda d: harris(d).block_until_ready()), (lambda d: sat(d).block_until_ready()), (lambda: None),
            (lambda a: jax.device_put(a, gpu)), np.asarray)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    import torch
    repeat = 5 if args.quick else 50
    k = 0.04
    img = np.random.default_rng(5).random((args.size, args.size)).astype(np.float32)
    x = torch.from_numpy(img).cuda()
    harris = formac.compile(str(ROOT / "examples" / "harris" / "harris.idsl"), target="cuda")
    expect = harris(x, k=k).cpu().numpy()
    rows = [("formac (Python, torch tensors)", "harris", seconds(lambda: harris(x, k=k), torch.cuda.synchronize, repeat))]
    try:
        sat = formac.compile(SAT, target="cuda")
        expect_sat = sat(x).cpu().numpy()
        rows.append(("formac (Python, torch tensors)", "sat", seconds(lambda: sat(x), torch.cuda.synchronize, repeat)))
    except formac.CompileError as e:
        expect_sat = np.cumsum(np.cumsum(img.astype(np.float64), 0), 1)
        rows.append(("formac (Python, torch tensors)", "sat", "n/a: " + str(e).splitlines()[0][:80]))
    scale = float(np.abs(expect).max())
    for name, make in [("torch", torch_peers), ("CuPy", cupy_peers), ("JAX jax.jit", jax_peers)]:
        try:
            h, s, sync, to, back = make(k)
        except Exception as e:  # the library is missing here
            rows.append((name, "both", "n/a: %s" % e))
            continue
        d = to(img)
        err = float(np.abs(back(h(d)) - expect).max()) / scale
        rows.append((name, "harris", seconds(lambda: h(d), sync, repeat) if err < 1e-4 else "wrong (%.2g)" % err))
        got = back(s(d))
        err = float(np.abs(got - expect_sat).max() / np.abs(expect_sat).max())
        rows.append((name, "sat", seconds(lambda: s(d), sync, repeat) if err < 1e-9 else "wrong (%.2g)" % err))

    print("Harris and SAT, %dx%d float32, %s, %s" % (args.size, args.size, torch.cuda.get_device_name(0),
                                                     datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")))
    print()
    print("| library | pipeline | ms (median of %d) | formac's speed-up |" % repeat)
    print("|---|---|---|---|")
    best = {r[1]: r[2] for r in rows if r[0].startswith("formac") and isinstance(r[2], float)}
    for name, what, t in rows:
        if isinstance(t, float):
            ratio = "%.2fx" % (t / best[what]) if what in best and not name.startswith("formac") else ""
            print("| %s | %s | %.3f | %s |" % (name, what, t * 1e3, ratio))
        else:
            print("| %s | %s | %s | |" % (name, what, t))


if __name__ == "__main__":
    main()
