"""Record the reference draws: ``python tests/regression/record_draws.py``.

Run it only in a commit that changes the numbers on purpose, and say why in that commit.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

# Numba's on-disk cache of the package's compiled loops can outlive the source it was compiled
# from and differ from a fresh compile in the last bits (seen at 6e-13): record from a fresh one,
# which is what a clean clone gets.
for stale in (HERE.parent.parent / "pymc_kameleon").rglob("__pycache__/*.nb[ic]"):
    stale.unlink()

from draw_configs import CONFIGS, environment_fingerprint, run  # noqa: E402

REFERENCE = HERE / "reference_draws.npz"


def main() -> None:
    arrays = {}
    for name in CONFIGS:
        arrays.update(run(name))
        print("recorded", name, flush=True)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True
    ).stdout.strip()
    arrays["__commit__"] = np.array(commit)
    arrays["__environment__"] = np.array(environment_fingerprint())
    np.savez_compressed(REFERENCE, **arrays)
    print(f"wrote {REFERENCE} ({REFERENCE.stat().st_size / 1024:.0f} kB) at {commit}")


if __name__ == "__main__":
    main()
