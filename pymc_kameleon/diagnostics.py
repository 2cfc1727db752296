"""Sampler quality metrics used by the demo and the benchmarks.

Effective sample sizes and R-hat come from ArviZ. Accuracy is scored with the chi-squared
quantile error of the KAMH paper: samples mapped to standard normal coordinates should have
squared norms that follow a chi-squared distribution with d degrees of freedom.

Every function that takes sampling output accepts what ``pm.sample`` returns: an ArviZ 0.x
``InferenceData`` (PyMC 5) or an ``xarray.DataTree`` (PyMC 6, ArviZ 1), and also a dict of group
name to ``xarray.Dataset``; all give the same answer for the same draws, and anything else is a
TypeError. ESS, MCSE and R-hat are ArviZ's, computed from the draws the same way on ArviZ 0.x and
1 (:mod:`pymc_kameleon._compat`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from pymc_kameleon._compat import (
    SLICE_MAX_STEPS,
    ess_array,
    mcse_array,
    posterior_dataset,
    rhat_array,
)

__all__ = [
    "DEFAULT_QUANTILES",
    "EVALS_PER_ITERATION",
    "ZScores",
    "chi2_quantile_error",
    "chi2_quantile_fractions",
    "count_logp_evals",
    "count_logp_evals_in",
    "ess_per_1000_evals",
    "independence_moves",
    "max_rhat",
    "mcse_zscores",
    "mean_acceptance",
    "min_ess",
    "polynomial_mmd2",
    "posterior_array",
]

DEFAULT_QUANTILES = np.arange(1, 10) / 10
"""The quantile levels 0.1, 0.2, ..., 0.9 used by the KAMH paper."""

EVALS_PER_ITERATION = {"demetropolisz": 1}
"""Fallback logp evaluations per iteration for steps that do not emit ``logp_evals``.

``"metropolis"`` is handled separately: PyMC's Metropolis on a vector is Metropolis-within-Gibbs
and evaluates the model at ``d`` new points per iteration.
"""

_LOGP_EVALS_STAT = "logp_evals"


def chi2_quantile_fractions(
    gaussianised_samples: np.ndarray, quantiles: np.ndarray = DEFAULT_QUANTILES
) -> np.ndarray:
    """Fraction of squared norms below each chi-squared quantile.

    Parameters
    ----------
    gaussianised_samples : numpy.ndarray
        Samples of shape ``(..., d)`` that should be N(0, I_d) distributed; all leading axes
        (for example chain and draw) are pooled.
    quantiles : numpy.ndarray, default ``DEFAULT_QUANTILES``
        Quantile levels in (0, 1).

    Returns
    -------
    numpy.ndarray
        For each level q, the fraction of samples whose squared norm lies below the
        chi-squared_d q-quantile; this equals q in expectation for exact samples.
    """
    z = np.asarray(gaussianised_samples, dtype=float)
    d = z.shape[-1]
    sq_norms = np.sum(z.reshape(-1, d) ** 2, axis=1)
    thresholds = stats.chi2.ppf(np.asarray(quantiles, dtype=float), df=d)
    return np.mean(sq_norms[:, None] < thresholds[None, :], axis=0)


def chi2_quantile_error(
    gaussianised_samples: np.ndarray, quantiles: np.ndarray = DEFAULT_QUANTILES
) -> float:
    """Mean absolute chi-squared quantile error (the KAMH paper's accuracy metric).

    Parameters
    ----------
    gaussianised_samples : numpy.ndarray
        Samples of shape ``(..., d)`` that should be N(0, I_d) distributed.
    quantiles : numpy.ndarray, default ``DEFAULT_QUANTILES``
        Quantile levels in (0, 1).

    Returns
    -------
    float
        Mean over the levels q of ``|fraction below the chi-squared_d q-quantile - q|``.
    """
    fractions = chi2_quantile_fractions(gaussianised_samples, quantiles)
    return float(np.mean(np.abs(fractions - np.asarray(quantiles, dtype=float))))


def posterior_array(idata: Any, var_name: str, group: str = "posterior") -> np.ndarray:
    """Samples of one variable as an array of shape ``(chain, draw, d)``.

    Parameters
    ----------
    idata : arviz.InferenceData, xarray.DataTree or dict of xarray.Dataset
        Sampling output.
    var_name : str
        Name of a vector-valued variable.
    group : str, default "posterior"
        Group to read.

    Returns
    -------
    numpy.ndarray
        The draws; a scalar variable gets a trailing axis of length 1.

    Raises
    ------
    TypeError
        If ``idata`` is not sampling output.
    """
    dataset = posterior_dataset(idata, group, reader="posterior_array")
    values = np.asarray(dataset[var_name].values, dtype=float)
    return values[..., None] if values.ndim == 2 else values


def _n_iterations(stats_group: Any) -> int:
    sizes = stats_group.sizes
    return int(sizes["chain"] * sizes["draw"])


def count_logp_evals(idata: Any, step_kind: str, d: int, group: str = "sample_stats") -> int:
    """Total number of logp evaluations at new points, summed over chains and draws.

    See :func:`count_logp_evals_in` for the counting rules.

    Parameters
    ----------
    idata : arviz.InferenceData, xarray.DataTree or dict of xarray.Dataset
        Sampling output.
    step_kind : str
        Step name used for the fallback, such as ``"metropolis"`` or ``"demetropolisz"``.
    d : int
        Dimension of the sampled vector.
    group : str, default "sample_stats"
        Statistics group; use ``"warmup_sample_stats"`` to count tuning evaluations.

    Returns
    -------
    int
        Number of logp evaluations.
    """
    stats_group = posterior_dataset(idata, group, reader="count_logp_evals")
    return count_logp_evals_in(stats_group, step_kind, d)


def count_logp_evals_in(
    stats_group: Any, step_kind: str, d: int, slice_max_steps: int | None = SLICE_MAX_STEPS
) -> int:
    """Logp evaluations at new points in one statistics group, from its statistics.

    The ``logp_evals`` statistic (this package's steps) is used when present. Otherwise, by
    ``step_kind``:

    * ``"metropolis"``: PyMC's Metropolis updates a vector one coordinate at a time, ``d`` new
      points per iteration;
    * ``"demetropolisz"``: one new point per iteration;
    * ``"slice"``: per coordinate one evaluation at the current point, two at the initial
      interval ends and one at the first draw, plus the ``nstep_out`` and ``nstep_in`` stats.
      This is exact in PyMC 5. PyMC 6 gives the stepping out of each coordinate a budget of
      ``max_steps`` steps split at random between the two ends, and an end that uses its budget
      up skips its last evaluation, which no stat records. Each end does so with probability
      ``(steps it needed + 1) / max_steps``, so the count subtracts the expected number,
      ``(nstep_out + 2 * d * iterations) / max_steps``, rounded: an estimate whose error is
      about the square root of that number (exact when PyMC has no budget);
    * ``"nuts"``: the ``n_steps`` stat (leapfrog steps, each a logp *and gradient* evaluation).

    Parameters
    ----------
    stats_group : xarray.Dataset
        ``sample_stats`` or ``warmup_sample_stats`` of a run.
    step_kind : str
        One of the kinds above (case-insensitive).
    d : int
        Dimension of the sampled vector.
    slice_max_steps : int or None, default: that of the installed PyMC
        The ``max_steps`` the ``Slice`` step was given (PyMC 6's default is 100); None for a
        ``Slice`` without a stepping-out budget (PyMC 5).

    Returns
    -------
    int

    Raises
    ------
    ValueError
        If there is no ``logp_evals`` statistic and `step_kind` has no rule.
    """
    if _LOGP_EVALS_STAT in stats_group:
        return int(np.sum(stats_group[_LOGP_EVALS_STAT].values))
    kind = step_kind.lower()
    n_iterations = _n_iterations(stats_group)
    if kind == "metropolis":
        return d * n_iterations
    if kind in EVALS_PER_ITERATION:
        return EVALS_PER_ITERATION[kind] * n_iterations
    if kind == "slice":
        steps_out = int(np.sum(stats_group["nstep_out"].values))
        steps = steps_out + int(np.sum(stats_group["nstep_in"].values))
        skipped = 0
        if slice_max_steps is not None:  # ends that used their budget up skip their last check
            skipped = round((steps_out + 2 * d * n_iterations) / slice_max_steps)
        return int(4 * d * n_iterations + steps - skipped)
    if kind == "nuts":
        return int(np.sum(stats_group["n_steps"].values))
    raise ValueError(
        f"no '{_LOGP_EVALS_STAT}' statistic and no counting rule for step kind '{step_kind}'"
    )


def min_ess(idata: Any, var_name: str, method: str = "bulk") -> float:
    """Smallest effective sample size over the components of a variable.

    Parameters
    ----------
    idata : arviz.InferenceData, xarray.DataTree or dict of xarray.Dataset
        Sampling output with a ``posterior`` group.
    var_name : str
        Variable name.
    method : str, default "bulk"
        Any method accepted by :func:`arviz.ess`, such as ``"bulk"``, ``"tail"`` or ``"mean"``;
        ``"tail"`` is the smaller ESS of the 5 % and 95 % quantiles (ArviZ 0.x's default, also
        on ArviZ 1).

    Returns
    -------
    float
        Minimum ESS, pooled over chains.
    """
    return float(np.min(ess_array(posterior_array(idata, var_name), method=method)))


def max_rhat(idata: Any, var_name: str) -> float:
    """Largest rank-normalised split R-hat over the components of a variable.

    Parameters
    ----------
    idata : arviz.InferenceData, xarray.DataTree or dict of xarray.Dataset
        Sampling output with a ``posterior`` group and at least two chains.
    var_name : str
        Variable name.

    Returns
    -------
    float
        Maximum R-hat.
    """
    return float(np.max(rhat_array(posterior_array(idata, var_name))))


def mean_acceptance(idata: Any, group: str = "sample_stats") -> float:
    """Mean acceptance over chains and draws.

    Uses the ``accepted`` statistic (accept indicator, or the fraction of accepted coordinate
    updates for element-wise Metropolis); falls back to ``min(1, accept)``.

    Parameters
    ----------
    idata : arviz.InferenceData, xarray.DataTree or dict of xarray.Dataset
        Sampling output.
    group : str, default "sample_stats"
        Statistics group.

    Returns
    -------
    float
        Mean acceptance, or NaN if neither statistic is present.
    """
    stats_group = posterior_dataset(idata, group, reader="mean_acceptance")
    if "accepted" in stats_group:
        return float(np.mean(stats_group["accepted"].values.astype(float)))
    if "accept" in stats_group:
        return float(np.mean(np.minimum(stats_group["accept"].values, 1.0)))
    return float("nan")


def independence_moves(idata: Any, group: str = "sample_stats") -> dict[str, dict[str, float]]:
    """Share and mean acceptance of each kind of independence move, over chains and draws.

    Reads the ``independence_move`` statistic (see the sampler statistics page): kind ``"t"``
    the candidates drawn from the t's, ``"wide"`` those from their wide copies (the defensive
    mixture, after warm-up only), with the moves' ``share`` and ``defensive_weight`` in use.

    Parameters
    ----------
    idata : arviz.InferenceData, xarray.DataTree or dict of xarray.Dataset
        Output of a step with independence moves (``warmup="whitened"``, the default).
    group : str, default "sample_stats"
        ``"warmup_sample_stats"`` for the warm-up (with ``discard_tuned_samples=False``).

    Returns
    -------
    dict
        ``{"t": {"share": ..., "acceptance": ...}, "wide": {...}, "all": {"share": ...,
        "defensive_weight": ...}}``; an acceptance is NaN where no such move was made.

    Raises
    ------
    KeyError
        When the group has no ``independence_move`` statistic.
    """
    stats_group = posterior_dataset(idata, group, reader="independence_moves")
    if "independence_move" not in stats_group:
        raise KeyError(
            f"independence_moves: the {group!r} group has no 'independence_move' statistic; "
            "it comes from KameleonStep, AdaptiveMetropolis or KMCStep with "
            'warmup="whitened" (the default).'
        )
    kind = stats_group["independence_move"].values
    accept = np.minimum(stats_group["accept"].values, 1.0)
    out: dict[str, dict[str, float]] = {}
    for label, code in (("t", 0), ("wide", 1)):
        made = kind == code
        acceptance = float(np.mean(accept[made])) if made.any() else float("nan")
        out[label] = {"share": float(np.mean(made)), "acceptance": acceptance}
    out["all"] = {
        "share": float(np.mean(stats_group["independence_share"].values)),
        "defensive_weight": float(np.mean(stats_group["defensive_weight"].values)),
    }
    return out


def ess_per_1000_evals(
    idata: Any, var_name: str, step_kind: str, d: int, method: str = "bulk"
) -> float:
    """Minimum ESS per 1000 draw-phase logp evaluations.

    Parameters
    ----------
    idata : arviz.InferenceData, xarray.DataTree or dict of xarray.Dataset
        Sampling output.
    var_name : str
        Variable name.
    step_kind : str
        Step name for the evaluation-count fallback, see :func:`count_logp_evals`.
    d : int
        Dimension of the sampled vector.
    method : str, default "bulk"
        ESS method, see :func:`min_ess`.

    Returns
    -------
    float
        ``1000 * min_ess / evaluations``, or NaN if no evaluation was counted.
    """
    evals = count_logp_evals(idata, step_kind, d)
    if evals == 0:
        return float("nan")
    return 1000.0 * min_ess(idata, var_name, method=method) / evals


def polynomial_mmd2(x: np.ndarray, y: np.ndarray, degree: int = 3, offset: float = 1.0) -> float:
    """Unbiased squared MMD between two samples with the kernel ``(offset + <a, b>)**degree``.

    The KMC paper scores GP-classification chains against a long benchmark sample with the
    cubic polynomial kernel ``(1 + <a, b>)**3``, which compares the first three moments. The
    unbiased U-statistic (Gretton et al., 2012) is centred on 0 for equal distributions and can
    be slightly negative.

    Parameters
    ----------
    x : numpy.ndarray
        Sample of shape ``(n, d)``, ``n >= 2``.
    y : numpy.ndarray
        Sample of shape ``(m, d)``, ``m >= 2``.
    degree : int, default 3
        Polynomial degree.
    offset : float, default 1.0
        Constant added to the inner product.

    Returns
    -------
    float
        The MMD^2 estimate.
    """
    x = np.atleast_2d(np.asarray(x, dtype=float))
    y = np.atleast_2d(np.asarray(y, dtype=float))
    if x.shape[0] < 2 or y.shape[0] < 2 or x.shape[1] != y.shape[1]:
        raise ValueError(
            f"need two samples of at least 2 points in the same dimension, got shapes "
            f"{x.shape} and {y.shape}"
        )
    n, m = x.shape[0], y.shape[0]
    k_xx = (offset + x @ x.T) ** degree
    k_yy = (offset + y @ y.T) ** degree
    k_xy = (offset + x @ y.T) ** degree
    within_x = (k_xx.sum() - np.trace(k_xx)) / (n * (n - 1))
    within_y = (k_yy.sum() - np.trace(k_yy)) / (m * (m - 1))
    return float(within_x + within_y - 2.0 * k_xy.mean())


@dataclass(frozen=True)
class ZScores:
    """Errors of posterior summaries in Monte Carlo standard errors.

    Parameters
    ----------
    values : numpy.ndarray
        ``(estimate - truth) / MCSE`` for each compared summary.
    labels : tuple of str
        What each value compares, e.g. ``"mean[2]"``, ``"var[0]"``, ``"q0.9[1]"``.
    ess : numpy.ndarray
        The effective sample size behind each MCSE (ArviZ ``mean`` or ``quantile`` ESS).
    """

    values: np.ndarray
    labels: tuple[str, ...]
    ess: np.ndarray

    @property
    def max_abs(self) -> float:
        """Largest absolute z-score (NaN if any is not finite)."""
        if not np.all(np.isfinite(self.values)):
            return float("nan")
        return float(np.max(np.abs(self.values)))

    def describe(self) -> str:
        """One line naming the largest error, for assertion messages.

        Returns
        -------
        str
            The largest ``|z|``, what it compares and its ESS, then all z-scores.
        """
        worst = int(np.nanargmax(np.abs(self.values)))
        return (
            f"max |z| = {self.max_abs:.2f} at {self.labels[worst]} "
            f"(ESS {self.ess[worst]:.0f}); z = {np.round(self.values, 2).tolist()}"
        )


def _mcse_and_ess(x: np.ndarray, method: str, prob: float | None = None) -> tuple[float, float]:
    return float(mcse_array(x, method, prob)), float(ess_array(x, method, prob))


def mcse_zscores(
    draws: np.ndarray,
    *,
    mean: np.ndarray | None = None,
    variance: np.ndarray | None = None,
    quantiles: Mapping[float, np.ndarray] | None = None,
) -> ZScores:
    """Errors of sample means, variances and quantiles against exact values, in MCSEs.

    For a correct sampler with enough effective samples each z-score is approximately standard
    normal; the MCSEs come from ArviZ and account for autocorrelation and for the spread between
    chains.

    Parameters
    ----------
    draws : numpy.ndarray, shape (chain, draw, d)
        Posterior draws of ``d`` scalar quantities.
    mean : numpy.ndarray, shape (d,), optional
        Exact means.
    variance : numpy.ndarray, shape (d,), optional
        Exact variances; needs ``mean`` (the variance is compared as the mean of
        ``(x - mean)**2``, whose MCSE ArviZ estimates like any mean).
    quantiles : mapping of float to numpy.ndarray of shape (d,), optional
        Exact quantiles by probability, e.g. ``{0.1: q10, 0.5: median, 0.9: q90}``.

    Returns
    -------
    ZScores
        One z-score per compared summary, with labels and the ESS behind each MCSE.

    Raises
    ------
    ValueError
        If ``draws`` is not 3-D, or ``variance`` is given without ``mean``.
    """
    draws = np.asarray(draws, dtype=float)
    if draws.ndim != 3:
        raise ValueError(f"`draws` must have shape (chain, draw, d), got {draws.shape}.")
    if variance is not None and mean is None:
        raise ValueError("`variance` is compared around the exact mean: pass `mean` too.")
    values, labels, ess = [], [], []

    def add(label: str, error: float, mcse_ess: tuple[float, float]) -> None:
        values.append(error / mcse_ess[0])
        labels.append(label)
        ess.append(mcse_ess[1])

    for j in range(draws.shape[-1]):
        xj = draws[..., j]
        if mean is not None:
            add(f"mean[{j}]", xj.mean() - mean[j], _mcse_and_ess(xj, "mean"))
        if variance is not None:
            sq = (xj - mean[j]) ** 2
            add(f"var[{j}]", sq.mean() - variance[j], _mcse_and_ess(sq, "mean"))
        for prob, truth in (quantiles or {}).items():
            add(
                f"q{prob:g}[{j}]",
                float(np.quantile(xj, prob)) - truth[j],
                _mcse_and_ess(xj, "quantile", prob=prob),
            )
    return ZScores(np.asarray(values), tuple(labels), np.asarray(ess))
