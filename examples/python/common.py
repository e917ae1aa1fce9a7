"""What the Python examples share: arguments, the image in and out, the
device. `--device cuda` runs the same pipeline on torch CUDA tensors
(zero copy, on torch's current stream); `--show` shows input and result
with matplotlib when it is installed (Debian: python3-matplotlib)."""
import argparse
import pathlib
import time

import numpy as np

import formac

HERE = pathlib.Path(__file__).resolve().parent
EXAMPLES = HERE.parent


def program(name):
    return str(EXAMPLES / name / (name + ".idsl"))


def arguments(description, output):
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("input", nargs="?", default=str(EXAMPLES / "data" / "camera.png"), help="an image file")
    ap.add_argument("output", nargs="?", default=output, help="the result (PNG)")
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    ap.add_argument("--show", action="store_true", help="show input and result (matplotlib)")
    return ap.parse_args()


def run(args, source, **values):
    """Reads args.input as gray float32 in 0..1, runs the program on the
    device, returns (input, result) as numpy arrays."""
    img = formac.imread(args.input, dtype=np.float32)
    target = "cuda" if args.device == "cuda" else "cpu"
    pipeline = formac.compile(source, target=target)
    data = img
    if target == "cuda":
        import torch
        data = torch.from_numpy(img).cuda()
    out = pipeline(data, **values)  # the first call makes the buffers for this shape; the second is timed
    t0 = time.perf_counter()
    out = pipeline(data, **values)
    if target == "cuda":
        torch.cuda.synchronize()
        out = out.cpu().numpy()
    ms = (time.perf_counter() - t0) * 1e3
    print("%s %dx%d on %s: %.2f ms" % (pipeline.name, img.shape[1], img.shape[0], target, ms))
    return img, out


def finish(args, img, result):
    formac.imwrite(args.output, result)
    print("wrote", args.output)
    if not args.show:
        return
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        print("--show needs matplotlib (Debian: python3-matplotlib)")
        return
    fig, axes = plt.subplots(1, 2, figsize=(10, 5))
    for ax, (title, a) in zip(axes, [("input", img), ("result", result)]):
        ax.imshow(a, cmap="gray")
        ax.set_title(title)
        ax.axis("off")
    plt.show()
