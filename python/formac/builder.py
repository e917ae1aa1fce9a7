"""The embedded builder: pipelines written in Python, without program text
(docs/builder.md). Operations on Images record a DAG, which
Pipeline(outputs=[...]).compile() checks as Forma and compiles:

    import formac, numpy as np
    img = formac.input("img", np.float32)              # 2-D: extents M, N
    @formac.stencil
    def blurx(X):
        return (X.at(-1, 0) + X + X.at(1, 0)) / np.float32(3)
    out = blurx(img.mirror).named("out")
    p = formac.Pipeline(outputs=[out, formac.max(out)]).compile(target="cpu")
    blurred, peak = p(np.random.rand(64, 64).astype(np.float32))

Numbers: a Python int is Forma's int, a float a double, numpy.float32(x) a
float. Errors (formac.CompileError) name the Python line that made the
offending value.
"""
import inspect
import os
import sys

import numpy as np

from . import _formac

_b = _formac.builder
_HERE = os.path.dirname(os.path.abspath(__file__))

__all__ = ["Image", "Stencil", "Pipeline", "input", "scalar", "stencil", "loop", "select", "cast",
           "sqrt", "exp", "log", "pow", "sin", "cos", "tan", "atan", "atan2", "fabs", "abs", "absd",
           "floor", "ceil", "round", "min", "max", "sum", "count", "any", "all", "histogram", "where",
           "topk", "scan", "sat", "logical_and", "logical_or", "logical_not"]

# numpy dtypes -> Forma's element types (Forma's int8 is unsigned).
_TYPES = {np.dtype(np.uint8): "int8", np.dtype(np.int16): "int16", np.dtype(np.uint16): "uint16",
          np.dtype(np.int32): "int", np.dtype(np.int64): "int64", np.dtype(np.float32): "float",
          np.dtype(np.float64): "double"}
_FORMA = {"int8", "int16", "uint16", "int", "int64", "float", "double"}


def _type(t):
    """A Forma type name from a numpy dtype (or type), or a Forma name."""
    if isinstance(t, str) and t in _FORMA:
        return t
    try:
        return _TYPES[np.dtype(t)]
    except (TypeError, KeyError):
        raise TypeError("formac: %r is not an element type (uint8, int16, uint16, int32, int64, float32, "
                        "float64, or Forma's names)" % (t,)) from None


def _site():
    """(file, line, column) of the user's line that called into formac."""
    f = sys._getframe(1)
    while f is not None and os.path.dirname(os.path.abspath(f.f_code.co_filename)) == _HERE:
        f = f.f_back
    if f is None:
        return ("<python>", 0, 0)
    col = 0
    positions = getattr(f.f_code, "co_positions", None)
    if positions is not None:  # Python 3.11: the column of the instruction running
        pos = list(positions())[f.f_lasti // 2]
        if pos[2] is not None:
            col = pos[2] + 1
    return (f.f_code.co_filename, f.f_lineno, col)


def _raw(x):
    return x._v if isinstance(x, Image) else x


def _wrap(v):
    return Image(v)


class Image:
    """An image (ndim >= 1) or a scalar (ndim 0) of a pipeline being built."""
    __slots__ = ("_v",)
    __hash__ = object.__hash__  # == builds a comparison, not a test
    __array_ufunc__ = None  # np.float32(2) * x: numpy defers to Image's operators (a float literal)

    def __init__(self, v):
        self._v = v

    ndim = property(lambda self: self._v.ndim)
    dtype = property(lambda self: self._v.type, doc="Forma's name of the element type")
    name = property(lambda self: self._v.name)

    def __repr__(self):
        return "formac.Image(%s, ndim=%d, type=%s)" % (self.name or "unnamed", self.ndim, self.dtype)

    def __bool__(self):
        raise TypeError("a formac Image has no truth value while the pipeline is built: "
                        "use formac.select(c, a, b) for a choice per point")

    def named(self, name):
        """The value named `name` in the program (a stage, or a local inside a stencil)."""
        return _wrap(self._v.named(name, _site()))

    def at(self, *offsets):
        """Read at an offset per dimension: x.at(-1, 0); (offset, scale) down-samples: x.at((0, 2), 0)."""
        axes = [o if isinstance(o, tuple) else (o, 1) for o in offsets]
        return _wrap(self._v.at(axes, _site()))

    # Boundary conditions (LANGUAGE.md section 5): x.mirror.at(1, 1).
    clamped = property(lambda self: _wrap(self._v.boundary("clamped", 0, _site())))
    extend = property(lambda self: _wrap(self._v.boundary("extend", 0, _site())))
    mirror = property(lambda self: _wrap(self._v.boundary("mirror", 0, _site())))
    wrap = property(lambda self: _wrap(self._v.boundary("wrap", 0, _site())))

    def constant(self, c):
        """Reads outside the image give `c`."""
        return _wrap(self._v.boundary("constant", c, _site()))

    def astype(self, t):
        return _wrap(_b.cast(_type(t), self._v, _site()))


def _binary(op, swap=False):
    def f(self, other):
        a, b = (_raw(other), self._v) if swap else (self._v, _raw(other))
        return _wrap(_b.binary(op, a, b, _site()))
    return f


for _name, _op in [("add", "+"), ("sub", "-"), ("mul", "*"), ("truediv", "/"), ("mod", "%"),
                   ("and", "&&"), ("or", "||")]:
    setattr(Image, "__%s__" % _name, _binary(_op))
    setattr(Image, "__r%s__" % _name, _binary(_op, swap=True))
for _name, _op in [("lt", "<"), ("gt", ">"), ("le", "<="), ("ge", ">="), ("eq", "=="), ("ne", "!=")]:
    setattr(Image, "__%s__" % _name, _binary(_op))
Image.__neg__ = lambda self: _wrap(_b.unary("-", self._v, _site()))
Image.__invert__ = lambda self: _wrap(_b.unary("!", self._v, _site()))
Image.__pow__ = lambda self, e: _wrap(_b.call("pow", [self._v, _raw(e)], _site()))
Image.__rpow__ = lambda self, e: _wrap(_b.call("pow", [_raw(e), self._v], _site()))
Image.__abs__ = lambda self: _wrap(_b.call("abs", [self._v], _site()))


def _default():
    global _builder
    if _builder is None:
        _builder = _b.Builder()
    return _builder


_builder = None


def input(name, dtype, ndim=2, extents=None):
    """An image input. Without `extents`, its dimensions are the parameters
    M, N (ndim 2; N for 1, L, M, N for 3, K, L, M, N for 4), which every
    input of that rank shares; `extents` names them (["H", "W"])."""
    return _wrap(_default().input(name, _type(dtype), list(extents or []), ndim, _site()))


def scalar(name, dtype):
    """A scalar input, given by keyword at each call."""
    return _wrap(_default().scalar(name, _type(dtype), _site()))


class Stencil:
    """A Python function of Images traced once (at its first application) into
    a Forma stencil and applied like one: f(a.mirror, b, k)."""

    def __init__(self, fn, name=None):
        self._fn = fn
        self._name = name or fn.__name__
        self._site = _site()
        self._stencil = None
        self._params = []
        for p in inspect.signature(fn).parameters.values():
            ann = p.annotation
            self._params.append((p.name, "" if ann is inspect.Parameter.empty else _type(ann)))

    def __call__(self, *args):
        if self._stencil is None:
            fn = self._fn
            self._stencil = _default().stencil(
                self._name, self._params, lambda *xs: _raw(fn(*[_wrap(x) for x in xs])), self._site)
        return _wrap(self._stencil.apply([_raw(a) for a in args], _site()))


def stencil(fn=None, name=None):
    """Decorator: @formac.stencil def f(X, k: np.float32): ...; annotations
    declare a parameter's type (else the first application's)."""
    if fn is None:
        return lambda f: Stencil(f, name)
    return Stencil(fn, name)


def loop(rounds, init, body):
    """Forma's `do` loop: at most `rounds` rounds (an int, or a parameter's
    name given at each call); body(prev) takes the carried images' values
    before a round and returns (next, condition): their values after it and
    a scalar computed in the round (the loop goes on while it is not 0).
    Returns the carried images after the last round (a list)."""
    single = isinstance(init, Image)
    inits = [init] if single else list(init)

    def step(prev):
        nxt, cond = body(prev[0] if single else prev)
        nxt = [nxt] if isinstance(nxt, Image) else list(nxt)
        return ([_raw(n) for n in nxt], _raw(cond))

    param = rounds if isinstance(rounds, str) else ""
    out = _default().loop(0 if param else int(rounds), param, [_raw(i) for i in inits],
                          lambda xs: step([_wrap(x) for x in xs]), _site())
    results = [_wrap(o) for o in out]
    return results[0] if single else results


class Pipeline:
    """The pipeline that computes `outputs` (Images: images and reductions)."""

    def __init__(self, outputs):
        self._outputs = [outputs] if isinstance(outputs, Image) else list(outputs)
        self._site = _site()

    def compile(self, target="cpu", fuse=True, name=None):
        """The same callable formac.compile returns, for target "cpu", "cuda" or "eval"."""
        return _default().compile([o._v for o in self._outputs], self._site, target, bool(fuse), name or "")


def select(c, a, b):
    """(c ? a : b), point-wise."""
    return _wrap(_b.select(_raw(c), _raw(a), _raw(b), _site()))


def cast(dtype, x):
    return _wrap(_b.cast(_type(dtype), _raw(x), _site()))


def _math(fn):
    def f(*args):
        return _wrap(_b.call(fn, [_raw(a) for a in args], _site()))
    f.__name__ = fn
    f.__doc__ = "Forma's %s, point-wise" % fn
    return f


sqrt, exp, log, pow, sin, cos, tan, atan, atan2, fabs, absd, floor, ceil, round = (
    _math(n) for n in ("sqrt", "exp", "log", "pow", "sin", "cos", "tan", "atan", "atan2", "fabs", "absd",
                       "floor", "ceil", "round"))
abs = _math("abs")
logical_and = lambda a, b: _wrap(_b.binary("&&", _raw(a), _raw(b), _site()))  # noqa: E731
logical_or = lambda a, b: _wrap(_b.binary("||", _raw(a), _raw(b), _site()))  # noqa: E731
logical_not = lambda a: _wrap(_b.unary("!", _raw(a), _site()))  # noqa: E731


def _global(op, img, *args):
    if not isinstance(img, Image):
        raise TypeError("formac.%s takes a formac Image, got %s" % (op, type(img).__name__))
    return _wrap(_b.global_op(op, img._v, args, _site()))


def min(a, b=None):
    """min(img): the reduction; min(a, b): point-wise."""
    return _global("min", a, -1) if b is None else _wrap(_b.call("min", [_raw(a), _raw(b)], _site()))


def max(a, b=None):
    """max(img): the reduction; max(a, b): point-wise."""
    return _global("max", a, -1) if b is None else _wrap(_b.call("max", [_raw(a), _raw(b)], _site()))


def sum(img, dim=None):
    return _global("sum", img, -1 if dim is None else dim)


def count(img, dim=None):
    return _global("count", img, -1 if dim is None else dim)


def any(img, dim=None):
    return _global("any", img, -1 if dim is None else dim)


def all(img, dim=None):
    return _global("all", img, -1 if dim is None else dim)


def histogram(img, bins, lo, hi):
    return _global("histogram", img, bins, lo, hi)


def where(mask, k):
    return _global("where", mask, k)


def topk(img, k):
    return _global("topk", img, k)


def scan(img, dim, dtype=None):
    return _global("scan", img, dim, None if dtype is None else _type(dtype))


def sat(img, dtype=None):
    return _global("sat", img, None if dtype is None else _type(dtype))
