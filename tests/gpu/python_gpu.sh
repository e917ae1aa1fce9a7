#!/usr/bin/env bash
# On a GPU machine: the Python module `formac` with target="cuda" on torch,
# CuPy and JAX arrays, against `formac run --backend=eval` bit for bit
# (tests/gpu/python_gpu_check.py), then the GPU half of bench/python
# (bench.py --device cuda, gpu_peers.py: Harris and a SAT vs torch, CuPy, JAX). See
# tests/gpu/README.md.
#
#   bash tests/gpu/python_gpu.sh [WORKDIR]      (default: build-python-gpu)
#
# Builds formac and the module (cmake, Release, no JIT, no tests, no examples)
# for the python3 on PATH (FORMAC_PYTHON= another). pybind11's headers: the
# pybind11 package if CMake finds it, else the `pybind11` pip package's
# headers, else torch's own copy (torch/include/pybind11, recent), else the
# folder build-gpu-headers/include that tests/gpu/python_gpu_bundle.sh fills
# from this machine's Debian packages (carry it). DLPack's header: the
# system's, else build-gpu-headers/include. Prints a FAIL line per mismatch,
# then `python gpu: P passed, F failed, S skipped` and the benchmark table;
# exits non-zero when anything failed.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mkdir -p "${1:-$root/build-python-gpu}" && cd "${1:-$root/build-python-gpu}" && pwd) || exit 2
python=${FORMAC_PYTHON:-$(command -v python3)}
bundle=$root/build-gpu-headers/include
export XLA_PYTHON_CLIENT_PREALLOCATE=false  # JAX shares the GPU with torch and CuPy here

pybind=""
if ! "$python" -c "import sys; sys.exit(0)" 2>/dev/null; then echo "python gpu: no python3"; exit 2; fi
for probe in "import pybind11; print(pybind11.get_include())" \
             "import torch, os; print(os.path.join(os.path.dirname(torch.__file__), 'include'))"; do
  dir=$("$python" -c "$probe" 2>/dev/null) || continue
  if [ -f "$dir/pybind11/pybind11.h" ]; then pybind=$dir; break; fi
done
[ -z "$pybind" ] && [ -f "$bundle/pybind11/pybind11.h" ] && pybind=$bundle
extra=()
[ -n "$pybind" ] && extra+=("-DFORMAC_PYBIND11_INCLUDE_DIR=$pybind")
[ -f /usr/include/dlpack/dlpack.h ] || extra+=("-DFORMAC_DLPACK_INCLUDE_DIR=$bundle")
# The system's compilers when there are: a g++ that links its own libstdc++ into the module
# statically (the GPU image's /opt/gcc, which $CXX names) crashed in libstdc++'s locale code
# beside torch's libstdc++ (formac.compile: a segfault in ostream's number formatting).
[ -x /usr/bin/g++ ] && export CC=/usr/bin/gcc CXX=/usr/bin/g++
echo "== building formac and the module for $python (pybind11: ${pybind:-CMake package}; ${CXX:-c++})"
if ! cmake -S "$root" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DFORMAC_ENABLE_JIT=OFF \
      -DFORMAC_BUILD_TESTS=OFF -DFORMAC_BUILD_EXAMPLES=OFF -DFORMAC_PYTHON="$python" "${extra[@]}" \
      >"$work/cmake.log" 2>&1 ||
   ! cmake --build "$work/build" -j"$(nproc)" --target formac formac_python >>"$work/cmake.log" 2>&1 ||
   [ ! -d "$work/build/python/formac" ]; then
  grep -i "formac:" "$work/cmake.log" | head; tail -30 "$work/cmake.log"
  echo "python gpu: the build failed ($work/cmake.log)"
  exit 2
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
export PYTHONPATH=$work/build/python FORMAC_CACHE_DIR=$work/cache
status=0
"$python" "$root/tests/gpu/python_gpu_check.py" --formac "$work/build/formac" --scratch "$work/scratch" || status=1
echo "== bench/python on the GPU"
"$python" "$root/bench/python/bench.py" --device cuda || status=1
echo "== Harris and SAT against torch, CuPy and JAX"
"$python" "$root/bench/python/gpu_peers.py" || status=1
exit $status
