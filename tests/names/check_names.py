#!/usr/bin/env python3
"""Every name the generated code uses for itself, given to the user's images,
scalars, parameters, stencils and stencil locals: the output must still compile.

    check_names.py --formac build/formac --work DIR [--lang c|cuda] [--cc cc] [--clang clang] [--nvcc nvcc] [--quick] [--jobs J]

1. Compiles the templates below with neutral names (nm0, nm1, ...) to C and to
   CUDA, fused and with --no-fuse, and collects every identifier of that output
   outside the namespaces Naming keeps for the generated code (formac_*, v_*,
   q0, ...; see codegen/Naming.cpp): helper and loop locals, the names derived
   from the user's (in_X, X_r0, a_X), the C library's, C++'s and CUDA's.
2. Gives those identifiers, a batch at a time, to the templates' user names
   (rotated until each has taken every place; --quick: one place, no derived
   names, the fused output only) and compiles the output of --lang, fused and
   unfused: C with cc (and --clang) -Werror -fsyntax-only, CUDA with nvcc -arch=sm_90 -c. formac may refuse a name (a Forma
   keyword) with a diagnostic; it must never print code that does not compile.
A failing batch is split until the failing names are found. Exit status 1 when
some name breaks the generated code; the failures are listed with their logs.
"""
import argparse
import concurrent.futures
import itertools
import os
import re
import subprocess
import sys

# Placeholders: P (parameters), I (input images), C (scalars), N (stages),
# S (stencils), X (stencil parameters), L (stencil locals), R (a do loop's
# indexed names), K (its iterator). Together they take
# the paths the names of each kind are printed in: fused row bands with ring
# buffers and the fast-row split (C), a heavy sweep with a staged input, a light
# one-pass group, a stage read by two consumers, an int image, a down-sampled
# read, reads at computed indices (printed with the image's own name), a
# boundary constant.
TEMPLATES = [
    """
stencil {S0}(vector#2 float {X0}, float {X1}) {{
  {L0} = {X0}@[-1,0] + {X0}@[1,0];
  return {L0} * {X1} + {X0};
}}
stencil {S1}(vector#2 float {X2}) {{
  return (2 * {X2}@[-2,-2] + 4 * {X2}@[-2,-1] + 5 * {X2}@[-2,0] + 4 * {X2}@[-2,1] + 2 * {X2}@[-2,2]
        + 4 * {X2}@[-1,-2] + 9 * {X2}@[-1,-1] + 12 * {X2}@[-1,0] + 9 * {X2}@[-1,1] + 4 * {X2}@[-1,2]
        + 5 * {X2}@[0,-2] + 12 * {X2}@[0,-1] + 15 * {X2} + 12 * {X2}@[0,1] + 5 * {X2}@[0,2]
        + 4 * {X2}@[1,-2] + 9 * {X2}@[1,-1] + 12 * {X2}@[1,0] + 9 * {X2}@[1,1] + 4 * {X2}@[1,2]
        + 2 * {X2}@[2,-2] + 4 * {X2}@[2,-1] + 5 * {X2}@[2,0] + 4 * {X2}@[2,1] + 2 * {X2}@[2,2]) / 159.0f;
}}
stencil {S2}(vector#2 float {X3}, vector#2 float {X4}) {{
  {L1} = {X3}@[0,-1] - {X3}@[0,1];
  {L2} = {X4}@[-1,0] - {X4}@[1,0];
  return sqrt({L1} * {L1} + {L2} * {L2}) + {X4}[cast<int>({L1}) % 3, 1];
}}
parameter {P0}, {P1};
vector#2 float {I0}[{P0},{P1}];
vector#2 float {I1}[{P0},{P1}];
float {C0};
{N0} = {S1}({I0}:mirror);
{N1} = {S0}({N0}:clamped, {C0});
{N2} = {S0}({N0}, {C0});
{N3} = {S2}({N1}:mirror, {N2});
return {S2}({N3}, {I1}:constant(1));
""",
    """
stencil {S0}(vector#2 float {X0}) {{
  return ({X0}@[-1,-1] + {X0}@[0,0] + {X0}@[1,1]) / 3.0f;
}}
stencil {S1}(vector#2 int {X1}, float {X2}) {{
  return {X1}@[0,-1] * {X2} + {X1}@[0,1];
}}
stencil {S2}(vector#2 float {X3}) {{
  return {X3}@[(-1,2),(0,2)] + {X3}@[(1,2),(1,2)];
}}
stencil {S3}(vector#2 float {X4}, vector#2 float {X5}) {{
  {L0} = {X4}@[0,1];
  return {L0} + {X5};
}}
parameter {P0}, {P1};
vector#2 float {I0}[{P0},{P1}];
vector#2 int {I1}[{P0},{P1}];
float {C0};
{N0} = {S0}({I0}:wrap);
{N1} = {S0}({N0});
{N2} = {S1}({I1}:mirror, {C0});
{N3} = {S3}({N1}:mirror, {N2});
return {S2}({N3}:clamped);
""",
    # LANGUAGE.md §7: reductions (whole and along a dimension), a histogram, a
    # SAT read by a stencil, a scan, where, topk, count and a do loop with its
    # indexed names and iterator, several outputs.
    """
stencil {S0}(vector#2 float {X0}, float {X1}) {{
  {L0} = {X0}@[-1,0] + {X0}@[1,0];
  return {L0} / {X1};
}}
stencil {S1}(vector#2 float {X2}, vector#2 float {X3}) {{
  return max(max({X2}@[-1,0], {X2}@[0,1]), {X2}) < {X3} ? {X2} + 1.0f : {X2};
}}
stencil {S2}(vector#2 float {X4}, vector#2 float {X5}) {{ return {X4} != {X5}; }}
stencil {S3}(vector#2 double {X6}) {{ return {X6}@[1,1] - {X6}@[-1,1] - {X6}@[1,-1] + {X6}@[-1,-1]; }}
parameter {P0}, {P1}, {P2};
vector#2 float {I0}[{P0},{P1}];
vector#2 int8 {I1}[{P0},{P1}];
float {C0};
{N0} = {S0}({I0}:mirror, {C0});
{N1} = max({N0});
{N2} = sum({N0}, 1);
{N3} = histogram({I1}, 16, 0, 256);
{N4} = sat({N0});
{N5} = {S3}({N4}:clamped);
{N6} = scan({I1}, 0);
{N7} = where({N0}, 10);
{N8} = topk({N5}, 7);
{N9} = count({I1});
{R0}<0> = {S0}({N0}:clamped, {N1});
do {K0} = 1..{P2}
  {R0}<{K0}> = {S1}({R0}<{K0}-1>:clamped, {N0});
  {R1}<{K0}> = {S2}({R0}<{K0}>, {R0}<{K0}-1>);
while (any({R1}<{K0}>));
return {R0}<{K0}>, {N2}, {N3}, {N6}, {N7}, {N8}, {N1}, {N9};
""",
]
NEUTRAL = "nm"
# The generated code's oldest namespaces (codegen/Naming.cpp, inGeneratedNamespace):
# a user name there is renamed before it is printed, so it is no test. The newer
# ones (cuda*, float4 ...) stay among the candidates, which tests their renaming.
GENERATED = re.compile(r"^(formac_|FORMAC_|__|omp_|v_|tile_|d_|bytes|kk_)|^kk$|"
                       r"^(q|lo|hi|fast_lo|fast_hi|output|tile_rows|tile_cols)\d+$|^nm\d+$")
OUTPUTS = {"c": [("c", []), ("c", ["--no-fuse"])], "cuda": [("cuda", []), ("cuda", ["--no-fuse"])]}


def placeholders(template):
    return sorted(set(re.findall(r"\{([A-Z]\d+)\}", template)))


def fill(template, names):
    return template.format(**names)


def strip_code(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return re.sub(r'"(\\.|[^"\\])*"', " ", text)


class Checker:
    def __init__(self, o):
        self.o = o
        self.counter = itertools.count(1)
        os.makedirs(o.work, exist_ok=True)

    def formac(self, path, emit, flags):
        return subprocess.run([self.o.formac, path, "--emit=" + emit, "--kernel-name", "kk"] + flags,
                              capture_output=True, text=True)

    def neutral(self, template):
        return {k: "%s%d" % (NEUTRAL, i) for i, k in enumerate(placeholders(template))}

    def candidates(self):
        found = set()
        for t in TEMPLATES:
            path = os.path.join(self.o.work, "neutral.idsl")
            open(path, "w").write(fill(t, self.neutral(t)))
            for emit, flags in OUTPUTS["c"] + OUTPUTS["cuda"]:
                r = self.formac(path, emit, flags)
                if r.returncode != 0:
                    raise SystemExit("check_names.py: the neutral template does not compile:\n" + r.stderr)
                found |= set(re.findall(r"\b[A-Za-z_][A-Za-z0-9_]*\b", strip_code(r.stdout)))
        return sorted(n for n in found if not GENERATED.match(n))

    def build(self, name, emit, code):
        """Compiles one output; returns the compiler's log on failure, else None."""
        src = os.path.join(self.o.work, name + (".c" if emit == "c" else ".cu"))
        open(src, "w").write(code)
        if emit == "c":
            cmds = [[cc, "-std=c99", "-fopenmp", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", src]
                    for cc in [self.o.cc] + ([self.o.clang] if self.o.clang else [])]
        else:
            cmds = [[self.o.nvcc, "-arch=sm_90", "-std=c++17", "-Werror", "all-warnings", "-c", src, "-o", src + ".o"]]
        for cmd in cmds:
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                return cmd[0] + ": " + r.stdout + r.stderr
        return None

    def run(self, template, names):
        """(None, None) when every output compiles; ("rejected", diagnostic) when
        formac refuses the program with a diagnostic (a name it does not take);
        ("failed", what) otherwise."""
        tag = "p%d" % next(self.counter)
        path = os.path.join(self.o.work, tag + ".idsl")
        program = fill(template, names)
        open(path, "w").write(program)
        outputs = OUTPUTS[self.o.lang][:1] if self.o.quick else OUTPUTS[self.o.lang]
        for emit, flags in outputs:
            r = self.formac(path, emit, flags)
            if r.returncode == 1 and "error:" in r.stderr:
                return "rejected", r.stderr
            if r.returncode != 0:
                return "failed", "formac exited %d:\n%s\n--- program ---\n%s" % (r.returncode, r.stderr, program)
            log = self.build(tag + ("_nf" if flags else ""), emit, r.stdout)
            if log:
                return "failed", "%s%s does not compile:\n%s\n--- program ---\n%s" % (
                    emit, " --no-fuse" if flags else "", log[:3000], program)
        return None, None

    def accepted(self, cands):
        """The names formac takes as a stage's (its keywords are refused with a
        diagnostic, which is right, and would only make batches split)."""
        t = TEMPLATES[0]
        keep = []
        for n in cands:
            names = self.neutral(t)
            names["N1"] = n
            path = os.path.join(self.o.work, "accept.idsl")
            open(path, "w").write(fill(t, names))
            if self.formac(path, "dag", []).returncode == 0:
                keep.append(n)
        return keep

    def all(self):
        cands = self.accepted(self.candidates())
        # Names derived from a neutral one (in_nm1, nm6_r0, a_nm4) only meet it
        # while it stands: they are tried one at a time, in the places printed in
        # a function's or the workspace's scope.
        derived = [n for n in cands if re.search(NEUTRAL + r"\d", n)]
        plain = [n for n in cands if n not in derived]
        failures = []
        jobs = []
        for ti, t in enumerate(TEMPLATES):
            if self.o.template and ti not in self.o.template:
                continue
            keys = placeholders(t)
            # Rotated a place at a time, every name takes every place once.
            for shift in range(1 if self.o.quick else len(keys)):
                order = plain[shift:] + plain[:shift]
                for i in range(0, len(order), len(keys)):
                    jobs.append((t, keys, order[i:i + len(keys)]))
            if self.o.quick:
                continue
            # A parameter's place (the workspace's members, every function's
            # arguments) and a stage's (the row functions, the kernels).
            for n in derived:
                for k in ("P0", "N2"):
                    jobs.append((t, [k], [n]))
        with concurrent.futures.ThreadPoolExecutor(self.o.jobs) as pool:
            for f in [pool.submit(self.check_keys, t, k, b, failures) for t, k, b in jobs]:
                f.result()
        return cands, failures

    def check_keys(self, template, keys, batch, failures):
        """Gives batch's names to keys (neutral names elsewhere). A batch that
        fails, or that formac rejects (one of its names may be a keyword and
        hide the others), is split down to single names; a single name formac
        rejects with a diagnostic is fine."""
        names = self.neutral(template)
        for k, n in zip(keys, batch):
            names[k] = n
        verdict, what = self.run(template, names)
        if verdict is None or (verdict == "rejected" and len(batch) == 1):
            return
        if len(batch) == 1:
            failures.append((batch[0], keys[0], what))
            return
        half = len(batch) // 2
        self.check_keys(template, keys[:half], batch[:half], failures)
        self.check_keys(template, keys[half:], batch[half:], failures)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--formac", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--nvcc", default="nvcc")
    ap.add_argument("--clang", default="", help="with --lang c: compile the C with this clang too")
    ap.add_argument("--lang", choices=("c", "cuda"), default="c",
                    help="compile the C output (cc) or the CUDA output (nvcc -arch=sm_90)")
    ap.add_argument("--quick", action="store_true",
                    help="one place a name, no derived names, the fused output only (default: every place, fused and unfused)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--template", type=int, action="append",
                    help="check only these templates (0-based; repeatable; default: all)")
    o = ap.parse_args()
    c = Checker(o)
    cands, failures = c.all()
    print("check_names: %d names from the generated code, %d programs, their %s compiled" % (
        len(cands), next(c.counter) - 1, "C" if o.lang == "c" else "CUDA"))
    seen = set()
    for name, key in sorted({(name, key) for name, key, _ in failures}):
        print("FAIL %s as %s" % (name, key))
    for name, key, log in failures:
        if name not in seen:
            seen.add(name)
            print("\n%s as %s:\n%s" % (name, key, log))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
