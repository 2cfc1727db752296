"""Scores of one benchmark run: mixing, accuracy against the exact answer, and cost.

All accuracy metrics compare with exact quantities of the target (:mod:`.problems`), never with
another sampler:

* ``mean_norm``: the KAMH paper's ``|E_hat[X]|`` of a zero-mean target (in general
  ``|E_hat[X] - E[X]|``);
* ``max_mean_error``: ``max_k |E_hat[X_k]| / sd_k``;
* ``quantile_error``: the KAMH paper's metric, the mean over q = 0.1, ..., 0.9 of
  ``|fraction of draws whose statistic is below its exact q-quantile - q|``;
* ``coord_quantile_error``: the mean over coordinates and the same levels of
  ``|q-quantile of the draws - exact q-quantile| / sd``.

:func:`draw_scores` gathers every score of one run's draws and :func:`cost_scores` its cost, for
the PyMC runs of :mod:`.runner` and the ensemble peers of :mod:`.ensemble_peers` alike.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pymc_kameleon._compat import ess_array, posterior_dataset, rhat_array
from pymc_kameleon.diagnostics import DEFAULT_QUANTILES, polynomial_mmd2, posterior_array

__all__ = [
    "accuracy_metrics",
    "chain_metrics",
    "cost_scores",
    "draw_scores",
    "mixing_metrics",
    "mixing_metrics_of_draws",
    "posterior_mixing_metrics",
    "quantile_error",
]


def quantile_error(statistic: np.ndarray, exact_quantiles: np.ndarray) -> float:
    """Mean over levels of ``|fraction below the exact quantile - level|``.

    Parameters
    ----------
    statistic : numpy.ndarray
        Statistic of each draw (any shape; pooled).
    exact_quantiles : numpy.ndarray
        Exact quantiles of the statistic at ``DEFAULT_QUANTILES``.

    Returns
    -------
    float
    """
    values = np.asarray(statistic, dtype=float).ravel()
    fractions = np.mean(values[:, None] <= np.asarray(exact_quantiles)[None, :], axis=0)
    return float(np.mean(np.abs(fractions - DEFAULT_QUANTILES)))


def _coordinate_quantile_error(draws: np.ndarray, quantiles: np.ndarray, sds: np.ndarray) -> float:
    estimated = np.quantile(draws.reshape(-1, draws.shape[-1]), DEFAULT_QUANTILES, axis=0)
    return float(np.mean(np.abs(estimated - quantiles) / sds))


def accuracy_metrics(draws: np.ndarray, problem: Any) -> dict[str, float]:
    """Accuracy of pooled draws against the problem's exact answer (or reference run).

    Parameters
    ----------
    draws : numpy.ndarray
        Shape ``(chains, draws, dim)``.
    problem : Problem

    Returns
    -------
    dict of str to float
        ``mean_norm``, ``max_mean_error``, ``quantile_error``, ``coord_quantile_error`` for
        targets with an exact answer; ``mmd2`` and ``mean_error`` against the reference draws
        for GP-Glass.
    """
    pooled = draws.reshape(-1, draws.shape[-1])
    out: dict[str, float] = {}
    marginals = problem.marginal_quantiles()
    if marginals is not None:
        quantiles, sds = marginals
        mean = pooled.mean(axis=0) - problem.true_mean
        out["mean_norm"] = float(np.linalg.norm(mean))
        out["max_mean_error"] = float(np.max(np.abs(mean) / sds))
        out["coord_quantile_error"] = _coordinate_quantile_error(pooled, quantiles, sds)
    exact = problem.statistic_quantiles()
    if exact is not None:
        out["quantile_error"] = quantile_error(problem.statistic(pooled), exact)
    reference = problem.reference_draws()
    if reference is not None:
        thin = max(1, pooled.shape[0] // 1000)
        out["mmd2"] = polynomial_mmd2(pooled[::thin], reference)
        out["mean_error"] = float(np.linalg.norm(pooled.mean(axis=0) - reference.mean(axis=0)))
    return out


def mixing_metrics(idata: Any, var_name: str) -> dict[str, float]:
    """Min bulk/tail ESS and max R-hat over coordinates (ArviZ, pooled over chains).

    Parameters
    ----------
    idata : arviz.InferenceData, xarray.DataTree or dict of xarray.Dataset
        The result of ``pm.sample``.
    var_name : str

    Returns
    -------
    dict of str to float
        ``min_bulk_ess``, ``min_tail_ess`` (the 5 % and 95 % quantiles), ``max_rhat`` (NaN for
        one chain).

    Raises
    ------
    TypeError
        If ``idata`` is not sampling output.
    """
    return mixing_metrics_of_draws(posterior_array(idata, var_name))


def mixing_metrics_of_draws(draws: np.ndarray) -> dict[str, float]:
    """Min bulk/tail ESS and max R-hat over coordinates of an array of draws.

    Parameters
    ----------
    draws : numpy.ndarray
        Shape ``(chains, draws, dim)``.

    Returns
    -------
    dict of str to float
        As :func:`mixing_metrics`.
    """
    out = {
        "min_bulk_ess": float(np.min(ess_array(draws, method="bulk"))),
        "min_tail_ess": float(np.min(ess_array(draws, method="tail"))),
    }
    out["max_rhat"] = float(np.max(rhat_array(draws))) if draws.shape[0] > 1 else np.nan
    return out


def posterior_mixing_metrics(idata: Any) -> dict[str, float]:
    """:func:`mixing_metrics` over every scalar component of every posterior variable.

    Parameters
    ----------
    idata : arviz.InferenceData, xarray.DataTree or dict of xarray.Dataset
        The result of ``pm.sample``.

    Returns
    -------
    dict of str to float
        As :func:`mixing_metrics`.

    Raises
    ------
    TypeError
        If ``idata`` is not sampling output.
    """
    posterior = posterior_dataset(idata, "posterior", reader="posterior_mixing_metrics")
    columns = []
    for variable in posterior.data_vars.values():
        values = np.asarray(variable.values, dtype=float)
        columns.append(values.reshape(*values.shape[:2], -1))
    return mixing_metrics_of_draws(np.concatenate(columns, axis=-1))


def chain_metrics(draws: np.ndarray, problem: Any) -> dict[str, list[float]]:
    """Per-chain scores, for box plots over chains (KAMH paper Fig. 5, KMC paper Fig. 3).

    Parameters
    ----------
    draws : numpy.ndarray
        Shape ``(chains, draws, dim)``.
    problem : Problem

    Returns
    -------
    dict of str to list of float
        ``chain_min_ess`` (single-chain bulk ESS, min over coordinates), and for targets with an
        exact answer ``chain_mean_norm`` and ``chain_quantile_error``.
    """
    out: dict[str, list[float]] = {"chain_min_ess": []}
    exact = problem.statistic_quantiles()
    if problem.true_mean is not None:
        out["chain_mean_norm"] = []
    if exact is not None:
        out["chain_quantile_error"] = []
    for chain in draws:
        out["chain_min_ess"].append(float(np.min(ess_array(chain[None], method="bulk"))))
        if "chain_mean_norm" in out:
            error = chain.mean(axis=0) - problem.true_mean
            out["chain_mean_norm"].append(float(np.linalg.norm(error)))
        if exact is not None:
            out["chain_quantile_error"].append(quantile_error(problem.statistic(chain), exact))
    return out


def draw_scores(draws: np.ndarray, problem: Any) -> dict[str, Any]:
    """Every score of a run's draws: mixing, accuracy and per-chain scores.

    Parameters
    ----------
    draws : numpy.ndarray
        Shape ``(chains, draws, dim)``, in the target's own coordinates (see
        ``Problem.from_model_coordinates``).
    problem : Problem

    Returns
    -------
    dict
        The union of :func:`mixing_metrics_of_draws`, :func:`accuracy_metrics` and
        :func:`chain_metrics`.
    """
    return {
        **mixing_metrics_of_draws(draws),
        **accuracy_metrics(draws, problem),
        **chain_metrics(draws, problem),
    }


def cost_scores(min_ess: float, draw_evals: int, seconds: float, iterations: int) -> dict:
    """Cost of a run and its ESS per unit of cost.

    Parameters
    ----------
    min_ess : float
        Min bulk ESS over coordinates.
    draw_evals : int
        Log-density evaluations of the kept draws (warm-up excluded).
    seconds : float
        Wall time of the whole run (warm-up included).
    iterations : int
        Iterations of the whole run, ``chains * (tune + draws)``.

    Returns
    -------
    dict
        ``draw_evals``, ``sampling_s``, ``us_per_iter``, ``ess_per_1k_evals`` and ``ess_per_s``
        (NaN when their denominator is zero).
    """
    return {
        "draw_evals": int(draw_evals),
        "sampling_s": float(seconds),
        "us_per_iter": 1e6 * seconds / iterations,
        "ess_per_1k_evals": 1000.0 * min_ess / draw_evals if draw_evals else math.nan,
        "ess_per_s": min_ess / seconds if seconds > 0 else math.nan,
    }
