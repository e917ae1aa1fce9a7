#!/usr/bin/env python3
"""Variants of formac's fused canny that locate its shared-memory bank conflicts
(RESULTS.md, "Shared-memory bank conflicts"). From the generated canny.cu/.h
(bench/gpu/prepare.sh), through variant.py, into OUTDIR with experiments.inc:

    python3 bench/gpu/experiments/bank_conflicts.py .bench-gpu/gen .bench-gpu/exp
    EXPERIMENTS=1 bash bench/gpu/run_on_device.sh --only canny   # on the GPU machine

The edits match the code formac generates for bench/gpu/canny.idsl at 024ede1
(a 32 x 64 tile; the Gaussian sweep 9 row groups of 34 items of 4 x 2 points,
the gradient sweep 9 of 33); each one fails loudly when the code differs.
  cref    formac's kernel, timed like the others (the reference of the run)
  cfewer  WRONG OUTPUT: both sweeps cut to 288 items, same mapping (less work)
  cwrap   WRONG OUTPUT: 288 items, 32 a row group: no warp straddles two row
          groups (against cfewer: what the straddling warps' conflicts cost)
  cthin   WRONG OUTPUT: the thinning reads gx, gy one column left, 8-byte
          aligned pairs (what its stride-2 scalar loads cost)
  cskew   exact: the staged image skewed 4 floats a 4-row group, which makes
          the Gaussian's straddling warps conflict-free
  cskew3  exact: also smooth skewed 18 a group and gx/gy/mag 26 (the
          gradient sweep's loads and stores); sizes and offsets moved to fit
  cskewr  exact: cskew with the sweep's group offset written from its r (a
          multiple of 4): (r >> 2) * 4 once an item, the rest constant
  cskewb  exact: cskew with each of the sweep's reads at a base computed once an
          item, r * 72 + (r >> 2) * 4, plus a constant the script folds
"""
import os
import re
import subprocess
import sys

VARIANTS = {
    "cref": "formac's kernel, timed like run_async (reference of this run)",
    "cfewer": "WRONG OUTPUT: Gaussian and gradient sweeps cut to 288 items (same mapping)",
    "cwrap": "WRONG OUTPUT: 288 items, 32 a row group (no warp straddles two row groups)",
    "cthin": "WRONG OUTPUT: thinning reads gx, gy one column left (8-byte aligned pairs)",
    "cskew": "staged img skewed 4 floats a 4-row group (the Gaussian's straddling warps conflict-free)",
    "cskew3": "also smooth skewed 18 a group, gx/gy/mag 26 (gradient loads and stores)",
    "cskewr": "cskew, the sweep's group offset from its r: (r >> 2) * 4 + a constant",
    "cskewb": "cskew, the sweep's reads at an item base plus folded constants",
}
GAUSS = "i < 306; i += 256) {\n        const int r = (i / 34) * 4, c = (i % 34) * 2;"
GRAD = "i < 297; i += 256) {\n      const int r = (i / 33) * 4, c = (i % 33) * 2;"


def sub(s, old, new, count=None):
    n = s.count(old)
    if n == 0 or (count is not None and n != count):
        raise SystemExit("bank_conflicts.py: %r found %d times: not the code this script edits" % (old[:60], n))
    return s.replace(old, new)


def resub(s, pattern, repl):
    s, n = re.subn(pattern, repl, s)
    if n == 0:
        raise SystemExit("bank_conflicts.py: %r matches nothing: not the code this script edits" % pattern[:60])
    return s


def fewer(s, per_row):
    s = sub(s, GAUSS, GAUSS.replace("306", "288").replace("34", per_row))
    return sub(s, GRAD, GRAD.replace("297", "288").replace("33", per_row))


def thin(s):
    a, b = s.index("auto formac_at_edges"), s.index("auto formac_atc_edges")
    mid = s[a:b]
    for t in ("gx", "gy"):
        mid = sub(mid, "tile_%s[(int)((q0) - (t0 - 1)) * 66 + (int)((q1) - (t1 - 1))]" % t,
                  "tile_%s[(int)((q0) - (t0 - 1)) * 66 + (int)((q1) - (t1))]" % t)
    return s[:a] + mid + s[b:]


def skew_img(s):
    s = sub(s, "template <typename I, int formac_blocks = 0>",
            "#define FSK(r) ((r) * 72 + ((r) >> 2) * 4)\n#define FSKS(r) ((r) * 68 + ((r) >> 2) * 18)\n"
            "#define FSKG(r) ((r) * 66 + ((r) >> 2) * 26)\ntemplate <typename I, int formac_blocks = 0>", 1)
    s = resub(s, r"formac_in_img\[(\(int\)\(\(q0[^()]*\) - \(t0 - 4\)\)) \* 72 \+ ", r"formac_in_img[FSK(\1) + ")
    for k in ("formac_cr_img", "(formac_cr_img + 14)", "(formac_cr_img + 28)"):
        row = k.strip("()")
        s = sub(s, "formac_in_img + %s * 72 + " % k, "formac_in_img + FSK(%s) + " % row)
        s = sub(s, "[%s * 18 + formac_cc_img / 4]" % k, "[(FSK(%s) >> 2) + formac_cc_img / 4]" % row)
    return s


def skew_all(s):
    s = skew_img(s)
    s = resub(s, r"tile_smooth\[(.+?) \* 68 \+ ", r"tile_smooth[FSKS(\1) + ")
    for t in ("gx", "gy", "mag"):
        s = resub(s, r"tile_%s\[(.+?) \* 66 \+ " % t, r"tile_%s[FSKG(\1) + " % t)
    # smooth 36 x 68 + 9 x 18 floats; gx, gy, mag 34 x 66 + 9 x 26 each (16-byte aligned)
    s = sub(s, "formac_smem + 9792)", "formac_smem + 10448)")
    s = sub(s, "formac_smem + 18768)", "formac_smem + 20368)")
    s = sub(s, "formac_smem + 27744)", "formac_smem + 30288)")
    return sub(s, "36720", "40224")


def skew_img_r(s):
    s = skew_img(s)
    s = sub(s, "#define FSK(r) ", "#define FSKR(x) ((x) * 72 + ((r >> 2) + (((x) - r) >> 2)) * 4)\n#define FSK(r) ", 1)
    return resub(s, r"formac_in_img\[FSK\(\(int\)\(\(q0", "formac_in_img[FSKR((int)((q0")


def skew_img_base(s):
    """The staged sweep's reads at formac_skb (its row group's start, once an item)
    plus a constant: row r + K of the staged image, K = k + d + 2 for point k's
    tap d (its q0 is (t0 - 2) + r + k; the staged tile starts at t0 - 4)."""
    s = skew_img(s)
    s = sub(s, "const int r = (i / 34) * 4, c = (i % 34) * 2;",
            "const int r = (i / 34) * 4, c = (i % 34) * 2;\n        const int formac_skb = r * 72 + (r >> 2) * 4;")
    out, k = [], None
    for line in s.split("\n"):
        m = re.search(r"const I q0 = \(t0 - 2\) \+ r \+ (\d+);", line)
        if m:
            k = int(m.group(1))

        def base(mm):
            d = int(mm.group(2) or 0) * (-1 if mm.group(1) == "-" else 1)
            row = k + d + 2
            return "formac_in_img[formac_skb + %d + " % (row * 72 + (row >> 2) * 4)
        out.append(re.sub(r"formac_in_img\[FSK\(\(int\)\(\(q0(?: ([+-]) (\d+))?\) - \(t0 - 4\)\)\) \+ ", base, line))
    s = "\n".join(out)
    if "FSK((int)((q0" in s:
        raise SystemExit("bank_conflicts.py: a staged read outside the sweep")
    return s


EDITS = {"cref": lambda s: s, "cfewer": lambda s: fewer(s, "34"), "cwrap": lambda s: fewer(s, "32"),
         "cthin": thin, "cskew": skew_img, "cskew3": skew_all,
         "cskewr": skew_img_r, "cskewb": skew_img_base}


def write_variants(argv, doc, variants, edits):
    """variant.py for each name of VARIANTS, then its edit; and OUTDIR/experiments.inc."""
    if len(argv) != 3:
        raise SystemExit(doc)
    gen, out = argv[1:]
    os.makedirs(out, exist_ok=True)
    variant = os.path.join(os.path.dirname(os.path.abspath(__file__)), "variant.py")
    for name in variants:
        subprocess.run([sys.executable, variant, os.path.join(gen, "canny.cu"), os.path.join(gen, "canny.h"),
                        "canny", name, out], check=True)
        path = os.path.join(out, name + ".cu")
        text = open(path).read()
        open(path, "w").write(edits[name](text))
    with open(os.path.join(out, "experiments.inc"), "w") as f:
        for name, what in variants.items():
            f.write('FORMAC_EXPERIMENT(canny, %s, "%s")\n' % (name, what))


if __name__ == "__main__":
    write_variants(sys.argv, __doc__, VARIANTS, EDITS)
