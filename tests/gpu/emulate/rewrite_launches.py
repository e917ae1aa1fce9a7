#!/usr/bin/env python3
"""Rewrites a generated .cu for tests/gpu/emulate/cuda_emu.h: every launch
`K<<<grid, block, shared, stream>>>(args);` becomes
`formac_emu::launch(dim3(grid), dim3(block), [&]() { K(args); });`, dynamic
shared memory (`extern __shared__ __align__(A) T name[];`) becomes a static
array of 256 KiB (more than a GPU block may have), and the CUDA runtime
include goes.   rewrite_launches.py IN.cu OUT.cc"""
import re
import sys


def split_top(text):
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    return parts


def rewrite(src):
    out, i = [], 0
    while True:
        j = src.find("<<<", i)
        if j < 0:
            out.append(src[i:])
            text = "".join(out).replace("#include <cuda_runtime.h>", "")
            return re.sub(r"extern __shared__ __align__\((\d+)\) ([\w ]+?) (\w+)\[\];",
                          r"static \2 \3[1 << 18] __attribute__((aligned(\1)));", text)
        start = j  # the kernel's name, with its template arguments
        if src[start - 1] == ">":
            depth = 0
            while True:
                start -= 1
                depth += {">": 1, "<": -1}.get(src[start], 0)
                if depth == 0:
                    break
        while src[start - 1].isalnum() or src[start - 1] == "_":
            start -= 1
        k = src.find(">>>", j)
        config = split_top(src[j + 3:k])
        assert src[k + 3] == "(", src[j:k + 10]
        depth, m = 0, k + 3
        while True:
            if src[m] == "(":
                depth += 1
            elif src[m] == ")":
                depth -= 1
                if depth == 0:
                    break
            m += 1
        out.append(src[i:start])
        out.append("formac_emu::launch(dim3(%s), dim3(%s), [&]() { %s%s; })" %
                   (config[0], config[1], src[start:j], src[k + 3:m + 1]))
        i = m + 1


with open(sys.argv[1]) as f:
    text = f.read()
with open(sys.argv[2], "w") as f:
    f.write(rewrite(text))
