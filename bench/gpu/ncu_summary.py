#!/usr/bin/env python3
"""Summarise ncu_kernels.csv (run_on_device.sh with NCU=1) per variant.

The CSV lists every kernel of `bench_gpu --sizes 8192 --reps 1 --warmup 0
--no-check --no-flush`: each variant is called twice (the check, then the
timed call) in the driver's order; the second call's kernels are summed.
LAYOUT must follow bench_gpu.cu's variants (and the kernels per call).
    python3 bench/gpu/ncu_summary.py ncu_kernels.csv
"""
import collections
import csv
import io
import sys

LAYOUT = [("blur", "formac fused", 1), ("blur", "formac fused, run_async", 1),
          ("blur", "formac --no-fuse", 2), ("blur", "Halide 32x8 tile", 1),
          ("blur", "Halide 32x32 tile", 1), ("blur", "NPP FilterBoxBorder", 1), ("blur", "NPP FilterColumn+RowBorder", 2),
          ("harris", "formac fused", 1), ("harris", "formac fused, run_async", 1),
          ("harris", "formac --no-fuse", 9), ("harris", "Halide 32x8 tile", 1),
          ("harris", "Halide 32x32 tile", 1), ("harris", "NPP FilterHarrisCornersBorder (8u)", 2),
          ("canny", "formac fused", 1), ("canny", "formac fused, run_async", 1),
          ("canny", "formac --no-fuse", 6), ("canny", "Halide 32x8 tile", 1),
          ("canny", "Halide 32x32 tile", 1), ("canny", "NPP FilterCannyBorder (8u)", 3),
          ("canny", "NPP FilterGaussBorder 5x5 + FilterCannyBorder (8u)", 4),
          ("canny", "NPP FilterGaussBorder 5x5 (f32) alone", 1)]

lines = [l for l in open(sys.argv[1]) if l.startswith('"')]
rows = collections.OrderedDict()
for x in csv.DictReader(io.StringIO("".join(lines))):
    rows.setdefault(int(x["ID"]), {"name": x["Kernel Name"]})[x["Metric Name"]] = float(x["Metric Value"].replace(",", ""))
ids = list(rows)
print("| pipeline | variant | kernels | kernel ms | DRAM read MB | DRAM write MB | DRAM GB/s | active warps % of peak |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
i = 0
for p, v, k in LAYOUT:
    i += k  # the check call
    ks = [rows[ids[j]] for j in range(i, i + k)]
    i += k
    t = sum(x["gpu__time_duration.sum"] for x in ks) / 1e6
    rd = sum(x["dram__bytes_read.sum"] for x in ks) / 1e6
    wr = sum(x["dram__bytes_write.sum"] for x in ks) / 1e6
    occ = sum(x["sm__warps_active.avg.pct_of_peak_sustained_active"] * x["gpu__time_duration.sum"] for x in ks) / (t * 1e6)
    print(f"| {p} | {v} | {k} | {t:.3f} | {rd:.0f} | {wr:.0f} | {(rd + wr) / t:.0f} | {occ:.0f} |")
if i != len(ids):
    print(f"(warning: {len(ids)} kernels in the CSV, {i} expected from LAYOUT)", file=sys.stderr)
