"""Approximate Bayesian computation (ABC) target with a skew-normal simulator (NumPy/SciPy).

This is the ABC experiment of the Kernel Hamiltonian Monte Carlo (KMC) paper: the likelihood
of a ``d = 10`` dimensional skew-normal model is treated as unavailable and replaced by an
unbiased simulation-based estimate of the ABC likelihood.

Simulator
---------
``y | theta ~ SN_d(xi = theta, Omega = I, alpha)`` with ``alpha = 10 * 1`` is the
*multivariate* skew-normal distribution of Azzalini & Dalla Valle (1996), density
``2 phi_d(y - xi; Omega) Phi(alpha^T (y - xi))``. With ``Omega = I`` it is **not** the product
of ``d`` univariate skew-normals with shape 10: the coordinates are dependent and each
marginal is univariate skew-normal with the much smaller shape
``delta_j / sqrt(1 - delta_j**2)``, where

``delta = Omega alpha / sqrt(1 + alpha^T Omega alpha)``

(``delta_j = 10 / sqrt(1001)`` and marginal shape ``10 / sqrt(901) = 0.333`` for the
experiment). Draws use the additive stochastic representation

``Z = delta |U_0| + V``,  ``U_0 ~ N(0, 1)`` independent of ``V ~ N(0, Omega - delta delta^T)``,
``y = xi + Z``.

For ``Omega = I`` the symmetric square root of ``I - delta delta^T`` is
``I - c u u^T`` with ``u = delta / ||delta||`` and ``c = 1 - sqrt(1 - ||delta||**2)``, so
``V = U - c u (u^T U)`` with ``U ~ N(0, I)`` costs ``O(d)`` per draw. The mean is
``xi + sqrt(2 / pi) delta`` and the covariance ``Omega - (2 / pi) delta delta^T``.

ABC likelihood
--------------
One simulated data set is ``n_draws = 10`` draws and its summary is their mean. The observed
summary is one such mean at ``theta_true = 10 * 1`` (:func:`observed_summary`; the seed is
:data:`ABC_OBSERVED_SEED` with NumPy's PCG64 generator; the paper used R's generator, so the
exact numbers differ). With a Gaussian ABC kernel of bandwidth ``epsilon = 0.55``,

``p_eps(s_obs | theta) = E_s[ N(s_obs; s, epsilon**2 I) ]``,  ``s`` a simulated summary,

and averaging the Gaussian density (including its normalising constant
``(2 pi epsilon**2)**(-d/2)``) over ``n_simulations`` fresh summaries is an unbiased estimate
of it. :func:`abc_log_likelihood_estimate` returns the log of that average, computed with a
log-sum-exp, so it is finite for every finite ``theta``. The prior is ``N(0, 25 I)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.special import logsumexp

from pymc_kameleon.core.checks import check_int, check_positive, check_rng

__all__ = [
    "ABC_DIMENSION",
    "ABC_EPSILON",
    "ABC_N_DRAWS",
    "ABC_N_SIMULATIONS",
    "ABC_OBSERVED_SEED",
    "ABC_PRIOR_VARIANCE",
    "ABC_SHAPE",
    "ABC_THETA_TRUE",
    "ABCLogLikelihoodEstimator",
    "abc_log_likelihood_estimate",
    "abc_log_prior",
    "make_abc_log_likelihood_estimator",
    "observed_summary",
    "sample_skew_normal",
    "simulate_summaries",
    "skew_normal_covariance",
    "skew_normal_delta",
    "skew_normal_marginal_shape",
    "skew_normal_mean",
]

ABC_DIMENSION = 10
"""Dimension ``d`` of ``theta`` and of the data in the experiment."""

ABC_SHAPE = 10.0
"""Every entry of the skew-normal shape vector ``alpha``."""

ABC_THETA_TRUE = np.full(ABC_DIMENSION, 10.0)
"""Location used to simulate the observed summary."""
ABC_THETA_TRUE.setflags(write=False)

ABC_N_DRAWS = 10
"""Draws per simulated data set (its summary is their mean)."""

ABC_N_SIMULATIONS = 10
"""Simulated data sets per likelihood estimate."""

ABC_EPSILON = 0.55
"""Bandwidth (standard deviation) of the Gaussian ABC kernel."""

ABC_PRIOR_VARIANCE = 25.0
"""Variance of the independent Gaussian prior on each coordinate of ``theta``."""

ABC_OBSERVED_SEED = 0
"""Seed of ``numpy.random.default_rng`` that produces the observed summary."""

_LOG_2PI = math.log(2.0 * math.pi)


# --------------------------------------------------------------------------- validation


def _as_vector(value: np.ndarray, name: str, d: int | None = None) -> np.ndarray:
    """Return ``value`` as a float64 1-D array (of length ``d`` if given) or raise."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a real 1-D array; got {value!r}") from None
    if arr.ndim != 1 or arr.size < 1:
        raise ValueError(f"{name} must be a non-empty 1-D array; got shape {arr.shape}")
    if d is not None and arr.shape != (d,):
        raise ValueError(f"{name} must have shape ({d},) to match s_obs; got shape {arr.shape}")
    return arr


def _check_finite(arr: np.ndarray, name: str) -> np.ndarray:
    """Return ``arr`` after checking that it holds only finite values."""
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite values; found NaN or inf")
    return arr


def _shape_vector(shape: float | np.ndarray, d: int) -> np.ndarray:
    """Broadcast the skew-normal shape (scalar or length ``d``) to a finite vector."""
    try:
        alpha = np.asarray(shape, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"shape must be a real scalar or a vector of length {d}") from None
    if alpha.ndim == 0:
        alpha = np.full(d, float(alpha))
    if alpha.shape != (d,):
        raise ValueError(
            f"shape must be a scalar or have shape ({d},) like the location; got {alpha.shape}"
        )
    return _check_finite(alpha, "shape")


# --------------------------------------------------------------------------- skew-normal


def skew_normal_delta(shape: float | np.ndarray, d: int | None = None) -> np.ndarray:
    """``delta = alpha / sqrt(1 + alpha^T alpha)`` of ``SN_d(xi, Omega = I, alpha)``.

    Parameters
    ----------
    shape : float or numpy.ndarray
        Shape vector ``alpha`` of length ``d``, or a scalar used for every entry.
    d : int, optional
        Dimension; taken from ``shape`` when it is a vector, else 10.

    Returns
    -------
    numpy.ndarray
        ``delta`` of shape ``(d,)``; ``||delta|| < 1``.
    """
    if d is None:
        d = ABC_DIMENSION if np.ndim(shape) == 0 else int(np.size(shape))
    alpha = _shape_vector(shape, check_int("d", d, minimum=1))
    return alpha / math.sqrt(1.0 + float(alpha @ alpha))


def skew_normal_mean(location: np.ndarray, shape: float | np.ndarray) -> np.ndarray:
    """Mean ``xi + sqrt(2 / pi) delta`` of ``SN_d(xi, I, alpha)``.

    Parameters
    ----------
    location : numpy.ndarray
        Location ``xi`` of shape ``(d,)``.
    shape : float or numpy.ndarray
        Shape ``alpha`` (scalar or ``(d,)``).

    Returns
    -------
    numpy.ndarray
        Mean of shape ``(d,)``.
    """
    xi = _check_finite(_as_vector(location, "location"), "location")
    return xi + math.sqrt(2.0 / math.pi) * skew_normal_delta(shape, xi.size)


def skew_normal_covariance(shape: float | np.ndarray, d: int | None = None) -> np.ndarray:
    """Covariance ``I - (2 / pi) delta delta^T`` of ``SN_d(xi, I, alpha)``.

    Parameters
    ----------
    shape : float or numpy.ndarray
        Shape ``alpha`` (scalar or ``(d,)``).
    d : int, optional
        Dimension; taken from ``shape`` when it is a vector, else 10.

    Returns
    -------
    numpy.ndarray
        Covariance of shape ``(d, d)``.
    """
    delta = skew_normal_delta(shape, d)
    return np.eye(delta.size) - (2.0 / math.pi) * np.outer(delta, delta)


def skew_normal_marginal_shape(shape: float | np.ndarray, d: int | None = None) -> np.ndarray:
    """Shapes ``delta_j / sqrt(1 - delta_j**2)`` of the univariate marginals of ``SN_d``.

    Coordinate ``j`` of ``SN_d(xi, I, alpha)`` is univariate skew-normal with location
    ``xi_j``, scale 1 and this shape (``scipy.stats.skewnorm(a, loc=xi_j, scale=1)``).

    Parameters
    ----------
    shape : float or numpy.ndarray
        Shape ``alpha`` (scalar or ``(d,)``).
    d : int, optional
        Dimension; taken from ``shape`` when it is a vector, else 10.

    Returns
    -------
    numpy.ndarray
        Marginal shapes of shape ``(d,)``.
    """
    delta = skew_normal_delta(shape, d)
    return delta / np.sqrt(1.0 - delta**2)


def _standard_skew_normal(
    delta: np.ndarray, size: tuple[int, ...], rng: np.random.Generator
) -> np.ndarray:
    """Draws of ``SN_d(0, I, alpha)`` given ``delta``; output shape ``size + (d,)``.

    Uses one block of standard normals of shape ``size + (d + 1,)``: the first column is
    ``U_0``, the others ``U``; ``Z = delta |U_0| + U - c u (u^T U)`` (module docstring).
    """
    d = delta.size
    normals = rng.standard_normal((*size, d + 1))
    u0 = np.abs(normals[..., :1])
    U = normals[..., 1:]
    norm_sq = float(delta @ delta)
    if norm_sq > 0.0:
        unit = delta / math.sqrt(norm_sq)
        c = 1.0 - math.sqrt(1.0 - norm_sq)
        U = U - c * (U @ unit)[..., None] * unit
    return delta * u0 + U


def sample_skew_normal(
    location: np.ndarray, shape: float | np.ndarray, size: int, rng: np.random.Generator
) -> np.ndarray:
    """Draw from the multivariate skew-normal ``SN_d(xi = location, Omega = I, alpha = shape)``.

    Parameters
    ----------
    location : numpy.ndarray
        Location ``xi`` of shape ``(d,)``.
    shape : float or numpy.ndarray
        Shape ``alpha`` (scalar or ``(d,)``); ``0`` gives ``N(xi, I)``.
    size : int
        Number of draws.
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    numpy.ndarray
        Draws of shape ``(size, d)``.

    Raises
    ------
    ValueError
        If an argument has the wrong shape or is not finite, ``size < 1`` or ``rng`` is not
        a ``Generator``.
    """
    xi = _check_finite(_as_vector(location, "location"), "location")
    delta = skew_normal_delta(shape, xi.size)
    size = check_int("size", size, minimum=1)
    return xi + _standard_skew_normal(delta, (size,), check_rng("rng", rng))


def simulate_summaries(
    theta: np.ndarray,
    n_simulations: int,
    rng: np.random.Generator,
    n_draws: int = ABC_N_DRAWS,
    shape: float | np.ndarray = ABC_SHAPE,
) -> np.ndarray:
    """Summaries (means of ``n_draws`` skew-normal draws) of independent simulated data sets.

    Parameters
    ----------
    theta : numpy.ndarray
        Location ``xi`` of shape ``(d,)``.
    n_simulations : int
        Number of simulated data sets.
    rng : numpy.random.Generator
        Source of randomness.
    n_draws : int, default 10
        Draws per data set.
    shape : float or numpy.ndarray, default 10.0
        Skew-normal shape ``alpha`` (scalar or ``(d,)``).

    Returns
    -------
    numpy.ndarray
        Summaries of shape ``(n_simulations, d)``.

    Raises
    ------
    ValueError
        If an argument has the wrong shape or is not finite, a count is below one, or
        ``rng`` is not a ``Generator``.
    """
    xi = _check_finite(_as_vector(theta, "theta"), "theta")
    delta = skew_normal_delta(shape, xi.size)
    n_simulations = check_int("n_simulations", n_simulations, minimum=1)
    n_draws = check_int("n_draws", n_draws, minimum=1)
    draws = _standard_skew_normal(delta, (n_simulations, n_draws), check_rng("rng", rng))
    return xi + draws.mean(axis=1)


def observed_summary(
    seed: int = ABC_OBSERVED_SEED,
    theta_true: np.ndarray = ABC_THETA_TRUE,
    n_draws: int = ABC_N_DRAWS,
    shape: float | np.ndarray = ABC_SHAPE,
) -> np.ndarray:
    """The observed summary: one simulated summary at ``theta_true`` from a fixed seed.

    Parameters
    ----------
    seed : int, default 0
        Seed passed to ``numpy.random.default_rng``.
    theta_true : numpy.ndarray, default ``10 * ones(10)``
        Location used for the simulation.
    n_draws : int, default 10
        Draws averaged into the summary.
    shape : float or numpy.ndarray, default 10.0
        Skew-normal shape.

    Returns
    -------
    numpy.ndarray
        Summary of shape ``(d,)``.
    """
    rng = np.random.default_rng(seed)
    return simulate_summaries(theta_true, 1, rng, n_draws=n_draws, shape=shape)[0]


# --------------------------------------------------------------------------- ABC likelihood


def abc_log_likelihood_estimate(
    theta: np.ndarray,
    s_obs: np.ndarray,
    rng: np.random.Generator,
    n_simulations: int = ABC_N_SIMULATIONS,
    epsilon: float = ABC_EPSILON,
    n_draws: int = ABC_N_DRAWS,
    shape: float | np.ndarray = ABC_SHAPE,
) -> float:
    """Log of an unbiased estimate of the ABC likelihood ``p_eps(s_obs | theta)``.

    ``log[(1/S) sum_s N(s_obs; s_s, epsilon**2 I)]`` over ``S = n_simulations`` simulated
    summaries ``s_s`` (:func:`simulate_summaries`), evaluated with a log-sum-exp.

    Parameters
    ----------
    theta : numpy.ndarray
        Location parameter of shape ``(d,)``.
    s_obs : numpy.ndarray
        Observed summary of shape ``(d,)``.
    rng : numpy.random.Generator
        Source of randomness.
    n_simulations : int, default 10
        Simulated data sets per estimate.
    epsilon : float, default 0.55
        Standard deviation of the Gaussian ABC kernel.
    n_draws : int, default 10
        Draws per simulated data set.
    shape : float or numpy.ndarray, default 10.0
        Skew-normal shape.

    Returns
    -------
    float
        The log estimate: finite for every finite ``theta``; ``-inf`` if ``theta`` is not
        finite (outside the prior's support, so a sampler rejects it).

    Raises
    ------
    ValueError
        If ``theta`` and ``s_obs`` are not vectors of the same length, ``s_obs`` is not
        finite, a count is below one, ``epsilon <= 0`` or ``rng`` is not a ``Generator``.
    """
    s_obs = _check_finite(_as_vector(s_obs, "s_obs"), "s_obs")
    theta = _as_vector(theta, "theta", s_obs.size)
    epsilon = check_positive("epsilon", epsilon)
    n_simulations = check_int("n_simulations", n_simulations, minimum=1)
    _shape_vector(shape, s_obs.size)
    check_int("n_draws", n_draws, minimum=1)
    check_rng("rng", rng)
    if not np.all(np.isfinite(theta)):
        return -math.inf
    summaries = simulate_summaries(theta, n_simulations, rng, n_draws=n_draws, shape=shape)
    sq_dist = np.sum((summaries - s_obs) ** 2, axis=1)
    log_norm = -0.5 * s_obs.size * (_LOG_2PI + 2.0 * math.log(epsilon))
    return float(logsumexp(-0.5 * sq_dist / epsilon**2) - math.log(n_simulations) + log_norm)


def abc_log_prior(theta: np.ndarray, variance: float = ABC_PRIOR_VARIANCE) -> float:
    """Log density of the prior ``theta ~ N(0, variance * I)`` (default variance 25).

    Parameters
    ----------
    theta : numpy.ndarray
        Parameter of shape ``(d,)``.
    variance : float, default 25.0
        Prior variance of each coordinate.

    Returns
    -------
    float
        ``sum_d log N(theta_d; 0, variance)``; ``-inf`` if ``theta`` is not finite.

    Raises
    ------
    ValueError
        If ``theta`` is not a non-empty 1-D array or ``variance`` is not positive.
    """
    theta = _as_vector(theta, "theta")
    variance = check_positive("variance", variance)
    if not np.all(np.isfinite(theta)):
        return -math.inf
    log_norm = -0.5 * theta.size * (_LOG_2PI + math.log(variance))
    return float(-0.5 * np.sum(theta**2) / variance + log_norm)


@dataclass(frozen=True)
class ABCLogLikelihoodEstimator:
    """Black-box ``estimate(theta, rng) -> float`` for a fixed observed summary.

    Calling the instance returns :func:`abc_log_likelihood_estimate` with the stored
    settings. Instances are immutable and picklable.

    Parameters
    ----------
    s_obs : numpy.ndarray
        Observed summary of shape ``(d,)`` (read-only copy).
    n_simulations : int
        Simulated data sets per estimate.
    epsilon : float
        Standard deviation of the Gaussian ABC kernel.
    n_draws : int
        Draws per simulated data set.
    shape : float
        Skew-normal shape, the same for every coordinate.
    """

    s_obs: np.ndarray = field(repr=False)
    n_simulations: int = ABC_N_SIMULATIONS
    epsilon: float = ABC_EPSILON
    n_draws: int = ABC_N_DRAWS
    shape: float = ABC_SHAPE

    def __post_init__(self) -> None:
        """Validate and freeze the settings."""
        s_obs = _check_finite(_as_vector(self.s_obs, "s_obs"), "s_obs").copy()
        s_obs.setflags(write=False)
        object.__setattr__(self, "s_obs", s_obs)
        n_sim = check_int("n_simulations", self.n_simulations, minimum=1)
        object.__setattr__(self, "n_simulations", n_sim)
        object.__setattr__(self, "epsilon", check_positive("epsilon", self.epsilon))
        object.__setattr__(self, "n_draws", check_int("n_draws", self.n_draws, minimum=1))
        if np.ndim(self.shape) != 0:
            raise ValueError(f"shape must be a real scalar; got {self.shape!r}")
        object.__setattr__(self, "shape", float(_shape_vector(self.shape, 1)[0]))

    @property
    def ndim(self) -> int:
        """Dimension of ``theta``."""
        return int(self.s_obs.size)

    def __call__(self, theta: np.ndarray, rng: np.random.Generator) -> float:
        """Return a log estimate of ``p_eps(s_obs | theta)``.

        Parameters
        ----------
        theta : numpy.ndarray
            Location parameter of shape ``(d,)``.
        rng : numpy.random.Generator
            Source of randomness.

        Returns
        -------
        float
            The log estimate (see :func:`abc_log_likelihood_estimate`).
        """
        return abc_log_likelihood_estimate(
            theta,
            self.s_obs,
            rng,
            n_simulations=self.n_simulations,
            epsilon=self.epsilon,
            n_draws=self.n_draws,
            shape=self.shape,
        )


def make_abc_log_likelihood_estimator(
    s_obs: np.ndarray | None = None,
    n_simulations: int = ABC_N_SIMULATIONS,
    epsilon: float = ABC_EPSILON,
    n_draws: int = ABC_N_DRAWS,
    shape: float = ABC_SHAPE,
) -> ABCLogLikelihoodEstimator:
    """Build the callable ``estimate(theta, rng) -> float`` for the skew-normal ABC target.

    Parameters
    ----------
    s_obs : numpy.ndarray, optional
        Observed summary; defaults to :func:`observed_summary` with the given ``n_draws``
        and ``shape`` (the experiment's data for the default settings).
    n_simulations : int, default 10
        Simulated data sets per estimate.
    epsilon : float, default 0.55
        Standard deviation of the Gaussian ABC kernel.
    n_draws : int, default 10
        Draws per simulated data set.
    shape : float, default 10.0
        Skew-normal shape, the same for every coordinate.

    Returns
    -------
    ABCLogLikelihoodEstimator
        Immutable, picklable callable.

    Raises
    ------
    ValueError
        If a setting is invalid.
    """
    if s_obs is None:
        s_obs = observed_summary(n_draws=n_draws, shape=shape)
    return ABCLogLikelihoodEstimator(
        s_obs=s_obs, n_simulations=n_simulations, epsilon=epsilon, n_draws=n_draws, shape=shape
    )
