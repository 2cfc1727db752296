"""Benchmark targets of any dimension, for measuring how the samplers scale with ``d``.

Two families, named with their dimension so that :func:`~pymc_kameleon.bench.problems.get_problem`
finds them like the fixed problems:

- ``gamma-gauss-{d}``: the KMC paper's Figure 2 target, a zero-mean Gaussian whose covariance has
  eigenvalues drawn from Gamma(1, 1) under a uniformly random rotation (seeded by ``d``, so every
  run of a dimension sees the same target);
- ``banana-{b}-d{d}``: Haario's banana B(b, 100) in ``d`` dimensions, i.e. the twisted pair
  ``(x1, x2)`` padded with ``d - 2`` standard normal coordinates (``d = 8`` is the papers'
  8-D banana).

Both have exact draws and a chi-squared statistic, so they are scored like the 8-D targets.
"""

from __future__ import annotations

import re
from functools import cache

import numpy as np
from scipy.stats import special_ortho_group

from pymc_kameleon.bench.problems import Problem, banana_problem, gaussian_problem

__all__ = ["dimension_problem", "gamma_eigen_covariance"]

_GAMMA_GAUSS = re.compile(r"gamma-gauss-(\d+)")
_BANANA = re.compile(r"banana-(0\.\d+)-d(\d+)")
#: the seed of a dimension's covariance is this plus ``d``
_COVARIANCE_SEED = 2015


def gamma_eigen_covariance(d: int, seed: int | None = None) -> np.ndarray:
    """A covariance with Gamma(1, 1) eigenvalues under a uniformly random rotation.

    Parameters
    ----------
    d : int
        Dimension (at least 1).
    seed : int, optional
        Seed of the eigenvalues and the rotation (default: ``2015 + d``).

    Returns
    -------
    numpy.ndarray, shape (d, d)
        Symmetric positive definite.
    """
    if d < 1:
        raise ValueError(f"gamma_eigen_covariance needs d >= 1, got {d}")
    rng = np.random.default_rng(_COVARIANCE_SEED + d if seed is None else seed)
    eigenvalues = rng.gamma(1.0, 1.0, size=d)
    rotation = special_ortho_group.rvs(d, random_state=rng) if d > 1 else np.ones((1, 1))
    cov = (rotation * eigenvalues) @ rotation.T
    return 0.5 * (cov + cov.T)  # exactly symmetric for the Cholesky factor


@cache
def dimension_problem(name: str) -> Problem | None:
    """The problem a dimension-suffixed name stands for, or None if it names none.

    Parameters
    ----------
    name : str
        ``gamma-gauss-{d}`` (``d >= 1``) or ``banana-{b}-d{d}`` (``0 < b < 1``, ``d >= 2``).

    Returns
    -------
    Problem or None
    """
    if match := _GAMMA_GAUSS.fullmatch(name):
        d = int(match.group(1))
        if d >= 1:
            title = f"Gaussian, Gamma(1, 1) eigenvalues, random rotation, d={d}"
            return gaussian_problem(name, title, gamma_eigen_covariance(d))
    if match := _BANANA.fullmatch(name):
        b, d = float(match.group(1)), int(match.group(2))
        if d >= 2 and b > 0.0:
            return banana_problem(b, name, d)
    return None
