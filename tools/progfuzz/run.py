#!/usr/bin/env python3
"""Differential campaign: random programs (gen.py) through formac's C backend,
fused and --no-fuse, against the reference evaluator (e2e_c_test's AdHoc
tests). See tools/progfuzz/README.md.

    run.py --build build-fuzzdiff --count 500 --start 0 --jobs 2 --out /tmp/progfuzz

Each seed is one program. A seed fails when formac rejects it or crashes
(--emit=c, --emit=c --no-fuse, --emit=cuda unless --no-cuda), or when the AdHoc harness
reports a wrong value, a C compile error, a crash, an internal error or a
timeout. Every failure gets a folder OUT/failures/SEED-CATEGORY with the
program, the log and replay.sh. OUT/results.jsonl has one line per seed.
Exit status 1 when some seed failed.
"""
import argparse
import concurrent.futures as cf
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen  # noqa: E402


def sh(cmd, timeout, env=None):
    """(returncode or 'timeout', output)"""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout,
                           env=env, start_new_session=True)
        return p.returncode, p.stdout.decode('utf-8', 'replace')
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode('utf-8', 'replace') if e.stdout else ''
        return 'timeout', out


def classify_adhoc(rc, out):
    """The category of an AdHoc run's failure, or None when it passed."""
    if rc == 'timeout':
        return 'timeout'
    if rc == 0 and '[  PASSED  ] 2 tests' in out:
        return None
    which = []
    if re.search(r'FAILED  \] CBackendAdHoc\.ProgramFromEnvironment\b(?!Unfused)', out):
        which.append('fused')
    if 'FAILED  ] CBackendAdHoc.ProgramFromEnvironmentUnfused' in out:
        which.append('unfused')
    tag = '+'.join(which) or 'harness'
    # A value that differs from the evaluator's only in the sign of a NaN:
    # reported apart (gcc folds constant 0.0/0.0 to +NaN, x86 computes -NaN).
    m = re.search(r'mismatch for .*: C gives (-?nan) \(0x[0-9a-f]+\), the evaluator (-?nan)', out)
    if m:
        return 'nansign-' + tag
    for key, cat in [('mismatch for', 'mismatch'),
                     ('does not compile', 'ccerror'),
                     ('crashes or hangs', 'crash'),
                     ('the front end rejects', 'rejected'),
                     ('compiling the program throws', 'internal'),
                     ('generating C throws', 'internal'),
                     ('the evaluator throws', 'evalerror'),
                     ('the harness reports', 'harness'),
                     ('linking the batch fails', 'linkerror')]:
        if key in out:
            return cat + '-' + tag
    if rc != 0 and rc != 1:
        return 'testcrash'  # e2e_c_test itself died (signal)
    return 'other-' + tag


def run_seed(seed, a):
    t0 = time.time()
    work = os.path.join(a.out, 'work')
    prog = os.path.join(work, '%s.idsl' % seed)
    text = gen.generate(seed, a.profile)
    with open(prog, 'w') as f:
        f.write(text)
    sizes = gen.sizes_of(text)
    formac = a.formac or os.path.join(a.build, 'formac')
    test = a.e2e_test or os.path.join(a.build, 'tests', 'e2e', 'e2e_c_test')
    res = {'seed': seed, 'sizes': sizes}
    cat, log = None, ''
    replay = None
    emits = [['--emit=c'], ['--emit=c', '--no-fuse']] + ([] if a.no_cuda else [['--emit=cuda']])
    if a.nvcc and not a.no_cuda:
        emits.append(['--emit=cuda', '--no-fuse'])
    for flags in emits:
        cu = prog[:-len('.idsl')] + ('_unfused' if '--no-fuse' in flags else '') + '.cu'
        nvcc = a.nvcc and flags[0] == '--emit=cuda'
        cmd = [formac, prog, '-w', '-o', cu if nvcc else '/dev/null'] + flags
        rc, out = sh(cmd, 60)
        if rc == 0 and nvcc:
            # the generated CUDA through nvcc, warnings failing, as tests/gpu's nvcc_* tests
            cmd = [a.nvcc, '-arch=sm_90', '-O3', '-Werror', 'all-warnings', '-c', cu, '-o', '/dev/null']
            rc, out = sh(cmd, 300)
            os.remove(cu)
            if rc != 0:
                cat = 'nvcc-rejects' + ('-no-fuse' if '--no-fuse' in flags else '')
                log = '$ %s\n%s' % (' '.join(shlex.quote(c) for c in cmd), out)
                replay = '%s %s -w -o /tmp/progfuzz.cu %s && %s' % (
                    shlex.quote(formac), shlex.quote(prog), ' '.join(flags),
                    ' '.join(shlex.quote(c) for c in cmd).replace(shlex.quote(cu), '/tmp/progfuzz.cu'))
                break
            continue
        if rc != 0:
            if rc == 'timeout':
                cat = 'formac-timeout'
            elif rc == 1 and 'error' in out and 'internal' not in out.lower():
                cat = 'formac-rejects'
            else:
                cat = 'formac-crash'
            cat += ''.join('-' + f.lstrip('-').replace('=', '-') for f in flags if f != '--emit=c')
            log = '$ %s\n%s' % (' '.join(shlex.quote(c) for c in cmd), out)
            replay = ' '.join(shlex.quote(c) for c in cmd)
            break
    if cat is None and not a.no_run:
        env = dict(os.environ, FORMAC_E2E_PROGRAM=prog, FORMAC_E2E_SIZES=sizes)
        if a.cc:
            env['FORMAC_E2E_CC'] = a.cc
        if a.cflags:
            env['FORMAC_E2E_CFLAGS'] = a.cflags
        if a.special_values:
            env['FORMAC_E2E_SPECIAL'] = '1'
        cmd = [test, '--gtest_filter=*AdHoc*']
        rc, out = sh(cmd, a.timeout, env)
        cat = classify_adhoc(rc, out)
        log = out
        replay = '%s%s%sFORMAC_E2E_PROGRAM=%s FORMAC_E2E_SIZES=%s %s %s' % (
            'FORMAC_E2E_SPECIAL=1 ' if a.special_values else '',
            ('FORMAC_E2E_CC=%s ' % shlex.quote(a.cc)) if a.cc else '',
            ('FORMAC_E2E_CFLAGS=%s ' % shlex.quote(a.cflags)) if a.cflags else '', shlex.quote(prog), shlex.quote(sizes), shlex.quote(test), shlex.quote('--gtest_filter=*AdHoc*'))
    res['category'] = cat or 'ok'
    res['seconds'] = round(time.time() - t0, 2)
    if cat:
        d = os.path.join(a.out, 'failures', '%s-%s' % (seed, cat))
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, 'prog.idsl'), 'w') as f:
            f.write(text)
        with open(os.path.join(d, 'log.txt'), 'w') as f:
            f.write(log)
        with open(os.path.join(d, 'replay.sh'), 'w') as f:
            # FORMAC_BUILD=DIR replays with another build (after a fix).
            cmd = replay.replace(shlex.quote(prog), '"$(dirname "$0")/prog.idsl"')
            cmd = cmd.replace(shlex.quote(formac), '"$B/formac"').replace(shlex.quote(test), '"$B/tests/e2e/e2e_c_test"')
            f.write('#!/bin/sh\n# %s\nB="${FORMAC_BUILD:-%s}"\n%s\n' % (cat, a.build, cmd))
        os.chmod(os.path.join(d, 'replay.sh'), 0o755)
        res['dir'] = d
    else:
        os.remove(prog)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--build', default=os.path.join(HERE, '..', '..', 'build-fuzzdiff'),
                    help='the build directory with formac and tests/e2e/e2e_c_test')
    ap.add_argument('--formac', help='formac (default BUILD/formac)')
    ap.add_argument('--e2e-test', help='e2e_c_test (default BUILD/tests/e2e/e2e_c_test)')
    ap.add_argument('--fresh', action='store_true', help='delete OUT first')
    ap.add_argument('--count', type=int, default=100)
    ap.add_argument('--start', type=int, default=0)
    ap.add_argument('--prefix', default='', help='seeds are PREFIX0, PREFIX1, ...')
    ap.add_argument('--jobs', type=int, default=os.cpu_count() or 1)
    ap.add_argument('--out', default='/tmp/progfuzz')
    ap.add_argument('--timeout', type=int, default=300, help='seconds per program')
    ap.add_argument('--profile', default='mixed', choices=gen.PROFILES,
                    help='gen.py\'s profile (mixed: everything, scans and do loops now and then; fusion: long '
                    'rank-2 chains; window: with weighted windows; scan: mixed with scans, sats and box filters '
                    'of them in every program; loop: mixed with a do loop in every program; ranks: the chains of '
                    'fusion in rank 1, 3 or 4; periodic: the chains in every rank, every image read with wrap)')
    ap.add_argument('--no-cuda', action='store_true',
                    help='leave out --emit=cuda (for constructs the CUDA backend does not compile yet)')
    ap.add_argument('--nvcc', help='also compile the generated CUDA (fused and --no-fuse) with this nvcc '
                    '(-arch=sm_90 -O3, warnings fail), e.g. /usr/local/cuda/bin/nvcc')
    ap.add_argument('--cc', help='the C compiler the harness uses (FORMAC_E2E_CC), e.g. clang')
    ap.add_argument('--cflags', help='flags added to the harness\'s (FORMAC_E2E_CFLAGS), e.g. '
                    '"-fsanitize=address,undefined -fno-sanitize-recover=all"')
    ap.add_argument('--special-values', action='store_true',
                    help='about one input element in eight NaN, an infinity, -0, a subnormal or an '
                    'extreme of its type (FORMAC_E2E_SPECIAL)')
    ap.add_argument('--no-run', action='store_true', help='only check that formac accepts the programs')
    ap.add_argument('--quiet', action='store_true')
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    a.out = os.path.abspath(a.out)
    if a.fresh and os.path.isdir(a.out):
        shutil.rmtree(a.out)
    os.makedirs(os.path.join(a.out, 'work'), exist_ok=True)
    seeds = ['%s%d' % (a.prefix, i) for i in range(a.start, a.start + a.count)]
    counts = {}
    t0 = time.time()
    with open(os.path.join(a.out, 'results.jsonl'), 'a') as log, \
            cf.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        futs = {pool.submit(run_seed, s, a): s for s in seeds}
        done = 0
        for fut in cf.as_completed(futs):
            try:
                r = fut.result()
            except Exception as e:  # a generator bug
                r = {'seed': futs[fut], 'category': 'generator-exception', 'error': repr(e)}
            done += 1
            counts[r['category']] = counts.get(r['category'], 0) + 1
            log.write(json.dumps(r) + '\n')
            log.flush()
            if r['category'] != 'ok' or not a.quiet:
                print('[%d/%d] seed %s: %s%s' % (done, len(seeds), r['seed'], r['category'],
                                                 (' -> ' + r['dir']) if 'dir' in r else ''), flush=True)
    print('%d programs in %.0f s: %s' % (len(seeds), time.time() - t0,
                                          ', '.join('%s %d' % kv for kv in sorted(counts.items()))))
    return 0 if set(counts) <= {'ok'} else 1


if __name__ == '__main__':
    sys.exit(main())
