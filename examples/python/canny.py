"""Canny edges (examples/canny/canny.idsl) from Python: 255 on edges, 128
on weak edges, 0 elsewhere.

    PYTHONPATH=build/python python3 examples/python/canny.py [in.png] [out.png] [--device cuda] [--show]
"""
from common import arguments, finish, program, run

args = arguments(__doc__, "canny.png")
img, edges = run(args, program("canny"), low=0.1, high=0.3)
finish(args, img, edges)
