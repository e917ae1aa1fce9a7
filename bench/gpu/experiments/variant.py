#!/usr/bin/env python3
"""Make a variant of formac's generated CUDA for `bench_gpu --experiments`.

    variant.py SRC.cu SRC.h PIPELINE NAME OUTDIR [--smem BYTES] [--carveout PCT] [--not-exact]

Copies SRC.cu / SRC.h (formac output for PIPELINE, e.g. .bench-gpu/gen/blur.cu)
to OUTDIR/NAME.cu / NAME.h with every `PIPELINE_` name and the entry point
renamed, and `NAME_run` without its final device synchronisation, so that the
variant is timed like `run_async` (a bare launch). Options:
  --smem BYTES     launch with this much dynamic shared memory (fewer blocks per SM)
  --carveout PCT   cudaFuncAttributePreferredSharedMemoryCarveout before each launch
  --not-exact      products and sums may contract into FMAs, a float division by
                   an odd constant becomes x * (1/c), square roots sqrt.approx
                   (what a fast-math build would do; results differ from formac's)
Then list it in OUTDIR/experiments.inc:
    FORMAC_EXPERIMENT(PIPELINE, NAME, "what differs")
and run EXPERIMENTS=1 bash bench/gpu/run_on_device.sh on the GPU machine.
Diagnostic only: never in the results table (bench/gpu/HISTORY.md cites its rows).
"""
import argparse
import re

NOT_EXACT = '''/* variant.py --not-exact: contraction, reciprocal multiply, approximate square root. */
static __device__ __forceinline__ float formac_x_sqrt(float x) {
  float y;
  asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
#define __fmul_rn(a, b) ((a) * (b))
#define __fadd_rn(a, b) ((a) + (b))
#define formac_div_odd_f(x, c, r) ((x) * (r))
#define sqrtf formac_x_sqrt
#define __fsqrt_rn formac_x_sqrt
'''


def rename(text, old, new):
    text = re.sub(r"\b" + old + r"\(", new + "(", text)
    text = re.sub(r"\b" + old + "_", new + "_", text)
    return text.replace(old.upper() + "_", new.upper() + "_")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for a in ("cu", "h", "pipeline", "name", "outdir"):
        ap.add_argument(a)
    ap.add_argument("--smem", type=int)
    ap.add_argument("--carveout", type=int)
    ap.add_argument("--not-exact", action="store_true")
    o = ap.parse_args()
    cu = rename(open(o.cu).read(), o.pipeline, o.name)
    h = rename(open(o.h).read(), o.pipeline, o.name)
    run = re.search(r'extern "C" int %s_run\(.*?\n}\n' % o.name, cu, re.S)
    if not run:
        raise SystemExit("no %s_run in %s" % (o.name, o.cu))
    sync = "  FORMAC_CUDA_CHECK(cudaDeviceSynchronize(), return 1);\n"
    if sync not in run.group(0):
        raise SystemExit("%s_run has no final synchronisation to remove" % o.name)
    cu = cu.replace(run.group(0), run.group(0).replace(sync, ""))
    if o.smem is not None:
        launch = r"(<<<dim3\([^>]*\), dim3\([^>]*\), )\d+(, stream>>>)"
        cu, n = re.subn(launch, lambda m: m.group(1) + str(o.smem) + m.group(2), cu)
        if not n:
            raise SystemExit("--smem: no fused launch in " + o.cu)
    if o.carveout is not None:
        def carve(m):
            ind, kernel = m.group(1), m.group(2)
            return "".join("%scudaFuncSetAttribute(%s<%s>, cudaFuncAttributePreferredSharedMemoryCarveout, %d);\n"
                           % (ind, kernel, t, o.carveout) for t in ("int", "long long")) + m.group(0)
        cu, n = re.subn(r"( *)if \(int_index\) (\w+)<int>", carve, cu)
        if not n:
            raise SystemExit("--carveout: no launch of the form `if (int_index) KERNEL<int>` in " + o.cu)
    if o.not_exact:
        at = cu.index("/* Fused:")
        cu = cu[:at] + NOT_EXACT + cu[at:]
    open("%s/%s.cu" % (o.outdir, o.name), "w").write(cu)
    open("%s/%s.h" % (o.outdir, o.name), "w").write(h)


if __name__ == "__main__":
    main()
