"""Checks that a particle population can be whitened, with errors that name the cause.

A population defines a whitening map only with finite values, every coordinate varying and at
least ``d + 1`` distinct particles. When that fails, the fix depends on when: initial particles
come from PyMC's prior draws, later ones from resampling.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["check_population"]


def check_population(
    particles: np.ndarray, *, initial: bool = False, names: Sequence[str] | None = None
) -> None:
    """Raise an error naming the problem if a population cannot be whitened.

    A population needs finite values, every coordinate varying, and at least ``d + 1`` distinct
    particles for a non-singular covariance. Failing that, the cause differs with the moment:
    the initial particles come from the prior draws (which could not be made for some
    variable), later ones from resampling (which kept only a few particles).

    Parameters
    ----------
    particles : numpy.ndarray, shape (n, d)
    initial : bool, default False
        Whether these are the initial particles (drawn from the prior), before any resampling.
    names : sequence of str, optional
        A label for each coordinate, used in the message (else the coordinates' indices).

    Raises
    ------
    ValueError
        Naming the coordinates or the count of distinct particles, the likely cause and the fix.
    """
    particles = np.asarray(particles, dtype=float)
    labels = [str(i) for i in range(particles.shape[1])] if names is None else list(names)
    bad = ~np.isfinite(particles).all(axis=0)
    if bad.any():
        raise ValueError(
            f"NaN or infinite values in {_named(labels, bad)} of some particles"
            f"{_INITIAL_CAUSE if initial else '.'}"
        )
    n_distinct = np.unique(particles, axis=0).shape[0]
    dim = particles.shape[1]
    if n_distinct < dim + 1:  # fewer points than a d-dimensional covariance needs
        cause = _INITIAL_CAUSE if initial else _RESAMPLING_CAUSE
        raise ValueError(
            f"the population has only {n_distinct} distinct particles for {dim} coordinates{cause}"
        )
    # rounding alone spreads a copied value by ~1e-16 relative (PyMC's transforms of an initval)
    spread = np.ptp(particles, axis=0)
    constant = ~(spread > 1e-12 * np.abs(particles).max(axis=0))
    if constant.any():
        cause = _INITIAL_CAUSE if initial else _RESAMPLING_CAUSE
        raise ValueError(f"the same value in every particle for {_named(labels, constant)}{cause}")


_INITIAL_CAUSE = (
    ": PyMC could not draw these initial particles from the prior. It happens with a "
    "transform the prior's draws do not satisfy (`transform=ordered` on an unordered prior: "
    "PyMC then copies the `initval` into every particle, or gives NaN without one). Give the "
    "variable a prior whose draws satisfy the transform (e.g. ordered values as a cumulative "
    "sum of positive increments), or pass initial particles with `start=`."
)
_RESAMPLING_CAUSE = (
    ": the population collapsed at resampling, which happens when the likelihood is far "
    "narrower than the prior (prior sds many orders of magnitude above the posterior's, so "
    "that even the smallest tempering step keeps a handful of particles). Give the parameters "
    "priors on the scale of the data, or use more particles (`draws`)."
)


def _named(labels: list[str], which: np.ndarray) -> str:
    return "coordinates [" + ", ".join(np.asarray(labels)[which].tolist()) + "]"
