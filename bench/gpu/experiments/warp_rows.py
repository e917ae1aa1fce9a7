#!/usr/bin/env python3
"""Exact variants of formac's fused canny that deal each row group's items to
whole warps, so that no warp straddles two row groups (RESULTS.md, "Shared-memory
bank conflicts"). From the generated canny.cu/.h (bench/gpu/prepare.sh), through
variant.py, into OUTDIR with experiments.inc:

    python3 bench/gpu/experiments/warp_rows.py .bench-gpu/gen .bench-gpu/exp
    EXPERIMENTS=1 bash bench/gpu/run_on_device.sh --only canny   # on the GPU machine

A sweep of G row groups of W items (item i: group i / W, column pair i % W) becomes
G * 32 main items, 32 a group, a warp each, and then the G * (W - 32) left over,
W - 32 a group: the same items, the same code for each, other threads.
  wref    formac's kernel, timed like the others (the reference of the run)
  wwarp   the Gaussian's and the gradients' sweeps dealt by whole warps
  wwarp5  wwarp launched as <int, 5> like formac's kernel (wwarp fits 6 blocks an
          SM without spilling, so its launch picks <int, 6>: fewer registers)
  wwarp76 also the staged image 76 floats a row instead of 72, so that the
          left-over items of successive row groups fall on other banks
"""
import sys

from bank_conflicts import resub, sub, write_variants

VARIANTS = {
    "wref": "formac's kernel, timed like run_async (reference of this run)",
    "wwarp": "exact: sweeps dealt to whole warps a row group, the left-over items after",
    "wwarp5": "exact: wwarp launched as <int, 5> (5 blocks an SM, like formac's)",
    "wwarp76": "exact: wwarp, and the staged image 76 floats a row",
}


def warp_rows(s):
    # Gaussian: 9 groups x 34 items; gradients: 9 groups x 33 items.
    for total, per in (("306", "34"), ("297", "33")):
        old = "i < %s; i += 256) {\n%sconst int r = (i / %s) * 4, c = (i %% %s) * 2;"
        main, tail = 9 * 32, int(per) - 32
        new = ("i < {t}; i += 256) {{\n{ind}const int r = (i < {m} ? i >> 5 : (i - {m}) / {k}) * 4, "
               "c = (i < {m} ? i & 31 : 32 + (i - {m}) % {k}) * 2;")
        for indent in ("        ", "      "):
            if (old % (total, indent, per, per)) in s:
                s = s.replace(old % (total, indent, per, per), new.format(t=total, ind=indent, m=main, k=tail))
        if ("(i / %s) * 4" % per) in s:
            raise SystemExit("warp_rows.py: a sweep of %s items a group is left" % per)
    return s


def stride76(s):
    s = warp_rows(s)
    s = resub(s, r"(formac_in_img\[\(int\)\(\(q0[^()]*\) - \(t0 - 4\)\)) \* 72 \+ ", r"\1 * 76 + ")
    for k in ("formac_cr_img", "(formac_cr_img + 14)", "(formac_cr_img + 28)"):
        s = sub(s, "formac_in_img + %s * 72 + " % k, "formac_in_img + %s * 76 + " % k)
        s = sub(s, "[%s * 18 + formac_cc_img / 4]" % k, "[%s * 19 + formac_cc_img / 4]" % k)
    return sub(s, "/* 40 x 72: img", "/* 40 x 76: img")


def five(s):
    s = warp_rows(s)
    return resub(s, r"if \(cudaFuncGetAttributes\(&a, wwarp5_fused6_classify<int, 6>\) == cudaSuccess", "if (false")


EDITS = {"wref": lambda s: s, "wwarp": warp_rows, "wwarp5": five, "wwarp76": stride76}


if __name__ == "__main__":
    write_variants(sys.argv, __doc__, VARIANTS, EDITS)
