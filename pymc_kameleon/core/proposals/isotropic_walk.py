"""``N(x, s I)`` in the proposal's coordinates, ``s`` learned: adaptive Metropolis once whitened.

In coordinates whitened by a warm-up covariance estimate ``Sigma`` (an
:class:`~pymc_kameleon.core.proposals.affine.AffineMap` with ``A A^T = Sigma``), this random walk
is ``N(x, s Sigma)`` in the states' coordinates: Haario's adaptive Metropolis with the covariance
of the latest warm-up window. It is the global move of the whitened kernel steps.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from pymc_kameleon.core.adaptation import ScaleAdapter, optimal_rw_scale
from pymc_kameleon.core.linalg import LOG_2PI
from pymc_kameleon.core.proposals.protocol import Transition
from pymc_kameleon.core.proposals.random_walk import GaussianRandomWalk

__all__ = ["IsotropicRandomWalk"]


class IsotropicRandomWalk(GaussianRandomWalk):
    """``N(x, (gamma^2 + s) I)`` (in the map's coordinates), ``s`` learned by Robbins–Monro.

    Parameters
    ----------
    dim : int
        Dimension of the states.
    gamma : float, default 0.0
        Standard deviation of an added isotropic term (in the map's coordinates).
    target_accept : float, default 0.234
        Target acceptance probability of the scale learning.
    learn_scale : bool, default True
        Learn ``log s``; otherwise it stays at ``2.38^2 / dim``.

    Attributes
    ----------
    scale : ScaleAdapter
        The learned scale, starting at ``2.38^2 / dim`` (optimal for a standard normal target).
    """

    symmetric = True
    stats_dtypes: ClassVar[dict[str, tuple[Any, list]]] = {"scaling": (np.float64, [])}

    def __init__(
        self,
        dim: int,
        *,
        gamma: float = 0.0,
        target_accept: float = 0.234,
        learn_scale: bool = True,
    ) -> None:
        initial = ScaleAdapter(math.log(optimal_rw_scale(dim)))
        super().__init__(dim, gamma, initial, learn_scale, target_accept)
        self.initial_target_accept = self.target_accept
        self.reset()

    def set_target_accept(self, target_accept: float) -> None:
        """Learn the scale toward ``target_accept`` from now on (until :meth:`reset`).

        Parameters
        ----------
        target_accept : float
        """
        self.target_accept = float(target_accept)

    def learned_covariance(self, x: np.ndarray) -> np.ndarray:
        """The identity, at every point.

        Parameters
        ----------
        x : numpy.ndarray, shape (dim,)
            Unused.

        Returns
        -------
        numpy.ndarray, shape (dim, dim)
        """
        return np.eye(self.dim)

    def learned_covariances(self, u: np.ndarray) -> np.ndarray:
        """The identity at every row of ``u``.

        Parameters
        ----------
        u : numpy.ndarray, shape (n, dim)

        Returns
        -------
        numpy.ndarray, shape (n, dim, dim)
        """
        return np.broadcast_to(np.eye(self.dim), (u.shape[0], self.dim, self.dim)).copy()

    # The covariance is the same at every point, so the base class's per-point d x d factors and
    # O(d^2) triangular solves are replaced by O(d) formulas with the scalar standard deviation.
    def _standard_deviation(self) -> float:
        variance = self.gamma * self.gamma + self.scaling
        return math.sqrt(variance) if math.isfinite(variance) and variance > 0.0 else math.nan

    def _log_pdf_of_noise(self, noise: np.ndarray, sd: float) -> float:
        return -0.5 * float(noise @ noise) - self.dim * (math.log(sd) + 0.5 * LOG_2PI)

    def cholesky(self, x: np.ndarray) -> np.ndarray | None:
        """``sqrt(gamma^2 + s) I`` (the same at every point); None if that is not finite and > 0.

        Parameters
        ----------
        x : numpy.ndarray, shape (dim,)
            Unused.

        Returns
        -------
        numpy.ndarray of shape (dim, dim), or None
        """
        sd = self._standard_deviation()
        return None if math.isnan(sd) else sd * np.eye(self.dim)

    def draw_move(self, x: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, float]:
        """``sqrt(gamma^2 + s)`` times standard normal noise, and its log-density.

        Parameters
        ----------
        x : numpy.ndarray, shape (dim,)
            Unused.
        rng : numpy.random.Generator

        Returns
        -------
        move : numpy.ndarray, shape (dim,)
        log_q : float

        Raises
        ------
        FloatingPointError
            If the learned scale is not finite and positive.
        """
        sd = self._standard_deviation()
        if math.isnan(sd):
            raise FloatingPointError(
                f"the random walk's variance gamma^2 + s = {self.gamma**2 + self.scaling!r} is not "
                "finite and positive. Check that the model's variables are on a sensible scale."
            )
        noise = rng.standard_normal(self.dim)
        return sd * noise, self._log_pdf_of_noise(noise, sd)

    def log_density(self, to: np.ndarray, frm: np.ndarray) -> float:
        """Log-density of ``to`` under ``N(frm, (gamma^2 + s) I)`` in the map's coordinates.

        Parameters
        ----------
        to, frm : numpy.ndarray, shape (dim,)
            The states moved to and from.

        Returns
        -------
        float
            In the states' coordinates (the map's log-determinant subtracted); NaN if the
            scale is not finite and positive.
        """
        if self.affine is not None:
            to, frm = self.affine.to_kernel(to), self.affine.to_kernel(frm)
        sd = self._standard_deviation()
        if math.isnan(sd):
            return math.nan
        log_q = self._log_pdf_of_noise((to - frm) / sd, sd)
        return log_q if self.affine is None else log_q - self.affine.log_det

    def learn(self, transition: Transition, rng: np.random.Generator) -> None:
        """Move the scale toward the target acceptance (see :meth:`update_scale`).

        Parameters
        ----------
        transition : Transition
        rng : numpy.random.Generator
            Unused; part of the :class:`~pymc_kameleon.core.proposals.Proposal` protocol.
        """
        self.update_scale(transition)

    def reset(self) -> None:
        """The initial scale and target, and no map."""
        self.target_accept = self.initial_target_accept
        self.scale.reset()
        self.affine = None
        self.forget_covariance()

    def stats(self) -> dict[str, Any]:
        """``scaling``: the scale ``s``.

        Returns
        -------
        dict of str to float
        """
        return {"scaling": self.scaling}
