"""The Surrogate protocol: a learned log-density whose gradient drives KMC's trajectories."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

import numpy as np

from pymc_kameleon.core.hamiltonian import DiagonalMetric, LeapfrogResult, leapfrog

__all__ = ["Surrogate"]


class Surrogate(ABC):
    r"""A fitted surrogate :math:`f \approx \log\pi` (up to a constant), cheap to differentiate.

    Kernel HMC integrates Hamilton's equations along :math:`\beta \nabla f` (``surrogate_scale``
    :math:`\beta`) and corrects with the true target, so a surrogate only needs a value, a
    gradient and its size. Each surrogate owns its :meth:`trajectory`, so that a compiled
    whole-trajectory loop can replace the generic leapfrog. Online surrogates (``online =
    True``) absorb every new state through :meth:`update`; the others are refitted from the
    history.

    A new surrogate is one subclass implementing :meth:`value`, :meth:`gradient`,
    :attr:`n_basis` and :meth:`from_history`, plus one entry in
    :data:`pymc_kameleon.core.surrogates.SURROGATES`.
    """

    #: whether :meth:`update` absorbs new states (then a refit is needed only when the length
    #: scale changes)
    online: ClassVar[bool] = False

    @classmethod
    @abstractmethod
    def from_history(
        cls,
        history,
        rng: np.random.Generator,
        *,
        lengthscale: float,
        n_basis: int,
        ridge: float,
    ) -> Surrogate:
        """Fit the surrogate on a chain's history.

        Parameters
        ----------
        history : ChainHistory
            The states to learn from.
        rng : numpy.random.Generator
            Random source (subsamples, random features).
        lengthscale : float
            Gaussian kernel length scale (> 0).
        n_basis : int
            Size of the surrogate (basis points or features).
        ridge : float
            The ridge, in the surrogate's own convention.

        Returns
        -------
        Surrogate
        """

    @property
    @abstractmethod
    def n_basis(self) -> int:
        """Number of basis functions (basis points or features)."""

    @abstractmethod
    def value(self, x: np.ndarray) -> float:
        """Surrogate log-density ``f(x)`` (up to a constant) at one point of shape ``(d,)``.

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)
            The point.

        Returns
        -------
        float
            ``f(x)``.
        """

    @abstractmethod
    def gradient(self, x: np.ndarray) -> np.ndarray:
        """Gradient ``grad f(x)`` at one point of shape ``(d,)``.

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)
            The point.

        Returns
        -------
        numpy.ndarray, shape (d,)
            ``grad f(x)``.
        """

    def update(self, x: np.ndarray) -> None:
        """Absorb one new state (online surrogates); the default ignores it.

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)
        """

    def trajectory(
        self,
        q: np.ndarray,
        p: np.ndarray,
        step_size: float,
        n_steps: int,
        metric: DiagonalMetric,
        surrogate_scale: float,
    ) -> LeapfrogResult:
        """Leapfrog trajectory along ``surrogate_scale`` times :meth:`gradient`, from ``(q, p)``.

        The default runs the generic :func:`~pymc_kameleon.core.hamiltonian.leapfrog`;
        subclasses replace it with a compiled loop of the same arithmetic.

        Parameters
        ----------
        q, p : numpy.ndarray, shape (d,)
            Start position and momentum.
        step_size : float
            Leapfrog step size (> 0).
        n_steps : int
            Number of leapfrog steps (>= 1).
        metric : DiagonalMetric
            The mass matrix.
        surrogate_scale : float
            The factor :math:`\\beta` on the gradient.

        Returns
        -------
        LeapfrogResult
        """

        def scaled_gradient(x: np.ndarray) -> np.ndarray:
            return surrogate_scale * self.gradient(np.asarray(x, dtype=float))

        return leapfrog(q, p, scaled_gradient, step_size, n_steps, metric.inv_mass_diag)
