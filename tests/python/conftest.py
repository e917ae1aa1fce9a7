"""Shared helpers of the Python module's tests: the example programs, random
inputs of awkward sizes (never all zero), and a bitwise comparison."""
import os
import pathlib

import numpy as np
import pytest

import formac

SOURCE = pathlib.Path(os.environ.get("FORMAC_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
EXAMPLES = SOURCE / "examples"
SCRATCH = pathlib.Path(os.environ.get("FORMAC_TEST_SCRATCH", "/tmp/formac_python_test"))

# Inline programs for what no example returns directly.
HISTOGRAM = """
parameter M, N;
vector#2 int8 img[M,N];
h = histogram(img, 256, 0, 256);
return h;
"""
RGB = """
struct rgb { float r; float g; float b; }
stencil soften(vector#2 float X) { return (X@[0,-1] + 2.0f * X + X@[0,1]) / 4.0f; }
stencil luma(vector#2 rgb C) { return 0.25f * C.r + 0.5f * C.g + 0.25f * C.b; }
parameter M, N;
vector#2 rgb img[M,N];
s = soften(img:mirror);
y = luma(s);
return s, y;
"""


def example(name, stem=None):
    return str(EXAMPLES / name / ((stem or name) + ".idsl"))


def random_image(rng, shape, dtype):
    """Values spread over the type's useful range; never all zero."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        a = rng.random(shape).astype(dtype)
    else:
        hi = min(np.iinfo(dtype).max, 255) + 1
        a = rng.integers(0, hi, size=shape).astype(dtype)
    a.flat[0] = 1
    return a


def assert_bits_equal(a, b):
    """Same type, shape and bytes (NaNs included): what 'bit-identical' means."""
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            assert_bits_equal(x, y)
        return
    if isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray)
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.tobytes() == b.tobytes()
        return
    assert type(a) is type(b)
    assert np.array([a]).tobytes() == np.array([b]).tobytes()


@pytest.fixture
def rng():
    return np.random.default_rng(30)


@pytest.fixture(scope="session", autouse=True)
def own_cache():
    """A compile cache of the tests' own, emptied once per session."""
    cache = SCRATCH / "cache"
    if cache.exists():
        for f in cache.iterdir():
            f.unlink()
    cache.mkdir(parents=True, exist_ok=True)
    os.environ["FORMAC_CACHE_DIR"] = str(cache)
    yield
