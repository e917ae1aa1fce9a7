"""Harris corner response (examples/harris/harris.idsl) from Python, its
positive part scaled to 0..1 for the PNG.

    PYTHONPATH=build/python python3 examples/python/harris.py [in.png] [out.png] [--device cuda] [--show]
"""
import numpy as np

from common import arguments, finish, program, run

args = arguments(__doc__, "harris.png")
img, response = run(args, program("harris"), k=0.04)
corners = np.clip(response / max(float(response.max()), 1e-30), 0, 1) ** 0.25
finish(args, img, corners.astype(np.float32))
