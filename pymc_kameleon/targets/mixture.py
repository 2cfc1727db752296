"""Mixtures of well-separated Gaussians: posteriors whose modes' weights are known exactly.

A sampler that finds one mode and stays there reports a converged-looking answer (R-hat 1.00)
with the other modes' mass missing; the weights make that measurable. :class:`GaussianMixture`
holds isotropic components; those of :data:`MIXTURES` are far enough apart that the region in
which a component has the largest responsibility holds its weight to within ``1e-3``
(``tests/targets/test_mixture.py`` checks it with exact draws): a draw's component is read off by
:meth:`GaussianMixture.components`, and the fraction of draws in each is compared with the
weights in Monte Carlo standard errors (:func:`weight_zscores`).

:meth:`GaussianMixture.model` writes it as a PyMC model in either of two forms a user would
write: ``pm.Mixture`` of ``pm.MvNormal`` components (the prior is the posterior), or a broad
normal prior with the mixture as a ``pm.Potential`` likelihood (the prior divided out, so the
posterior is the mixture exactly, while the start-up's prior draws are the broad normal's).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pymc as pm
import pytensor.tensor as pt
from scipy.special import logsumexp

from pymc_kameleon.diagnostics import ZScores, mcse_zscores

__all__ = ["MIXTURES", "GaussianMixture", "weight_zscores"]

_LOG_2PI = float(np.log(2.0 * np.pi))


@dataclass(frozen=True)
class GaussianMixture:
    """``sum_k w_k N(mu_k, s_k^2 I)`` in ``d`` dimensions.

    Parameters
    ----------
    weights : tuple of float
        Sum 1.
    means : tuple of tuple of float
        One centre per component, each of length ``d``.
    sds : tuple of float
        Each component's standard deviation (isotropic).
    """

    weights: tuple[float, ...]
    means: tuple[tuple[float, ...], ...]
    sds: tuple[float, ...]

    def __post_init__(self) -> None:
        if not np.isclose(sum(self.weights), 1.0) or min(self.weights) <= 0.0:
            raise ValueError(f"weights must be positive and sum to 1, got {self.weights}.")
        if not len(self.weights) == len(self.means) == len(self.sds):
            raise ValueError("weights, means and sds need one entry per component.")

    @property
    def dim(self) -> int:
        """The dimension ``d``."""
        return len(self.means[0])

    @property
    def mean(self) -> np.ndarray:
        """The exact mean, shape ``(d,)``."""
        return np.asarray(self.weights) @ np.asarray(self.means)

    @property
    def variance(self) -> np.ndarray:
        """The exact variance of each coordinate, shape ``(d,)``."""
        mu, w = np.asarray(self.means), np.asarray(self.weights)
        second = w @ (mu**2 + np.asarray(self.sds)[:, None] ** 2)
        return second - self.mean**2

    def _component_log_densities(self, x: np.ndarray) -> np.ndarray:
        """``log w_k + log N(x; mu_k, s_k^2 I)`` for each row of ``x``: shape ``(..., k)``."""
        x = np.asarray(x, dtype=float)[..., None, :]
        mu, sd = np.asarray(self.means), np.asarray(self.sds)
        squared = np.sum((x - mu) ** 2, axis=-1) / sd**2
        return np.log(self.weights) - 0.5 * (squared + self.dim * (_LOG_2PI + 2 * np.log(sd)))

    def logp(self, x: np.ndarray) -> np.ndarray:
        """The mixture's log-density at each point (shape ``(..., d)``).

        Parameters
        ----------
        x : numpy.ndarray

        Returns
        -------
        numpy.ndarray
        """
        return logsumexp(self._component_log_densities(x), axis=-1)

    def components(self, x: np.ndarray) -> np.ndarray:
        """The component with the largest responsibility for each point.

        Parameters
        ----------
        x : numpy.ndarray, shape (..., d)

        Returns
        -------
        numpy.ndarray of int, shape (...)
        """
        return np.argmax(self._component_log_densities(x), axis=-1)

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` exact draws.

        Parameters
        ----------
        n : int
        rng : numpy.random.Generator

        Returns
        -------
        numpy.ndarray, shape (n, d)
        """
        which = rng.choice(len(self.weights), size=n, p=self.weights)
        noise = rng.standard_normal((n, self.dim))
        return np.asarray(self.means)[which] + np.asarray(self.sds)[which, None] * noise

    def model(self, prior_sd: float | None = None, initval=None) -> pm.Model:
        """The mixture as a PyMC model of one vector ``x`` of length ``d``.

        Parameters
        ----------
        prior_sd : float, optional
            None: ``pm.Mixture`` of ``pm.MvNormal`` components, or ``pm.NormalMixture`` in one
            dimension (no data; PyMC's initial point is the weighted mean of the centres). A
            number: ``x ~ N(0, prior_sd^2 I)`` with the mixture divided by that prior as a
            ``pm.Potential``.
        initval : array_like, optional
            The initial value of ``x`` (default PyMC's; zero for the potential form).

        Returns
        -------
        pymc.Model
        """
        d = self.dim
        with pm.Model() as model:
            if prior_sd is None and d == 1:  # (the scalar form a user writes)
                mu, sd = [m[0] for m in self.means], list(self.sds)
                pm.NormalMixture("x", list(self.weights), mu, sd, shape=1, initval=initval)
                return model
            if prior_sd is None:
                components = [
                    pm.MvNormal.dist(np.asarray(mu), sd**2 * np.eye(d))
                    for mu, sd in zip(self.means, self.sds, strict=True)
                ]
                pm.Mixture("x", w=list(self.weights), comp_dists=components, initval=initval)
                return model
            start = np.zeros(d) if initval is None else initval
            x = pm.Normal("x", 0.0, prior_sd, shape=d, initval=start)
            terms = [
                np.log(w) + pm.logp(pm.MvNormal.dist(np.asarray(mu), sd**2 * np.eye(d)), x)
                for w, mu, sd in zip(self.weights, self.means, self.sds, strict=True)
            ]
            prior = pm.logp(pm.Normal.dist(0.0, prior_sd), x).sum()
            pm.Potential("mixture", pt.logsumexp(pt.stack(terms)) - prior)
        return model


def weight_zscores(mixture: GaussianMixture, draws: np.ndarray) -> ZScores:
    """The errors of the fractions of draws in each component, in Monte Carlo standard errors.

    Parameters
    ----------
    mixture : GaussianMixture
    draws : numpy.ndarray, shape (chain, draw, d)

    Returns
    -------
    ZScores
        One z-score per component (labels ``mean[k]``). A component that no draw visits, or
        that every draw is in, has no MCSE: its z-score is not finite.
    """
    which = mixture.components(np.asarray(draws, dtype=float))
    indicators = (which[..., None] == np.arange(len(mixture.weights))).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):  # (a constant indicator: MCSE 0)
        return mcse_zscores(indicators, mean=np.asarray(mixture.weights))


def _axis(d: int, i: int, value: float) -> tuple[float, ...]:
    point = [0.0] * d
    point[i] = value
    return tuple(point)


#: the mixtures of the start-up's tests and benchmark: two components 0.3 / 0.7
#: twelve sds apart in 4-D (the issue's), three of different weights and widths in 2-D, two of
#: equal weight but widths 1 and 3 in 3-D; and the issue's in 1-D and 10-D, and with weight 0.1
MIXTURES = {
    "two-0.3": GaussianMixture((0.3, 0.7), (_axis(4, 0, -6.0), _axis(4, 0, 6.0)), (1.0, 1.0)),
    "three": GaussianMixture(
        (0.2, 0.3, 0.5), ((-8.0, 0.0), (8.0, 0.0), (0.0, 9.0)), (1.0, 0.5, 1.5)
    ),
    "widths": GaussianMixture((0.5, 0.5), (_axis(3, 0, -8.0), _axis(3, 0, 8.0)), (1.0, 3.0)),
    "one-d": GaussianMixture((0.25, 0.75), ((-6.0,), (6.0,)), (1.0, 1.0)),
    "light-0.1": GaussianMixture((0.1, 0.9), (_axis(2, 0, -6.0), _axis(2, 0, 6.0)), (1.0, 1.0)),
    "ten-d": GaussianMixture((0.3, 0.7), (_axis(10, 0, -6.0), _axis(10, 0, 6.0)), (1.0, 1.0)),
}
