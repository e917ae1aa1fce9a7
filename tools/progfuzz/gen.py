#!/usr/bin/env python3
"""Random valid Forma programs for differential testing of formac.

    gen.py SEED [-o FILE]         one program (stdout by default)
    gen.py SEED --sizes           the sizes line the driver uses for it

Every program starts with a comment line
    // progfuzz seed=SEED sizes=1x1,2x3,...
giving the parameter values of the runs (FORMAC_E2E_SIZES). The same seed
always gives the same program (Python's random.Random is stable across
versions for the calls used here). Standard library only.

The programs follow LANGUAGE.md and what sema accepts (tools/progfuzz/README.md
lists the rules the generator keeps): DAGs of stencil applications over 1-3
inputs of rank 1-3, 1-3 image arguments per call with per-argument boundary
modes, scalar arguments, down-sampled reads, offsets beyond the image, and
sometimes samples, crops, placements, scatters, composes, compile-time loops,
vector functions and struct images; reductions, scans and `do` loops
(loops.py) in the mixed profile and its relatives.
"""
import argparse
import random
import re
import sys

import loops

TYPES = ['int8', 'int16', 'int', 'float', 'double']
# The 'mixed' profile also draws uint16 and int64 (LANGUAGE.md §7); the other
# profiles draw from TYPES alone, so their random streams stay as they were.
WIDE_TYPES = TYPES + ['uint16', 'int64']
RANGES = {'int8': (0, 255), 'int16': (-32768, 32767), 'uint16': (0, 65535),
          'int': (-2**31, 2**31 - 1), 'int64': (-2**63, 2**63 - 1)}
# stdlib files and what they define for a vector#2 float image (LANGUAGE.md §7 imports)
STDLIB = [('gaussian3x3.idsl', 'gaussian3x3'), ('gaussian5x5.idsl', 'gaussian5x5'),
          ('sobel_x.idsl', 'sobel_x'), ('sobel_y.idsl', 'sobel_y'), ('box3x3.idsl', 'box3x3'),
          ('laplacian.idsl', 'laplacian'), ('dilate3x3.idsl', 'dilate3x3'),
          ('erode3x3.idsl', 'erode3x3')]
SAMPLES = [1, 2, 3, 5, 7, 13, 64, 97, 1000, 1023, 4099]  # ir::sameSize's


def floating(t):
    return t in ('float', 'double')


def arith(a, b):
    if 'double' in (a, b):
        return 'double'
    if 'float' in (a, b):
        return 'float'
    if 'int64' in (a, b):
        return 'int64'
    return 'int'


def promote(t):
    return 'int' if t in ('int8', 'int16', 'uint16') else t


def wider(a, b):
    """ir::wider: the type whose values hold both, else C's conversions."""
    if floating(a) or floating(b):
        return arith(a, b)
    (alo, ahi), (blo, bhi) = RANGES[a], RANGES[b]
    if alo <= blo and ahi >= bhi:
        return a
    if blo <= alo and bhi >= ahi:
        return b
    return arith(a, b)


def literal_fits(text, t):
    """ir::literalFits: the literal converted as C converts it fits type t."""
    v = float(text.rstrip('f'))
    if t == 'double':
        return True
    if t == 'float':
        return abs(v) < 3.4028235677973366e38
    lo, hi = RANGES[t]
    return lo <= int(v) <= hi


# ------------------------------------------------------------------ sizes
# A size is a tuple: ('c', n) | ('p', index) | (op, a, b) for + - * min max |
# ('/', a, n) (floor division, as ir::evalSize).
def sz_eval(s, params):
    k = s[0]
    if k == 'c':
        return s[1]
    if k == 'p':
        return params[s[1]]
    if k == '/':
        return sz_eval(s[1], params) // s[2]
    a, b = sz_eval(s[1], params), sz_eval(s[2], params)
    return {'+': a + b, '-': a - b, '*': a * b, 'min': min(a, b), 'max': max(a, b)}[k]


def sz_add(a, n):
    if n == 0:
        return a
    if a[0] == 'c':
        return ('c', a[1] + n)
    return ('+', a, ('c', n))


def sz_div(a, n):
    if n == 1:
        return a
    if a[0] == 'c':
        return ('c', a[1] // n)
    return ('/', a, n)


def sz_mul(a, n):
    if n == 1:
        return a
    if a[0] == 'c':
        return ('c', a[1] * n)
    return ('*', a, ('c', n))


def sz_max(a, b):
    if a == b:
        return a
    return ('max', a, b)


def same_extent(a, b, nparams):
    if len(a) != len(b):
        return False
    for trial in range(11):
        p = [SAMPLES[(trial + 3 * i) % 11] for i in range(nparams)]
        if [sz_eval(x, p) for x in a] != [sz_eval(x, p) for x in b]:
            return False
    return True


class Img:
    def __init__(self, name, typ, ext, struct=None):
        self.name = name  # None: an anonymous value (text in .text)
        self.type = typ   # scalar type name, or a struct name
        self.ext = ext
        self.struct = struct  # struct fields [(name, type)] when a struct image
        self.text = name
        self.uses = 0
        self.round = False  # defined in a `do` loop's body (or X<i-1>): not visible after it

    @property
    def rank(self):
        return len(self.ext)


class StencilDef:
    def __init__(self, name, params, text, ret_type):
        self.name = name
        self.params = params  # dicts: kind img|scalar, name, decl, rank, scales, elem, indexonly
        self.text = text
        self.ret_type = ret_type

    def signature(self):
        return tuple((p['kind'], p.get('rank'), p.get('elem'), tuple(p.get('scales') or ()),
                      p.get('indexonly'), p.get('decl') if p['kind'] == 'scalar' else None)
                     for p in self.params)


# The profiles (run.py and gpu_bundle.sh take the same list).
PROFILES = ['mixed', 'fusion', 'window', 'scan', 'loop', 'ranks', 'periodic']


class Gen:
    def __init__(self, seed, profile='mixed'):
        self.seed = seed
        self.profile = profile  # 'fusion': long rank-2 stencil chains, one result
        # 'window': also 4x4 to 5x5 weighted windows; 'ranks': the chains in rank 1, 3 or 4;
        # 'periodic': the chains in every rank, every image read with wrap (CUDA's periodic groups)
        self.chains = profile in ('fusion', 'window', 'ranks', 'periodic')
        self.periodic = profile == 'periodic'
        self.r = random.Random(seed)
        self.types = WIDE_TYPES if profile in ('mixed', 'scan', 'loop') else TYPES
        self.lines = []     # statements
        self.defs = []      # StencilDef
        self.vfns = []      # vector function texts
        self.imports = []   # import lines
        self.structs = []   # struct definitions text
        self.pool = []      # named images
        self.scalars = []   # (name, type)
        self.nstencil = 0
        self.nstage = 0
        self.names_used = set()
        self.in_vfn = False
        self.struct_fields = None
        self.inputs = []
        self.params = []
        self.red_scalars = []   # names of whole-image reductions (scalars of the pipeline)
        self.red_used = set()   # those passed to a stencil's scalar parameter
        self.force_scalar = None  # a scalar argument the next stencil call must take
        self.scan_outs = []     # scans and their box filters, returned when nothing reads them
        self.select_outs = []   # histograms, where and topk results: always returned
        self.loop_it = None     # the iterator of the `do` loop being written (loops.py)
        self.loop_iters = []    # the iterators of the program's `do` loops
        self.loop_outs = []     # the loops' results (X<i>), returned when nothing reads them
        self.round_param = None  # the parameter of the rounds, when a loop takes one

    # -------------------------------------------------------------- helpers
    def chance(self, p):
        return self.r.random() < p

    def pick(self, seq, weights=None):
        return self.r.choices(seq, weights=weights, k=1)[0] if weights else self.r.choice(seq)

    def pick_type(self, weights=None):
        """An element type: weights are TYPES's; uint16 and int64 (mixed only)
        weigh as int16."""
        if weights and self.types is WIDE_TYPES:
            weights = weights + [weights[1], weights[1]]
        return self.pick(self.types, weights)

    # Names the generated C uses for itself, C and libc names, reserved
    # prefixes: formac must rename every one it meets.
    AWKWARD = ['k', 'q0', 'q1', 'lo0', 'hi0', 'a', 'b', 'row', 'end', 'tile', 'tiles0', 'i', 'output',
               'output0', 'ws', 'scratch', 'TH', 'TW', 'fast_row', 'nthreads', 'main', 'printf', 'size_t',
               'long', 'char', 'unsigned', 'restrict', 'NULL', 'exp', 'sqrt', 'min', 'formac_ftoi',
               'formac_zadd_f', 'v_t0', 'a_s1', 'k_fused1', 'FORMAC_HELPER', 'omp_get_thread_num', 'E',
               'INFINITY', 'NAN', 'tile_s1', 'memset', 'free', 'abs', 'errno', 'I', 'stream', 'M_PI',
               'EOF', '_SC_LEVEL2_CACHE_SIZE', 'RAND_MAX', 'INT_MAX', 'FLT_MAX', 'HUGE_VAL', 'FP_NAN',
               'fast_start', 'blockIdx', 'threadIdx', 'float4', 'cudaMalloc', 'typename', 'asm', 'std']

    def fresh(self, stem, indexed=True):
        """A new image name; in a `do` loop's body `stemN<i>` (this round's),
        or now and then an unindexed awkward name (a round-local one)."""
        if self.chance(0.06):
            for n in self.r.sample(self.AWKWARD, len(self.AWKWARD)):
                if n not in self.names_used and n not in self.params and n not in self.loop_iters:
                    self.names_used.add(n)
                    return n
        while True:
            self.nstage += 1
            n = '%s%d' % (stem, self.nstage)
            if n not in self.names_used:
                self.names_used.add(n)
                return '%s<%s>' % (n, self.loop_it) if self.loop_it and indexed else n

    def elements(self, img):
        n = 1
        for s in img.ext:
            n *= max(0, sz_eval(s, self.big))
        return n

    def fits(self, img, factor=1):
        return self.elements(img) * factor <= 400000

    def choose_image(self, rank=None, exclude_struct=False):
        cands = [i for i in self.pool if (rank is None or i.rank == rank) and
                 (not exclude_struct or i.struct is None)]
        if not cands:
            return None
        # Prefer recent images and those not yet consumed: deeper DAGs.
        w = [1.0 + 2.0 * k / len(cands) + (1.5 if c.uses == 0 else 0.0) for k, c in enumerate(cands)]
        return self.pick(cands, w)

    def mode(self, types, allow_none=True):
        """A boundary mode for an image whose elements (fields) have `types`;
        a constant that does not fit one of them is an error, so it becomes 2
        (no further draw: the random stream stays as before)."""
        if self.periodic:
            return 'wrap'
        m = self.pick(['', 'mirror', 'clamped', 'extend', 'wrap', 'constant'],
                      [4 if allow_none else 0, 3, 2, 1, 3, 2])
        if m == 'constant':
            c = self.pick(['0', '2', '7', '300', '-1', '0.5', '2.5f', '-3.25', '1e3', '65535', '-3e9'],
                          [3, 3, 2, 1, 1, 2, 1, 1, 1] + ([1, 1] if self.types is WIDE_TYPES else [0, 0]))
            if not all(literal_fits(c, t) for t in types):
                c = '2'
            return 'constant(%s)' % c
        return m

    def with_mode(self, text, m):
        return text + (':' + m if m else '')

    def int_lit(self):
        return str(self.pick([0, 1, 2, 3, 4, 5, 7, 10, 16, 100, 255, 256, 1000, 65536, 2147483647],
                             [2, 6, 5, 4, 3, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1]))

    def float_lit(self):
        v = self.pick(['0.5', '0.25', '1.5', '2.0', '3.0', '0.1', '0.125', '1e-3', '.5', '2.5e1',
                       '0.3333', '100.0', '1e30'], [3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1])
        return v + ('f' if self.chance(0.5) else '')

    def offset(self):
        k = self.r.random()
        if k < 0.55:
            return self.r.randint(-1, 1)
        if k < 0.9:
            return self.r.randint(-3, 3)
        return self.pick([-13, -9, -7, 5, 9, 11, 25])

    # -------------------------------------------------------------- stencil bodies
    def read_text(self, p, offs):
        parts = []
        for o, s in zip(offs, p['scales']):
            if s != 1 or self.chance(0.05):
                parts.append('(%d,%d)' % (o, s))
            else:
                parts.append(str(o))
        if all(o == 0 for o in offs) and all(s == 1 for s in p['scales']) and self.chance(0.6):
            return p['name']
        return '%s@[%s]' % (p['name'], ','.join(parts))

    def leaf(self, ctx):
        """(text, type, formaType)"""
        imgs = [p for p in ctx['params'] if p['kind'] == 'img' and not p['indexonly']]
        choices = ['read', 'read', 'read', 'lit']
        if ctx['scalars']:
            choices.append('scalar')
        if ctx['locals']:
            choices += ['local', 'local']
        # Index reads nest at most 4 deep: each index is an expression whose leaves
        # may index again, and 4 indices a read made the nesting endless at times.
        if any(p['kind'] == 'img' and p['indexonly'] for p in ctx['params']) and ctx.get('index_depth', 0) < 4:
            choices.append('index')
        c = self.pick(choices)
        if c == 'read':
            p = self.pick(imgs)
            ctx['read'].add(p['name'])
            t = p['elem']
            text = self.read_text(p, [self.offset() for _ in range(p['rank'])])
            if p.get('struct'):
                f, ft = self.pick(p['struct'])
                text = text + '.' + f
                t = ft
            return (text, t, t)
        if c == 'lit':
            k = self.r.random()
            if k < 0.55:
                return (self.int_lit(), 'int', 'int')
            t = self.float_lit()
            ty = 'float' if t.endswith('f') else 'double'
            return (t, ty, ty)
        if c == 'scalar':
            n, t = self.pick(ctx['scalars'])
            return (n, t, t)
        if c == 'local':
            n, t = self.pick(ctx['locals'])
            return (n, t, t)
        p = self.pick([p for p in ctx['params'] if p['kind'] == 'img' and p['indexonly']])
        idx = []
        for _ in range(p['rank']):
            k = self.r.random()
            if 0.5 <= k < 0.7:
                idx.append(str(self.r.randint(-2, 12)))
                continue
            # (only text that is kept may read: ctx['read'] records reads)
            ctx['index_depth'] = ctx.get('index_depth', 0) + 1
            e = self.expr(ctx, 1)
            ctx['index_depth'] -= 1
            if floating(e[1]):
                e = ('cast<int>(%s)' % e[0], 'int', 'int')
            if k < 0.5:
                idx.append('%s %% %d' % (self.paren(e[0]), self.r.randint(2, 9)))
            else:
                idx.append(e[0])
        t = p['elem']
        ctx['read'].add(p['name'])
        text = '%s[%s]' % (p['name'], ', '.join(idx))
        if p.get('struct'):
            f, ft = self.pick(p['struct'])
            return (text + '.' + f, ft, ft)
        return (text, t, t)

    @staticmethod
    def paren(t):
        simple = all(ch.isalnum() or ch in '_.@[],()' for ch in t) and not t.startswith('(')
        return t if simple and ' ' not in t else '(' + t + ')'

    def expr(self, ctx, depth):
        if depth <= 0 or self.chance(0.25):
            return self.leaf(ctx)
        k = self.r.random()
        if k < 0.45:
            a = self.expr(ctx, depth - 1)
            b = self.expr(ctx, depth - 1)
            ops = ['+', '-', '*', '/']
            w = [5, 4, 4, 2]
            if not floating(a[1]) and not floating(b[1]):
                ops.append('%')
                w.append(2)
            op = self.pick(ops, w)
            t = arith(a[1], b[1])
            return ('%s %s %s' % (self.paren(a[0]), op, self.paren(b[0])), t, t)
        if k < 0.55:
            a = self.expr(ctx, depth - 1)
            b = self.expr(ctx, depth - 1)
            op = self.pick(['<', '>', '<=', '>=', '==', '!=', '&&', '||'], [3, 3, 2, 2, 2, 2, 1, 1])
            return ('%s %s %s' % (self.paren(a[0]), op, self.paren(b[0])), 'int', 'int')
        if k < 0.65:
            c = self.expr(ctx, depth - 1)
            a = self.expr(ctx, depth - 1)
            b = self.expr(ctx, depth - 1)
            t = wider(a[2], b[2])
            if self.chance(0.85):
                return ('(%s ? %s : %s)' % (self.paren(c[0]), self.paren(a[0]), self.paren(b[0])), t, t)
            return ('%s ? %s : %s' % (self.paren(c[0]), self.paren(a[0]), self.paren(b[0])), t, t)
        if k < 0.72:
            a = self.expr(ctx, depth - 1)
            if self.chance(0.8):
                return ('-%s' % self.paren(a[0]), promote(a[1]), promote(a[1]))  # promoted, as formac types it
            return ('!%s' % self.paren(a[0]), 'int', 'int')
        if k < 0.82:
            a = self.expr(ctx, depth - 1)
            t = self.pick_type()
            return ('cast<%s>(%s)' % (t, a[0]), t, t)
        # math calls
        fn = self.pick(['min', 'max', 'abs', 'fabs', 'absd', 'sqrt', 'floor', 'ceil', 'round', 'exp',
                        'pow', 'atan2', 'sin', 'log', 'fminf', 'fmaxf', 'sqrtf'],
                       [4, 4, 3, 3, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1])
        two = fn in ('min', 'max', 'absd', 'pow', 'atan2', 'fminf', 'fmaxf')
        a = self.expr(ctx, depth - 1)
        if fn in ('sqrt', 'log', 'sqrtf') and self.chance(0.7):
            a = ('fabs(%s)' % a[0], a[2], a[2])
        args = [a]
        if two:
            args.append(self.expr(ctx, depth - 1))
        if fn in ('fminf', 'fmaxf', 'sqrtf'):
            t = 'float'
        else:
            t = 'int8'
            for x in args:
                t = wider(t, x[2])
        if fn == 'pow' and self.chance(0.5):
            return ('%s ^ %s' % (self.paren(args[0][0]), self.paren(args[1][0])), t, t)
        return ('%s(%s)' % (fn, ', '.join(x[0] for x in args)), t, t)

    def window(self, ctx, e):
        """e plus or minus a weighted 4x4 to 5x5 window of one rank-2 image
        parameter read at unit scale: CUDA stages such an input (16 offsets or
        more), and its power-of-two weights become fmas (exact scaling)."""
        ps = [p for p in ctx['params'] if p['kind'] == 'img' and not p['indexonly'] and p['rank'] == 2
              and list(p['scales']) == [1, 1] and not p.get('struct')]
        if not ps:
            return e
        p = self.pick(ps)
        h, w = self.pick([(4, 4), (4, 5), (5, 4), (5, 5)])
        t = p['elem']
        text = ''
        for i in range(-(h // 2), h - h // 2):
            for j in range(-(w // 2), w - w // 2):
                wt = self.pick(['1', '2', '4', '8', '16', '-2', '-4', '1048576', '2097152', '3', '5', '0.5f', '1.5'],
                               [3, 5, 5, 2, 2, 3, 2, 1, 1, 2, 2, 1, 1])
                t = arith(t, 'float' if wt.endswith('f') else 'double' if '.' in wt else 'int')
                read = '%s@[%d,%d]' % (p['name'], i, j)
                term = '%s * %s' % (wt, read) if self.chance(0.7) else '%s * %s' % (read, wt)
                text = term if not text else '%s %s %s' % (text, self.pick(['+', '-'], [3, 1]), term)
        ctx['read'].add(p['name'])
        t = arith(t, e[1])
        if self.chance(0.5):
            return ('%s + (%s)' % (self.paren(e[0]), text), t, t)
        return ('(%s) - %s' % (text, self.paren(e[0])), t, t)

    def body(self, params, ret_cast=None):
        ctx = {'params': params, 'locals': [], 'read': set(),
               'scalars': [(p['name'], p['decl']) for p in params if p['kind'] == 'scalar']}
        lines = []
        nlocals = self.pick([0, 1, 2, 3], [4, 3, 2, 1])
        depth = self.pick([1, 2, 3], [3, 4, 2])
        for i in range(nlocals):
            if ctx['locals'] and self.chance(0.25):
                n, _ = self.pick(ctx['locals'])  # a reassignment: rebinds the name
            else:
                n = 't%d' % i
                if self.chance(0.08):
                    taken = {p['name'] for p in params} | {l[0] for l in ctx['locals']}
                    free = [x for x in ['a', 'b', 'row', 'q1', 'end', 'i', 'lo1', 'fast_end', 'x', 'NAN', 'v_t1']
                            if x not in taken]
                    n = self.pick(free)
            e = self.expr(ctx, depth)
            ctx['locals'] = [l for l in ctx['locals'] if l[0] != n] + [(n, e[1])]
            lines.append('  %s = %s;' % (n, e[0]))
        e = self.expr(ctx, depth)
        if self.profile == 'window' and self.chance(0.6):
            e = self.window(ctx, e)
        # Every image parameter read at offsets is read at least once (its
        # scales are what the call's extent assumed).
        for p in params:
            if p['kind'] == 'img' and not p['indexonly'] and p['name'] not in ctx['read']:
                offs = [self.offset() for _ in range(p['rank'])]
                r = self.read_text(p, offs)
                t = p['elem']
                if p.get('struct'):
                    f, t = self.pick(p['struct'])
                    r += '.' + f
                op = self.pick(['+', '-', '*'])
                e = ('%s %s %s' % (self.paren(e[0]), op, self.paren(r)), arith(e[1], t), arith(e[1], t))
                ctx['read'].add(p['name'])
        for p in params:
            if p['kind'] != 'img' or not p['indexonly'] or p['name'] in ctx['read']:
                continue
            # an indexed parameter is indexed at least once (else it would
            # count for the extent)
            idx = ', '.join(str(self.r.randint(-1, 4)) for _ in range(p['rank']))
            term = '%s[%s]' % (p['name'], idx)
            t = p['elem']
            if p.get('struct'):
                f, t = self.pick(p['struct'])
                term += '.' + f
            e = ('%s + %s' % (self.paren(e[0]), term), arith(e[1], t), arith(e[1], t))
        if ret_cast == 'struct':
            # a struct result: one expression per field
            vals = [e[0]] + [self.expr(ctx, depth)[0] for _ in self.struct_fields[1:]]
            e = ('struct s3(%s)' % ', '.join(vals), 's3', 's3')
        elif ret_cast:
            e = ('cast<%s>(%s)' % (ret_cast, e[0]), ret_cast, ret_cast)
        elif self.chance(0.2):
            t = self.pick_type()
            e = ('cast<%s>(%s)' % (t, e[0]), t, t)
        lines.append('  return %s;' % e[0])
        return lines, e[2]

    # -------------------------------------------------------------- stencil calls
    def scales_for(self, rank):
        if self.periodic or self.chance(0.8):
            return [1] * rank
        return [self.pick([1, 1, 2, 3]) for _ in range(rank)]

    def stencil_call(self, first=None, depth=0, ret_cast=None, want_ext=None, struct_ret=True):
        """A stencil application: (call text, result Img). `first` forces the
        first image argument (an Img)."""
        n_img = self.pick([1, 2, 3], [5, 3, 2])
        n_scalar = self.pick([0, 1, 2], [5, 3, 1])
        if self.force_scalar and n_scalar == 0:
            n_scalar = 1
        a0 = first
        nested = False
        if a0 is None:
            # (the periodic profile: plain images, read at q + offset only)
            if depth < 1 and not self.periodic and self.chance(0.08):
                base = self.choose_image()
                if base is not None:
                    text, a0 = self.stencil_call(base, depth + 1)
                    a0.text = text
                    nested = True
            if a0 is None and depth < 1 and not self.periodic and self.chance(0.1):
                # a sub-domain or a sample as the argument itself (its own
                # extent, and the mode applies to it)
                src = self.choose_image()
                text, ext = self.crop(src) if self.chance(0.5) else self.sample_text(src)
                a0 = Img(None, src.type, ext, src.struct)
                a0.text = text
                src.uses += 1
            if a0 is None:
                a0 = self.choose_image()
        rank = a0.rank
        s0 = [1] * rank if want_ext is not None else self.scales_for(rank)
        target = [sz_div(e, s) for e, s in zip(a0.ext, s0)]
        args = [(a0, s0, False)]
        for _ in range(n_img - 1):
            if not self.periodic and self.chance(0.12):
                img = self.choose_image(rank=rank, exclude_struct=False)
                args.append((img, [1] * rank, True))
                continue
            cands = []
            for img in self.pool:
                if img.rank != rank:
                    continue
                for sc in ([1] * rank, s0):
                    if same_extent([sz_div(e, s) for e, s in zip(img.ext, sc)], target, self.nparams):
                        cands.append((img, list(sc)))
            if cands and self.chance(0.85):
                img, sc = self.pick(cands)
            else:
                img, sc = a0, s0
            args.append((img, sc, False))
        self.r.shuffle(args)
        # Reuse a stencil with the same signature now and then.
        params = []
        for k, (img, sc, io) in enumerate(args):
            p = {'kind': 'img', 'rank': rank, 'scales': sc, 'indexonly': io,
                 'elem': img.type, 'struct': img.struct}
            params.append(p)
        for k in range(n_scalar):
            params.append({'kind': 'scalar', 'decl': self.pick_type([1, 1, 3, 3, 2])})
        sig = tuple((p['kind'], p.get('rank'), p.get('elem'), tuple(p.get('scales') or ()),
                     p.get('indexonly'), p.get('decl') if p['kind'] == 'scalar' else None)
                    for p in params)
        if ret_cast is None and struct_ret and self.struct_fields and self.chance(0.12):
            ret_cast = 'struct'
        reuse = [d for d in self.defs if d.signature() == sig and d.ret_cast == ret_cast]
        if reuse and self.chance(0.6):
            d = self.pick(reuse)
        else:
            d = self.new_def(params, ret_cast)
        # argument texts
        texts = []
        ai = 0
        for p in d.params:
            if p['kind'] == 'img':
                img = args[ai][0]
                ai += 1
                img.uses += 1
                m = self.mode([t for _, t in img.struct] if img.struct else [img.type])
                texts.append(self.with_mode(img.text, m))
            else:
                texts.append(self.scalar_arg(p['decl']))
        out = Img(None, d.ret_type, target, self.struct_fields if d.ret_type == 's3' else None)
        return '%s(%s)' % (d.name, ', '.join(texts)), out

    def scalar_arg(self, decl):
        """An argument for a scalar parameter declared `decl`: a literal that
        does not fit it is an error, so it becomes 1 (no further draw)."""
        if self.force_scalar and not self.in_vfn:
            n, self.force_scalar = self.force_scalar, None
            self.red_used.add(n)
            return n
        if self.scalars and not self.in_vfn and self.chance(0.5):
            n = self.pick(self.scalars)[0]
            if n in self.red_scalars:
                self.red_used.add(n)
            return n
        k = self.r.random()
        if k < 0.5:
            lit = self.pick(['0', '1', '2', '3', '7', '100', '-1', '-5'])
        else:
            lit = self.pick(['0.5', '2.5', '-0.25', '1.5f', '3.0f', '-2.0f', '1e-3'])
        return lit if literal_fits(lit, decl) else '1'

    def new_def(self, params, ret_cast):
        self.nstencil += 1
        name = 'f%d' % self.nstencil
        inames = ['X', 'Y', 'Z', 'A', 'B', 'W', 'P', 'Q'] + (['q0', 'tile', 'output', 'I'] if self.chance(0.1) else [])
        names = self.r.sample(inames, len([p for p in params if p['kind'] == 'img']))
        snames = self.r.sample(['k', 'n', 'c', 'w', 'v'] + (['nthreads', 'end'] if self.chance(0.1) else []),
                               len([p for p in params if p['kind'] == 'scalar']))
        params = [dict(p) for p in params]
        for p in params:
            p['name'] = names.pop() if p['kind'] == 'img' else snames.pop()
        lines, rt = self.body(params, ret_cast)
        decls = []
        for p in params:
            if p['kind'] == 'img':
                decl = p['elem']
                if p['struct'] is None and not p.get('byfield') and self.chance(0.1):
                    decl = self.pick_type()
                p['decl_img'] = decl
                decls.append('vector#%d %s %s' % (p['rank'], decl, p['name']))
            else:
                decls.append('%s %s' % (p['decl'], p['name']))
        text = 'stencil %s(%s) {\n%s\n}' % (name, ', '.join(decls), '\n'.join(lines))
        d = StencilDef(name, params, text, rt)
        d.ret_cast = ret_cast
        self.defs.append(d)
        return d

    # -------------------------------------------------------------- statements
    def add(self, img, name=None):
        img.name = name or img.name or self.fresh('s')
        img.text = img.name
        img.round = img.round or self.loop_it is not None
        self.pool.append(img)
        return img

    def fixed_def(self, name, params, body, ret_type, tag):
        """A stencil of a fixed text (`tag`: never reused by stencil_call)."""
        d = StencilDef(name, [], 'stencil %s(%s) { return %s; }' % (name, ', '.join(params), body), ret_type)
        d.ret_cast = tag
        return d

    def same_ext(self, a, b):
        return same_extent(a, b, self.nparams)

    def st_call(self):
        text, out = self.stencil_call()
        name = self.fresh('s')
        self.lines.append('%s = %s;' % (name, text))
        self.add(out, name)

    def sample_text(self, src):
        """A copy or sample of src: (text, extent)."""
        if self.chance(0.3):
            offs = [self.offset() for _ in range(src.rank)]
            return '%s@[%s]' % (src.text, ','.join(map(str, offs))), list(src.ext)
        parts, ext = [], []
        for e in src.ext:
            s = self.pick([1, 2, 3], [1, 2, 1])
            parts.append('(%d,%d)' % (self.r.randint(-3, 5), s))
            ext.append(sz_div(e, s))
        return '%s@[%s]' % (src.text, ','.join(parts)), ext

    def st_sample(self):
        src = self.choose_image()
        name = self.fresh('c')
        src.uses += 1
        if src.struct and self.chance(0.5):
            f, ft = self.pick(src.struct)
            self.lines.append('%s = %s.%s;' % (name, src.text, f))
            self.add(Img(name, ft, list(src.ext)))
            return
        text, ext = self.sample_text(src)
        self.lines.append('%s = %s;' % (name, text))
        self.add(Img(name, src.type, ext, src.struct))

    def crop(self, src):
        """A sub-domain of src: (text, extent)."""
        parts, ext = [], []
        for d, e in enumerate(src.ext):
            k = self.r.random()
            pname = self.param_of_dim(d)
            if k < 0.35:
                parts.append('..')
                ext.append(e)
            elif k < 0.65:
                lo = self.r.randint(0, 2)
                if e[0] == 'c':
                    lo = min(lo, e[1])  # a constant extent stays >= 0
                parts.append('%d..' % lo)
                ext.append(sz_add(e, -lo))
            elif k < 0.85 and pname:
                lo = self.r.randint(0, 2)
                hi = self.r.randint(1, 3)
                parts.append('%d..%s-%d' % (lo, pname, hi))
                ext.append(sz_add(('p', self.params.index(pname)), -hi - lo + 1))
            else:
                lo = self.r.randint(0, 3)
                hi = lo + self.r.randint(0, 4)
                parts.append('%d..%d' % (lo, hi))
                ext.append(('c', hi - lo + 1))
        return '%s[%s]' % (src.text, ', '.join(parts)), ext

    def param_of_dim(self, d):
        return self.dim_params[d] if d < len(self.dim_params) else None

    def st_crop(self):
        src = self.choose_image()
        text, ext = self.crop(src)
        name = self.fresh('c')
        self.lines.append('%s = %s;' % (name, text))
        self.add(Img(name, src.type, ext, src.struct))

    def rhs(self):
        """A vector expression for a placement / scatter / compose part: a
        name or a call. (text, Img)"""
        if self.chance(0.5):
            text, img = self.stencil_call()
            return text, img
        img = self.choose_image()
        img.uses += 1
        return img.text, img

    def st_place(self):
        text, src = self.rhs()
        name = self.fresh('p')
        parts, ext = [], []
        extra = 0
        if src.rank < 3 and self.chance(0.2):
            extra = 1
            lo = self.r.randint(0, 2)
            parts.append(self.pick(['%d..' % lo, '%d' % lo]))
            ext.append(('c', lo + 1))
        for d, e in enumerate(src.ext):
            lo = self.r.randint(0, 4)
            k = self.r.random()
            if k < 0.15:
                parts.append('..')
                ext.append(e)
            elif k < 0.85:
                parts.append('%d..' % lo)
                ext.append(sz_add(e, lo))
            else:
                hi = lo + self.r.randint(0, 6)
                parts.append('%d..%d' % (lo, hi))
                ext.append(sz_add(e, lo))
        self.lines.append('%s[%s] = %s;' % (name, ', '.join(parts), text))
        self.add(Img(name, src.type, ext, src.struct))

    def st_scatter(self):
        text, src = self.rhs()
        name = self.fresh('q')
        parts, ext = [], []
        for e in src.ext:
            s = self.pick([1, 2, 3], [2, 3, 1]) if self.fits(src, 6) else 1
            parts.append('(%d,%d)' % (self.r.randint(-4, 4), s) if s != 1 or self.chance(0.5)
                         else str(self.r.randint(-3, 3)))
            ext.append(sz_mul(e, s))
        self.lines.append('%s@[%s] = %s;' % (name, ','.join(parts), text))
        self.add(Img(name, src.type, ext, src.struct))

    def st_compose(self):
        # Up-sampling along some dimensions: parts @[(o,s),...] for every
        # phase o of the scale, each a name or a call of the same extent.
        base = self.choose_image()
        rank = base.rank
        scales = [1] * rank
        for d in range(rank):
            if self.chance(0.6):
                scales[d] = 2
        if all(s == 1 for s in scales) or not self.fits(base, 4):
            scales = [1] * rank
            scales[self.r.randrange(rank)] = 2
        parts = []
        ext = [sz_mul(e, s) for e, s in zip(base.ext, scales)]
        typ = None
        struct = base.struct
        phases = [[]]
        for s in scales:
            phases = [p + [o] for p in phases for o in range(s)]
        if self.chance(0.3):
            self.r.shuffle(phases)
        if len(phases) > 2 and self.chance(0.3):
            phases = phases[:-1]  # an uncovered phase stays 0
        for ph in phases:
            if struct is None and self.chance(0.55):
                text, img = self.stencil_call(base, want_ext=base.ext, struct_ret=False)
            elif self.chance(0.3) and struct is None:
                offs = [self.r.randint(-1, 1) for _ in range(rank)]
                text, img = '%s@[%s]' % (base.text, ','.join(map(str, offs))), base
            else:
                text, img = base.text, base
            base.uses += 1
            if typ is None:
                typ = img.type
            elif struct is None:
                typ = arith(typ, img.type) if typ != img.type else typ
            parts.append('@[%s] = %s;' % (','.join('(%d,%d)' % (o, s) for o, s in zip(ph, scales)), text))
        if struct is None and self.chance(0.25) and self.dim_params:
            # a constant part over a box, and a placed part
            box = []
            for d in range(rank):
                lo = self.r.randint(0, 3)
                box.append('%d..%d' % (lo, lo + self.r.randint(0, 5)))
            lit = self.pick(['3', '0.5', '-2', '1.5f'])
            parts.insert(self.r.randint(0, len(parts)), '[%s] = %s;' % (', '.join(box), lit))
            lt = 'int' if '.' not in lit else ('float' if lit.endswith('f') else 'double')
            typ = arith(typ, lt) if typ != lt else typ
            for d, b in enumerate(box):
                hi = int(b.split('..')[1])
                ext[d] = sz_max(ext[d], ('c', hi + 1))
        name = self.fresh('u')
        self.lines.append('%s = ( %s );' % (name, ' '.join(parts)))
        self.add(Img(name, typ, ext, struct))

    def st_for(self):
        src = self.choose_image()
        if src.struct:
            return self.st_call()
        g = self.fresh('g', indexed=False)
        n = self.r.randint(2, 4)
        it = self.pick(['i', 't', 'j'])
        if it in self.loop_iters:  # a `do` loop's: its results X<i> would read as X<1>
            it += '2'
        down = self.chance(0.25)
        # g<0> = src; for it = 1..n  g<it> = f(g<it-1>:mode, ...); endfor
        loopvar = Img(None, src.type, src.ext)
        loopvar.text = '@PREV@'
        text, out = self.stencil_call(loopvar, ret_cast=src.type, want_ext=src.ext)
        # the call text names the first argument's text (None); rebuild it
        start, end = (n, 1) if down else (1, n)
        prev = '%s<%s+1>' % (g, it) if down else '%s<%s-1>' % (g, it)
        first = 0 if not down else n + 1
        call = text.replace('@PREV@', prev)
        self.lines.append('%s<%d> = %s;' % (g, first, src.text))
        self.lines.append('for %s = %d..%d' % (it, start, end))
        self.lines.append('  %s<%s> = %s;' % (g, it, call))
        self.lines.append('endfor')
        last = end
        img = Img('%s<%d>' % (g, last), src.type, list(src.ext))
        self.pool.append(img)
        src.uses += 1

    def st_import(self, r):
        """`import "stdlib/F.idsl";` and a call of what F defines on a vector#2 float image."""
        cands = [i for i in self.pool if i.rank == 2 and i.type == 'float' and i.struct is None]
        if not cands:
            return
        src = r.choice(cands)
        path, fn = r.choice(STDLIB)
        line = 'import "stdlib/%s";' % path
        if line not in self.imports:
            self.imports.append(line)
        name = 'imp%d' % len(self.lines)
        while name in self.names_used:
            name += '_'
        self.names_used.add(name)
        src.uses += 1
        self.lines.append('%s = %s(%s);' % (name, fn, self.with_mode(src.text, r.choice(['', 'mirror', 'clamped', 'wrap']))))
        self.add(Img(name, 'float', list(src.ext)), name)

    def st_vector_fn(self):
        # vector h(vector#r T V) { a = f(V:mode); return g(a, V); }
        src = self.choose_image()
        if src.struct:
            return self.st_call()
        name = 'h%d' % (len(self.vfns) + 1)
        inner = Img('V', src.type, src.ext)
        save = self.pool
        self.pool = [inner]
        self.in_vfn = True
        t1, o1 = self.stencil_call(inner, want_ext=src.ext)
        o1 = self.add(o1, 'a')
        t2, o2 = self.stencil_call(o1, want_ext=src.ext)
        self.pool = save
        self.in_vfn = False
        self.vfns.append('vector %s(vector#%d %s V) {\n  a = %s;\n  return %s;\n}' %
                         (name, src.rank, src.type, t1, t2))
        out = self.fresh('s')
        self.lines.append('%s = %s(%s);' % (out, name, src.text))
        src.uses += 1
        self.add(Img(out, o2.type, list(src.ext), o2.struct), out)

    # -------------------------------------------------------------- reductions
    REDUCE_OPS = ['sum', 'min', 'max', 'count', 'any', 'all']

    @staticmethod
    def reduce_type(op, elem):
        """ir::reduceResultType (LANGUAGE.md §7)."""
        if op == 'sum':
            return 'double' if floating(elem) else 'int64'
        if op in ('min', 'max'):
            return elem
        return 'int64' if op == 'count' else 'int'

    def st_reduce(self, r):
        """`m = max(img);` (a scalar of the pipeline, which later stencil calls
        may take as a scalar argument) or `rows = sum(img, d);` (an image of one
        rank less), over an earlier image or one field of a struct image. Its
        choices come from `r`, the program's reduction stream."""
        src = r.choice(self.pool)
        op = r.choice(self.REDUCE_OPS)
        text, elem = src.text, src.type
        if src.struct:
            f, elem = r.choice(src.struct)
            text += '.' + f
        dim = r.randrange(src.rank) if r.random() < 0.35 else None
        if dim is not None:
            text += ', %d' % dim
        rtype = self.reduce_type(op, elem)
        name = self.fresh('r')
        src.uses += 1
        self.lines.append('%s = %s(%s);' % (name, op, text))
        if dim is None or src.rank == 1:
            self.scalars.append((name, rtype))
            self.red_scalars.append(name)
        else:
            self.add(Img(name, rtype, [e for d, e in enumerate(src.ext) if d != dim]))

    def use_reductions(self, r, outs):
        """Every whole-image reduction that no stencil took: passed to a new
        stencil call's scalar parameter (its result joins `outs`), returned as
        an extra result, or both. The names to return beside the images."""
        extra = []
        for n in self.red_scalars:
            if n in self.red_used:
                if r.random() < 0.25:
                    extra.append(n)
                continue
            k = r.random()
            if k < 0.7:
                self.force_scalar = n
                text, out = self.stencil_call()
                self.force_scalar = None
                name = self.fresh('s')
                self.lines.append('%s = %s;' % (name, text))
                outs.append(self.add(out, name))
            if k >= 0.4:
                extra.append(n)
        return extra

    # -------------------------------------------------------------- selections
    # histogram's [LO, HI) per element type, over the values the images mostly take.
    HIST_RANGES = {'int8': ('0', '256'), 'int16': ('-3000', '3001.5'), 'uint16': ('0', '65536'),
                   'int': ('-1000', '1000'), 'int64': ('-1000', '1000.5'), 'float': ('-4', '4'),
                   'double': ('-4.25', '4')}

    def st_select(self, r):
        """`h = histogram(x, BINS, LO, HI);`, `w = where(x, K);` or `t =
        topk(x, K);` (LANGUAGE.md §7; int64[BINS] or int64[K]) of an earlier
        image, mostly a computed one (a stencil's: CUDA counts a histogram of
        a rank-2 stencil in the stencil's kernel), or one field of a struct
        image; returned beside the images. Choices come from `r`, the
        program's selection stream."""
        computed = [i for i in self.pool if i not in self.inputs]
        src = r.choice(computed if computed and r.random() < 0.75 else self.pool)
        text, elem = src.text, src.type
        if src.struct:
            f, elem = r.choice(src.struct)
            text += '.' + f
        src.uses += 1
        k = r.random()
        if k < 0.6:
            name = self.fresh('h')
            lo, hi = self.HIST_RANGES[elem]
            line = '%s = histogram(%s, %d, %s, %s);' % (name, text, r.choice([1, 7, 61, 256, 300, 3000, 10000]), lo, hi)
        else:
            name = self.fresh('w' if k < 0.8 else 't')
            line = '%s = %s(%s, %d);' % (name, 'where' if k < 0.8 else 'topk', text, r.choice([1, 3, 64, 700]))
        self.lines.append(line)
        self.select_outs.append(name)

    # -------------------------------------------------------------- scans
    # Point-wise producers of a scanned image (offset 0 only, so that fusion
    # may compute them inside the scan): (text over X, its type given X's).
    POINTWISE = [('X * X', lambda t: arith(t, t)),
                 ('X - 3', lambda t: arith(t, 'int')),
                 ('2 * X + 1', lambda t: arith(t, 'int')),
                 ('(X > 5) * X', lambda t: arith('int', t)),
                 ('X * 0.5', lambda t: 'double'),
                 ('X / 3', lambda t: arith(t, 'int')),
                 ('cast<float>(X) * 1.5f - 2', lambda t: 'float'),
                 ('cast<int>(X) % 7 - 3', lambda t: 'int')]

    def st_scan(self, r):
        """`S = scan(x, d[, T]);` or `S = sat(x[, T]);` (LANGUAGE.md §7) over
        an earlier image (one field of a struct image), half the time of a
        point-wise producer written in the call (`sat(pwN(x))`: fusion computes
        it inside the scan), with a result type now and then (narrow ones
        too, which wrap); then, mostly, a box filter of the result: a stencil
        reading it at the corners of a window, `I@[r,r] - I@[-r-1,r] -
        I@[r,-r-1] + I@[-r-1,-r-1]` for a sat of rank 2 (2^rank corners; two
        along the scanned dimension of a scan), sometimes divided by the
        window's area, under a clamped, extend, constant, mirror or wrap
        boundary. Choices come from `r`, the program's scan stream."""
        src = r.choice([i for i in self.pool if i.rank >= 1])
        text, elem = src.text, src.type
        if src.struct:
            f, elem = r.choice(src.struct)
            text += '.' + f
        src.uses += 1
        rank = src.rank
        if r.random() < 0.5:
            body, ptype = r.choice(self.POINTWISE)
            elem_out = ptype(elem)
            if '%' in body and floating(elem):
                body, elem_out = 'X - 3', arith(elem, 'int')
            self.nstencil += 1
            pname = 'pw%d' % self.nstencil
            self.defs.append(self.fixed_def(pname, ['vector#%d %s X' % (rank, elem)], body, elem_out, 'scan-producer'))
            text, elem = '%s(%s)' % (pname, text), elem_out
        sat = r.random() < 0.55
        dim = None if sat else r.randrange(rank)
        args = [text] if sat else [text, str(dim)]
        rtype = 'double' if floating(elem) else 'int64'
        if r.random() < 0.4:
            rtype = r.choice(WIDE_TYPES)
            args.append(rtype)
        name = self.fresh('sat' if sat else 'scan')
        self.lines.append('%s = %s(%s);' % (name, 'sat' if sat else 'scan', ', '.join(args)))
        out = self.add(Img(name, rtype, list(src.ext)), name)
        self.scan_outs.append(out)
        if r.random() < 0.3:
            return
        # A box filter of the scan: the window is [-rd-1, rd] (exclusive of
        # its low corner) along each scanned dimension, 0 along the others.
        dims = list(range(rank)) if sat else [dim]
        radius = [r.choice([0, 1, 1, 2, 3, 5]) for _ in range(rank)]
        terms = []
        for corner in range(1 << len(dims)):
            offs = [0] * rank
            neg = 0
            for k, d in enumerate(dims):
                if corner >> k & 1:
                    offs[d] = -radius[d] - 1
                    neg += 1
                else:
                    offs[d] = radius[d]
            terms.append(('-' if neg % 2 else '+', 'I@[%s]' % ','.join(map(str, offs))))
        expr = terms[0][1] + ''.join(' %s %s' % t for t in terms[1:])
        btype = arith(rtype, rtype)
        if r.random() < 0.35:
            area = 1
            for d in dims:
                area *= 2 * radius[d] + 1
            lit = r.choice(['%d.0' % area, '%d.0f' % area, '%d' % area])
            expr = '(%s) / %s' % (expr, lit)
            btype = arith(btype, 'float' if lit.endswith('f') else 'double' if '.' in lit else 'int')
        self.nstencil += 1
        bname = 'box%d' % self.nstencil
        self.defs.append(self.fixed_def(bname, ['vector#%d %s I' % (rank, rtype)], expr, btype, 'scan-box'))
        m = r.choice(['clamped', 'clamped', 'extend', 'constant(0)', 'constant(7)', 'mirror', 'wrap'])
        if m == 'constant(7)' and not literal_fits('7', rtype):
            m = 'constant(0)'
        box = self.fresh('bx')
        out.uses += 1
        self.lines.append('%s = %s(%s:%s);' % (box, bname, name, m))
        self.scan_outs.append(self.add(Img(box, btype, list(src.ext)), box))

    # -------------------------------------------------------------- do loops
    def st_loop(self, r):
        """A `do` loop (loops.py), its shape drawn from `r`, the program's loop stream."""
        loops.LoopBuilder(self, r, Img).build()

    # -------------------------------------------------------------- field by field
    def st_byfield(self, r):
        """A stencil declared on a scalar type T applied to struct images whose
        fields all have type T (docs/language-decisions.md, "field by field"):
        its image parameters are `vector#N T`, given u3 images (all of the one
        struct type) and sometimes plain images beside them; the result is a
        u3 image. Read at offsets, never indexed; unit scales."""
        structs = [i for i in self.pool if i.type == 'u3']
        if not structs:
            return
        a0 = r.choice(structs)
        t = self.u3_type
        args = [a0]
        for _ in range(r.choice([0, 0, 1, 2])):
            same = [i for i in self.pool if i.rank == a0.rank and same_extent(i.ext, a0.ext, self.nparams)
                    and (i.struct is None or i.type == 'u3')]
            args.append(r.choice(same))
        r.shuffle(args)
        params = []
        for img in args:
            params.append({'kind': 'img', 'rank': a0.rank, 'scales': [1] * a0.rank, 'indexonly': False,
                           'elem': t if img.type == 'u3' else img.type, 'struct': None, 'byfield': True})
        for _ in range(r.choice([0, 0, 1, 2])):
            params.append({'kind': 'scalar', 'decl': self.pick_type([1, 1, 3, 3, 2])})
        sig = tuple((p['kind'], p.get('rank'), p.get('elem'), tuple(p.get('scales') or ()),
                     p.get('indexonly'), p.get('decl') if p['kind'] == 'scalar' else None)
                    for p in params)
        # The same stencil may already run on plain images: reuse it when its
        # image parameters are declared with their images' types.
        reuse = [d for d in self.defs if d.signature() == sig and d.ret_cast is None and
                 all(p['kind'] != 'img' or p.get('decl_img') == p['elem'] for p in d.params)]
        d = r.choice(reuse) if reuse and r.random() < 0.5 else self.new_def(params, None)
        texts = []
        ai = 0
        for p in d.params:
            if p['kind'] == 'img':
                img = args[ai]
                ai += 1
                img.uses += 1
                m = self.mode([t] if img.type == 'u3' else [img.type])
                texts.append(self.with_mode(img.text, m))
            else:
                texts.append(self.scalar_arg(p['decl']))
        name = self.fresh('b')
        self.lines.append('%s = %s(%s);' % (name, d.name, ', '.join(texts)))
        self.add(Img(name, 'u3', list(a0.ext), [(f, t) for f in self.u3_fields]))

    # -------------------------------------------------------------- program
    def program(self):
        r = self.r
        rank = ((self.pick([1, 3, 4]) if self.profile == 'ranks' else self.pick([1, 2, 3, 4]) if self.periodic
                 else 2) if self.chains else self.pick([1, 2, 3], [2, 6, 2]))
        self.rank = rank
        names = {1: ['N'], 2: ['M', 'N'], 3: ['A', 'B', 'C'], 4: ['A', 'B', 'C', 'D']}[rank]
        self.params = list(names)
        self.dim_params = list(names)
        fixed = self.chance(0.04)
        ext_decl = []
        if fixed:
            self.params = []
            self.dim_params = []
            dims = [self.pick([1, 2, 5, 37, 64]) for _ in range(rank)]
            ext = [('c', d) for d in dims]
            ext_decl = [str(d) for d in dims]
        else:
            ext = [('p', i) for i in range(rank)]
            ext_decl = list(names)
            if self.chance(0.05):
                # size expressions
                ext = [('+', ('*', ('c', 2), ('p', 0)), ('c', 1))] + ext[1:]
                ext_decl = ['2*%s+1' % names[0]] + ext_decl[1:]
        self.nparams = len(self.params)
        self.runs = self.sizes(rank, fixed)
        self.big = max(self.runs, key=lambda p: (sum(p), p)) if self.params else []
        # struct inputs, now and then
        struct = None
        if self.chance(0.08):
            wide = ['uint16', 'int64'] if self.types is WIDE_TYPES else []
            fields = [('a', self.pick(['float', 'double'])), ('b', self.pick(['int16', 'int'] + wide)),
                      ('c', 'int8')]
            self.structs.append('struct s3 { %s }' % ' '.join('%s %s;' % (t, n) for n, t in fields))
            struct = fields
            self.struct_fields = fields
        n_in = self.pick([1, 2, 3], [4, 3, 2])
        # Reductions, field-by-field calls, scans and `do` loops (mixed
        # profile and its relatives) draw their choices from streams of their
        # own, so that the programs without them stay what they were.
        mixed = self.profile in ('mixed', 'scan', 'loop')
        red = random.Random('%s:reduce' % self.seed)
        with_red = mixed and red.random() < 0.3
        bf = random.Random('%s:byfield' % self.seed)
        with_bf = mixed and bf.random() < 0.15
        # Scans: one program in four of 'mixed', every one of 'scan'.
        sc = random.Random('%s:scan' % self.seed)
        with_scan = self.profile == 'scan' or (self.profile in ('mixed', 'loop') and sc.random() < 0.25)
        # `do` loops: one program in five of 'mixed', every one of 'loop'.
        lp = random.Random('%s:loop' % self.seed)
        with_loop = self.profile == 'loop' or (self.profile == 'mixed' and lp.random() < 0.2)
        # Histograms, where and topk: one program in six of 'mixed'.
        sl = random.Random('%s:select' % self.seed)
        with_select = self.profile == 'mixed' and sl.random() < 1 / 6
        decls = []
        if self.params:
            decls.append('parameter %s;' % ', '.join(self.params))
        for i in range(n_in):
            t = self.pick_type([2, 2, 2, 4, 2])
            name = 'in%d' % i
            if name in self.names_used or self.chance(0.1):
                name = self.fresh('in')
            self.names_used.add(name)
            if struct and i == 0:
                decls.append('vector#%d s3 %s[%s];' % (rank, name, ','.join(ext_decl)))
                self.pool.append(Img(name, 's3', list(ext), struct))
                self.inputs.append(self.pool[-1])
                # its fields, as images
                f, ft = self.pick(struct)
                self.lines.append('fld%d = %s.%s;' % (i, name, f))
                self.pool.append(Img('fld%d' % i, ft, list(ext)))
                self.pool[-2].uses += 1
            else:
                decls.append('vector#%d %s %s[%s];' % (rank, t, name, ','.join(ext_decl)))
                self.pool.append(Img(name, t, list(ext)))
                self.inputs.append(self.pool[-1])
        if with_bf:
            # struct u3 { T x; T y; T z; }: a stencil on T runs on it field by field
            self.u3_type = bf.choice(self.types)
            self.u3_fields = bf.choice([['x', 'y'], ['x', 'y', 'z'], ['r', 'g', 'b', 'a']])
            self.structs.append('struct u3 { %s }' % ' '.join('%s %s;' % (self.u3_type, f) for f in self.u3_fields))
            for i in range(bf.choice([1, 1, 2])):
                name = 'col%d' % i
                self.names_used.add(name)
                decls.append('vector#%d u3 %s[%s];' % (rank, name, ','.join(ext_decl)))
                self.pool.append(Img(name, 'u3', list(ext), [(f, self.u3_type) for f in self.u3_fields]))
                self.inputs.append(self.pool[-1])
        for i in range(self.pick([0, 1, 2], [5, 3, 1])):
            t = self.pick_type([1, 1, 3, 3, 2])
            n = 'k%d' % i
            decls.insert(r.randint(0, len(decls)), '%s %s;' % (t, n))
            self.scalars.append((n, t))
        if struct and self.chance(0.5):
            # a struct image built from numeric ones of the input's extent
            same = [i for i in self.pool if i.struct is None and same_extent(i.ext, ext, self.nparams)]
            parts = [self.pick(same).text for _ in range(3)]
            self.lines.append('mk = struct s3(%s);' % ', '.join(parts))
            self.pool.append(Img('mk', 's3', list(ext), struct))
        n_calls = self.pick([1, 2, 3, 4, 5, 6], [2, 3, 3, 2, 2, 1])
        if self.chains:
            n_calls = r.randint(4, 9)
        for _ in range(n_calls):
            if with_red and red.random() < 0.4:
                self.st_reduce(red)
            if with_bf and bf.random() < 0.5:
                self.st_byfield(bf)
            if with_scan and sc.random() < 0.35:
                self.st_scan(sc)
            if with_loop and lp.random() < 0.3:
                self.st_loop(lp)
            k = r.random()
            if self.chains:
                k = 0.0 if k < 0.9 else k
            if k < 0.72:
                self.st_call()
            elif k < 0.77:
                self.st_sample()
            elif k < 0.81:
                self.st_crop()
            elif k < 0.85:
                self.st_place()
            elif k < 0.89:
                self.st_scatter()
            elif k < 0.94:
                self.st_compose()
            elif k < 0.97:
                self.st_for()
            else:
                self.st_vector_fn()
        # Now and then a stdlib stencil, imported. Its choices come from a stream of
        # their own, so that the programs without one stay what they were.
        imp = random.Random('%s:import' % self.seed)
        if not self.chains and imp.random() < 0.12:
            self.st_import(imp)
        if with_red and (not self.red_scalars or red.random() < 0.3):
            self.st_reduce(red)
        if with_bf and bf.random() < 0.5:
            self.st_byfield(bf)
        if with_scan and (not self.scan_outs or sc.random() < 0.3):
            self.st_scan(sc)
        if with_loop and (not self.loop_iters or lp.random() < 0.2):
            self.st_loop(lp)
        if with_select:
            for _ in range(sl.choice([1, 1, 2])):
                self.st_select(sl)
        consumers = []
        extra = self.use_reductions(red, consumers) if with_red else []
        # results: the sinks first
        computed = [i for i in self.pool if i not in self.inputs]
        sinks = [i for i in computed if i.uses == 0] or computed
        outs = [sinks[-1]] + [c for c in consumers if c is not sinks[-1]]
        for _ in range(self.pick([0, 1, 2], [5, 3, 1]) if not self.chains else 0):
            c = self.pick(self.pool)
            if c not in outs or self.chance(0.2):
                outs.append(c)
        # scans and box filters nothing reads: returned too, else they are dead
        outs += [o for o in self.scan_outs if o.uses == 0 and o not in outs]
        outs += [o for o in self.loop_outs if o.uses == 0 and o not in outs]
        if self.round_param:
            # the rounds of a `do` loop: a parameter after the extents' ones
            at = [k for k, d in enumerate(decls) if d.startswith('parameter ')]
            if at:
                decls[at[0]] = decls[at[0]][:-1] + ', %s;' % self.round_param
            else:
                decls.insert(0, 'parameter %s;' % self.round_param)
            for run, v in zip(self.runs, loops.round_values(lp, self.runs)):
                run.append(v)
        ret = ', '.join(o.text for o in outs)
        if self.chance(0.05):
            # return a sub-domain of the result
            text, _ = self.crop(outs[0])
            ret = text
        if extra:
            # whole-image reductions returned beside the images (`return a, m;`),
            # or in their place
            ret = ', '.join(extra) if red.random() < 0.1 else ret + ', ' + ', '.join(extra)
        if self.select_outs:
            ret += ', ' + ', '.join(self.select_outs)
        text = ['// progfuzz seed=%s sizes=%s' % (self.seed, ','.join('x'.join(map(str, p)) for p in self.runs))]
        text += self.imports
        text += self.structs
        text += [d.text for d in self.defs]
        text += self.vfns
        text += decls
        text += self.lines
        text.append('return %s;' % ret)
        return '\n'.join(text) + '\n'

    def sizes(self, rank, fixed):
        if fixed:
            return [[]]
        r = self.r
        if rank == 1:
            runs = [[1], [2], [5], [37], [300]]
            runs.append([self.pick([3, 13, 1030, 4099])])
        elif rank == 2:
            runs = [[1, 1], [2, 3], [5, 7], [37, 131], [67, 300]]
            runs.append(self.pick([[1, 9], [9, 1], [3, 513], [130, 1030], [66, 514], [129, 65],
                                   [3, 40009], [7, 30011]]))  # the last two: strips of columns
            if self.profile == 'window':
                runs.append([100, 200])  # interior CUDA blocks whose rows are 16-byte aligned
        elif rank == 3:
            runs = [[1, 1, 1], [2, 3, 4], [5, 7, 3], [9, 11, 10]]
            runs.append(self.pick([[13, 1, 6], [1, 5, 70], [3, 66, 17], [4, 2, 130]]))
        else:
            runs = [[1, 1, 1, 1], [2, 3, 1, 4], [3, 5, 4, 2], [6, 2, 3, 9]]
        if self.profile == 'ranks':
            # several bands of planes (rank 3, 4), several chunks (rank 1)
            runs.append({1: [70001], 3: [100, 3, 5], 4: [60, 2, 3, 4]}[rank])
        if self.periodic:
            # several tiles each way on the GPU (regions past both edges)
            runs.append({1: [9001], 2: [100, 200], 3: [20, 33, 40], 4: [9, 10, 11, 12]}[rank])
        return runs


def generate(seed, profile='mixed'):
    """The program text for `seed` (its first line names the sizes)."""
    return Gen(seed, profile).program()


def has_reductions(text):
    """Whether the program has a reduction statement (`m = max(img);`): the
    generator writes no other statement that starts with one of their names."""
    return re.search(r'^[A-Za-z_]\w* = (sum|min|max|count|any|all|histogram|where|topk)\(', text, re.M) is not None


def sizes_of(text):
    first = text.split('\n', 1)[0]
    for part in first.split():
        if part.startswith('sizes='):
            return part[len('sizes='):]
    return ''


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('seed')
    ap.add_argument('-o', '--output')
    ap.add_argument('--sizes', action='store_true', help='print the sizes line only')
    ap.add_argument('--profile', default='mixed', choices=PROFILES,
                    help='fusion: 4-9 rank-2 stencil applications, one result (the fused CPU tiles); '
                         'window: fusion with weighted 4x4 to 5x5 windows (staged CUDA inputs); '
                         'scan: mixed with scans, sats and box filters of them in every program; '
                         'loop: mixed with a do loop in every program; ranks: the fusion chains in rank 1, 3 or 4; '
                         'periodic: the chains in every rank with every image read with wrap')
    a = ap.parse_args()
    text = generate(a.seed, a.profile)
    if a.sizes:
        print(sizes_of(text))
        return
    if a.output:
        with open(a.output, 'w') as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == '__main__':
    main()
