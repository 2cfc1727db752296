"""The skew-normal ABC likelihood in closed form up to a one-dimensional quadrature (NumPy/SciPy).

:mod:`pymc_kameleon.targets.abc_skew_normal` estimates the ABC likelihood by simulation. It is
in fact tractable. One draw is ``y = theta + delta |U_0| + V`` with ``V ~ N(0, I - delta
delta^T)``, so the summary (the mean of ``n`` draws) is

``s = theta + delta T + W``,  ``T`` the mean of ``n`` iid half-normals ``|U_0|``,
``W ~ N(0, (I - delta delta^T) / n)`` independent of ``T``,

and with the Gaussian ABC kernel of bandwidth ``epsilon``

``p_eps(s_obs | theta) = int N(s_obs; theta + delta t, Sigma_eps) p_T(t) dt``,
``Sigma_eps = (I - delta delta^T) / n + epsilon**2 I``.

``epsilon = 0`` gives the exact density of the summary.

The density of ``T`` and the quadrature rule over ``t`` are in
:mod:`pymc_kameleon.targets.half_normal_mean`. The likelihood is a log-sum-exp over that grid
(:func:`abc_log_likelihood_exact`); the grid step is chosen at least four points per standard
deviation of the Gaussian factor in ``t``, which is narrow for ``epsilon = 0`` (0.01 in the
experiment).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import linalg, special

from pymc_kameleon.core.checks import check_int, check_nonnegative
from pymc_kameleon.targets.abc_skew_normal import (
    ABC_EPSILON,
    ABC_N_DRAWS,
    ABC_SHAPE,
    observed_summary,
    skew_normal_delta,
)
from pymc_kameleon.targets.half_normal_mean import (
    check_n_draws,
    grid_end,
    mean_of_half_normals_grid,
)

__all__ = [
    "ABCQuadrature",
    "abc_likelihood_quadrature",
    "abc_log_likelihood_exact",
]

_LOG_2PI = math.log(2.0 * math.pi)
#: grid points per standard deviation of the Gaussian factor in ``t``: chosen and least accepted
_POINTS_PER_WIDTH = 4.0
_MIN_POINTS_PER_WIDTH = 2.0
_MIN_GRID_POINTS = 1000


@dataclass(frozen=True)
class ABCQuadrature:
    """Everything :func:`abc_log_likelihood_exact` needs, precomputed for one ``epsilon``.

    With ``L`` the Cholesky factor of ``Sigma_eps``, ``z = L^-1 (s_obs - theta)`` and
    ``u = L^-1 delta``, the Gaussian factor is ``N(s_obs; theta + delta t, Sigma_eps) =
    exp(log_norm - (q + |u|**2 (t - m)**2) / 2)`` with ``m = u.z / |u|**2`` and
    ``q = |z - m u|**2``, so

    ``log p_eps = logsumexp_j(log_weights_j - |u|**2 (t_j - m)**2 / 2) - q / 2 + log_norm``.

    Parameters
    ----------
    s_obs : numpy.ndarray
        Observed summary, shape ``(d,)``.
    t_grid, log_weights : numpy.ndarray
        The quadrature rule of :func:`mean_of_half_normals_grid`.
    whitener : numpy.ndarray
        ``L^-1``, shape ``(d, d)``.
    white_delta : numpy.ndarray
        ``u = L^-1 delta``, shape ``(d,)``.
    log_norm : float
        ``-(d log(2 pi) + log det Sigma_eps) / 2``.
    """

    s_obs: np.ndarray
    t_grid: np.ndarray
    log_weights: np.ndarray
    whitener: np.ndarray
    white_delta: np.ndarray
    log_norm: float

    @property
    def width(self) -> float:
        """Standard deviation ``1 / |u|`` of the Gaussian factor as a function of ``t``."""
        return float(1.0 / np.linalg.norm(self.white_delta))


def _summary_cholesky(delta: np.ndarray, epsilon: float, n_draws: int) -> np.ndarray:
    """Lower Cholesky factor of ``(I - delta delta^T) / n_draws + epsilon**2 I``."""
    d = delta.size
    cov = (np.eye(d) - np.outer(delta, delta)) / n_draws + epsilon**2 * np.eye(d)
    return np.linalg.cholesky(cov)


def _grid_points(width: float, n_draws: int, n_points: int | None) -> int:
    """Grid size: at least four points per ``width``, or a checked explicit ``n_points``."""
    end = grid_end(n_draws)
    if n_points is None:
        return max(_MIN_GRID_POINTS, math.ceil(_POINTS_PER_WIDTH * end / width))
    n_points = check_int("n_points", n_points, minimum=100, also="None")
    needed = math.ceil(_MIN_POINTS_PER_WIDTH * end / width)
    if n_points < needed:
        raise ValueError(
            f"n_points={n_points} is too coarse for this epsilon: the Gaussian factor is "
            f"{width:.3g} wide in t and needs at least {needed} points on [0, {end:.3g}]; "
            "pass n_points=None to choose it automatically"
        )
    return n_points


def abc_likelihood_quadrature(
    epsilon: float = ABC_EPSILON,
    s_obs: np.ndarray | None = None,
    n_draws: int = ABC_N_DRAWS,
    shape: float | np.ndarray = ABC_SHAPE,
    n_points: int | None = None,
) -> ABCQuadrature:
    """Precompute the quadrature of the exact ABC likelihood for one ``epsilon``.

    Parameters
    ----------
    epsilon : float, default 0.55
        ABC kernel bandwidth; 0 for the exact density of the summary.
    s_obs : numpy.ndarray, optional
        Observed summary, shape ``(d,)``; defaults to
        :func:`~pymc_kameleon.targets.abc_skew_normal.observed_summary`.
    n_draws : int, default 10
        Draws averaged into a summary (at least
        :data:`~pymc_kameleon.targets.half_normal_mean.MIN_N_DRAWS`).
    shape : float or numpy.ndarray, default 10.0
        Skew-normal shape ``alpha`` (scalar or ``(d,)``).
    n_points : int, optional
        Grid size; by default four points per standard deviation of the Gaussian factor in
        ``t`` (at least 1000).

    Returns
    -------
    ABCQuadrature

    Raises
    ------
    ValueError
        If ``epsilon`` is negative or not finite, ``s_obs`` is not a finite vector, ``n_draws``
        is below 6 or ``n_points`` is too small for ``epsilon``.
    """
    epsilon = check_nonnegative(
        "epsilon", epsilon, hint="Use epsilon=0 for the exact likelihood of the summary."
    )
    n_draws = check_n_draws(n_draws)
    if s_obs is None:
        s_obs = observed_summary(n_draws=n_draws, shape=shape)
    s_obs = np.array(s_obs, dtype=np.float64)
    if s_obs.ndim != 1 or s_obs.size < 1 or not np.all(np.isfinite(s_obs)):
        raise ValueError(f"s_obs must be a finite 1-D array; got shape {s_obs.shape}")
    delta = skew_normal_delta(shape, s_obs.size)
    chol = _summary_cholesky(delta, epsilon, n_draws)
    whitener = linalg.solve_triangular(chol, np.eye(s_obs.size), lower=True)
    white_delta = whitener @ delta
    width = 1.0 / float(np.linalg.norm(white_delta))
    t_grid, log_weights = mean_of_half_normals_grid(n_draws, _grid_points(width, n_draws, n_points))
    log_norm = -0.5 * s_obs.size * _LOG_2PI - float(np.sum(np.log(np.diag(chol))))
    return ABCQuadrature(s_obs, t_grid, log_weights, whitener, white_delta, log_norm)


def _check_theta(theta: np.ndarray, d: int) -> np.ndarray:
    """``theta`` as a float array of shape ``(d,)`` or ``(n, d)``, finite, or raise."""
    try:
        arr = np.asarray(theta, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"theta must be a real array of shape ({d},) or (n, {d})") from None
    if arr.ndim not in (1, 2) or arr.shape[-1] != d:
        raise ValueError(
            f"theta must have shape ({d},) or (n, {d}) to match s_obs; got shape {arr.shape}; "
            "pass one parameter vector or a batch of them as rows"
        )
    if not np.all(np.isfinite(arr)):
        raise ValueError(
            "theta must contain only finite values; found NaN or inf (the likelihood is "
            "defined at every finite theta: check the caller's proposal or transform)"
        )
    return arr


def abc_log_likelihood_exact(
    theta: np.ndarray,
    epsilon: float = ABC_EPSILON,
    s_obs: np.ndarray | None = None,
    n_draws: int = ABC_N_DRAWS,
    shape: float | np.ndarray = ABC_SHAPE,
    n_points: int | None = None,
) -> float | np.ndarray:
    """``log p_eps(s_obs | theta)``, the ABC likelihood of the skew-normal target, by quadrature.

    The expectation over simulated summaries that
    :func:`~pymc_kameleon.targets.abc_skew_normal.abc_log_likelihood_estimate` estimates
    without bias; ``epsilon = 0`` gives the exact density of the observed summary.

    Parameters
    ----------
    theta : numpy.ndarray
        Location, shape ``(d,)``, or a batch of them, shape ``(n, d)``.
    epsilon : float, default 0.55
        ABC kernel bandwidth (standard deviation); 0 for no ABC kernel.
    s_obs : numpy.ndarray, optional
        Observed summary; defaults to
        :func:`~pymc_kameleon.targets.abc_skew_normal.observed_summary`.
    n_draws : int, default 10
        Draws averaged into a summary (at least
        :data:`~pymc_kameleon.targets.half_normal_mean.MIN_N_DRAWS`).
    shape : float or numpy.ndarray, default 10.0
        Skew-normal shape.
    n_points : int, optional
        Quadrature grid size (see :func:`abc_likelihood_quadrature`).

    Returns
    -------
    float or numpy.ndarray
        A float for one ``theta``, an array of shape ``(n,)`` for a batch.

    Raises
    ------
    ValueError
        If ``theta`` has the wrong shape or is not finite, or another argument is invalid
        (see :func:`abc_likelihood_quadrature`).

    Notes
    -----
    The grid ends where ``T`` has probability ``exp(-200)`` left (``t_max = 7.1`` in the
    experiment). At a ``theta`` so far from the data that the Gaussian factor peaks beyond
    ``t_max`` (``theta = 0``: the log-likelihood is about -1300), the value is that of ``T``
    truncated there: finite and smooth, so samplers move away, but not the exact tail.
    """
    quad = abc_likelihood_quadrature(epsilon, s_obs, n_draws, shape, n_points)
    arr = _check_theta(theta, quad.s_obs.size)
    z = (quad.s_obs - np.atleast_2d(arr)) @ quad.whitener.T
    u = quad.white_delta
    u_sq = float(u @ u)
    m = (z @ u) / u_sq
    q = np.sum((z - m[:, None] * u) ** 2, axis=1)
    log_terms = quad.log_weights - 0.5 * u_sq * (quad.t_grid - m[:, None]) ** 2
    result = special.logsumexp(log_terms, axis=1) - 0.5 * q + quad.log_norm
    return float(result[0]) if arr.ndim == 1 else result
