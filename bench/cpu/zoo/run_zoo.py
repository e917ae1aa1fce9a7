#!/usr/bin/env python3
"""bench/cpu/zoo/run_zoo.py — times every zoo program on the CPU (README.md here).

  run_zoo.py --build DIR [--sizes 2048,4096] [--threads 1,2] [--runs 7] [--warmup 1]
             [--programs a,b] [--timeout 600] [--copy-mib 256]

For each thread count (ascending) and size: the copy bandwidth (zoo_copybw), then per
program formac fused, formac --no-fuse, the roofline (the program's bytes at that
bandwidth) and each peer that has the program (Halide's hand schedule, OpenCV). Every
variant runs in a child process of its own: one that dies of a signal (SIGILL from code
built for another CPU, a crash) is reported as skipped and the run goes on. Prints a
markdown table and the geometric means.
"""
import argparse
import math
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ZOO = os.path.join(HERE, '..', '..', 'zoo')
PEERS = [('halide manual', 'zoo_halide_peer'), ('opencv', 'zoo_opencv_peer')]


def read_zoo():
    """[(name, rank, params expressions)] from zoo.txt."""
    out = []
    for line in open(os.path.join(ZOO, 'zoo.txt')):
        if line.strip() and not line.startswith('#'):
            f = line.split()
            out.append((f[0], int(f[1]), f[2].split(',')))
    return out


def param_values(exprs, s):
    env = {'S': s, 'S3': round(s ** (2.0 / 3.0)), 'S4': round(math.sqrt(s))}
    return [int(eval(e.replace('/', '//'), {}, env)) for e in exprs]


def shape_label(rank, s):
    if rank == 3:
        return '%d³' % round(s ** (2.0 / 3.0))
    if rank == 4:
        return '%d⁴' % round(math.sqrt(s))
    if rank == 1:
        return '%d' % (s * s)
    return '%d²' % s


def run(cmd, timeout):
    """('ok', median, min, bytes) or ('skipped', why) or ('failed', why)."""
    if not os.path.exists(cmd[0]):
        return ('skipped', 'not built')
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return ('skipped', 'timeout %d s' % timeout)
    if p.returncode < 0:
        return ('skipped', signal.Signals(-p.returncode).name)
    if p.returncode != 0:
        return ('failed', 'exit %d: %s' % (p.returncode, p.stderr.strip()[-200:]))
    med, lo, nbytes = p.stdout.split()[-3:]
    return ('ok', float(med), float(lo), int(nbytes))


def peer_programs(build, exe):
    path = os.path.join(build, exe)
    if not os.path.exists(path):
        return set()
    r = subprocess.run([path, '--list'], capture_output=True, text=True)
    return set(r.stdout.split()) if r.returncode == 0 else set()


def cell(r, base=None):
    if r is None:
        return '—'
    if r[0] != 'ok':
        return '%s: %s' % r
    return '%.2f (%.2f)' % (r[1], r[1] / base) if base else '%.2f' % r[1]


def geomean(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float('nan')


def loadavg():
    return '%.2f %.2f %.2f' % os.getloadavg()


def cpu_model():
    for line in open('/proc/cpuinfo'):
        if line.startswith('model name'):
            return line.split(':', 1)[1].strip()
    return 'unknown'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', default=os.path.join(HERE, 'build'))
    ap.add_argument('--sizes', default='2048,4096')
    ap.add_argument('--threads', default='1,2')
    ap.add_argument('--runs', type=int, default=7)
    ap.add_argument('--warmup', type=int, default=1)
    ap.add_argument('--programs', default='')
    ap.add_argument('--timeout', type=int, default=600)
    ap.add_argument('--copy-mib', type=int, default=256)
    a = ap.parse_args()
    zoo = read_zoo()
    if a.programs:
        zoo = [z for z in zoo if z[0] in a.programs.split(',')]
    peers = [(label, exe, peer_programs(a.build, exe)) for label, exe in PEERS]
    sizes = [int(x) for x in a.sizes.split(',')]
    threads = sorted(int(x) for x in a.threads.split(','))
    start = time.time()
    print('machine: %s, %d CPUs; date: %s; load average before: %s' %
          (cpu_model(), os.cpu_count(), time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()), loadavg()))
    print('OMP_WAIT_POLICY=%s GOMP_SPINCOUNT=%s; median of %d runs after %d warm-up runs\n' %
          (os.environ.get('OMP_WAIT_POLICY', '(unset)'), os.environ.get('GOMP_SPINCOUNT', '(unset)'),
           a.runs, a.warmup))
    rows, skipped = [], []
    for t in threads:
        for s in sizes:
            bw = float(subprocess.run([os.path.join(a.build, 'zoo_copybw'), str(t), str(a.copy_mib),
                                       str(a.runs)], capture_output=True, text=True, check=True).stdout)
            print('%d thread(s), size %d: copy bandwidth %.2f GB/s (read + write), load %s' %
                  (t, s, bw, loadavg()), flush=True)
            for name, rank, exprs in zoo:
                params = [str(v) for v in param_values(exprs, s)]
                tail = [str(t), str(a.runs), str(a.warmup)] + params
                res = {v: run([os.path.join(a.build, 'zoo_%s_%s' % (name, v))] + tail, a.timeout)
                       for v in ('fused', 'unfused')}
                for label, exe, has in peers:
                    res[label] = (run([os.path.join(a.build, exe), name] + tail, a.timeout)
                                  if name in has else None)
                    if res[label] and res[label][0] != 'ok':
                        skipped.append('%s %s %d thr %s: %s' % (label, name, t, s, res[label][1]))
                nbytes = next((r[3] for r in res.values() if r and r[0] == 'ok'), 0)
                roof = nbytes / (bw * 1e6) if nbytes else 0
                rows.append((name, rank, s, t, res, roof, bw))
                print('  %-16s %s' % (name, '  '.join('%s %s' % (k, cell(v)) for k, v in res.items())),
                      flush=True)
    print('\n## Results\n')
    print('machine: %s (%d CPUs); load average after: %s; %.0f s in all. Times are medians '
          'in ms; (x) is the ratio to formac fused (> 1: slower than fused); the roofline '
          'is the bytes every input read once and every output written once take at the '
          'copy bandwidth measured in the same run.\n' % (cpu_model(), os.cpu_count(), loadavg(),
                                                         time.time() - start))
    head = ['program', 'size', 'threads', 'fused', '--no-fuse (x)', 'roofline', 'fused / roofline']
    head += [label + ' (x)' for label, _, _ in peers]
    print('| ' + ' | '.join(head) + ' |')
    print('|' + '---|' * 3 + '---:|' * (len(head) - 3))
    for name, rank, s, t, res, roof, bw in rows:
        f = res['fused'][1] if res['fused'][0] == 'ok' else 0
        line = [name, shape_label(rank, s), str(t), cell(res['fused']), cell(res['unfused'], f),
                '%.2f' % roof, '%.2f' % (f / roof) if f and roof else '—']
        line += [cell(res[label], f) for label, _, _ in peers]
        print('| ' + ' | '.join(line) + ' |')
    print('\n| size | threads | geomean fused / roofline | geomean --no-fuse / fused | copy GB/s |')
    print('|---|---:|---:|---:|---:|')
    for t in threads:
        for s in sizes:
            sel = [r for r in rows if r[2] == s and r[3] == t and r[4]['fused'][0] == 'ok']
            fr = geomean([r[4]['fused'][1] / r[5] for r in sel if r[5]])
            uf = geomean([r[4]['unfused'][1] / r[4]['fused'][1] for r in sel if r[4]['unfused'][0] == 'ok'])
            print('| %d² | %d | %.2f | %.2f | %.2f |' % (s, t, fr, uf, sel[0][6] if sel else 0))
    ok = [r for r in rows if r[4]['fused'][0] == 'ok' and r[5]]
    print('\nAll rows: geomean fused / roofline %.2f over %d rows.' %
          (geomean([r[4]['fused'][1] / r[5] for r in ok]), len(ok)))
    print('Skipped or failed peers: %s' % ('; '.join(skipped) if skipped else 'none'))
    return 0


if __name__ == '__main__':
    sys.exit(main())
