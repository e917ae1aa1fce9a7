"""formac from Python against the same pipelines through the C++ API, in one
process: the call overhead of a cached pipeline on a 1x1 image, and blur,
harris and canny on a photo-sized and a large image. Prints a Markdown table
with the date and the device (bench/python/RESULTS.md holds this CPU's).

    PYTHONPATH=build/python python3 bench/python/bench.py [--device cpu|cuda] [--quick]

C++ API: Pipeline._time_native runs CompiledPipeline::run (cuda: runOnDevice
and a wait) on the same arrays with no Python in the loop. Python: the
median over rounds of the mean time of a call in the round (cuda: a call
then torch.cuda.synchronize(); for the 1x1 overhead, calls alone, as they
enqueue without waiting), with a new result array each call (what
`p(img)` costs, page faults of fresh memory included) and with `out=` (the
same work as the C++ loop, which reuses its output). The queued columns
time rounds of 10 calls and one wait, from Python (`out=`) and through the
C++ API alike: on the GPU a call returns once its work is enqueued, so an
application that queues its calls pays the host's time a call only where it
exceeds the GPU's."""
import argparse
import datetime
import pathlib
import platform
import statistics
import time

import numpy as np

import formac

QUEUE = 10  # calls a round in the queued columns, then one wait
EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
PROGRAMS = {"blur": {}, "harris": {"k": 0.04}, "canny": {"low": 0.1, "high": 0.3}}


def cpu_name():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def python_seconds(call, rounds, per_round, sync=None):
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(per_round):
            call()
        if sync:
            sync()
        times.append((time.perf_counter() - t0) / per_round)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    ap.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run)")
    args = ap.parse_args()
    scale = 10 if args.quick else 1
    target = args.device
    sync, to_device, device = None, (lambda a: a), cpu_name()
    if target == "cuda":
        import torch
        sync, to_device = torch.cuda.synchronize, (lambda a: torch.from_numpy(a).cuda())
        device = torch.cuda.get_device_name(0)

    print("formac from Python vs the C++ API, %s, %s (%s), Python %s, formac target %s"
          % (datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), device,
             platform.machine(), platform.python_version(), target))
    print()
    blur = formac.compile(str(EXAMPLES / "blur" / "blur.idsl"), target=target)
    one = to_device(np.ones((1, 1), np.float32))
    blur(one)
    calls = 20000 // scale
    py = python_seconds(lambda: blur(one), rounds=50, per_round=calls // 50, sync=None)
    if sync:
        sync()
    native = statistics.median(blur._time_native(calls, one))
    native_queued = statistics.median(blur._time_native_queued(50, calls // 50, one))
    print("| call of a cached pipeline (blur) on a 1x1 image | Python | C++ API (calls alone) "
          "| C++ API (each waited for) |")
    print("|---|---|---|---|")
    print("| median per call (%s) | %.2f us | %.2f us | %.2f us |"
          % (blur.backend, py * 1e6, native_queued * 1e6, native * 1e6))
    print()

    rng = np.random.default_rng(1)
    camera = formac.imread(str(EXAMPLES / "data" / "camera.png"))
    images = {"512x512 photo": camera, "2048x2048 random": rng.random((2048, 2048)).astype(np.float32)}
    print("| pipeline | image | Python ms (new result) | Python ms (out=) | C++ API ms | out= / C++ "
          "| Python ms (out=, queued) | C++ API ms (queued) | queued / C++ |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, values in PROGRAMS.items():
        p = formac.compile(str(EXAMPLES / name / (name + ".idsl")), target=target)
        for label, img in images.items():
            x = to_device(img)
            out = p(x, **values)
            runs = max(3, (200 if img.size < 1e6 else 20) // scale)
            fresh = python_seconds(lambda: p(x, **values), rounds=runs, per_round=1, sync=sync)
            given = python_seconds(lambda: p(x, out=out, **values), rounds=runs, per_round=1, sync=sync)
            native = statistics.median(p._time_native(runs, x, **values))
            queued = python_seconds(lambda: p(x, out=out, **values), rounds=runs, per_round=QUEUE, sync=sync)
            native_queued = statistics.median(p._time_native_queued(runs, QUEUE, x, **values))
            print("| %s | %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |"
                  % (name, label, fresh * 1e3, given * 1e3, native * 1e3, given / native,
                     queued * 1e3, native_queued * 1e3, queued / native_queued))


if __name__ == "__main__":
    main()
