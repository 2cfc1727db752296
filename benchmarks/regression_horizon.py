"""How far each regression configuration is from flipping under a rounding-level perturbation.

    python benchmarks/regression_horizon.py [NAME ...]

Runs every configuration of ``tests/regression/draw_configs.py`` (or the ones named) three times
in fresh processes: as it is, with OpenBLAS's Prescott kernels (``OPENBLAS_CORETYPE=Prescott``,
another summation order in every BLAS call) and with Numba compiling for a generic CPU
(``NUMBA_CPU_NAME=generic``, no FMA or wide vectors in the package's compiled loops). Each
perturbed run is compared with the plain one the way the regression test compares with its
reference; the table shows the largest relative difference of any draw or continuous stat (the
test's tolerance is 1e-8), whether an accept decision or a discrete stat differed, and the
iteration of the first fit of a learned density (``n_basis`` or ``n_history`` first positive).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

REGRESSION = Path(__file__).resolve().parent.parent / "tests" / "regression"
sys.path.insert(0, str(REGRESSION))

PERTURBATIONS = {
    "plain": {},
    "openblas-prescott": {"OPENBLAS_CORETYPE": "Prescott"},
    "numba-generic": {"NUMBA_CPU_NAME": "generic"},
}


def _worker(out: str, names: list[str]) -> None:
    from draw_configs import run

    arrays = {}
    for name in names:
        arrays.update(run(name))
    np.savez(out, **arrays)


def _run(perturbation: str, names: list[str], folder: Path) -> dict[str, np.ndarray]:
    out = folder / f"{perturbation}.npz"
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", **PERTURBATIONS[perturbation]}
    if perturbation == "numba-generic":  # its own cache: never reuse host-CPU machine code
        env["NUMBA_CACHE_DIR"] = str(folder / "numba-cache")
    subprocess.run([sys.executable, __file__, "--worker", str(out), *names], env=env,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    with np.load(out) as data:
        return {key: data[key] for key in data.files}


def _first_fit(arrays: dict[str, np.ndarray], name: str) -> int | None:
    for stat in ("n_basis", "n_history"):
        key = f"{name}/warmup_sample_stats/{stat}"
        if key in arrays:
            positive = np.flatnonzero((arrays[key] > 0).any(axis=0))
            return int(positive[0]) if positive.size else None
    return None


def main(names: list[str]) -> None:
    from draw_comparison import compare, largest_relative_difference
    from draw_configs import CONFIGS

    names = names or list(CONFIGS)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        runs = {p: _run(p, names, folder) for p in PERTURBATIONS}
    print(f"{'configuration':26s} {'budget':>14s} {'first fit':>9s}  "
          + "  ".join(f"{p:>26s}" for p in PERTURBATIONS if p != "plain"))  # fmt: skip
    for name in names:
        plain = {k: v for k, v in runs["plain"].items() if k.startswith(f"{name}/")}
        cells = []
        for perturbation in PERTURBATIONS:
            if perturbation == "plain":
                continue
            got = {k: v for k, v in runs[perturbation].items() if k.startswith(f"{name}/")}
            worst = largest_relative_difference(got, plain)
            problems = compare(got, plain)
            flag = "ok" if not problems else "FAILS"
            cells.append(f"{worst:10.1e} {flag:>5s}")
        config = CONFIGS[name]
        budget = f"{config.chains}x({config.tune}+{config.draws})"
        fit = _first_fit(runs["plain"], name)
        print(f"{name:26s} {budget:>14s} {fit if fit is not None else '-':>9}  "
              + "  ".join(f"{c:>26s}" for c in cells), flush=True)  # fmt: skip


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        _worker(sys.argv[2], sys.argv[3:])
    else:
        main(sys.argv[1:])
