"""Reorganising the code must not change a draw: fixed-seed runs against recorded ones.

The reference (``reference_draws.npz``, written by ``record_draws.py``) holds the warm-up and
kept draws and every sampler stat of each configuration in ``draw_configs.py``. A deliberate
numerical change re-records it in a commit of its own that says why. The comparison
(``draw_comparison.py``) holds on every machine: decisions exactly, values to a relative 1e-8
that rounding differences between machines stay well inside; it never skips.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from draw_comparison import compare
from draw_configs import CONFIGS, environment_fingerprint, run

REFERENCE = Path(__file__).resolve().parent / "reference_draws.npz"


@pytest.fixture(scope="module")
def reference():
    if not REFERENCE.exists():
        pytest.fail(f"{REFERENCE.name} is missing: run tests/regression/record_draws.py")
    with np.load(REFERENCE) as data:
        return {key: data[key] for key in data.files}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_draws_and_stats_unchanged(reference, name, seed_offset):
    if seed_offset:
        pytest.skip("the reference draws were recorded at seed offset 0")
    got = run(name)
    expected = {k: v for k, v in reference.items() if k.startswith(f"{name}/")}
    assert expected, f"no reference draws for {name!r}: re-record them"
    problems = compare(got, expected)
    recorded = str(reference.get("__environment__", "an unrecorded environment"))
    assert not problems, (
        f"{name}: the draws differ from the reference beyond rounding.\n  "
        + "\n  ".join(problems)
        + f"\nreference recorded on [{recorded}]\nthis is [{environment_fingerprint()}]"
    )
