"""Metropolis–Hastings moves of a particle population with a Kameleon proposal built from it.

The mutation step of kernel SMC (Schuster, Strathmann, Paige, Sejdinovic, 2017): after each
resampling, the population covers the current tempered target, which is the history a Kameleon
proposal needs. :func:`population_proposal` builds one
:class:`~pymc_kameleon.core.proposals.KameleonProposal` per stage, in the coordinates that whiten
the population (so the exploration term ``gamma`` and the bandwidth are in posterior standard
deviations) and with the population as its subsample. The proposal is then fixed while the
sweeps of :mod:`pymc_kameleon.core.population_sweep` move every particle with an exact
Metropolis–Hastings test (the proposal is not symmetric: the reverse density enters the ratio),
as often as :class:`DecorrelationRule` asks. Adapting the proposal from the population between
stages keeps each sweep an exact move for the stage's target.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from pymc_kameleon.core.population_checks import check_population
from pymc_kameleon.core.proposals.affine import AffineMap
from pymc_kameleon.core.proposals.isotropic_walk import IsotropicRandomWalk
from pymc_kameleon.core.proposals.kameleon import KameleonProposal
from pymc_kameleon.core.proposals.mixture import MixtureProposal
from pymc_kameleon.core.proposals.protocol import Proposal
from pymc_kameleon.core.windowed_covariance import RELATIVE_JITTER, whitening_map

__all__ = [
    "DecorrelationRule",
    "components",
    "default_max_sweeps",
    "population_map",
    "population_proposal",
    "rescale_components",
    "split_by_value",
    "updated_log_factor",
]


def population_map(particles: np.ndarray, names: Sequence[str] | None = None) -> AffineMap:
    """The affine map that whitens a population: ``u = L^{-1}(x - mean)``, ``L L^T = cov``.

    Parameters
    ----------
    particles : numpy.ndarray, shape (n, d)
        Finite particles as rows, ``n >= 2``.
    names : sequence of str, optional
        A label per coordinate for the error message (see
        :func:`~pymc_kameleon.core.population_checks.check_population`).

    Returns
    -------
    AffineMap

    Raises
    ------
    ValueError
        If the population cannot define a covariance (see
        :func:`~pymc_kameleon.core.population_checks.check_population`).
    """
    particles = np.asarray(particles, dtype=float)
    check_population(particles, names=names)
    cov = np.atleast_2d(np.cov(particles, rowvar=False, ddof=0))
    variances = np.diag(cov).copy()
    cov.flat[:: cov.shape[0] + 1] += RELATIVE_JITTER * variances  # unit-free, keeps it PD
    return whitening_map(particles.mean(axis=0), cov)


def population_proposal(
    particles: np.ndarray,
    rng: np.random.Generator,
    *,
    gamma: float,
    n_basis: int,
    global_weight: float = 0.0,
    log_factors: tuple[float, float] = (0.0, 0.0),
    names: Sequence[str] | None = None,
    basis: np.ndarray | None = None,
    affine: AffineMap | None = None,
) -> Proposal:
    """A Kameleon proposal built from a population, in the coordinates that whiten it.

    Parameters
    ----------
    particles : numpy.ndarray, shape (n, d)
        The (resampled) population.
    rng : numpy.random.Generator
        Source of the subsample and bandwidth points.
    gamma : float
        Standard deviation of the exploration term, in the whitened coordinates.
    n_basis : int
        Size of the subsample the kernel term is built on.
    global_weight : float, default 0.0
        If positive, the proposal is a :class:`~pymc_kameleon.core.proposals.MixtureProposal`:
        the Kameleon move with weight ``1 - global_weight``, and with weight ``global_weight``
        an isotropic random walk in the whitened coordinates (the population covariance in the
        states' coordinates), scale ``2.38^2 / d``. The kernel term vanishes where the
        population is sparse (the ends of a banana's arms), where the random walk still moves.
    log_factors : tuple of float, default (0.0, 0.0)
        Log factors on the Kameleon move's trace-matched ``nu^2`` (see
        :meth:`~pymc_kameleon.core.proposals.KameleonProposal.use_states`) and on the random
        walk's scale.
    names : sequence of str, optional
        A label per coordinate, for the error of a collapsed population.
    basis : numpy.ndarray, shape (m, d), optional
        The states the kernel term is built on (default: ``particles``); the whitening map is
        always the whole population's. Particles moved with the proposal should not be among
        them (see :func:`split_by_value`).
    affine : AffineMap, optional
        The population's whitening map, if already built (:func:`population_map`); one map
        serves the proposals of both halves.

    Returns
    -------
    KameleonProposal or MixtureProposal
        With map, subsample, bandwidth and scales set; no scale is learned by the proposal
        itself (see :func:`rescale_components`).
    """
    dim = particles.shape[1]
    affine = population_map(particles, names) if affine is None else affine
    kameleon = KameleonProposal(dim, gamma=gamma, n_history=n_basis, learn_scale=False)
    kameleon.set_map(affine)
    basis = particles if basis is None else basis
    kameleon.use_states(basis, rng, nu2_factor=math.exp(log_factors[0]))
    if global_weight <= 0.0:
        return kameleon
    walk = IsotropicRandomWalk(dim, learn_scale=False)
    walk.set_map(affine)
    walk.scale.restart(walk.scale.log_scale + log_factors[1])
    return MixtureProposal([(kameleon, 1.0 - global_weight), (walk, global_weight)])


def split_by_value(particles: np.ndarray, rng: np.random.Generator) -> np.ndarray | None:
    """Split a population in two at random halves, every copy of a particle on the same side.

    A Kameleon proposal built on the particles it moves is shaped by each particle's own start
    (and by its copies after resampling): the kernel term near a particle comes mostly from
    basis points at or near it, so the move depends on where the particle began, and the stage
    keeps a memory of its start that more sweeps do not remove in proportion. Moving each half
    with a proposal built on the other keeps a particle out of its own proposal.

    Parameters
    ----------
    particles : numpy.ndarray, shape (n, d)
    rng : numpy.random.Generator

    Returns
    -------
    numpy.ndarray of bool, shape (n,), or None
        True for the first side; None if either side would have fewer than ``d + 1`` distinct
        particles (too few to build a proposal on).
    """
    _, first, inverse = np.unique(particles, axis=0, return_index=True, return_inverse=True)
    side_of_value = rng.random(first.size) < 0.5
    if min(side_of_value.sum(), (~side_of_value).sum()) < particles.shape[1] + 1:
        return None
    return side_of_value[inverse.ravel()]


def components(proposal: Proposal) -> list[Proposal]:
    """The moves of a population proposal: its mixture's components, or itself.

    Parameters
    ----------
    proposal : KameleonProposal or MixtureProposal
        From :func:`population_proposal`.

    Returns
    -------
    list of Proposal
    """
    return list(getattr(proposal, "proposals", [proposal]))


def rescale_components(proposal: Proposal, deltas: Sequence[float]) -> None:
    """Multiply the scale of each move of ``proposal`` by ``exp(delta)``.

    Parameters
    ----------
    proposal : KameleonProposal or MixtureProposal
        From :func:`population_proposal`.
    deltas : sequence of float
        One log-factor change per component (see :func:`components`).
    """
    for move, delta in zip(components(proposal), deltas, strict=False):
        move.scale.restart(move.scale.log_scale + delta)


def updated_log_factor(log_factor: float, accept_rate: float, target: float) -> float:
    """A move's log scale factor after a sweep: ``+ 2 (accept_rate - target)``.

    A sweep whose acceptance is 0.1 below the target shrinks the scale by ``exp(-0.2)``.

    Parameters
    ----------
    log_factor : float
    accept_rate : float
        Mean acceptance probability of the stage's sweeps.
    target : float

    Returns
    -------
    float
    """
    return float(log_factor + 2.0 * (accept_rate - target))


class DecorrelationRule:
    """How many sweeps a stage needs: sweep while some coordinate still remembers the start.

    After each sweep, the correlation across particles between every coordinate now and at the
    start of the stage is computed. A coordinate is done when its correlation is at most
    ``max_correlation`` (raised to ``3 / sqrt(n)`` for ``n`` particles, the noise level of a zero
    correlation), or when the last sweep lowered it by less than ``stall`` (it cannot fall
    further: particles in separated modes stay in their mode). Sweeps go on while any coordinate
    is not done, up to ``max_sweeps``. PyMC's MH kernel stops as soon as one coordinate in ten
    stalls, so on a curved target the fast coordinates can end a stage before the slow ones
    (the long arm of a banana) have moved; here the slowest one decides.

    Parameters
    ----------
    start : numpy.ndarray, shape (n, d)
        The particles at the start of the stage (copied).
    max_correlation : float, default 0.1
    max_sweeps : int, optional
        Default :func:`default_max_sweeps` of the dimension.
    stall : float, default 0.01

    Attributes
    ----------
    sweeps : int
        Sweeps recorded so far.
    """

    def __init__(
        self,
        start: np.ndarray,
        max_correlation: float = 0.1,
        max_sweeps: int | None = None,
        stall: float = 0.01,
    ) -> None:
        self.start = np.array(start, dtype=float)
        self.max_correlation = max(float(max_correlation), 3.0 / math.sqrt(self.start.shape[0]))
        dim = self.start.shape[1]
        self.max_sweeps = default_max_sweeps(dim) if max_sweeps is None else int(max_sweeps)
        self.stall = float(stall)
        self.sweeps = 0
        self.previous = np.ones(dim)  # every coordinate's correlation at the start

    def correlation(self, particles: np.ndarray) -> np.ndarray:
        """Per coordinate, the correlation across particles between the start and ``particles``.

        A coordinate that is constant in either gets 0.

        Parameters
        ----------
        particles : numpy.ndarray, shape (n, d)

        Returns
        -------
        numpy.ndarray, shape (d,)
        """
        a = self.start - self.start.mean(axis=0)
        b = particles - particles.mean(axis=0)
        scale = np.sqrt((a * a).sum(axis=0) * (b * b).sum(axis=0))
        with np.errstate(invalid="ignore", divide="ignore"):
            corr = (a * b).sum(axis=0) / scale
        return np.where(scale > 0.0, corr, 0.0)

    def another_sweep(self, particles: np.ndarray) -> bool:
        """Record one sweep; whether another is needed.

        Parameters
        ----------
        particles : numpy.ndarray, shape (n, d)
            The particles after the sweep just made.

        Returns
        -------
        bool
        """
        self.sweeps += 1
        corr = np.abs(self.correlation(particles))
        falling = self.previous - corr >= self.stall
        self.previous = corr
        remembering = (corr > self.max_correlation) & falling
        return bool(np.any(remembering)) and self.sweeps < self.max_sweeps


def default_max_sweeps(dim: int) -> int:
    """The default cap on a stage's sweeps in ``dim`` dimensions: ``max(30, 5 * dim)``.

    A random walk at its optimal scale has an autocorrelation time of about ``3 d`` iterations
    on a Gaussian (efficiency ``0.33 / d``, Roberts, Gelman and Gilks, 1997), so bringing a
    correlation down to 0.1 takes about ``3.5 d`` sweeps; a fixed cap of 30 cut every stage of
    a 35-dimensional posterior short (fewer distinct particles, noisier estimates).

    Parameters
    ----------
    dim : int

    Returns
    -------
    int
    """
    return max(30, 5 * int(dim))
