"""target="cuda" on the stand-in driver (tests/run/fake_libcuda.c: device
memory is host memory, kernels do nothing): the zero-copy plumbing of
__cuda_array_interface__ and DLPack inputs, outputs allocated as the
input's library does, the caller's stream, and the errors. The values are
checked on a GPU by tests/gpu/python_gpu.sh."""
import ctypes
import os
import sys
import types

import numpy as np
import pytest

import formac
from conftest import SCRATCH, example, random_image

FAKE = os.environ.get("FORMAC_FAKE_CUDA")
pytestmark = pytest.mark.skipif(not FAKE, reason="needs the stand-in driver (run through ctest)")


@pytest.fixture(scope="module")
def log():
    path = SCRATCH / "fake_cuda.log"
    os.environ["FORMAC_LIBCUDA"] = FAKE
    os.environ["FAKE_CUDA_DEVICES"] = "1"
    os.environ["FAKE_CUDA_LOG"] = str(path)
    return path


@pytest.fixture(scope="module")
def harris(log):
    try:
        return formac.compile(example("harris"), target="cuda")
    except formac.CompileError as e:
        if "NVRTC" in str(e) or "nvrtc" in str(e):
            pytest.skip("no NVRTC here: " + str(e))
        raise


class GpuArray:
    """A GPU array of another library: __cuda_array_interface__ over host
    memory (which the stand-in driver takes for device memory)."""

    def __init__(self, a, device=0):
        self.a, self.device = a, device
        self.__cuda_array_interface__ = {"shape": a.shape, "typestr": a.dtype.str, "version": 3,
                                         "data": (a.ctypes.data, False), "strides": a.strides}

    def __dlpack_device__(self):
        return (2, self.device)


class DlpackOnly:
    """A GPU array seen only through DLPack; records the stream it was given."""

    def __init__(self, a):
        self.a, self.streams = a, []

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return (2, 0)


def lines(log):
    text = log.read_text() if log.exists() else ""
    log.write_text("")
    return text.splitlines()


def buffer_values(buf):
    """The host bytes behind a DeviceBuffer (host memory under the stand-in)."""
    cai = buf.__cuda_array_interface__
    n = int(np.prod(cai["shape"]))
    raw = (ctypes.c_char * (n * np.dtype(cai["typestr"]).itemsize)).from_address(cai["data"][0])
    return np.frombuffer(raw, dtype=cai["typestr"]).reshape(cai["shape"])


def test_cuda_array_interface_input_and_device_buffer_output(harris, log, rng):
    img = random_image(rng, (20, 30), np.float32)
    lines(log)
    out = harris(GpuArray(img), k=0.04)
    assert isinstance(out, formac._formac.DeviceBuffer)
    assert out.shape == (20, 30) and out.dtype == "float32"
    assert out.__dlpack_device__() == (2, 0)
    log_lines = lines(log)
    # Harris computes every point of its result: nothing zeroes it first.
    assert log_lines and not any(l.startswith("memset") for l in log_lines)
    assert all(l.endswith("stream 0") for l in log_lines)


def test_out_given_is_used_in_place(harris, rng):
    img = random_image(rng, (8, 9), np.float32)
    out = np.full((8, 9), 5.0, np.float32)
    got = harris(GpuArray(img), k=0.04, out=GpuArray(out))
    assert isinstance(got, GpuArray) and got.a is out
    assert (out == 5.0).all()  # the stand-in's kernels write nothing, and no memset ran


PLACED = """parameter M, N;
vector#2 float src[M,N];
placed[1..,3..,5..] = src;
return placed;
"""


def test_output_with_uncomputed_points_is_zeroed(log, rng):
    """A placement leaves points that no stage computes: they are zeroed first."""
    try:
        placed = formac.compile(PLACED, target="cuda")
    except formac.CompileError as e:
        pytest.skip("the cuda target does not compile it: " + str(e))
    out = np.full((2, 4 + 3, 5 + 5), 5.0, np.float32)
    lines(log)
    placed(GpuArray(random_image(rng, (4, 5), np.float32)), out=GpuArray(out))
    assert not out.any()
    assert lines(log)[0] == "memset %d bytes stream 0" % out.nbytes


def test_dlpack_input_gets_the_default_stream(harris, rng):
    img = DlpackOnly(random_image(rng, (6, 7), np.float32))
    harris(img, k=0.04)
    assert img.streams == [1]  # the protocol's legacy default stream


class FakeTensor:
    """What the module reads of a torch tensor (torch's own attributes, not
    its slow __cuda_array_interface__)."""
    __module__ = "torch"

    def __init__(self, a, device=0):
        self.a, self.device_index = a, device
        self.shape, self.dtype = a.shape, "torch." + a.dtype.name

    def data_ptr(self):
        return self.a.ctypes.data

    def stride(self):
        return tuple(s // self.a.itemsize for s in self.a.strides)

    def get_device(self):
        return self.device_index


def test_torch_stream_and_torch_outputs(harris, log, rng, monkeypatch):
    """torch's current stream is used and results come from torch.empty."""
    torch = types.ModuleType("torch")
    torch.cuda = types.ModuleType("torch.cuda")
    torch.cuda.current_stream = lambda device=None: types.SimpleNamespace(cuda_stream=0x5eed)
    torch._C = types.ModuleType("torch._C")  # torch's raw stream, which the module reads first
    torch._C._cuda_getCurrentRawStream = lambda device: 0x5eed
    torch.device = lambda kind, index: "%s:%d" % (kind, index)
    made = []
    torch.float32 = np.float32

    def empty(shape, dtype=None, device=None):
        made.append((shape, dtype, device))
        return FakeTensor(np.full(shape, 3, dtype))
    torch.empty = empty
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setitem(sys.modules, "torch.cuda", torch.cuda)
    monkeypatch.setitem(sys.modules, "torch._C", torch._C)
    lines(log)
    out = harris(FakeTensor(random_image(rng, (5, 4), np.float32)), k=0.04)
    assert made == [((5, 4), np.float32, "cuda:0")]
    assert isinstance(out, FakeTensor) and (out.a == 3).all()  # computed in place: no copy, no memset
    assert all(l.endswith("stream 5eed") for l in lines(log))


def test_device_errors(harris, rng):
    img = random_image(rng, (6, 7), np.float32)
    with pytest.raises(TypeError, match=r"input 'img' is a numpy.ndarray and its memory is not on a CUDA device "
                                        r"\(DLPack device type 1\), but this pipeline's target is 'cuda'"):
        harris(img, k=0.04)
    with pytest.raises(TypeError, match=r"input 'img' is a builtins.list and it has neither"):
        harris([1.0], k=0.04)
    with pytest.raises(ValueError, match=r"input 'img' is on CUDA device 1, but formac's cuda target runs on device 0"):
        harris(GpuArray(img, device=1), k=0.04)
    with pytest.raises(TypeError, match=r"input 'img' has dtype float64, but the program's 'img' is 2-D float32"):
        harris(GpuArray(img.astype(np.float64)), k=0.04)
    with pytest.raises(ValueError, match=r"input 'img' has shape \(7,\)"):
        harris(GpuArray(img[0].copy()), k=0.04)
    with pytest.raises(ValueError, match=r"input 'img' is not C-contiguous"):
        harris(GpuArray(img[:, ::2]), k=0.04)


def test_cpu_pipeline_refuses_device_arrays(rng):
    with pytest.raises(TypeError, match=r"a GPU array needs target='cuda'"):
        formac.compile(example("harris"))(GpuArray(random_image(rng, (3, 3), np.float32)), k=0.04)


def test_program_returning_its_input(log, rng):
    try:
        same = formac.compile("parameter M;\nvector#1 float a[M];\nreturn a;\n", target="cuda")
    except formac.CompileError as e:
        pytest.skip("the cuda target does not compile it: " + str(e))
    with pytest.raises(formac.Error, match=r"returns its input 'a' unchanged"):
        same(GpuArray(random_image(rng, (5,), np.float32)))


def test_torch_tensor_errors(harris, rng):
    img = random_image(rng, (6, 7), np.float32)
    with pytest.raises(TypeError, match=r"has dtype torch.float64, .*torch: .to\(torch.float32\)"):
        harris(FakeTensor(img.astype(np.float64)), k=0.04)
    with pytest.raises(TypeError, match=r"memory is not on a CUDA device \(DLPack device type 1\)"):
        harris(FakeTensor(img, device=-1), k=0.04)
    with pytest.raises(ValueError, match=r"is on CUDA device 2"):
        harris(FakeTensor(img, device=2), k=0.04)
    with pytest.raises(ValueError, match=r"not C-contiguous \(shape \(6, 4\), strides in bytes \(28, 8\)\)"):
        harris(FakeTensor(img[:, ::2]), k=0.04)
