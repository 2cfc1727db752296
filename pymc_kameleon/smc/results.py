"""Reading ``pm.sample_smc``'s per-stage stats (its chains may need different numbers of stages)."""

from __future__ import annotations

from typing import Any

import numpy as np

from pymc_kameleon._compat import posterior_dataset

__all__ = ["final_log_marginal_likelihood", "stage_stat"]


def stage_stat(idata: Any, name: str) -> list[np.ndarray]:
    """One per-stage stat of every chain of a ``pm.sample_smc`` result, as float arrays.

    When the chains needed different numbers of stages, ``pm.sample_smc`` stores each stat as one
    row of per-chain lists (ArviZ then reads it as a single chain); this reads either layout.

    Parameters
    ----------
    idata : arviz.InferenceData, xarray.DataTree or dict of xarray.Dataset
        The result of ``pm.sample_smc``.
    name : str
        A stat of the kernel, e.g. ``"beta"``, ``"accept_rate"``, ``"n_steps"``.

    Returns
    -------
    list of numpy.ndarray
        One array per chain, one value per stage.

    Raises
    ------
    TypeError
        If ``idata`` is not sampling output.
    """
    stats = posterior_dataset(idata, "sample_stats", reader="stage_stat")
    values = np.asarray(stats[name].values, dtype=object)
    rows = values.reshape(values.shape[0], -1)
    if rows.shape[0] == 1 and all(isinstance(item, list | tuple | np.ndarray) for item in rows[0]):
        rows = [[item] for item in rows[0]]  # ragged: stored as one "chain" of per-chain lists
    chains = []
    for row in rows:
        flat: list[Any] = []
        for item in row:
            flat.extend(np.ravel(np.asarray(item, dtype=object)).tolist())
        chains.append(np.asarray([np.nan if v is None else v for v in flat], dtype=float))
    return chains


def final_log_marginal_likelihood(idata: Any) -> np.ndarray:
    """Each chain's estimate of the log marginal likelihood (the value at its last stage).

    Parameters
    ----------
    idata : arviz.InferenceData, xarray.DataTree or dict of xarray.Dataset
        The result of ``pm.sample_smc``.

    Returns
    -------
    numpy.ndarray, shape (chains,)
    """
    return np.array([chain[-1] for chain in stage_stat(idata, "log_marginal_likelihood")])
