"""`do` loops for gen.py's programs (LANGUAGE.md §7, docs/language-decisions.md
"`do` loops"). See tools/progfuzz/README.md.

    e3<0> = s2;                                  one to three carried images
    do i = 1..R                                  a literal or the parameter R
      e3<i> = sp4(e3<i-1>:clamped);              a convergent or a random step
      s7<i> = f2(e3<i>, in0);                    body images, read by later ones
      r8<i> = max(s7<i>);                        reductions and scans in the body
      c9<i> = df5(e3<i>, e3<i-1>);
    while (any(c9<i>));                          a reduction of a body image
    out = f6(e3<i>:mirror);                      the last round's image, after it

Every choice that shapes the loop comes from the program's loop stream (`r`);
the stencil calls and statements inside the body use gen.py's own machinery.
"""
import re

ROUND_PARAM = 'R'
ITERATORS = ['i', 'k', 'it', 'rnd', 'step', 'n2']


def has_loops(text):
    """Whether the program has a `do` loop (gen.py writes `do IT = A..N` at
    the start of a line and nothing else does)."""
    return re.search(r'^do \w+ = ', text, re.M) is not None


def round_values(r, runs):
    """A value of the round parameter per run: no round, one, a few, more."""
    return [r.choice([0, 1, 2, 3, 4, 6, 9]) for _ in runs]


class Carried:
    """A carried image: X (its name without the index), type, extent."""

    def __init__(self, name, typ, ext):
        self.name, self.type, self.ext = name, typ, ext


def _cast(t, text):
    return 'cast<%s>(%s)' % (t, text)


def _unit_offset(r, rank):
    offs = [0] * rank
    offs[r.randrange(rank)] = r.choice([-1, 1])
    return '@[%s]' % ','.join(map(str, offs))


class LoopBuilder:
    """One `do` loop of gen.Gen `g`, its choices from the random stream `r`;
    `img` is gen.py's image class."""

    def __init__(self, g, r, img):
        self.g, self.r, self.Img = g, r, img

    # ------------------------------------------------------------ helpers
    def own_stencil(self, stem, params, body, ret_type):
        """A stencil of the loop's own (never reused by random calls)."""
        g = self.g
        g.nstencil += 1
        name = '%s%d' % (stem, g.nstencil)
        g.defs.append(g.fixed_def(name, params, body, ret_type, 'loop'))
        return name

    def image(self, text, typ, ext, round_local=True):
        i = self.Img(text, typ, list(ext))
        i.round = round_local
        return i

    # ------------------------------------------------------------ steps
    def propagate(self, x, it):
        """A monotone propagation (passes/LocalFixpoint.h, the C code settles
        it): X grows to the largest neighbour, capped by an unchanging image
        K, or the hysteresis step on values {0, 1, 2}."""
        g, r, t = self.g, self.r, x.type
        prev = '%s<%s-1>' % (x.name, it)
        offs = ['@[%d,%d]' % (a, b) for a in (-2, -1, 0, 1, 2) for b in (-2, -1, 0, 1, 2) if (a, b) != (0, 0)]
        near = 'X' + r.choice(offs)
        for _ in range(r.choice([0, 1, 2, 3])):
            near = 'max(%s, X%s)' % (near, r.choice(offs))
        mode = r.choice([':clamped', ':mirror', ':extend', ':constant(0)', ':constant(1)'])
        caps = [i for i in g.pool if i.struct is None and g.same_ext(i.ext, x.ext) and not getattr(i, 'round', False)]
        if r.random() < 0.3 or not caps:
            body = _cast(t, '(X == 1) * (%s == 2) + X' % near)
            name = self.own_stencil('hy', ['vector#2 %s X' % t], body, t)
            return '%s(%s%s)' % (name, prev, mode)
        k = r.choice(caps)
        k.uses += 1
        body = _cast(t, 'max(X, min(cast<%s>(K), %s))' % (t, near))
        name = self.own_stencil('pg', ['vector#2 %s X' % t, 'vector#2 %s K' % k.type], body, t)
        return '%s(%s%s, %s)' % (name, prev, mode, k.text)

    def step(self, x, it):
        """The text of X<i>: a step from X<i-1> of the carried image's type."""
        g, r, t, rank = self.g, self.r, x.type, len(x.ext)
        prev = '%s<%s-1>' % (x.name, it)
        kind = r.choices(['random', 'spread', 'decay', 'grow'], [9, 5, 2, 3])[0]
        decl = 'vector#%d %s X' % (rank, t)
        if kind == 'spread':
            # a maximum (minimum) spreading one point a round: a fixed point
            # after at most the extent's rounds
            op = r.choice(['max', 'min'])
            inner = 'X'
            for _ in range(r.choice([1, 2])):
                inner = '%s(%s, X%s)' % (op, inner, _unit_offset(r, rank))
            name = self.own_stencil('sp', [decl], _cast(t, inner), t)
            return '%s(%s%s)' % (name, prev, r.choice([':clamped', ':mirror', ':wrap', ':constant(0)', '']))
        if kind == 'decay':
            inner = 'X * 0.5' if t in ('float', 'double') else 'X / %d' % r.choice([2, 3])
            name = self.own_stencil('dc', [decl], _cast(t, inner), t)
            return '%s(%s)' % (name, prev)
        if kind == 'grow':
            # region growing: a point joins where a mask (an earlier image) is
            # above a level and a neighbour holds a value
            masks = [i for i in g.pool if i.struct is None and i.rank == rank and
                     g.same_ext(i.ext, x.ext) and i.text != prev]
            if masks:
                mk = r.choice(masks)
                mk.uses += 1
                level = r.choice(['0', '5', '0.5', '100'])
                nb = ' || '.join('X%s != 0' % _unit_offset(r, rank) for _ in range(r.choice([1, 2, 3])))
                body = _cast(t, 'K > %s && (%s) ? 1 : X' % (level, nb))
                name = self.own_stencil('gr', [decl, 'vector#%d %s K' % (rank, mk.type)], body, t)
                return '%s(%s%s, %s)' % (name, prev, r.choice([':constant(0)', ':clamped', '']), mk.text)
        # a random stencil of X<i-1> and other images
        ph = self.image('@PREV@', t, x.ext)
        text, _ = g.stencil_call(ph, ret_cast=t, want_ext=x.ext)
        return text.replace('@PREV@', prev)

    def extra_statement(self):
        """A body statement: a stencil call, a reduction, a scan (and box
        filter), a sample or crop, a compose or a `for` loop."""
        g, r = self.g, self.r
        k = r.choices(['call', 'reduce', 'scan', 'sample', 'crop', 'compose', 'for'], [8, 3, 3, 1, 1, 1, 1])[0]
        if k == 'reduce':
            g.st_reduce(r)
        elif k == 'scan':
            g.st_scan(r)
        elif k == 'sample':
            g.st_sample()
        elif k == 'crop':
            g.st_crop()
        elif k == 'compose':
            g.st_compose()
        elif k == 'for':
            g.st_for()
        else:
            g.st_call()

    # ------------------------------------------------------------ conditions
    def condition(self, carried, it):
        """The condition (its statements appended): a reduction of a body
        image, inline or bound to a name."""
        g, r = self.g, self.r
        x = r.choice(carried)
        rank = len(x.ext)
        cur, prev = '%s<%s>' % (x.name, it), '%s<%s-1>' % (x.name, it)
        kind = r.choices(['fixed', 'reduce', 'count-above', 'max-above', 'never', 'always'], [7, 4, 2, 2, 2, 3])[0]
        d = 'vector#%d %s' % (rank, x.type)
        op = r.choice(['any', 'count']) if kind in ('fixed', 'never') else 'any'
        if kind == 'fixed':
            # until a round changes nothing
            img = self.changed(d, cur, prev)
        elif kind == 'reduce':
            src = r.choice([i for i in g.pool if i.round])  # X<i-1>, X<i> at least
            text = src.text + ('.' + r.choice(src.struct)[0] if src.struct else '')
            return self.bind(r.choice(['any', 'count', 'sum', 'max', 'min', 'all']), text)
        elif kind == 'count-above':
            # while more than K points changed: count(c<i>) > K
            c = self.changed(d, cur, prev)
            n = g.fresh('n')
            g.lines.append('%s = count(%s);' % (n, c))
            above = self.own_stencil('ab', ['vector#%d int X' % rank, 'int64 n'], 'X != 0 && n > %d' % r.choice([0, 1, 3, 10]), 'int')
            img = self.define('%s(%s, %s)' % (above, c, n))
        elif kind == 'max-above':
            # while the largest value is above t: max(x<i>) > t
            m = g.fresh('m')
            g.lines.append('%s = max(%s);' % (m, cur))
            t = r.choice(['0', '1', '7', '100', '0.5'])
            above = self.own_stencil('mx', ['%s X' % d, '%s m' % x.type], 'X >= m && m > %s' % t, 'int')
            img = self.define('%s(%s, %s)' % (above, cur, m))
        elif kind == 'never':
            # false after the first round
            name = self.own_stencil('nv', ['%s X' % d], 'X < X', 'int')
            img = self.define('%s(%s)' % (name, cur))
        else:
            # true after every round: the loop runs all its rounds
            name = self.own_stencil('al', ['%s X' % d], 'X == X || X != X', 'int')
            img = self.define('%s(%s)' % (name, cur))
            op = 'all'
        return self.bind(op, img)

    def changed(self, d, cur, prev):
        """A body image, 1 where this round changed the carried image (declared `d`)."""
        name = self.own_stencil('df', ['%s A' % d, '%s B' % d], 'A != B', 'int')
        return self.define('%s(%s, %s)' % (name, cur, prev))

    def define(self, text):
        """A body image `cN<i> = text;` (its name)."""
        name = self.g.fresh('c')
        self.g.lines.append('%s = %s;' % (name, text))
        return name

    def bind(self, op, arg):
        """`while (op(arg));` or `n<i> = op(arg); ... while (n<i>);`"""
        if self.r.random() < 0.3:
            n = self.g.fresh('w')
            self.g.lines.append('%s = %s(%s);' % (n, op, arg))
            return n
        return '%s(%s)' % (op, arg)

    # ------------------------------------------------------------ the loop
    def build_propagation(self, it, start, src):
        """`do` over one integer image, a monotone step, until nothing
        changes: a limit far above the rounds (the C code settles it), or the
        round parameter (small: round 1 then the rounds one by one)."""
        g, r = self.g, self.r
        last = ROUND_PARAM if r.random() < 0.3 else str(start - 1 + 1000000)
        if last == ROUND_PARAM:
            g.round_param = ROUND_PARAM
        src.uses += 1
        x = Carried(g.fresh('e', indexed=False), r.choice(['int8', 'int16', 'int']), list(src.ext))
        init, _ = g.stencil_call(src, ret_cast=x.type, want_ext=src.ext)
        if r.random() < 0.5:  # values {0, 1, 2}: hysteresis's
            init = self.own_stencil('lv', ['vector#2 %s X' % src.type], _cast(x.type, 'X > 2 ? 2 : (X > 0 ? 1 : 0)'), x.type) + '(%s)' % src.text
        g.lines.append('%s<%d> = %s;' % (x.name, start - 1, init))
        g.lines.append('do %s = %d..%s' % (it, start, last))
        g.loop_it = it
        cur, prev = '%s<%s>' % (x.name, it), '%s<%s-1>' % (x.name, it)
        g.lines.append('  %s = %s;' % (cur, self.propagate(x, it)))
        c = self.changed('vector#2 %s' % x.type, cur, prev)
        g.lines[-1] = '  ' + g.lines[-1]
        g.loop_it = None
        g.lines.append('while (any(%s));' % c)
        out = self.image(cur, x.type, x.ext, round_local=False)
        g.pool.append(out)
        g.loop_outs.append(out)

    def build(self):
        g, r = self.g, self.r
        cands = [i for i in g.pool if i.struct is None]
        if not cands:
            return
        it = next((x for x in ITERATORS if x not in g.names_used and x not in g.loop_iters), None)
        if it is None:
            return
        g.loop_iters.append(it)
        g.names_used.add(it)
        start = r.choice([1, 1, 1, 1, 2, 5])
        settle = [i for i in cands if i.rank == 2] if r.random() < 0.25 else []
        if settle:
            return self.build_propagation(it, start, r.choice(settle))
        if r.random() < 0.35:
            g.round_param = ROUND_PARAM
            last = ROUND_PARAM
        else:
            last = str(start - 1 + r.choice([0, 1, 1, 2, 3, 4, 6, 9]))
        carried = []
        for _ in range(r.choice([1, 1, 1, 2, 2, 3])):
            src = r.choice(cands)
            src.uses += 1
            x = g.fresh('e', indexed=False)
            t, text = src.type, src.text
            if r.random() < 0.3:
                t = g.pick_type()
                text, _ = g.stencil_call(src, ret_cast=t, want_ext=src.ext)
            g.lines.append('%s<%d> = %s;' % (x, start - 1, text))
            carried.append(Carried(x, t, list(src.ext)))
        saved = (list(g.pool), list(g.scalars), list(g.red_scalars), set(g.red_used), list(g.scan_outs))
        g.lines.append('do %s = %d..%s' % (it, start, last))
        g.loop_it = it
        first = len(g.lines)
        for x in carried:
            g.pool.append(self.image('%s<%s-1>' % (x.name, it), x.type, x.ext))
        for x in carried:
            if r.random() < 0.35:
                self.extra_statement()
            g.lines.append('%s<%s> = %s;' % (x.name, it, self.step(x, it)))
            g.pool.append(self.image('%s<%s>' % (x.name, it), x.type, x.ext))
        if r.random() < 0.3:
            self.extra_statement()
        cond = self.condition(carried, it)
        g.loop_it = None
        g.lines[first:] = ['  ' + line for line in g.lines[first:]]
        g.lines.append('while (%s);' % cond)
        g.pool, g.scalars, g.red_scalars, g.red_used, g.scan_outs = saved
        for x in carried:
            out = self.image('%s<%s>' % (x.name, it), x.type, x.ext, round_local=False)
            g.pool.append(out)
            g.loop_outs.append(out)
