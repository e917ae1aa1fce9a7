#!/usr/bin/env python3
"""bench/gpu/zoo/prepare.py — the development machine's half of the GPU zoo benchmark.

For each bench/zoo/NAME.idsl with a line in zoo.txt, into OUT/NAME/:
  zf_NAME.cu/.h   formac's CUDA, fused (the default)
  zu_NAME.cu/.h   formac's CUDA, --no-fuse
  zc_NAME.c/.h    formac's C (OpenMP): the reference the device run checks both against at
                  the benchmark's size, on the device's CPU
  eval_R_K.bin    the evaluator's output K at zoo.txt's test run R (formac run --backend=eval on
                  the inputs the device generates: inputs.h's formula, reproduced here)
  glue.cpp        the program for zoo_driver.cu: its runs (parameters, element counts), its
                  inputs and outputs (types, ranges), and calls of the three entry points
A program formac rejects, or whose signature the glue cannot express, gets OUT/NAME/SKIP
(one line: why) instead, and the device run reports it.

  python3 prepare.py FORMAC ZOO_DIR OUT [--size S] [--only a,b]
"""
import math
import os
import re
import struct
import subprocess
import sys

# formac's element types: (dag name, C type, kind in inputs.h, bytes, npy dtype)
TYPES = [
    ("int8", "unsigned char", 0, 1, "|u1"),
    ("int16", "short", 1, 2, "<i2"),
    ("uint16", "unsigned short", 2, 2, "<u2"),
    ("int", "int", 3, 4, "<i4"),
    ("int64", "long long", 4, 8, "<i8"),
    ("float", "float", 5, 4, "<f4"),
    ("double", "double", 6, 8, "<f8"),
]
BY_DAG = {t[0]: t for t in TYPES}
BY_C = {t[1]: t for t in TYPES}
# Input values: every type's range (inclusive for integers, [lo, hi) for floating ones).
RANGE = {0: (0, 255), 1: (0, 4095), 2: (0, 65535), 3: (0, 65535), 4: (0, 1 << 20), 5: (0.0, 1.0), 6: (0.0, 1.0)}
M64 = (1 << 64) - 1


def value(seed, i, kind):
    """inputs.h's zoo_value: the i-th value of input `seed`, bit for bit."""
    z = (i + seed * 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    z ^= z >> 31
    lo, hi = RANGE[kind]
    if kind >= 5:
        u = (z >> 11) * (1.0 / 9007199254740992.0)
        return lo + (hi - lo) * u
    return lo + z % (hi - lo + 1)


class Skip(Exception):
    pass


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise Skip("%s failed: %s" % (" ".join(os.path.basename(c) for c in cmd[:2]), r.stderr.strip()[-600:]))
    return r.stdout


def size_value(expr, env):
    """A size expression (Forma's pexpr, zoo.txt's S forms) for these values; / floors."""
    e = expr.replace("/", "//")
    if not re.fullmatch(r"[\sA-Za-z0-9_+\-*/()]*", e):
        raise Skip("size expression '%s'" % expr)
    return int(eval(e, {"__builtins__": {}}, dict(env)))


def read_zoo_txt(path):
    progs = {}
    for line in open(path):
        line = line.split("#", 1)[0].split()
        if len(line) < 5:
            continue
        name, rank, params, test, scalars = line[:5]
        progs[name] = {
            "params": params.split(","),
            "tests": [t.split("x") for t in test.split(",")],
            "scalars": [] if scalars == "-" else scalars.split(","),
        }
    return progs


def parse_dag(text):
    params, scalars, inputs = [], [], []
    for line in text.splitlines():
        if m := re.match(r"param (\w+)", line):
            params.append(m.group(1))
        elif m := re.match(r"scalar (.+) (\w+)$", line):
            scalars.append((m.group(2), m.group(1)))
        elif m := re.match(r"stage \d+ (\w+) : (\w+)\[(.*)\] input$", line):
            inputs.append((m.group(1), m.group(2), [x.strip() for x in m.group(3).split(",")]))
    return params, scalars, inputs


def parse_header(text, entry):
    structs = {}
    for m in re.finditer(r"struct (\w+) \{([^}]*)\};", text):
        fields = [f.strip().rsplit(" ", 1)[0] for f in m.group(2).split(";") if f.strip()]
        structs[m.group(1)] = fields
    outputs = []
    for m in re.finditer(r"/\* output\d*: (.*?) \*/", text, re.S):
        d = " ".join(m.group(1).split())  # the printer wraps lines over 100 columns
        if one := re.match(r"one (.+?) \(", d + " ("):
            outputs.append((one.group(1), []))
        elif arr := re.match(r"(.+?)((\[[^\]]*\])+) \(row-major", d):
            outputs.append((arr.group(1), re.findall(r"\[([^\]]*)\]", arr.group(2))))
        else:
            raise Skip("output '%s'" % d)
    m = re.search(r"\nvoid %s\((.*?)\);" % re.escape(entry), text, re.S)
    if not m:
        raise Skip("no prototype of %s" % entry)
    args = [" ".join(a.split()).rsplit(" ", 1) for a in m.group(1).split(",")]
    return structs, outputs, [(t.strip(), n) for t, n in args]


def element(ctype, structs):
    """(kind, fields, bytes of one element) of a C element type."""
    if ctype in BY_C:
        return BY_C[ctype][2], 1, BY_C[ctype][3]
    m = re.fullmatch(r"struct (\w+)", ctype)
    if not m or m.group(1) not in structs:
        raise Skip("element type '%s'" % ctype)
    kinds = {f for f in structs[m.group(1)]}
    if len(kinds) != 1 or next(iter(kinds)) not in BY_C:
        raise Skip("struct %s: fields of several types" % m.group(1))
    t = BY_C[next(iter(kinds))]
    return t[2], len(structs[m.group(1)]), t[3] * len(structs[m.group(1)])


def write_npy(path, dtype, shape, values, kind):
    fmt = {"|u1": "B", "<i2": "h", "<u2": "H", "<i4": "i", "<i8": "q", "<f4": "f", "<f8": "d"}[dtype]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        dtype, "".join("%d, " % s for s in shape))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


def npy_data(path):
    raw = open(path, "rb").read()
    start = 10 + struct.unpack("<H", raw[8:10])[0] if raw[6] == 1 else 12 + struct.unpack("<I", raw[8:12])[0]
    return raw[start:]


def prepare(formac, src, name, zoo, size, out):
    os.makedirs(out, exist_ok=True)
    for f in os.listdir(out):
        os.remove(os.path.join(out, f))
    params, scalars, inputs = parse_dag(run([formac, src, "--emit=dag", "-w"]))
    for prefix, flags in (("zf", ["--print-cuda"]), ("zu", ["--print-cuda", "--no-fuse"]), ("zc", ["--print-c"])):
        ext = "c" if prefix == "zc" else "cu"
        run([formac, src, "-w", *flags, "--kernel-name", "%s_%s" % (prefix, name),
             "--%s-output" % ("c" if prefix == "zc" else "cuda"), "%s/%s_%s.%s" % (out, prefix, name, ext),
             "--header-file", "%s/%s_%s.h" % (out, prefix, name)])
    entry = "zc_" + name
    structs, outputs, args = parse_header(open("%s/%s.h" % (out, entry)).read(), entry)
    if len(zoo["params"]) != len(params):
        raise Skip("zoo.txt gives %d parameters, the program has %d" % (len(zoo["params"]), len(params)))
    if len(zoo["scalars"]) != len(scalars):
        raise Skip("zoo.txt gives %d scalars, the program has %d" % (len(zoo["scalars"]), len(scalars)))
    nin = len(inputs) + len(scalars)
    if len(args) != nin + len(params) + len(outputs):
        raise Skip("the entry point has %d arguments, expected %d" % (len(args), nin + len(params) + len(outputs)))
    ins = [element(t[:-1].strip(), structs) for t, _ in args[:nin] if t.endswith("*")]
    outs = [element(t, structs) for t, _ in outputs]

    # The runs: the benchmark's (S), then zoo.txt's test runs.
    s3, s4 = int(size ** (2.0 / 3.0) + 0.5), int(math.sqrt(size) + 0.5)
    env = {"S": size, "S3": s3, "S4": s4}
    runs = [("bench", [size_value(e, env) for e in zoo["params"]])]
    runs += [("test%d" % k, [int(v) for v in t]) for k, t in enumerate(zoo["tests"])]
    table = []
    for label, pv in runs:
        if len(pv) != len(params):
            raise Skip("zoo.txt's run %s gives %d parameter values" % (label, len(pv)))
        penv = dict(zip(params, pv))
        in_ext = [[size_value(e, penv) for e in ext] for _, _, ext in inputs]
        out_ext = [[size_value(e, penv) for e in ext] for _, ext in outputs]
        table.append((label, pv, in_ext, out_ext))

    # The evaluator's outputs of the test runs, on inputs.h's values.
    scalar_args = []
    for (sname, _), v in zip(scalars, zoo["scalars"]):
        scalar_args += ["-p", "%s=%s" % (sname, v)]
    for r, (label, pv, in_ext, out_ext) in enumerate(table):
        if label == "bench":
            continue
        cmd = [formac, "run", src, "--backend=eval", "-w"]
        for k, ((kind, fields, _), ext) in enumerate(zip(ins, in_ext)):
            n = math.prod(ext) * fields
            shape = ext + ([fields] if fields > 1 else [])
            path = "%s/in_%d_%d.npy" % (out, r, k)
            write_npy(path, TYPES[kind][4], shape, [value(k + 1, i, kind) for i in range(n)], kind)
            cmd += ["-i", path]
        for pname, v in zip(params, pv):
            cmd += ["-p", "%s=%d" % (pname, v)]
        cmd += scalar_args
        for k in range(len(outs)):
            cmd += ["-o", "%s/eval_%d_%d.npy" % (out, r, k)]
        run(cmd)
        for k, ((kind, fields, nbytes), ext) in enumerate(zip(outs, out_ext)):
            data = npy_data("%s/eval_%d_%d.npy" % (out, r, k))
            if len(data) != math.prod(ext) * nbytes:
                raise Skip("the evaluator's output %d has %d bytes, expected %d" % (k, len(data), math.prod(ext) * nbytes))
            open("%s/eval_%d_%d.bin" % (out, r, k), "wb").write(data)
            os.remove("%s/eval_%d_%d.npy" % (out, r, k))
        for k in range(len(ins)):
            os.remove("%s/in_%d_%d.npy" % (out, r, k))
    write_glue(out, name, params, scalars, zoo["scalars"], args, nin, ins, outs, inputs, table)


def write_glue(out, name, params, scalars, scalar_values, args, nin, ins, outs, inputs, table):
    g = ['// Generated by bench/gpu/zoo/prepare.py for bench/zoo/%s.idsl. Do not edit.' % name,
         '#include "zoo_program.h"', '#include "zc_%s.h"' % name, '#include "zf_%s.h"' % name,
         '#include "zu_%s.h"' % name, ""]
    # Arguments: images from the arrays, scalars as zoo.txt gives them.
    call_in, k, s = [], 0, 0
    for t, _ in args[:nin]:
        if t.endswith("*"):
            call_in.append("(%s)in[%d]" % (t, k))
            k += 1
        else:
            call_in.append("(%s)%s" % (t, scalar_values[s]))
            s += 1
    call_out = ["(%s)out[%d]" % (t, i) for i, (t, _) in enumerate(args[nin + len(params):])]
    call_p = ["(int)p[%d]" % i for i in range(len(params))]
    g.append("static void callC(void** in, void** out, const long long* p) {\n  (void)in; (void)p;\n"
             "  zc_%s(%s);\n}" % (name, ", ".join(call_in + call_p + call_out)))
    for v in ("zf", "zu"):
        g.append("static void* create_%s(const long long* p) {\n  (void)p;\n  return %s_%s_create(%s);\n}" %
                 (v, v, name, ", ".join(call_p)))
        g.append("static int run_%s(void* ws, void** in, void** out) {\n  (void)in;\n"
                 "  return %s_%s_run_async((%s_%s_workspace*)ws, 0, %s);\n}" %
                 (v, v, name, v, name, ", ".join(call_in + call_out)))
        g.append("static void destroy_%s(void* ws) { %s_%s_destroy((%s_%s_workspace*)ws); }" % (v, v, name, v, name))
    g.append("static const ZooBuffer kInputs[] = {%s};" % ", ".join(
        "{%d, %d, %d, %d, \"%s\"}" % (kind, fields, nbytes, k + 1, inputs[k][0]) for k, (kind, fields, nbytes) in enumerate(ins)) if ins else
        "static const ZooBuffer kInputs[] = {{0, 0, 0, 0, \"\"}};")
    g.append("static const ZooBuffer kOutputs[] = {%s};" % ", ".join(
        "{%d, %d, %d, 0, \"output %d\"}" % (kind, fields, nbytes, k) for k, (kind, fields, nbytes) in enumerate(outs)))
    runs = []
    for label, pv, in_ext, out_ext in table:
        ext = lambda e: "%s" % ("x".join(str(x) for x in e) if e else "1")
        runs.append("{\"%s\", \"%s\", {%s}, {%s}, {%s}}" % (
            label, ext(in_ext[0]) if in_ext else ext(out_ext[0]), ", ".join(str(v) for v in pv) or "0",
            ", ".join(str(math.prod(e)) for e in in_ext) or "0", ", ".join(str(math.prod(e)) for e in out_ext)))
    g.append("static const ZooRun kRuns[] = {\n  %s};" % ",\n  ".join(runs))
    g.append("extern const ZooProgram zoo_program = {\"%s\", %d, %d, %d, kInputs, kOutputs, kRuns,\n"
             "    callC, create_zf, run_zf, destroy_zf, create_zu, run_zu, destroy_zu};\n" %
             (name, len(ins), len(outs), len(table)))
    if len(params) > 8 or len(ins) > 8 or len(outs) > 8:
        raise Skip("more than 8 parameters, inputs or outputs")
    open("%s/glue.cpp" % out, "w").write("\n".join(g))


def main():
    formac, zoo_dir, out = sys.argv[1:4]
    size, only = 8192, None
    rest = sys.argv[4:]
    while rest:
        if rest[0] == "--size":
            size = int(rest[1])
        elif rest[0] == "--only":
            only = set(rest[1].split(","))
        rest = rest[2:]
    zoo = read_zoo_txt(os.path.join(zoo_dir, "zoo.txt"))
    names = sorted(f[:-5] for f in os.listdir(zoo_dir) if f.endswith(".idsl"))
    for name in names:
        if only and name not in only:
            continue
        d = os.path.join(out, name)
        try:
            if name not in zoo:
                os.makedirs(d, exist_ok=True)
                raise Skip("no line in zoo.txt")
            prepare(formac, os.path.join(zoo_dir, name + ".idsl"), name, zoo[name], size, d)
            print("   %-18s ok" % name, flush=True)
        except Skip as e:
            open(os.path.join(d, "SKIP"), "w").write(str(e).replace("\n", " ") + "\n")
            print("   %-18s SKIP: %s" % (name, e), flush=True)


if __name__ == "__main__":
    main()
