"""The Python module's target="cuda" on a GPU (run by python_gpu.sh): torch,
CuPy and JAX arrays through blur, harris and a reduction program, bit for
bit against `formac run --backend=eval` (.npy files) and the evaluator
in-process; torch on a side stream and with out=; the device errors.
Prints a FAIL line per mismatch and `python gpu: P passed, F failed, S
skipped`; exits 1 when anything failed."""
import argparse
import pathlib
import subprocess
import sys
import traceback

import numpy as np

import formac

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROGRAMS = [("blur", {}), ("harris", {"k": 0.04}), ("stats", {})]
SHAPES = [(67, 45), (512, 512), (1031, 777)]
count = {"passed": 0, "failed": 0, "skipped": 0}


def report(ok, what, why=""):
    count["passed" if ok else "failed"] += 1
    if not ok:
        print("FAIL", what, why)


def skip(what, why):
    count["skipped"] += 1
    print("SKIP", what, "-", why)


def libraries():
    libs = {}
    try:
        import torch
        if torch.cuda.is_available():
            libs["torch"] = (lambda a: torch.from_numpy(a).cuda(), lambda t: t.cpu().numpy())
    except ImportError:
        pass
    try:
        import cupy
        libs["cupy"] = (cupy.asarray, cupy.asnumpy)
    except ImportError:
        pass
    try:
        import jax
        jax.config.update("jax_enable_x64", True)  # blur's and stats' double results (formac refuses them otherwise)
        gpu = jax.devices("gpu")[0]
        libs["jax"] = (lambda a: jax.device_put(a, gpu), np.asarray)
    except Exception as e:  # no JAX, or JAX without its CUDA plugin
        print("no JAX on the GPU:", e)
    return libs


def as_numpy(result, back):
    if isinstance(result, tuple):
        return tuple(as_numpy(r, back) for r in result)
    a = back(result)
    return a.item() if np.ndim(a) == 0 else a


def same(a, b):
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    return np.array([a], np.float64).tobytes() == np.array([b], np.float64).tobytes()


def formac_run_eval(formac_exe, program, img, values, scratch):
    """The command line's evaluator, on .npy files: the image results."""
    np.save(scratch / "in.npy", img)
    outs = [str(scratch / ("out%d.npy" % i)) for i, o in enumerate(program_outputs(program)) if o["ndim"] > 0]
    cmd = [formac_exe, "run", program, "--backend=eval", "--input", str(scratch / "in.npy")]
    for k, v in values.items():
        cmd += ["--param", "%s=%r" % (k, v)]
    for o in outs:
        cmd += ["--output", o]
    subprocess.run(cmd, check=True, capture_output=True)
    return [np.load(o) for o in outs]


def program_outputs(program):
    return formac.compile(program, target="eval").outputs


def check_program(name, values, libs, args):
    program = str(ROOT / "examples" / name / (name + ".idsl"))
    try:
        gpu = formac.compile(program, target="cuda")
    except formac.CompileError as e:
        skip(name, "the cuda target does not compile it yet: " + str(e).splitlines()[0])
        return
    ref_pipeline = formac.compile(program, target="eval")
    rng = np.random.default_rng(7)
    for shape in SHAPES:
        img = rng.random(shape).astype(np.float32)
        ref = ref_pipeline(img, **values)
        cli = formac_run_eval(args.formac, program, img, values, args.scratch)
        images = [r for r in (ref if isinstance(ref, tuple) else (ref,)) if isinstance(r, np.ndarray)]
        report(all(same(a, b) for a, b in zip(images, cli)), "%s %s: the evaluator in-process vs formac run" % (name, shape))
        for lib, (to, back) in libs.items():
            what = "%s %s on %s" % (name, shape, lib)
            try:
                got = as_numpy(gpu(to(img), **values), back)
                report(same(got, ref), what, "differs from the evaluator")
            except Exception:
                report(False, what, traceback.format_exc())


def check_torch_details(libs):
    if "torch" not in libs:
        skip("torch details", "no torch on the GPU")
        return
    import torch
    program = str(ROOT / "examples" / "harris" / "harris.idsl")
    gpu, ref = formac.compile(program, target="cuda"), formac.compile(program, target="eval")
    img = np.random.default_rng(3).random((300, 200)).astype(np.float32)
    expect = ref(img, k=0.04)
    x = torch.from_numpy(img).cuda()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        y = gpu(x, k=0.04)
        y2 = y * 2  # torch's own work after formac's, on the same stream
    side.synchronize()
    report(same(y.cpu().numpy(), expect), "torch on a side stream")
    report(same(y2.cpu().numpy(), expect * 2), "torch work ordered after formac's on its stream")
    out = torch.full((300, 200), 7.0, device="cuda")
    got = gpu(x, k=0.04, out=out)
    report(got is out and same(out.cpu().numpy(), expect), "torch out= in place")
    for bad, kind in [(lambda: gpu(img, k=0.04), TypeError), (lambda: formac.compile(program)(x, k=0.04), TypeError),
                      (lambda: gpu(x.double(), k=0.04), TypeError), (lambda: gpu(x[:, ::2], k=0.04), ValueError)]:
        try:
            bad()
            report(False, "device error path", "no exception")
        except kind as e:
            report(True, "device error path: " + str(e))
    if torch.cuda.device_count() > 1:
        try:
            gpu(x.to("cuda:1"), k=0.04)
            report(False, "an array on device 1", "no exception")
        except ValueError:
            report(True, "an array on device 1")


# Outputs given with out= and filled with 7 first: a placement's points that
# no stage computes must read 0 (the run zeroes that output), every point of
# the others is written (no zeroing), and a stage returned twice fills both.
OUT_PROGRAMS = {
    "a placement": "parameter M, N;\nvector#2 float src[M,N];\nplaced[2..,3..] = src;\nreturn placed;\n",
    "a stage returned twice": "parameter M, N;\nvector#2 float a[M,N];\n"
                              "stencil s(vector#2 float X) { return X@[0,-1] + X@[0,1]; }\n"
                              "b = s(a:mirror);\nreturn b, b;\n",
}


def check_outputs_given(libs):
    if "torch" not in libs:
        skip("outputs given", "no torch on the GPU")
        return
    import torch
    img = np.random.default_rng(5).random((37, 29)).astype(np.float32)
    for what, text in OUT_PROGRAMS.items():
        gpu, ref = formac.compile(text, target="cuda"), formac.compile(text, target="eval")
        expect = ref(img)
        expect = expect if isinstance(expect, tuple) else (expect,)
        outs = tuple(torch.full(e.shape, 7.0, dtype=torch.float32, device="cuda") for e in expect)
        gpu(torch.from_numpy(img).cuda(), out=outs if len(outs) > 1 else outs[0])
        report(all(same(o.cpu().numpy(), e) for o, e in zip(outs, expect)), "out= given, " + what)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--formac", required=True)
    ap.add_argument("--scratch", required=True, type=pathlib.Path)
    args = ap.parse_args()
    args.scratch.mkdir(parents=True, exist_ok=True)
    libs = libraries()
    print("== libraries on the GPU:", ", ".join(libs) or "none")
    for name, values in PROGRAMS:
        check_program(name, values, libs, args)
    check_torch_details(libs)
    check_outputs_given(libs)
    print("python gpu: %(passed)d passed, %(failed)d failed, %(skipped)d skipped" % count)
    return 1 if count["failed"] or not libs else 0


if __name__ == "__main__":
    sys.exit(main())
