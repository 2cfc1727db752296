"""Score one run against a reference posterior, every tolerance in Monte Carlo standard errors.

For every scalar component of every compared variable (constrained scale, as users see it):

* **mean**: ``|mean_run - mean_ref| <= 4 sqrt(mcse_run**2 + mcse_ref**2)`` (ArviZ mean MCSEs);
* **sd**: ``|sd_run - sd_ref| <= 4 sqrt(mcse_sd_run**2 + mcse_sd_ref**2)``, the sd's MCSE by the
  delta method from the MCSE of the mean squared deviation (the ratio is reported too);
* **tails**: the fraction of run draws below the reference 5 % quantile, and above the 95 %
  one, within 4 MCSE of 0.05, with ``MCSE = sqrt(0.05 * 0.95 * (1/ESS_run + 1/ESS_ref))`` from
  ArviZ's quantile ESS at 0.05 (0.95) of the run and of the reference (the second term carries
  the reference quantile's own error);

and over all scalars: **min bulk ESS >= 50** and **max R-hat <= 1.05** (rank-normalised split
R-hat). A non-finite draw fails the run. :func:`score_run` returns every failed rule with the
parameter and the size of the miss.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pymc_kameleon.bench.real.summaries import scalar_draws, summarise

__all__ = ["Score", "Tolerances", "reference_var_names", "score_draws", "score_run"]


@dataclass(frozen=True)
class Tolerances:
    """The pass rule's thresholds.

    Parameters
    ----------
    mean_z, sd_z, tail_z : float
        Largest accepted ``|error| / combined MCSE`` of the mean, the sd and the tail fractions.
    tail_prob : float
        Tail probability checked on each side (the reference stores 5 % and 95 % quantiles).
    min_ess : float
        Smallest accepted bulk ESS (any scalar).
    max_rhat : float
        Largest accepted R-hat (any scalar).
    """

    mean_z: float = 4.0
    sd_z: float = 4.0
    tail_z: float = 4.0
    tail_prob: float = 0.05
    min_ess: float = 50.0
    max_rhat: float = 1.05


@dataclass
class Score:
    """The verdict on one run.

    Attributes
    ----------
    passed : bool
    reasons : list of str
        One line per failed rule and parameter (empty if passed).
    min_ess_bulk, max_rhat : float
        Over all compared scalars.
    worst : dict of str to float
        Largest ``|z|`` of each rule (``"mean"``, ``"sd"``, ``"tail"``).
    rows : list of dict
        Per-scalar details: label, run and reference mean and sd, the z-scores, tail fractions.
    """

    passed: bool
    reasons: list[str]
    min_ess_bulk: float
    max_rhat: float
    worst: dict[str, float] = field(default_factory=dict)
    rows: list[dict[str, Any]] = field(default_factory=list)

    def describe(self) -> str:
        """One line: PASS, or FAIL with the first reasons."""
        if self.passed:
            return f"PASS (min ESS {self.min_ess_bulk:.0f}, max R-hat {self.max_rhat:.3f})"
        more = f" (+{len(self.reasons) - 3} more)" if len(self.reasons) > 3 else ""
        return "FAIL: " + "; ".join(self.reasons[:3]) + more


def reference_var_names(labels: list[str]) -> list[str]:
    """Variable names behind scalar labels, in order of first appearance.

    Parameters
    ----------
    labels : list of str
        Labels such as ``"beta[2]"``.

    Returns
    -------
    list of str
    """
    names: list[str] = []
    for label in labels:
        name = re.sub(r"\[[0-9,]*\]$", "", label)
        if name not in names:
            names.append(name)
    return names


def _z(diff: np.ndarray, *mcses: np.ndarray) -> np.ndarray:
    scale = np.sqrt(sum(np.square(m) for m in mcses))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(diff == 0, 0.0, diff / scale)
    return np.where(np.isfinite(z), z, np.inf)


@dataclass(frozen=True)
class _Comparison:
    """A run's summary beside the reference's, with every rule's per-scalar z-scores."""

    run: dict[str, np.ndarray]
    ref: dict[str, np.ndarray]
    below: np.ndarray
    above: np.ndarray
    z_mean: np.ndarray
    z_sd: np.ndarray
    z_lo: np.ndarray
    z_hi: np.ndarray


def _compare(draws: np.ndarray, ref: dict[str, np.ndarray], tail_prob: float) -> _Comparison:
    """Summarise finite ``(chain, draw, k)`` draws and z-score them against ``ref``."""
    run = summarise(draws)
    pooled = draws.reshape(-1, draws.shape[-1])
    p = tail_prob
    below = np.mean(pooled < ref["q05"], axis=0)
    above = np.mean(pooled > ref["q95"], axis=0)
    z_mean = _z(run["mean"] - ref["mean"], run["mcse_mean"], ref["mcse_mean"])
    z_sd = _z(run["sd"] - ref["sd"], run["mcse_sd"], ref["mcse_sd"])
    var_tail = p * (1 - p)
    z_lo = _z(below - p, np.sqrt(var_tail / run["ess_q05"]), np.sqrt(var_tail / ref["ess_q05"]))
    z_hi = _z(above - p, np.sqrt(var_tail / run["ess_q95"]), np.sqrt(var_tail / ref["ess_q95"]))
    return _Comparison(run, ref, below, above, z_mean, z_sd, z_lo, z_hi)


def _row(c: _Comparison, j: int, label: str) -> dict[str, Any]:
    """The per-scalar details of scalar ``j`` for :attr:`Score.rows`."""
    run, ref = c.run, c.ref
    return {
        "label": label,
        "mean": run["mean"][j],
        "ref_mean": ref["mean"][j],
        "z_mean": c.z_mean[j],
        "sd": run["sd"][j],
        "ref_sd": ref["sd"][j],
        "sd_ratio": run["sd"][j] / ref["sd"][j],
        "z_sd": c.z_sd[j],
        "below_q05": c.below[j],
        "above_q95": c.above[j],
        "z_tail": max(abs(c.z_lo[j]), abs(c.z_hi[j])),
        "ess_bulk": run["ess_bulk"][j],
        "rhat": run["rhat"][j],
    }


def _scalar_reasons(c: _Comparison, j: int, label: str, tol: Tolerances) -> list[str]:
    """Failed mean, sd and tail rules of scalar ``j`` (in that order)."""
    run, ref = c.run, c.ref
    reasons: list[str] = []
    if abs(c.z_mean[j]) > tol.mean_z:
        reasons.append(
            f"mean of {label}: {run['mean'][j]:.4g} vs reference {ref['mean'][j]:.4g}, "
            f"|z| = {abs(c.z_mean[j]):.1f} > {tol.mean_z:g}"
        )
    if abs(c.z_sd[j]) > tol.sd_z:
        reasons.append(
            f"sd of {label}: ratio {run['sd'][j] / ref['sd'][j]:.3f} to the reference, "
            f"|z| = {abs(c.z_sd[j]):.1f} > {tol.sd_z:g}"
        )
    for side, frac, z in (("below the 5 %", c.below, c.z_lo), ("above the 95 %", c.above, c.z_hi)):
        if abs(z[j]) > tol.tail_z:
            reasons.append(
                f"tail of {label}: {100 * frac[j]:.1f} % of draws {side} reference quantile, "
                f"|z| = {abs(z[j]):.1f} > {tol.tail_z:g}"
            )
    return reasons


def _convergence(
    labels: list[str], run: dict[str, np.ndarray], chains: int, tol: Tolerances
) -> tuple[float, float, list[str]]:
    """Min bulk ESS and max R-hat over all scalars, and their failed rules (R-hat: 2+ chains)."""
    reasons: list[str] = []
    ess = run["ess_bulk"]
    min_ess = float(np.nanmin(ess)) if np.any(np.isfinite(ess)) else np.nan
    if not min_ess >= tol.min_ess:
        worst = labels[int(np.nanargmin(ess))] if np.isfinite(min_ess) else "all"
        reasons.append(f"min bulk ESS {min_ess:.1f} < {tol.min_ess:g} ({worst})")
    rhat = run["rhat"]
    max_rhat = float(np.nanmax(rhat)) if np.any(np.isfinite(rhat)) else np.nan
    if chains > 1 and not max_rhat <= tol.max_rhat:
        worst = labels[int(np.nanargmax(rhat))] if np.isfinite(max_rhat) else "all"
        reasons.append(f"max R-hat {max_rhat:.3f} > {tol.max_rhat:g} ({worst})")
    return min_ess, max_rhat, reasons


def _worst_z(c: _Comparison) -> dict[str, float]:
    """Largest ``|z|`` of each rule over all scalars."""
    return {
        "mean": float(np.max(np.abs(c.z_mean))),
        "sd": float(np.max(np.abs(c.z_sd))),
        "tail": float(max(np.max(np.abs(c.z_lo)), np.max(np.abs(c.z_hi)))),
    }


def score_draws(
    labels: list[str], draws: np.ndarray, reference: Any, tol: Tolerances = Tolerances()
) -> Score:
    """Score ``(chain, draw, k)`` draws whose scalars are ``labels`` against a reference.

    Parameters
    ----------
    labels : list of str
        Must equal the reference's labels.
    draws : numpy.ndarray, shape (chain, draw, k)
    reference : Reference
        From :func:`pymc_kameleon.bench.real.reference.load_reference` (``labels`` and
        ``summary``).
    tol : Tolerances

    Returns
    -------
    Score
    """
    if list(labels) != list(reference.labels):
        raise ValueError(f"labels {labels} do not match the reference's {reference.labels}")
    draws = np.asarray(draws, dtype=float)
    if not np.all(np.isfinite(draws)):
        bad = [lab for j, lab in enumerate(labels) if not np.all(np.isfinite(draws[..., j]))]
        return Score(False, [f"non-finite draws in {', '.join(bad)}"], np.nan, np.nan)
    c = _compare(draws, reference.summary, tol.tail_prob)
    rows = [_row(c, j, label) for j, label in enumerate(labels)]
    reasons = [r for j, label in enumerate(labels) for r in _scalar_reasons(c, j, label, tol)]
    min_ess, max_rhat, more = _convergence(labels, c.run, draws.shape[0], tol)
    reasons += more
    return Score(not reasons, reasons, min_ess, max_rhat, _worst_z(c), rows)


def score_run(idata: Any, reference: Any, tol: Tolerances = Tolerances()) -> Score:
    """Score a run's posterior against a reference.

    Parameters
    ----------
    idata : arviz.InferenceData, xarray.DataTree or dict of xarray.Dataset
        The result of ``pm.sample``, with a ``posterior`` group holding the reference's
        variables (an ``xarray.Dataset`` is taken as that group).
    reference : Reference
    tol : Tolerances

    Returns
    -------
    Score
    """
    labels, draws = scalar_draws(idata, reference_var_names(reference.labels))
    return score_draws(labels, draws, reference, tol)
