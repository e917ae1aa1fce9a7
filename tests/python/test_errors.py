"""Every error path of formac.compile and of a call: the exception's type
and a message that names the argument and both sides."""
import re

import numpy as np
import pytest

import formac
from conftest import HISTOGRAM, RGB, example, random_image


@pytest.fixture(scope="module")
def harris():
    return formac.compile(example("harris"))


@pytest.fixture
def img(rng):
    return random_image(rng, (12, 10), np.float32)


def test_wrong_dtype_names_argument_and_both_types(harris, img):
    with pytest.raises(TypeError, match=r"input 'img' has dtype float64, but the program's 'img' is 2-D float32"):
        harris(img.astype(np.float64), k=0.04)
    with pytest.raises(TypeError, match=r"input 'img' has dtype int32"):
        harris(img.astype(np.int32), k=0.04)


def test_byte_swapped_dtype(harris, img):
    with pytest.raises(TypeError, match=r"has dtype >f4"):
        harris(img.astype(">f4"), k=0.04)


def test_wrong_rank(harris, img):
    with pytest.raises(ValueError, match=r"input 'img' has shape \(12, 10, 1\), but the program's 'img' is 2-D"):
        harris(img[:, :, None], k=0.04)
    with pytest.raises(ValueError, match=r"has shape \(12,\)"):
        harris(img[:, 0].copy(), k=0.04)


def test_wrong_field_axis(rng):
    with pytest.raises(ValueError, match=r"input 'img' has shape \(4, 5, 4\).*last axis of 3 fields"):
        formac.compile(RGB)(random_image(rng, (4, 5, 4), np.float32))


def test_non_contiguous(harris, img):
    with pytest.raises(ValueError, match=r"input 'img' is not C-contiguous.*ascontiguousarray"):
        harris(img[:, ::2], k=0.04)
    with pytest.raises(ValueError, match=r"not C-contiguous"):
        harris(np.asfortranarray(img), k=0.04)


def test_not_an_array(harris, img):
    with pytest.raises(TypeError, match=r"input 'img' is a builtins.list.*numpy.ndarray of float32"):
        harris(img.tolist(), k=0.04)


def test_missing_image(harris):
    with pytest.raises(TypeError, match=r"harris is missing image 'img'"):
        harris(k=0.04)


def test_extra_positional(harris, img):
    with pytest.raises(TypeError, match=r"harris takes 1 image\(s\) positionally \('img'\), but 2 were given"):
        harris(img, img, k=0.04)


def test_image_twice(harris, img):
    with pytest.raises(TypeError, match=r"got image 'img' both positionally and by keyword"):
        harris(img, img=img, k=0.04)


def test_missing_scalar(harris, img):
    with pytest.raises(TypeError, match=r"harris is missing keyword argument 'k'"):
        harris(img)


def test_unknown_keyword(harris, img):
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'kk' \(it takes 'img', 'M', 'N', 'k', 'out'\)"):
        harris(img, kk=0.04)


def test_scalar_not_a_number(harris, img):
    with pytest.raises(TypeError, match=r"'k' takes a number, got str"):
        harris(img, k="0.04")
    with pytest.raises(TypeError, match=r"'k' takes a number, got ndarray"):
        harris(img, k=np.array([0.04]))


def test_parameter_that_contradicts_the_image(harris, img):
    with pytest.raises(ValueError, match=r"M=13"):
        harris(img, k=0.04, M=13)


def test_out_errors(harris, img):
    with pytest.raises(ValueError, match=r"out for 'harris\(img\)'|out for '.*' has shape \(3, 3\), but the result has \(12, 10\)"):
        harris(img, k=0.04, out=np.zeros((3, 3), np.float32))
    with pytest.raises(TypeError, match=r"out for .* has dtype float64"):
        harris(img, k=0.04, out=np.zeros((12, 10)))
    ro = np.zeros((12, 10), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match=r"read-only"):
        harris(img, k=0.04, out=ro)
    with pytest.raises(TypeError, match=r"out= has 2 entries"):
        harris(img, k=0.04, out=(ro, ro))
    stats = formac.compile(example("stats"))
    with pytest.raises(TypeError, match=r"returns 3 results: out= takes a tuple"):
        stats(img, out=np.zeros((12, 10), np.float32))
    with pytest.raises(TypeError, match=r"is a number: its out= entry must be None"):
        stats(img, out=(None, np.zeros(1), None))


def test_bad_target():
    with pytest.raises(ValueError, match=r"unknown target 'gpu' \(cpu, cuda or eval\)"):
        formac.compile(example("blur"), target="gpu")


def test_bad_program_text():
    with pytest.raises(formac.CompileError) as e:
        formac.compile("parameter M, N;\nvector#2 float a[M,N];\nb = nosuch(a);\nreturn b;\n")
    assert re.search(r"<memory>:3:5: error: .*nosuch", str(e.value))
    assert isinstance(e.value, ValueError)


def test_bad_program_file_names_the_file(tmp_path):
    bad = tmp_path / "bad.idsl"
    bad.write_text("parameter M;\nvector#1 float a[M];\nreturn a + ;\n")
    with pytest.raises(formac.CompileError, match=re.escape(str(bad)) + r":3:\d+: error:"):
        formac.compile(str(bad))


def test_missing_file():
    with pytest.raises(FileNotFoundError):
        formac.compile("no/such/program.idsl")


def test_compile_takes_text_or_path():
    with pytest.raises(TypeError, match=r"takes program text or a path, got int"):
        formac.compile(3)


def test_struct_with_mixed_fields():
    text = "struct px { float v; int n; }\nparameter M;\nvector#1 px a[M];\nreturn a;\n"
    with pytest.raises(formac.CompileError, match=r"fields have different types"):
        formac.compile(text)


class FakeGpuArray:
    """What torch/CuPy arrays on the GPU look like to the module."""
    __cuda_array_interface__ = {"shape": (12, 10), "typestr": "<f4", "data": (0, False), "version": 3}

    def __dlpack_device__(self):
        return (2, 0)


def test_gpu_array_given_to_cpu_pipeline(harris):
    with pytest.raises(TypeError, match=r"input 'img' is a .*FakeGpuArray \(not a numpy array; a GPU array needs "
                                        r"target='cuda'\)"):
        harris(FakeGpuArray(), k=0.04)
