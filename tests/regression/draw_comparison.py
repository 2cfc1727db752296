"""How the regression test compares a run with its reference, and what it says when they part.

Floating point differs between machines in the last bits (BLAS kernels and blocking, NumPy's and
Numba's SIMD code paths, the compiler), so draws are compared at a relative tolerance, not bit
for bit. ``RTOL = 1e-8``: within the budgets of ``draw_configs.py`` a last-bit perturbation of
the arithmetic grew to at most about 1e-10 (``benchmarks/regression_horizon.py``), while any
change of the algorithm moves the draws far more (a proposal scale changed by one part in a
million moves them by about 1e-6; one extra random draw changes every later draw). Decisions are
compared exactly: the accept/reject sequence and every integer or boolean stat.

A relative difference is taken element by element against ``max(|reference|, spread)``, the
spread being the range of that array's values, so that a value that passes near zero is judged
on the scale of its array rather than its own.
"""

from __future__ import annotations

import numpy as np

__all__ = ["RTOL", "compare", "largest_relative_difference"]

RTOL = 1e-8
#: a float stat that records a decision (0 or 1), compared exactly
DECISION_STATS = ("accepted",)
#: a log acceptance ratio closer than this to the uniform it was compared with is a tie that a
#: rounding-level difference can break
ROUNDING_GAP = 1e-6


def _is_discrete(key: str, values: np.ndarray) -> bool:
    return values.dtype.kind in "biu" or key.rsplit("/", 1)[-1] in DECISION_STATS


def _relative_difference(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    finite = np.isfinite(want)
    spread = float(np.ptp(want[finite])) if finite.any() else 0.0
    scale = np.maximum(np.abs(want), spread if spread > 0 else 1.0)
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    with np.errstate(invalid="ignore"):
        return np.where(same, 0.0, np.abs(got - want) / scale)


def largest_relative_difference(got: dict, expected: dict) -> float:
    """The largest relative difference of any continuous array present in both runs."""
    worst = 0.0
    for key, want in expected.items():
        if key in got and got[key].shape == want.shape and not _is_discrete(key, want):
            difference = _relative_difference(got[key], want)
            worst = max(worst, float(np.nan_to_num(difference, nan=np.inf).max(initial=0.0)))
    return worst


def _timeline(arrays: dict, prefix: str, stat: str) -> np.ndarray | None:
    """One stat over warm-up and kept draws, shape (chains, iterations)."""
    parts = [arrays.get(f"{prefix}/{group}/{stat}") for group in ("warmup_sample_stats",
                                                                  "sample_stats")]  # fmt: skip
    parts = [p for p in parts if p is not None]
    return np.concatenate(parts, axis=1) if parts else None


def _first_parting(got: dict, expected: dict, prefix: str) -> tuple[int, int] | None:
    """(chain, iteration) where any draw or continuous stat first exceeds the tolerance."""
    first = None
    for group_pair in (("warmup_posterior", "posterior"), ("warmup_sample_stats", "sample_stats")):
        names = {k.split("/", 2)[2] for k in expected if k.split("/")[1] in group_pair}
        for var in names:
            keys = [f"{prefix}/{g}/{var}" for g in group_pair if f"{prefix}/{g}/{var}" in expected]
            if any(k not in got or _is_discrete(k, expected[k]) for k in keys):
                continue
            if any(got[k].shape != expected[k].shape for k in keys):
                continue
            diff = np.concatenate([_relative_difference(got[k], expected[k]) for k in keys], axis=1)
            diff = np.nan_to_num(diff, nan=np.inf).reshape(diff.shape[0], diff.shape[1], -1)
            over = (diff > RTOL).any(axis=2)
            for chain in range(over.shape[0]):
                hits = np.flatnonzero(over[chain])
                if hits.size and (first is None or hits[0] < first[1]):
                    first = (chain, int(hits[0]))
    return first


def _flip_report(got: dict, expected: dict, prefix: str, n_tune: int) -> str | None:
    """Where the accept decisions first part, and whether rounding could have caused it."""
    mine, theirs = _timeline(got, prefix, "accepted"), _timeline(expected, prefix, "accepted")
    if mine is None or theirs is None or mine.shape != theirs.shape:
        return None
    parted = np.argwhere(mine != theirs)
    if not parted.size:
        return None
    chain, it = (int(v) for v in parted[np.argmin(parted[:, 1])])
    where = f"warm-up iteration {it}" if it < n_tune else f"draw {it - n_tune}"
    text = (
        f"the accept decisions first part in chain {chain} at {where}: accepted here "
        f"{bool(mine[chain, it])}, in the reference {bool(theirs[chain, it])}."
    )
    p_here, p_ref = _timeline(got, prefix, "accept"), _timeline(expected, prefix, "accept")
    if p_here is not None and p_ref is not None and p_here.shape == p_ref.shape:
        with np.errstate(divide="ignore"):
            log_here, log_ref = np.log(p_here[chain, it]), np.log(p_ref[chain, it])
        gap = abs(log_here - log_ref)
        text += (
            f" Log acceptance ratio here {log_here:.17g}, in the reference {log_ref:.17g}: "
            f"the uniform lay between them, within {gap:.2g} of each."
        )
        before = _first_parting(got, expected, prefix)
        if gap < ROUNDING_GAP and (before is None or before[1] >= it):
            text += (
                " A rounding-level difference flipped this decision: shorten this "
                "configuration's budget (benchmarks/regression_horizon.py measures it)."
            )
        elif before is not None:
            text += f" The paths had already parted (chain {before[0]}, iteration {before[1]})."
    return text


def compare(got: dict, expected: dict) -> list[str]:
    """Every way ``got`` differs from ``expected`` beyond rounding; empty if it does not.

    Parameters
    ----------
    got, expected : dict
        Flat arrays by ``"<configuration>/<group>/<variable>"``, as ``draw_configs.run`` gives.
    """
    if sorted(got) != sorted(expected):
        missing, extra = sorted(set(expected) - set(got)), sorted(set(got) - set(expected))
        return [f"the recorded groups, variables or stats changed: missing {missing}, new {extra}"]
    problems = []
    for key, want in sorted(expected.items()):
        have = got[key]
        if have.shape != want.shape:
            problems.append(f"{key}: shape {have.shape}, reference {want.shape}")
        elif _is_discrete(key, want):
            if not np.array_equal(have, want):
                n = int(np.sum(have != want))
                problems.append(f"{key}: {n} of {want.size} values differ (compared exactly)")
        else:
            difference = np.nan_to_num(_relative_difference(have, want), nan=np.inf)
            if difference.max(initial=0.0) > RTOL:
                n = int(np.sum(difference > RTOL))
                problems.append(f"{key}: {n} of {want.size} values differ by more than "
                                f"{RTOL:g} (relative; largest {difference.max():.2e})")  # fmt: skip
    if problems:
        prefix = next(iter(expected)).split("/", 1)[0]
        tune_key = f"{prefix}/warmup_sample_stats/accepted"
        n_tune = expected[tune_key].shape[1] if tune_key in expected else 0
        flip = _flip_report(got, expected, prefix, n_tune)
        if flip:
            problems.insert(0, flip)
        else:
            parting = _first_parting(got, expected, prefix)
            if parting is not None:
                problems.insert(0, f"first difference beyond {RTOL:g}: chain {parting[0]}, "
                                   f"iteration {parting[1]} (warm-up included)")  # fmt: skip
    return problems
