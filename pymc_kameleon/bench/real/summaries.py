"""Per-scalar posterior summaries with Monte Carlo standard errors (ArviZ), shared by the
reference builder and the scorer. ESS, MCSE and R-hat are computed from the draws the same way on
ArviZ 0.x and 1 (:mod:`pymc_kameleon._compat`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from pymc_kameleon._compat import ess_array, mcse_array, posterior_dataset, rhat_array

__all__ = ["SUMMARY_FIELDS", "scalar_draws", "summarise"]

SUMMARY_FIELDS = (
    "mean",
    "sd",
    "q05",
    "q50",
    "q95",
    "mcse_mean",
    "mcse_sd",
    "mcse_q05",
    "mcse_q50",
    "mcse_q95",
    "ess_bulk",
    "ess_tail",
    "ess_q05",
    "ess_q95",
    "rhat",
)
"""The summaries stored per scalar (quantile ESS: ArviZ ``method="quantile"``)."""


def _label(name: str, index: tuple[int, ...]) -> str:
    return name if not index else f"{name}[{','.join(str(i) for i in index)}]"


def scalar_draws(posterior: Any, var_names: list[str]) -> tuple[list[str], np.ndarray]:
    """Every scalar component of the named variables, as one ``(chain, draw, k)`` array.

    Parameters
    ----------
    posterior : xarray.Dataset, arviz.InferenceData, xarray.DataTree or dict of xarray.Dataset
        Posterior draws: a Dataset is the posterior itself; a sampling result is read from its
        ``posterior`` group.
    var_names : list of str
        Variables to flatten (C order over their non-sample dimensions).

    Returns
    -------
    labels : list of str
        ``"name"`` or ``"name[i]"`` / ``"name[i,j]"`` by position.
    draws : numpy.ndarray, shape (chain, draw, k)

    Raises
    ------
    TypeError
        If ``posterior`` is neither a Dataset nor sampling output.
    """
    import xarray as xr

    if not isinstance(posterior, xr.Dataset):
        posterior = posterior_dataset(posterior, "posterior", reader="scalar_draws")
    labels, columns = [], []
    for name in var_names:
        values = np.asarray(posterior[name].values, dtype=float)
        chains, draws = values.shape[:2]
        flat = values.reshape(chains, draws, -1)
        shape = values.shape[2:]
        for k, index in enumerate(np.ndindex(*shape) if shape else [()]):
            labels.append(_label(name, index))
            columns.append(flat[:, :, k])
    return labels, np.stack(columns, axis=-1)


def _nan_safe(fn, x: np.ndarray, **kwargs) -> float:
    with np.errstate(all="ignore"):
        try:
            return float(np.asarray(fn(x, **kwargs)).squeeze())
        except (ValueError, FloatingPointError, ZeroDivisionError):
            return float("nan")


def summarise(draws: np.ndarray) -> dict[str, np.ndarray]:
    """Summaries of each scalar: mean, sd, 5/50/95 % quantiles, their MCSEs, ESS, R-hat.

    Parameters
    ----------
    draws : numpy.ndarray, shape (chain, draw, k)

    Returns
    -------
    dict of str to numpy.ndarray
        One array of length ``k`` per name in :data:`SUMMARY_FIELDS`. ESS and R-hat are
        ArviZ's rank-normalised versions (the tail ESS at the 5 % and 95 % quantiles); R-hat is
        NaN for a single chain. The sd's MCSE is
        ``mcse(variance) / (2 sd)``, the variance's MCSE being ArviZ's MCSE of the mean of the
        squared deviations.
    """
    draws = np.asarray(draws, dtype=float)
    if draws.ndim != 3:
        raise ValueError(f"`draws` must have shape (chain, draw, k), got {draws.shape}")
    out = {f: np.full(draws.shape[-1], np.nan) for f in SUMMARY_FIELDS}
    pooled = draws.reshape(-1, draws.shape[-1])
    out["mean"] = pooled.mean(axis=0)
    out["sd"] = pooled.std(axis=0, ddof=1)
    for q, tag in ((0.05, "q05"), (0.5, "q50"), (0.95, "q95")):
        out[tag] = np.quantile(pooled, q, axis=0)
    for j in range(draws.shape[-1]):
        x = draws[..., j]
        out["mcse_mean"][j] = _nan_safe(mcse_array, x, method="mean")
        # delta method on the variance, itself a mean of squared deviations
        mcse_var = _nan_safe(mcse_array, (x - out["mean"][j]) ** 2, method="mean")
        out["mcse_sd"][j] = mcse_var / (2.0 * out["sd"][j])
        for q, tag in ((0.05, "05"), (0.5, "50"), (0.95, "95")):
            out[f"mcse_q{tag}"][j] = _nan_safe(mcse_array, x, method="quantile", prob=q)
        out["ess_bulk"][j] = _nan_safe(ess_array, x, method="bulk")
        out["ess_tail"][j] = _nan_safe(ess_array, x, method="tail")
        out["ess_q05"][j] = _nan_safe(ess_array, x, method="quantile", prob=0.05)
        out["ess_q95"][j] = _nan_safe(ess_array, x, method="quantile", prob=0.95)
        if draws.shape[0] > 1:
            out["rhat"][j] = _nan_safe(rhat_array, x)
    return out
