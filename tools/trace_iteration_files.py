"""Which package files one KMCStep iteration runs code in: what a reader follows.

Runs ``KMCStep()`` on the 2-D banana B(0.1, 100) by hand (600 warm-up iterations, then 50
kept ones) and records, with :func:`sys.setprofile`, every package file whose code is called
within ``--depth`` calls of the step's ``astep`` (``astep`` itself is depth 1; the code of
``step()``, PyMC's entry point, and the two context managers around it are depth 1 too). It
prints the files of the last warm-up iteration and the union over the kept ones.

``--depth 3`` is the count the issue that reshaped the steps (47) started from: 18 files on the
code before it. Numba-compiled kernels (``core/_compiled.py``, ``core/accelerated.py``) show at
depth 1 because the profiler sees no Python frame between them and the step.

Usage::

    python tools/trace_iteration_files.py [--depth 3]
    PYTHONPATH=/path/to/other/checkout python tools/trace_iteration_files.py   # compare
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings

import pymc_kameleon
from pymc_kameleon import KMCStep
from pymc_kameleon.targets import banana_model

ROOT = os.path.dirname(pymc_kameleon.__file__)


def package_depth(frame) -> int:
    """Package frames on the stack from ``frame`` down, not counting ``step()``'s."""
    depth = 0
    while frame is not None:
        code = frame.f_code
        if code.co_filename.startswith(ROOT) and code.co_name != "step":
            depth += 1
        frame = frame.f_back
    return depth


def files_called(call, max_depth: int) -> tuple[set[str], object]:
    """The package files whose code ``call()`` runs within ``max_depth``, and its result."""
    seen: set[str] = set()

    def profile(frame, event, arg):
        name = frame.f_code.co_filename
        if event == "call" and name.startswith(ROOT) and package_depth(frame) <= max_depth:
            seen.add(os.path.relpath(name, ROOT))

    sys.setprofile(profile)
    try:
        result = call()
    finally:
        sys.setprofile(None)
    return seen, result


def main() -> None:
    """Trace and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=3)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    with banana_model(d=2, b=0.1, v=100.0) as model:
        step = KMCStep(rng=1)
    point = model.initial_point()
    step.set_rng(1)
    step.warmup_length = 600
    for _ in range(599):
        point, _ = step.step(point)
    warmup, (point, _) = files_called(lambda: step.step(point), args.depth)
    step.stop_tuning()
    kept: set[str] = set()
    for _ in range(50):
        files, (point, _) = files_called(lambda: step.step(point), args.depth)
        kept |= files
    print(f"package: {ROOT}; depth <= {args.depth}")
    print(f"a warm-up iteration: {len(warmup)} files")
    print(f"50 kept iterations: {len(kept)} files")
    print(f"both: {len(warmup | kept)} files")
    for name in sorted(warmup | kept):
        print(f"  {name}")


if __name__ == "__main__":
    main()
