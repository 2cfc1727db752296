"""Benchmark targets of any dimension, for measuring how the samplers scale with ``d``.

Three families, named with their dimension so that
:func:`~pymc_kameleon.bench.registry.get_problem` finds them like the fixed problems:

- ``gamma-gauss-{d}``: the KMC paper's Figure 2 target, a zero-mean Gaussian whose covariance has
  eigenvalues drawn from Gamma(1, 1) under a uniformly random rotation (seeded by ``d``, so every
  run of a dimension sees the same target);
- ``banana-{b}-d{d}``: Haario's banana B(b, 100) in ``d`` dimensions, i.e. the twisted pair
  ``(x1, x2)`` padded with ``d - 2`` standard normal coordinates (``d = 8`` is the papers'
  8-D banana);
- ``hier-{d}``: the centred hierarchical normal model with ``d - 2`` group effects of
  :mod:`pymc_kameleon.targets.hierarchical` (``d >= 3``), a funnel between the group scale and
  the group effects.

All three have exact draws and a chi-squared statistic, so they are scored like the 8-D targets.
"""

from __future__ import annotations

import re
from functools import cache

import numpy as np
import pymc as pm
import pytensor.tensor as pt
from scipy.stats import special_ortho_group

from pymc_kameleon.bench.problems import Problem, banana_problem, gaussian_problem
from pymc_kameleon.targets.hierarchical import (
    MU_PRIOR_SD,
    TAU_PRIOR_SD,
    HierarchicalNormal,
    hierarchical_normal,
)

__all__ = ["dimension_problem", "gamma_eigen_covariance"]

_GAMMA_GAUSS = re.compile(r"gamma-gauss-(\d+)")
_BANANA = re.compile(r"banana-(0\.\d+)-d(\d+)")
_HIERARCHICAL = re.compile(r"hier-(\d+)")
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


def hierarchical_model(target: HierarchicalNormal) -> pm.Model:
    """The centred model as PyMC sees it: one vector ``x = (mu, log tau, theta)``."""
    with pm.Model() as model:
        x = pm.Flat("x", shape=target.dim)
        mu, log_tau, theta = x[0], x[1], x[2:]
        tau = pt.exp(log_tau)
        groups = -0.5 * pt.sum(((theta - mu) / tau) ** 2) - (target.dim - 2) * log_tau
        data = -0.5 * pt.sum(((target.y - theta) / target.sigma) ** 2)
        prior = -0.5 * (mu / MU_PRIOR_SD) ** 2 - 0.5 * (tau / TAU_PRIOR_SD) ** 2 + log_tau
        pm.Potential("posterior", prior + groups + data)
    return model


def hierarchical_problem(name: str, d: int) -> Problem:
    """The ``hier-{d}`` problem: exact draws, exact mean and the Rosenblatt chi-squared."""
    target = hierarchical_normal(d - 2)
    return Problem(
        name=name,
        title=f"Centred hierarchical normal, {d - 2} groups, d={d}",
        dim=d,
        build_model=lambda: hierarchical_model(target),
        exact_draws=target.exact_draws,
        statistic=target.chi2_statistic,
        statistic_is_chi2=True,
        notes="x = (mu, log tau, theta); exact draws by quadrature over log tau",
        exact_mean=target.posterior_mean(),
    )


@cache
def dimension_problem(name: str) -> Problem | None:
    """The problem a dimension-suffixed name stands for, or None if it names none.

    Parameters
    ----------
    name : str
        ``gamma-gauss-{d}`` (``d >= 1``), ``banana-{b}-d{d}`` (``0 < b < 1``, ``d >= 2``) or
        ``hier-{d}`` (``d >= 3``).

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
    if (match := _HIERARCHICAL.fullmatch(name)) and int(match.group(1)) >= 3:
        return hierarchical_problem(name, int(match.group(1)))
    return None
