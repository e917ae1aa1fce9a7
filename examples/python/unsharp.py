"""Unsharp mask (examples/unsharp/unsharp.idsl) from Python: the image plus
`amount` times its difference from a Gaussian blur.

    PYTHONPATH=build/python python3 examples/python/unsharp.py [in.png] [out.png] [--device cuda] [--show]
"""
from common import arguments, finish, program, run

args = arguments(__doc__, "unsharp.png")
img, sharp = run(args, program("unsharp"), amount=1.5)
finish(args, img, sharp)
