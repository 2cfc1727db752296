"""KMC's surrogates of the target log-density, and the learner that fits them to a chain.

* :class:`~pymc_kameleon.core.surrogates.base.Surrogate`: the protocol (value, gradient,
  ``n_basis``, ``trajectory``, ``update``, ``from_history``);
* :mod:`~pymc_kameleon.core.surrogates.lite`: ``"lite"``, a kernel expansion on a history
  subsample;
* :mod:`~pymc_kameleon.core.surrogates.finite`: ``"finite"``, random Fourier features with exact
  online updates;
* :mod:`~pymc_kameleon.core.surrogates.lengthscale_cv`: the cross-validated kernel length scale;
* :mod:`~pymc_kameleon.core.surrogates.learner`: when to refit, re-choose the length scale,
  switch surrogates, update the mass and calibrate the surrogate scale.

:data:`SURROGATES` maps a name to its class; :func:`make_surrogate` fits one by name.
"""

from __future__ import annotations

import numpy as np

from pymc_kameleon.core.surrogates.base import Surrogate
from pymc_kameleon.core.surrogates.finite import FiniteScoreMatching
from pymc_kameleon.core.surrogates.lite import LiteSurrogate

__all__ = ["SURROGATES", "FiniteScoreMatching", "LiteSurrogate", "Surrogate", "make_surrogate"]

#: the surrogates by name (KMCStep's ``estimator`` argument)
SURROGATES: dict[str, type[Surrogate]] = {"lite": LiteSurrogate, "finite": FiniteScoreMatching}


def make_surrogate(
    name: str,
    history,
    rng: np.random.Generator,
    *,
    lengthscale: float,
    n_basis: int,
    ridge: float,
) -> Surrogate:
    """Fit the surrogate called ``name`` on ``history`` (see :meth:`Surrogate.from_history`).

    Parameters
    ----------
    name : str
        A key of :data:`SURROGATES`.
    history : ChainHistory
        The states to learn from.
    rng : numpy.random.Generator
        Random source of the fit.
    lengthscale : float
        Gaussian kernel length scale (> 0).
    n_basis : int
        Number of basis points or features.
    ridge : float
        The ridge, in the surrogate's own convention.

    Returns
    -------
    Surrogate
    """
    if name not in SURROGATES:
        raise ValueError(f"unknown surrogate {name!r}; known: {sorted(SURROGATES)}.")
    return SURROGATES[name].from_history(
        history, rng, lengthscale=lengthscale, n_basis=n_basis, ridge=ridge
    )
