"""The issue's numeric targets of the benchmark suite, checked against a run's records."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pymc_kameleon.bench.suites import PYMC_GRADIENT_FREE

__all__ = ["median_metric", "select_records", "target_checks"]


def select_records(records: Sequence[dict], **match: Any) -> list[dict]:
    """The records whose fields equal every ``match`` value."""
    return [r for r in records if all(r.get(k) == v for k, v in match.items())]


def median_metric(
    records: Sequence[dict], experiment: str, problem: str, sampler: str, key: str
) -> float:
    """Median of ``key`` over the successful runs of one sampler on one problem (NaN if none)."""
    values = [
        r[key]
        for r in select_records(records, experiment=experiment, problem=problem, sampler=sampler)
        if r["status"] == "ok" and r.get(key) is not None
    ]
    return float(np.median(values)) if values else float("nan")


def target_checks(records: Sequence[dict]) -> list[str]:
    """The issue's numeric targets, read off the records (median over seeds).

    Parameters
    ----------
    records : sequence of dict

    Returns
    -------
    list of str
        A markdown table (empty if the needed experiments were not run).
    """
    lines = []
    median = functools.partial(median_metric, records)
    kamh = median("practitioner", "banana-0.1", "KAMH-LS", "ess_per_1k_evals")
    kamh_q = median("practitioner", "banana-0.1", "KAMH-LS", "quantile_error")
    kmc = max(
        median("practitioner", "banana-0.1", s, "ess_per_1k_evals")
        for s in ("KMC-lite", "KMC-finite")
    )
    if np.isfinite(kamh):
        lines.append(
            f"| B(0.1,100) practitioner: KAMH-LS ≥ 10 ESS / 1k evals, q err ≤ 0.015 "
            f"| {kamh:.2f}, {kamh_q:.3f} | {_yes(kamh >= 10 and kamh_q <= 0.015)} |"
        )
        lines.append(
            f"| B(0.1,100) practitioner: KMC ≥ 100 ESS / 1k evals (best of lite, finite) "
            f"| {kmc:.2f} | {_yes(kmc >= 100)} |"
        )
    lines += _costly_checks(median)
    kamh_us = median("practitioner", "banana-0.1", "KAMH-LS", "us_per_iter")
    demz_us = median("practitioner", "banana-0.1", "pm.DEMetropolisZ", "us_per_iter")
    if np.isfinite(kamh_us) and np.isfinite(demz_us):
        ratio = kamh_us / demz_us
        lines.append(
            f"| KAMH-LS µs/iter (n_history=1000, d=8) ≤ 3 × DEMetropolisZ "
            f"(stretch 1.5 ×), B(0.1,100) practitioner runs | {kamh_us:.0f} vs {demz_us:.0f} "
            f"({ratio:.2f}×) | {_yes(ratio <= 3)} |"
        )
    if not lines:
        return []
    return ["| target | measured (median over seeds) | met? |", "|---|---|---|", *lines]


def _yes(flag: bool) -> str:
    return "yes" if flag else "**no**"


def _costly_checks(median: Callable[..., float]) -> list[str]:
    lines = []
    pymc_best = max(
        (median("costly", "banana-0.1-costly", s, "ess_per_s") for s in PYMC_GRADIENT_FREE),
        default=float("nan"),
    )
    for sampler in ("KAMH-LS", "KMC-lite", "KMC-finite"):
        ours = median("costly", "banana-0.1-costly", sampler, "ess_per_s")
        if np.isfinite(ours) and np.isfinite(pymc_best):
            ratio = ours / pymc_best
            lines.append(
                f"| costly banana: {sampler} ESS/s ≥ 5 × best PyMC gradient-free "
                f"| {ours:.2f} vs {pymc_best:.2f} ({ratio:.1f}×) | {_yes(ratio >= 5)} |"
            )
        overhead = median("costly", "banana-0.1-costly", sampler, "overhead_fraction")
        if sampler.startswith("KMC") and np.isfinite(overhead):
            lines.append(
                f"| costly banana: {sampler} time outside the log-density < 20 % "
                f"| {overhead:.1%} | {_yes(overhead < 0.2)} |"
            )
    return lines


def _yes(flag: bool) -> str:
    return "yes" if flag else "**no**"
