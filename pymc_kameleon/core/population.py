"""Metropolis–Hastings moves of a particle population with a Kameleon proposal built from it.

The mutation step of kernel SMC (Schuster, Strathmann, Paige, Sejdinovic, 2017): after each
resampling, the population covers the current tempered target, which is the history a Kameleon
proposal needs. :func:`population_proposal` builds one
:class:`~pymc_kameleon.core.proposals.KameleonProposal` per stage, in the coordinates that whiten
the population (so the exploration term ``gamma`` and the bandwidth are in posterior standard
deviations) and with the population as its subsample. The proposal is then fixed while
:func:`mh_sweep` moves every particle with an exact Metropolis–Hastings test (the proposal is
not symmetric: the reverse density enters the ratio), as often as :class:`DecorrelationRule`
asks. Adapting the proposal from the population between stages keeps each sweep an exact move
for the stage's target.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from pymc_kameleon.core.mh import mh_decide, mh_log_ratio
from pymc_kameleon.core.proposals.affine import AffineMap
from pymc_kameleon.core.proposals.isotropic_walk import IsotropicRandomWalk
from pymc_kameleon.core.proposals.kameleon import KameleonProposal
from pymc_kameleon.core.proposals.mixture import MixtureProposal
from pymc_kameleon.core.proposals.protocol import Proposal
from pymc_kameleon.core.windowed_covariance import RELATIVE_JITTER, whitening_map

__all__ = [
    "DecorrelationRule",
    "components",
    "mh_sweep",
    "population_map",
    "population_proposal",
    "rescale_components",
    "updated_log_factor",
]


def population_map(particles: np.ndarray) -> AffineMap:
    """The affine map that whitens a population: ``u = L^{-1}(x - mean)``, ``L L^T = cov``.

    Parameters
    ----------
    particles : numpy.ndarray, shape (n, d)
        Finite particles as rows, ``n >= 2``.

    Returns
    -------
    AffineMap

    Raises
    ------
    ValueError
        If a coordinate does not vary across the particles, or fewer than ``d + 1`` particles
        are distinct (the population collapsed: its covariance is singular).
    """
    particles = np.asarray(particles, dtype=float)
    _check_distinct(particles)
    cov = np.atleast_2d(np.cov(particles, rowvar=False, ddof=0))
    variances = np.diag(cov).copy()
    if not np.all(variances > 0.0):
        flat = np.flatnonzero(~(variances > 0.0)).tolist()
        raise ValueError(
            f"coordinates {flat} have the same value in every particle: the population "
            "collapsed (a likelihood far narrower than the population can resolve). Use more "
            "particles (`draws`) or a higher `threshold` for more tempering stages."
        )
    cov.flat[:: cov.shape[0] + 1] += RELATIVE_JITTER * variances  # unit-free, keeps it PD
    return whitening_map(particles.mean(axis=0), cov)


def _check_distinct(particles: np.ndarray) -> None:
    n_distinct = np.unique(particles, axis=0).shape[0]
    dim = particles.shape[1]
    if n_distinct < dim + 1:  # fewer points than a d-dimensional covariance needs
        raise ValueError(
            f"the population has only {n_distinct} distinct particles for {dim} coordinates: "
            "it collapsed at resampling, which happens when the likelihood is far narrower "
            "than the prior (prior sds many orders of magnitude above the posterior's, so that "
            "even the smallest tempering step keeps a handful of particles). Give the "
            "parameters priors on the scale of the data, or use more particles (`draws`)."
        )


def population_proposal(
    particles: np.ndarray,
    rng: np.random.Generator,
    *,
    gamma: float,
    n_basis: int,
    global_weight: float = 0.0,
    log_factors: tuple[float, float] = (0.0, 0.0),
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

    Returns
    -------
    KameleonProposal or MixtureProposal
        With map, subsample, bandwidth and scales set; no scale is learned by the proposal
        itself (see :func:`rescale_components`).
    """
    dim = particles.shape[1]
    affine = population_map(particles)
    kameleon = KameleonProposal(dim, gamma=gamma, n_history=n_basis, learn_scale=False)
    kameleon.set_map(affine)
    kameleon.use_states(particles, rng, nu2_factor=math.exp(log_factors[0]))
    if global_weight <= 0.0:
        return kameleon
    walk = IsotropicRandomWalk(dim, learn_scale=False)
    walk.set_map(affine)
    walk.scale.restart(walk.scale.log_scale + log_factors[1])
    return MixtureProposal([(kameleon, 1.0 - global_weight), (walk, global_weight)])


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


def mh_sweep(
    proposal: Proposal,
    particles: np.ndarray,
    log_parts: np.ndarray,
    beta: float,
    evaluate: Callable[[np.ndarray], tuple[float, float]],
    rng: np.random.Generator,
    hastings: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """One Metropolis–Hastings move of every particle, in place, for ``prior + beta * lik``.

    Parameters
    ----------
    proposal : Proposal
        Fixed during the sweep (from :func:`population_proposal`).
    particles : numpy.ndarray, shape (n, d)
        Updated in place.
    log_parts : numpy.ndarray, shape (n, 2)
        Columns: log prior and log likelihood of each particle; updated in place. The stored
        values are never recomputed, so a noisy likelihood estimate stays pseudo-marginal.
    beta : float
        Inverse temperature of the stage.
    evaluate : callable
        ``evaluate(x) -> (log_prior, log_likelihood)`` at a proposed state.
    rng : numpy.random.Generator
    hastings : bool, default True
        Include ``log q(x | x*) - log q(x* | x)``. False is wrong (the proposal is not
        symmetric); it exists for the test suite's negative control.

    Returns
    -------
    accept : numpy.ndarray of float, shape (n,)
        The acceptance probability of each particle's move.
    chosen : numpy.ndarray of int, shape (n,)
        The component (of a mixture; 0 otherwise) that proposed each move.
    """
    accept = np.empty(particles.shape[0])
    chosen = np.zeros(particles.shape[0], dtype=np.int64)
    for i, x in enumerate(particles):
        current = log_parts[i, 0] + beta * log_parts[i, 1]
        x_new, log_q_forward = proposal.propose(x, rng)
        chosen[i] = getattr(proposal, "chosen", 0)
        prior, lik = evaluate(x_new)
        valid = math.isfinite(prior) and not math.isnan(lik) and lik != -math.inf
        proposed = prior + beta * lik if valid else -math.inf
        hastings_terms = (proposal.log_density(x, x_new), log_q_forward) if hastings else (0, 0)
        decision = mh_decide(mh_log_ratio(proposed, current, *hastings_terms), rng)
        accept[i] = decision.accept_prob
        if decision.accepted:
            particles[i] = x_new
            log_parts[i] = prior, lik
    return accept, chosen


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
    max_correlation : float, default 0.5
    max_sweeps : int, default 30
    stall : float, default 0.01
    """

    def __init__(
        self,
        start: np.ndarray,
        max_correlation: float = 0.5,
        max_sweeps: int = 30,
        stall: float = 0.01,
    ) -> None:
        self.start = np.array(start, dtype=float)
        self.max_correlation = max(float(max_correlation), 3.0 / math.sqrt(self.start.shape[0]))
        self.max_sweeps = int(max_sweeps)
        self.stall = float(stall)
        self.sweeps = 0
        self.previous = np.ones(self.start.shape[1])  # every coordinate's correlation at the start

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
