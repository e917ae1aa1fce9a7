#!/usr/bin/env bash
# The main command: installs what is missing and builds formac
# (scripts/setup.sh), then runs the Canny example -- examples/canny/canny.idsl,
# compiled by formac at build time -- on the sample photo.
#   Writes build/canny_camera.png (255 strong edge, 128 weak edge, 0 none) and
#   prints where it is and how long one run of the pipeline took; then the same
#   from Python (examples/python/canny.py) when the module `formac` was built.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

app=build/examples/canny
in=examples/data/camera.png
out=build/canny_camera.png
if [ ! -x "$app" ]; then
  echo "demo: $app was not built (is FORMAC_BUILD_EXAMPLES off in build/CMakeCache.txt?)" >&2
  exit 1
fi
echo
"$app" "$in" "$out"    # prints "canny: 512x512 ... -> ..., X ms per run (...)"
echo "demo: edges of $in are in $(pwd)/$out"
# The same pipeline from Python on numpy arrays (python/README.md), when the module was built.
if [ -d build/python/formac ]; then
  PYTHONPATH=build/python "$(grep -m1 '^FORMAC_PYTHON:' build/CMakeCache.txt | cut -d= -f2)" \
    examples/python/canny.py "$in" build/canny_camera_python.png
fi
