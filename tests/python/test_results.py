"""Results of the module: the JIT (target="cpu") bit-identical to the
evaluator (target="eval", and `formac run --backend=eval` through .npy
files) and to the C entry point built ahead of time, on random inputs of
awkward sizes."""
import ctypes
import os
import subprocess

import numpy as np
import pytest

import formac
from conftest import EXAMPLES, HISTOGRAM, RGB, SCRATCH, assert_bits_equal, example, random_image

# (program, image dtype, keyword values)
CASES = {
    "blur": (example("blur"), np.float32, {}),
    "harris": (example("harris"), np.float32, {"k": 0.04}),
    "canny": (example("canny"), np.float32, {"low": 0.1, "high": 0.3}),
    "unsharp": (example("unsharp"), np.float32, {"amount": 0.7}),
    "stats": (example("stats"), np.float32, {}),
    "equalize": (example("equalize"), np.uint8, {}),
    "boxfilter": (example("boxfilter"), np.uint8, {}),
    "histogram": (HISTOGRAM, np.uint8, {}),
}
SHAPES = [(1, 1), (7, 3), (37, 53), (64, 129)]


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("shape", SHAPES)
def test_jit_matches_evaluator(case, shape, rng):
    program, dtype, values = CASES[case]
    img = random_image(rng, shape, dtype)
    cpu = formac.compile(program, target="cpu")(img, **values)
    ref = formac.compile(program, target="eval")(img, **values)
    assert_bits_equal(cpu, ref)


def test_unfused_matches_fused(rng):
    img = random_image(rng, (41, 67), np.float32)
    fused = formac.compile(example("harris"))(img, k=0.05)
    unfused = formac.compile(example("harris"), fuse=False)(img, k=0.05)
    assert_bits_equal(fused, unfused)


def test_rgb_struct_images(rng):
    img = random_image(rng, (23, 31, 3), np.float32)
    s, y = formac.compile(RGB)(img)
    assert s.shape == (23, 31, 3) and s.dtype == np.float32 and y.shape == (23, 31)
    assert_bits_equal((s, y), formac.compile(RGB, target="eval")(img))
    # Each field is softened on its own: the green plane alone gives the same.
    row = img[:, :, 1]
    left = np.concatenate([row[:, 1:2], row[:, :-1]], axis=1)   # mirror (reflect-101)
    right = np.concatenate([row[:, 1:], row[:, -2:-1]], axis=1)
    expect = (left + np.float32(2) * row + right) / np.float32(4)
    assert np.allclose(s[:, :, 1], expect, rtol=1e-6)


def test_results_have_the_values_numpy_computes(rng):
    img = random_image(rng, (45, 38), np.float32)
    z, s, s2 = formac.compile(example("stats"))(img)
    assert isinstance(s, float) and isinstance(s2, float)
    assert s == pytest.approx(img.astype(np.float64).sum(), rel=1e-12)
    assert s2 == pytest.approx((img.astype(np.float64) ** 2).sum(), rel=1e-12)
    assert np.allclose(z, (img - img.mean()) / img.std(), atol=1e-4)
    img8 = random_image(rng, (13, 17), np.uint8)
    h = formac.compile(HISTOGRAM)(img8)
    assert h.dtype == np.int64 and h.shape == (256,)
    assert np.array_equal(h, np.bincount(img8.ravel(), minlength=256))


def test_out_writes_in_place(rng):
    img = random_image(rng, (19, 24), np.float32)
    blur = formac.compile(example("blur"))
    out = np.full((19, 24), 7.0)
    got = blur(img, out=out)
    assert got is out
    assert_bits_equal(out, blur(img))
    z = np.zeros((19, 24), np.float32)
    r = formac.compile(example("stats"))(img, out=(z, None, None))
    assert r[0] is z and isinstance(r[1], float)


def test_images_by_keyword_and_parameters_given(rng):
    img = random_image(rng, (9, 12), np.float32)
    blur = formac.compile(example("blur"))
    assert_bits_equal(blur(input=img), blur(img))
    assert_bits_equal(blur(img, M=9, N=12), blur(img))


def test_compile_is_cached_per_program_target_fuse_and_name():
    a = formac.compile(example("blur"))
    assert formac.compile(example("blur")) is a
    with open(example("blur")) as f:
        text = f.read()
    assert formac.compile(text) is not a
    assert formac.compile(example("blur"), fuse=False) is not a
    assert formac.compile(example("blur"), name="other") is not a
    assert formac.compile(example("blur"), name="other").name == "other"


def test_signature_and_repr():
    p = formac.compile(example("harris"))
    assert [i["name"] for i in p.inputs] == ["img"]
    assert p.inputs[0]["dtype"] == "float32" and p.inputs[0]["ndim"] == 2
    assert p.outputs[0]["dtype"] == "float32"
    assert p.params == ["M", "N"] and p.scalars == ["k"]
    assert "harris(img: 2-D float, M=<size>, N=<size>, k=<number>)" in repr(p)
    rgb = formac.compile(RGB)
    assert rgb.inputs[0]["fields"] == 3 and rgb.inputs[0]["ndim"] == 3


def test_matches_formac_run_eval(rng, tmp_path):
    """Against the command line's evaluator, through .npy files."""
    img = random_image(rng, (33, 47), np.float32)
    np.save(tmp_path / "img.npy", img)
    subprocess.run([os.environ["FORMAC_EXE"], "run", example("harris"), "--backend=eval",
                    "--input", str(tmp_path / "img.npy"), "--param", "k=0.04",
                    "--output", str(tmp_path / "out.npy")], check=True, capture_output=True)
    assert_bits_equal(formac.compile(example("harris"))(img, k=0.04), np.load(tmp_path / "out.npy"))


@pytest.mark.parametrize("case,entry", [("blur", "blur"), ("harris", "harris")])
def test_matches_c_entry_point(case, entry, rng):
    """The generated C built by the system compiler, called through ctypes."""
    program, dtype, values = CASES[case]
    SCRATCH.mkdir(parents=True, exist_ok=True)
    c, lib = SCRATCH / (entry + ".c"), SCRATCH / ("lib" + entry + ".so")
    subprocess.run([os.environ["FORMAC_EXE"], program, "--emit=c", "-o", str(c)], check=True, capture_output=True)
    subprocess.run([os.environ.get("FORMAC_TEST_CC", "cc"), "-O2", "-fopenmp", "-shared", "-fPIC", "-o", str(lib),
                    str(c), "-lm"], check=True, capture_output=True)
    fn = getattr(ctypes.CDLL(str(lib)), entry)
    fn.restype = None
    img = random_image(rng, (29, 61), dtype)
    p = formac.compile(program)
    got = p(img, **values)
    out = np.zeros_like(got)
    args = [img.ctypes.data_as(ctypes.c_void_p)]
    args += [ctypes.c_float(values[s]) for s in p.scalars]
    args += [ctypes.c_int(29), ctypes.c_int(61), out.ctypes.data_as(ctypes.c_void_p)]
    fn(*args)
    assert_bits_equal(got, out)
