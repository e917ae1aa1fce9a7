"""examples/python on numpy: each script writes the PNG its pipeline
computes (read back and compared), and formac's image files round-trip."""
import os
import subprocess
import sys

import numpy as np
import pytest

import formac
from conftest import EXAMPLES, example, random_image

CAMERA = str(EXAMPLES / "data" / "camera.png")


def run_script(name, out):
    env = dict(os.environ)
    subprocess.run([sys.executable, str(EXAMPLES / "python" / (name + ".py")), CAMERA, str(out)],
                   check=True, capture_output=True, env=env)
    return formac.imread(str(out), dtype=np.uint8)


def test_canny_script(tmp_path):
    edges = run_script("canny", tmp_path / "canny.png")
    img = formac.imread(CAMERA)
    expect = formac.compile(example("canny"))(img, low=0.1, high=0.3)
    assert np.array_equal(edges, expect)
    assert set(np.unique(edges)) <= {0, 128, 255} and (edges == 255).sum() > 1000


def test_unsharp_script(tmp_path):
    sharp = run_script("unsharp", tmp_path / "unsharp.png")
    img = formac.imread(CAMERA)
    expect = formac.compile(example("unsharp"))(img, amount=1.5)
    # The PNG holds round(255 x) clamped (half away from zero, in float): within 1 of numpy's.
    diff = sharp.astype(int) - np.round(np.clip(expect, 0, 1) * 255).astype(int)
    assert np.abs(diff).max() <= 1 and (diff == 0).mean() > 0.99


def test_harris_script(tmp_path):
    corners = run_script("harris", tmp_path / "harris.png")
    assert corners.shape == (512, 512) and corners.max() == 255 and corners.mean() > 1


def test_image_files_round_trip(tmp_path, rng):
    rgb = random_image(rng, (17, 23, 3), np.uint8)
    formac.imwrite(str(tmp_path / "rgb.png"), rgb)
    assert np.array_equal(formac.imread(str(tmp_path / "rgb.png"), dtype=np.uint8, channels=3), rgb)
    gray16 = random_image(rng, (9, 11), np.uint16) * 200
    formac.imwrite(str(tmp_path / "g.png"), gray16)
    assert np.array_equal(formac.imread(str(tmp_path / "g.png"), dtype=np.uint16), gray16)
    with pytest.raises(formac.Error, match=r"has 1 channel \(gray\), but input 'image' \(pixel\) takes 3"):
        formac.imread(CAMERA, dtype=np.uint8, channels=3)
    with pytest.raises(TypeError, match=r"not complex128"):
        formac.imwrite(str(tmp_path / "c.png"), np.zeros((2, 2), complex))


def test_image_file_argument_errors(tmp_path):
    with pytest.raises(ValueError, match=r"channels must be 1, 2, 3 or 4, not 5"):
        formac.imread(CAMERA, channels=5)
    with pytest.raises(ValueError, match=r"depth must be 8, 16 or 32, not 12"):
        formac.imwrite(str(tmp_path / "x.png"), np.zeros((2, 2), np.float32), depth=12)
