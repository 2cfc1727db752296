"""A random walk that moves one coordinate at a time, each with its own learned scale.

The first stage of the unit-free warm-up (:class:`~pymc_kameleon.core.proposals.whitened.\
WhitenedProposal`): before any covariance can be estimated, a chain whose coordinates live on
very different scales needs one proposal scale per coordinate, and those can only be learned from
moves of one coordinate at a time (a joint move's acceptance does not say which coordinate was
too long). Each iteration picks a coordinate uniformly at random and moves it by its scale times
a standard normal draw; :class:`~pymc_kameleon.core.coordinate_scales.CoordinateScales` learns
the scales toward the one-dimensional optimum acceptance 0.44.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from pymc_kameleon.core.coordinate_scales import CoordinateScales
from pymc_kameleon.core.proposals.protocol import Proposal, Transition

__all__ = ["CoordinateRandomWalk"]

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


class CoordinateRandomWalk(Proposal):
    """Move coordinate ``i`` (uniform) by ``scales[i] * N(0, 1)``; learn each scale on its own.

    Parameters
    ----------
    dim : int
        Dimension of the states.
    target_accept : float, default 0.44
        Target acceptance probability of a one-coordinate move.
    initial_scales : float or array_like of shape (dim,), default 1.0
        Starting scales (restored by :meth:`reset`).

    Attributes
    ----------
    coordinate_scales : CoordinateScales
        The learned scales (``coordinate_scales.scales``).
    index : int
        The coordinate moved by the last proposal (-1 before the first).

    Notes
    -----
    The proposal is symmetric. Its density is with respect to the sum over coordinates of
    Lebesgue measure on the line through the current state along that coordinate, so it is only
    meaningful between states that differ in one coordinate (it is ``-inf`` otherwise); it cannot
    be a component of a :class:`~pymc_kameleon.core.proposals.MixtureProposal` with proposals
    that have a density on the whole space.
    """

    symmetric = True
    stats_dtypes: ClassVar[dict[str, tuple[Any, list]]] = {"scaling": (np.float64, [])}

    def __init__(self, dim: int, *, target_accept: float = 0.44, initial_scales: Any = 1.0) -> None:
        self.dim = int(dim)
        self.coordinate_scales = CoordinateScales(
            self.dim, target=target_accept, initial_scales=initial_scales
        )
        self.index = -1

    @property
    def scales(self) -> np.ndarray:
        """The current scale of every coordinate (a new array)."""
        return self.coordinate_scales.scales

    def propose(self, x: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, float]:
        """Move one uniformly chosen coordinate; see :meth:`Proposal.propose`.

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)
            The current state (not modified).
        rng : numpy.random.Generator
            Source of the coordinate and of the move.

        Returns
        -------
        x_new : numpy.ndarray, shape (d,)
            The candidate, of the dtype of ``x``.
        log_q_forward : float
            ``log q(x_new | x)`` (see the class notes).
        """
        i = int(rng.integers(self.dim))
        self.index = i
        scale = math.exp(self.coordinate_scales.log_scales[i])
        noise = float(rng.standard_normal())
        x_new = np.array(x, copy=True)
        x_new[i] += scale * noise
        x_new = x_new.astype(x.dtype, copy=False)
        return x_new, self._log_q(noise, scale)

    def _log_q(self, noise: float, scale: float) -> float:
        return -math.log(self.dim) - _LOG_SQRT_2PI - math.log(scale) - 0.5 * noise * noise

    def log_density(self, to: np.ndarray, frm: np.ndarray) -> float:
        """``log q(to | frm)``: finite only if the states differ in at most one coordinate.

        Parameters
        ----------
        to, frm : numpy.ndarray, shape (d,)

        Returns
        -------
        float
        """
        changed = np.flatnonzero(np.asarray(to) != np.asarray(frm))
        if changed.size > 1:
            return -math.inf
        i = int(changed[0]) if changed.size else 0
        scale = float(self.scales[i])
        return self._log_q(float(to[i] - frm[i]) / scale, scale)

    def covariance(self, x: np.ndarray) -> np.ndarray:
        """Covariance of the move: ``diag(scales^2) / dim`` (the same at every ``x``).

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)
            Unused.

        Returns
        -------
        numpy.ndarray, shape (d, d)
        """
        return np.diag(self.scales**2 / self.dim)

    def learn(self, transition: Transition, rng: np.random.Generator) -> None:
        """Move the scale of the coordinate just tried toward the target acceptance.

        Parameters
        ----------
        transition : Transition
            Its acceptance probability, divided by ``target_factor`` (the noise ceiling of a
            stochastic likelihood estimate) and clipped at 1, drives the scale; nothing happens
            when it is None or no move was made yet.
        rng : numpy.random.Generator
            Unused; part of the :class:`Proposal` protocol.
        """
        if transition.accept_prob is None or self.index < 0:
            return
        accept = min(1.0, transition.accept_prob / transition.target_factor)
        self.coordinate_scales.update(self.index, accept)

    def reset(self) -> None:
        """The initial scales; no move made yet."""
        self.coordinate_scales.reset()
        self.index = -1

    def stats(self) -> dict[str, Any]:
        """``scaling``: the geometric mean of the coordinate scales.

        Returns
        -------
        dict of str to float
        """
        return {"scaling": float(np.exp(np.mean(self.coordinate_scales.log_scales)))}
