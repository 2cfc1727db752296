"""Reorganising the code must not change a single draw: fixed-seed runs against recorded ones.

The reference (``reference_draws.npz``, written by ``record_draws.py``) holds the warm-up and
kept draws and every sampler stat of each configuration in ``draw_configs.py``. A deliberate
numerical change re-records it in a commit of its own that says why. Bit-identical floating point
holds only on the recording environment (same library versions, CPU and SIMD features); elsewhere
the comparison is skipped with the difference named: re-record locally (at the reference commit)
to use it as a refactoring guard there.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from draw_configs import CONFIGS, environment_fingerprint, run

REFERENCE = Path(__file__).resolve().parent / "reference_draws.npz"


@pytest.fixture(scope="module")
def reference():
    if not REFERENCE.exists():
        pytest.fail(f"{REFERENCE.name} is missing: run tests/regression/record_draws.py")
    with np.load(REFERENCE) as data:
        arrays = {key: data[key] for key in data.files}
    recorded, here = str(arrays.pop("__environment__", "")), environment_fingerprint()
    if recorded != here:
        pytest.skip(f"reference recorded on [{recorded}], this is [{here}]: bit-identical "
                    "draws are not expected; re-record locally to compare")  # fmt: skip
    return arrays


@pytest.mark.parametrize("name", list(CONFIGS))
def test_draws_and_stats_unchanged(reference, name, seed_offset):
    if seed_offset:
        pytest.skip("the reference draws were recorded at seed offset 0")
    got = run(name)
    expected = {k: v for k, v in reference.items() if k.startswith(f"{name}/")}
    assert expected, f"no reference draws for {name!r}: re-record them"
    assert sorted(got) == sorted(expected), "the recorded groups, variables or stats changed"
    for key, want in expected.items():
        np.testing.assert_array_equal(got[key], want, err_msg=key)
