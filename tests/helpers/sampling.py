"""Running a step by hand, comparing chain states, reading draws, counting log-density calls."""

from __future__ import annotations

from dataclasses import fields

import numpy as np
from pymc.step_methods.state import equal_dataclass_values

__all__ = ["SAMPLE_KW", "CountingLogp", "assert_states_equal", "posterior_array", "run_direct"]

SAMPLE_KW = {"progressbar": False, "compute_convergence_checks": False}


def assert_states_equal(s1, s2) -> None:
    assert type(s1) is type(s2)
    for f in fields(s1):
        v1, v2 = getattr(s1, f.name), getattr(s2, f.name)
        assert equal_dataclass_values(v1, v2), f"state field {f.name!r} differs: {v1!r} != {v2!r}"


def run_direct(step, point, n):
    """Call ``step.step`` ``n`` times; return the last point and the list of stats dicts."""
    all_stats = []
    for _ in range(n):
        point, stats = step.step(point)
        all_stats.append(stats[0])
    return point, all_stats


def posterior_array(idata, name="x") -> np.ndarray:
    return np.asarray(idata.posterior[name].values)


class CountingLogp:
    def __init__(self, fn):
        self.fn = fn
        self.calls = 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.fn(*args, **kwargs)
