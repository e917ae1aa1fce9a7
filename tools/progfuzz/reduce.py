#!/usr/bin/env python3
"""Shrinks a failing program while it keeps failing the same way.

    reduce.py FAILDIR_OR_PROG.idsl [--sizes 5x7,...] [--build build-fuzzdiff]
              [--category mismatch-fused] [-o reduced.idsl]

The category is what run.py calls the failure (mismatch-fused,
ccerror-unfused, ...); by default the program's current one. Only the kind
before the first '-' must stay the same with --loose. Steps, repeated until
nothing changes: one size out of the list; whole lines and stencil
definitions out; `:mode` annotations out; offsets to 0; each parenthesised
or top-level operand replaced by one of its operands or by 1. Every
candidate runs through the AdHoc harness (about a second each).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen  # noqa: E402
import run  # noqa: E402


class Oracle:
    def __init__(self, a):
        self.a = a
        self.tmp = tempfile.mkdtemp(prefix='progfuzz_reduce_')
        self.calls = 0
        self.cache = {}

    def category(self, text, sizes):
        key = (text, sizes)
        if key in self.cache:
            return self.cache[key]
        self.calls += 1
        prog = os.path.join(self.tmp, 'cand.idsl')
        with open(prog, 'w') as f:
            f.write(text)
        formac = os.path.join(self.a.build, 'formac')
        cat = None
        for flags in (['--emit=c'], ['--emit=c', '--no-fuse']):
            rc, out = run.sh([formac, prog, '-w', '-o', '/dev/null'] + flags, 60)
            if rc != 0:
                cat = ('formac-rejects' if rc == 1 and 'internal' not in out.lower() else 'formac-crash')
                if flags != ['--emit=c']:
                    cat += '-no-fuse'
                break
        if cat is None:
            env = dict(os.environ, FORMAC_E2E_PROGRAM=prog, FORMAC_E2E_SIZES=sizes)
            if self.a.cc:
                env['FORMAC_E2E_CC'] = self.a.cc
            if self.a.cflags:
                env['FORMAC_E2E_CFLAGS'] = self.a.cflags
            rc, out = run.sh([os.path.join(self.a.build, 'tests', 'e2e', 'e2e_c_test'),
                              '--gtest_filter=*AdHoc*'], self.a.timeout, env)
            cat = run.classify_adhoc(rc, out) or 'ok'
        self.cache[key] = cat
        return cat

    def same(self, text, sizes, want):
        got = self.category(text, sizes)
        if self.a.loose:
            return got.split('-')[0] == want.split('-')[0]
        return got == want


def balanced_groups(line):
    """(start, end) of every parenthesised group, innermost last."""
    out, stack = [], []
    for i, c in enumerate(line):
        if c == '(':
            stack.append(i)
        elif c == ')' and stack:
            out.append((stack.pop(), i + 1))
    return out


OPS = ['||', '&&', '==', '!=', '<=', '>=', '<', '>', '+', '-', '*', '/', '%', '?', ':', ',']


def split_top(expr):
    """Top-level operands of `expr` (split at operators outside brackets)."""
    parts, depth, cur, i = [], 0, '', 0
    while i < len(expr):
        c = expr[i]
        if c in '([':
            depth += 1
        elif c in ')]':
            depth -= 1
        if depth == 0:
            op = next((o for o in OPS if expr.startswith(o, i)), None)
            # a '-' right after an operator or at the start is unary
            if op and not (op == '-' and not cur.strip()):
                parts.append(cur)
                cur = ''
                i += len(op)
                continue
        cur += c
        i += 1
    parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


def expr_candidates(line):
    cands = []
    # the right side of `x = ...;` or `return ...;` inside a stencil
    m = re.match(r'^(\s*(?:return\s+|[A-Za-z_]\w*\s*=\s*))(.*);\s*$', line)
    spans = []
    if m and line.startswith(' '):
        spans.append((len(m.group(1)), len(m.group(1)) + len(m.group(2)), False))
    for s, e in balanced_groups(line):
        spans.append((s + 1, e - 1, True))
    for s, e, inner in reversed(spans):
        body = line[s:e]
        parts = split_top(body)
        if len(parts) > 1:
            for p in parts:
                cands.append(line[:s] + p + line[e:])
        if inner and re.match(r'^\s*[\w.]+\s*$', body) is None:
            # a call or cast: the whole group by its argument
            pass
    # casts and calls by their argument
    for mm in re.finditer(r'(cast<\w+>|\b(?:min|max|abs|fabs|absd|sqrt|floor|ceil|round|exp|pow|atan2|sin|log|'
                          r'fminf|fmaxf|sqrtf))\(', line):
        start = mm.start()
        depth, j = 0, mm.end() - 1
        while j < len(line):
            depth += {'(': 1, ')': -1}.get(line[j], 0)
            if depth == 0:
                break
            j += 1
        inner = line[mm.end():j]
        for p in split_top(inner) if ',' in inner else [inner]:
            cands.append(line[:start] + '(' + p + ')' + line[j + 1:])
    # reads: offsets to 0
    for mm in re.finditer(r'@\[([^\]]*)\]', line):
        new = re.sub(r'-?\d+', lambda x: '0', mm.group(1))
        new = re.sub(r'\(0,0\)', '(0,1)', new)
        if new != mm.group(1):
            cands.append(line[:mm.start(1)] + new + line[mm.end(1):])
    # operands to 1
    for mm in re.finditer(r'\b[A-Za-z_]\w*@\[[^\]]*\]|\b\d+\.?\d*f?\b', line):
        if line.startswith(' ') and mm.group(0) != '1':
            cands.append(line[:mm.start()] + '1' + line[mm.end():])
    # boundary modes out
    for mm in re.finditer(r':(mirror|clamped|extend|wrap|constant\([^)]*\))', line):
        cands.append(line[:mm.start()] + line[mm.end():])
    seen, out = set(), []
    for c in cands:
        if c != line and c not in seen:
            seen.add(c)
            out.append(c)
    return out


def units(lines):
    """Removable units: (first, last) line ranges. Stencil and vector
    function definitions whole, and each statement line."""
    out = []
    i = 1  # line 0 is the progfuzz comment
    while i < len(lines):
        l = lines[i]
        if re.match(r'^(stencil|vector)\s+\w+\s*\(', l) and '{' in l and not l.rstrip().endswith('}'):
            j = i
            while j < len(lines) and lines[j].strip() != '}':
                j += 1
            out.append((i, j))
            for k in range(i + 1, j):
                out.append((k, k))
            i = j + 1
            continue
        if re.match(r'^for\s', l):
            j = i
            while j < len(lines) and lines[j].strip() != 'endfor':
                j += 1
            out.append((i, j))
            if i > 1 and '<' in lines[i - 1]:
                out.append((i - 1, j))  # with the g<0> = ... before it
        if not l.startswith('return') and not re.match(r'^(for\s|endfor)', l):
            out.append((i, i))
        i += 1
    return out


def reduce(text, sizes, want, oracle, log):
    lines = text.rstrip('\n').split('\n')
    join = lambda ls: '\n'.join(ls) + '\n'
    # sizes: the smallest single one that still fails
    runs = [s for s in sizes.split(',') if s] if sizes else []
    if len(runs) > 1:
        by_area = sorted(runs, key=lambda r: eval('*'.join(r.split('x')) or '1'))
        for r in by_area:
            if oracle.same(join(lines), r, want):
                sizes = r
                log('sizes -> %s' % r)
                break
    changed = True
    while changed:
        changed = False
        for first, last in sorted(units(lines), key=lambda u: u[0] - u[1]):
            if last >= len(lines):
                continue
            cand = lines[:first] + lines[last + 1:]
            if oracle.same(join(cand), sizes, want):
                log('removed lines %d-%d: %s' % (first, last, lines[first][:60]))
                lines = cand
                changed = True
                break
        if changed:
            continue
        for i in range(1, len(lines)):
            for c in expr_candidates(lines[i]):
                cand = lines[:i] + [c] + lines[i + 1:]
                if oracle.same(join(cand), sizes, want):
                    log('line %d: %s' % (i, c.strip()[:100]))
                    lines = cand
                    changed = True
                    break
            if changed:
                break
    # the comment line names the sizes that fail
    lines[0] = re.sub(r'sizes=\S*', 'sizes=' + sizes, lines[0]) + ' (reduced)'
    return join(lines), sizes


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('input', help='a failure folder of run.py, or a program')
    ap.add_argument('--sizes')
    ap.add_argument('--build', default=os.path.join(HERE, '..', '..', 'build-fuzzdiff'))
    ap.add_argument('--category')
    ap.add_argument('--cc', help='FORMAC_E2E_CC for the harness')
    ap.add_argument('--cflags', help='FORMAC_E2E_CFLAGS for the harness')
    ap.add_argument('--loose', action='store_true', help='only the kind of failure must stay')
    ap.add_argument('--timeout', type=int, default=120)
    ap.add_argument('-o', '--output')
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    path = os.path.join(a.input, 'prog.idsl') if os.path.isdir(a.input) else a.input
    text = open(path).read()
    if not text.startswith('//'):
        text = '// progfuzz\n' + text
    sizes = a.sizes if a.sizes is not None else gen.sizes_of(text)
    oracle = Oracle(a)
    want = a.category or oracle.category(text, sizes)
    if want == 'ok':
        sys.exit('the program passes with sizes %r' % sizes)
    print('reducing a %s failure (sizes %s)' % (want, sizes), flush=True)
    out, sizes = reduce(text, sizes, want, oracle, lambda m: print('  ' + m, flush=True))
    dest = a.output or (os.path.join(a.input, 'reduced.idsl') if os.path.isdir(a.input) else path + '.reduced')
    with open(dest, 'w') as f:
        f.write(out)
    print('%d runs; %s (sizes %s):\n%s' % (oracle.calls, dest, sizes, out))
    print('replay: FORMAC_E2E_PROGRAM=%s FORMAC_E2E_SIZES=%s %s --gtest_filter=\'*AdHoc*\'' %
          (dest, sizes, os.path.join(a.build, 'tests', 'e2e', 'e2e_c_test')))


if __name__ == '__main__':
    main()
