"""formac: Forma image pipelines compiled in-process and called on arrays.

    import formac, numpy as np
    blur = formac.compile("examples/blur/blur.idsl")     # a path or program text
    out = blur(np.random.rand(480, 640).astype(np.float32))

target="cpu" runs numpy arrays through the JIT (compiled C; the evaluator
where formac was built without LLVM), target="cuda" runs torch, CuPy or JAX
arrays on the GPU, target="eval" the reference evaluator. python/README.md
has the whole story: argument order, dtypes, results, errors.
"""
import os

# libgomp reads its wait policy once, when it loads (with _formac): by default
# the generated code's OpenMP threads spin after each call, which slows the
# numpy/torch threads that run between calls. A user's own setting wins.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from . import _formac

__all__ = ["compile", "Error", "CompileError", "jit_available", "imread", "imwrite"]

Error = _formac.Error
CompileError = _formac.CompileError
jit_available = _formac.jit_available
imread = _formac.imread
imwrite = _formac.imwrite

_TARGETS = ("cpu", "cuda", "eval")
_compiled = {}  # (text, path, target, fuse, name) -> CompiledPipeline: this process's cache


def _source(source_or_path):
    """(text, path) of a program given as a path or as its text. A str is a
    path when it names an existing file or ends in .idsl and has no newline."""
    if isinstance(source_or_path, os.PathLike):
        path = os.fspath(source_or_path)
    elif isinstance(source_or_path, str):
        looks_like_path = "\n" not in source_or_path and (
            source_or_path.endswith(".idsl") or os.path.isfile(source_or_path))
        if not looks_like_path:
            return source_or_path, ""
        path = source_or_path
    else:
        raise TypeError("formac.compile takes program text or a path, got "
                        + type(source_or_path).__name__)
    with open(path, encoding="utf-8") as f:
        return f.read(), path


def compile(source_or_path, target="cpu", fuse=True, name=None):
    """Compiles a Forma program (its text, or a path to a .idsl file) for
    target "cpu", "cuda" or "eval"; returns a callable CompiledPipeline. Compiled
    pipelines are kept per (program, target, fuse, name) for the life of the
    process, and the JIT's and NVRTC's code on disk across processes.

    Raises CompileError (a ValueError) with the compiler's
    file:line:col: error: message text for a bad program."""
    if target not in _TARGETS:
        raise ValueError("formac.compile: unknown target %r (cpu, cuda or eval)" % (target,))
    text, path = _source(source_or_path)
    key = (text, os.path.abspath(path) if path else "", target, bool(fuse), name or "")
    p = _compiled.get(key)
    if p is None:
        p = _formac.Pipeline(text, path, target, bool(fuse), name or "")
        _compiled[key] = p
    return p

# The embedded builder (builder.py, docs/builder.md): formac.input, formac.stencil,
# ..., and formac.Pipeline(outputs=[...]).compile(); what compile() returns (here
# and there) is a CompiledPipeline.
from .builder import *  # noqa: E402,F401,F403
from .builder import __all__ as _builder_all  # noqa: E402

CompiledPipeline = _formac.Pipeline
__all__ += _builder_all + ["CompiledPipeline"]
