"""A hierarchical normal model with exact posterior draws (NumPy/SciPy only).

Group means ``theta_j`` of ``J`` groups, each seen through one noisy measurement::

    mu ~ N(0, 5^2),  tau ~ HalfNormal(5),  theta_j ~ N(mu, tau^2),  y_j ~ N(theta_j, sigma_j^2)

sampled as the vector ``x = (mu, log tau, theta_1, ..., theta_J)`` of dimension ``J + 2``: the
*centred* parametrisation a PyMC user writes first, with its funnel between ``log tau`` and the
group means. The data (``sigma_j`` and ``y_j``) are drawn once from the model at ``mu = 1``,
``tau = 2``, seeded by ``J``, so every run of a dimension sees the same posterior.

The posterior is exact: ``tau`` has a one-dimensional marginal (``mu`` and ``theta`` integrate
out in closed form), tabulated on a fine grid of ``log tau``; given ``tau``, ``mu`` is Gaussian,
and given both, the ``theta_j`` are independent Gaussians. The same chain of conditionals maps a
posterior draw to standard normal coordinates (the Rosenblatt transform), whose squared norm is
exactly chi-squared with ``J + 2`` degrees of freedom: the benchmark's accuracy statistic.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property

import numpy as np
from scipy import special

__all__ = [
    "HierarchicalNormal",
    "hierarchical_normal",
]

MU_PRIOR_SD = 5.0
TAU_PRIOR_SD = 5.0
_TRUE_MU, _TRUE_TAU = 1.0, 2.0
_DATA_SEED = 4242
_GRID = np.linspace(-9.0, 4.0, 26_001)  # log tau; the posterior mass outside is < 1e-12


@dataclass(frozen=True)
class HierarchicalNormal:
    """The centred hierarchical normal model of the module docstring, with its data.

    Parameters
    ----------
    y : numpy.ndarray, shape (J,)
        One measurement per group.
    sigma : numpy.ndarray, shape (J,)
        Its known noise standard deviation.
    """

    y: np.ndarray
    sigma: np.ndarray

    @property
    def dim(self) -> int:
        """Dimension of the sampled vector, ``J + 2``."""
        return self.y.size + 2

    def log_density(self, x: np.ndarray) -> np.ndarray:
        """Unnormalised log posterior of ``x = (mu, log tau, theta)``; shape ``(..., J + 2)``.

        Parameters
        ----------
        x : numpy.ndarray

        Returns
        -------
        numpy.ndarray
            Shape ``x.shape[:-1]``.
        """
        mu, log_tau, theta = x[..., 0], x[..., 1], x[..., 2:]
        tau = np.exp(log_tau)
        group = -0.5 * np.sum(((theta - mu[..., None]) / tau[..., None]) ** 2, axis=-1)
        group -= self.y.size * log_tau
        data = -0.5 * np.sum(((self.y - theta) / self.sigma) ** 2, axis=-1)
        # HalfNormal on tau, with the Jacobian tau of the log transform
        prior = -0.5 * (mu / MU_PRIOR_SD) ** 2 - 0.5 * (tau / TAU_PRIOR_SD) ** 2 + log_tau
        return prior + group + data

    def _mu_given_tau(self, tau: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Mean and sd of ``mu | tau, y`` (``theta`` integrated out)."""
        weights = 1.0 / (self.sigma**2 + tau[..., None] ** 2)
        precision = 1.0 / MU_PRIOR_SD**2 + weights.sum(axis=-1)
        return (weights * self.y).sum(axis=-1) / precision, 1.0 / np.sqrt(precision)

    def _theta_given(self, mu: np.ndarray, tau: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Means and sds of ``theta_j | mu, tau, y``."""
        precision = 1.0 / self.sigma**2 + 1.0 / tau[..., None] ** 2
        mean = (self.y / self.sigma**2 + mu[..., None] / tau[..., None] ** 2) / precision
        return mean, 1.0 / np.sqrt(precision)

    @cached_property
    def _log_tau_table(self) -> tuple[np.ndarray, np.ndarray]:
        """The grid of ``log tau`` and the marginal posterior's CDF on it."""
        tau = np.exp(_GRID)
        variance = self.sigma**2 + tau[:, None] ** 2
        mean, sd = self._mu_given_tau(tau)
        # log p(y | tau) up to a constant: y ~ N(mu 1, diag(variance)), mu ~ N(0, 5^2) out
        log_marginal = (
            -0.5 * np.sum(np.log(variance) + self.y**2 / variance, axis=1)
            + 0.5 * (mean / sd) ** 2
            + np.log(sd)
        )
        log_post = log_marginal - 0.5 * (tau / TAU_PRIOR_SD) ** 2 + _GRID
        density = np.exp(log_post - log_post.max())
        cdf = np.concatenate([[0.0], np.cumsum(0.5 * (density[1:] + density[:-1]))])
        return _GRID, cdf / cdf[-1]

    def posterior_mean(self) -> np.ndarray:
        """The exact posterior mean of ``(mu, log tau, theta)``, by quadrature over ``log tau``.

        Returns
        -------
        numpy.ndarray, shape (J + 2,)
        """
        grid, cdf = self._log_tau_table
        weights = np.diff(cdf)
        log_tau = 0.5 * (grid[1:] + grid[:-1])
        mu, _ = self._mu_given_tau(np.exp(log_tau))
        theta, _ = self._theta_given(mu, np.exp(log_tau))  # linear in mu: E[theta | tau] exactly
        return np.concatenate([[weights @ mu, weights @ log_tau], weights @ theta])

    def exact_draws(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` independent posterior draws, shape ``(n, J + 2)``.

        Parameters
        ----------
        n : int
        rng : numpy.random.Generator

        Returns
        -------
        numpy.ndarray
        """
        grid, cdf = self._log_tau_table
        log_tau = np.interp(rng.random(n), cdf, grid)
        tau = np.exp(log_tau)
        mean, sd = self._mu_given_tau(tau)
        mu = mean + sd * rng.standard_normal(n)
        theta_mean, theta_sd = self._theta_given(mu, tau)
        theta = theta_mean + theta_sd * rng.standard_normal(theta_mean.shape)
        return np.column_stack([mu, log_tau, theta])

    def gaussianise(self, x: np.ndarray) -> np.ndarray:
        """The Rosenblatt transform: exact posterior draws map to N(0, I).

        Parameters
        ----------
        x : numpy.ndarray
            Shape ``(..., J + 2)``.

        Returns
        -------
        numpy.ndarray
            Same shape.
        """
        grid, cdf = self._log_tau_table
        u_tau = np.clip(np.interp(x[..., 1], grid, cdf), 1e-300, 1.0 - 1e-16)
        tau = np.exp(x[..., 1])
        mean, sd = self._mu_given_tau(tau)
        theta_mean, theta_sd = self._theta_given(x[..., 0], tau)
        return np.concatenate(
            [
                special.ndtri(u_tau)[..., None],
                ((x[..., 0] - mean) / sd)[..., None],
                (x[..., 2:] - theta_mean) / theta_sd,
            ],
            axis=-1,
        )

    def chi2_statistic(self, x: np.ndarray) -> np.ndarray:
        """Squared norm of :meth:`gaussianise`: chi-squared with ``J + 2`` degrees of freedom.

        Parameters
        ----------
        x : numpy.ndarray
            Shape ``(..., J + 2)``.

        Returns
        -------
        numpy.ndarray
            Shape ``x.shape[:-1]``.
        """
        return np.sum(self.gaussianise(x) ** 2, axis=-1)


@cache
def hierarchical_normal(n_groups: int) -> HierarchicalNormal:
    """The model with ``n_groups`` groups and its fixed, seeded data.

    Parameters
    ----------
    n_groups : int
        ``J`` (at least 1); the sampled dimension is ``J + 2``.

    Returns
    -------
    HierarchicalNormal

    Raises
    ------
    ValueError
        If ``n_groups < 1``.
    """
    if n_groups < 1:
        raise ValueError(f"a hierarchical model needs at least one group, got n_groups={n_groups}")
    rng = np.random.default_rng(_DATA_SEED + n_groups)
    sigma = rng.uniform(0.5, 1.5, size=n_groups)
    theta = _TRUE_MU + _TRUE_TAU * rng.standard_normal(n_groups)
    y = theta + sigma * rng.standard_normal(n_groups)
    return HierarchicalNormal(y=y, sigma=sigma)
