"""Adaptive Metropolis (Haario et al., 2001): a random walk with the chain's running covariance.

:class:`AdaptiveCovarianceProposal` is ``N(x, gamma^2 I + s Sigma_t)`` with ``Sigma_t`` the
running covariance of the recorded states (identity until enough of them, with spread, are
recorded) and ``s`` a scale learned by Robbins–Monro. It is symmetric. It backs
:class:`~pymc_kameleon.AdaptiveMetropolis` and KMC's warm-up random-walk move.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
from scipy.linalg import LinAlgError

from pymc_kameleon.core.adaptation import RunningMoments, ScaleAdapter, optimal_rw_scale
from pymc_kameleon.core.linalg import cholesky_with_jitter
from pymc_kameleon.core.proposals.protocol import Transition
from pymc_kameleon.core.proposals.random_walk import GaussianRandomWalk

__all__ = ["AdaptiveCovarianceProposal"]


class AdaptiveCovarianceProposal(GaussianRandomWalk):
    """Haario's adaptive Metropolis proposal ``N(x, gamma^2 I + s Sigma_t)``.

    Parameters
    ----------
    dim : int
        Dimension of the states.
    gamma : float, default 0.0
        Standard deviation of an isotropic regulariser (Haario's epsilon).
    min_states : int, default 100
        States recorded before the running covariance replaces the identity; it is used only
        once the recorded states changed more than ``dim`` times (a chain that has not moved has a
        zero covariance and would never move again).
    learn_scale : bool, default True
        Learn ``log s`` by Robbins–Monro toward ``target_accept`` in :meth:`learn`.
    target_accept : float, default 0.234
        Target acceptance probability of the scale learning.
    initial_states : numpy.ndarray of shape (n, dim), optional
        States entered into the running moments at every :meth:`reset`; their covariance is then
        used from the first proposal on, whatever ``min_states``.
    relative_ridge : float, optional
        By default the covariance is factorised as ``gamma^2 I + s Sigma``. With a value, it is
        ``s (Sigma + ridge * mean(diag Sigma) I)`` instead (KMC's warm-up move), factorised with
        LAPACK, with ``sqrt(s) I`` when even that fails.

    Attributes
    ----------
    moments : RunningMoments
        Running mean and covariance of the recorded states.
    scale : ScaleAdapter
        The learned scale, starting at ``2.38^2 / dim``.
    """

    symmetric = True
    stats_dtypes: ClassVar[dict[str, tuple[Any, list]]] = {
        "scaling": (np.float64, []),
        "n_history": (np.int64, []),
    }

    def __init__(
        self,
        dim: int,
        *,
        gamma: float = 0.0,
        min_states: int = 100,
        learn_scale: bool = True,
        target_accept: float = 0.234,
        initial_states: np.ndarray | None = None,
        relative_ridge: float | None = None,
    ) -> None:
        initial = ScaleAdapter(math.log(optimal_rw_scale(dim)))
        super().__init__(dim, gamma, initial, learn_scale, target_accept)
        self.min_states = int(min_states)
        self.initial_states = initial_states
        self.relative_ridge = relative_ridge
        self.reset()

    def reset(self) -> None:
        """Forget every recorded state (keeping ``initial_states``) and the learned scale."""
        self.scale.reset()
        self.affine = None
        self.moments = RunningMoments(self.dim)
        if self.initial_states is not None:
            self.moments.update_batch(self.initial_states)
        self.forget_covariance()

    def covariance_in_use(self) -> bool:
        """Whether the running covariance (rather than the identity) shapes the proposal.

        Returns
        -------
        bool
            True with ``initial_states``, or once at least ``min_states`` states are recorded
            and they changed more than ``dim`` times.
        """
        if self.initial_states is not None:
            return True
        # a chain that has not moved would get a zero covariance and never move again
        return self.moments.count >= self.min_states and self.moments.has_spread()

    def learned_covariance(self, x: np.ndarray) -> np.ndarray:
        """``Sigma_t`` when it is in use, else the identity (the same at every ``x``).

        Parameters
        ----------
        x : numpy.ndarray, shape (dim,)
            The point at which the proposal is built (unused: the covariance does not depend
            on it).

        Returns
        -------
        numpy.ndarray, shape (dim, dim)
            The running covariance of the recorded states, or the identity before it is used.
        """
        if self.covariance_in_use():
            return self.moments.covariance()
        return np.eye(self.dim)

    def factor(self, scatter: np.ndarray) -> np.ndarray | None:
        """Cholesky factor of the covariance built from ``scatter`` (see ``relative_ridge``).

        Parameters
        ----------
        scatter : numpy.ndarray, shape (dim, dim)
            The learned part, as :meth:`learned_covariance` gives it.

        Returns
        -------
        numpy.ndarray of shape (dim, dim), or None
            Without ``relative_ridge``: the factor of ``gamma^2 I + s * scatter``, None when it
            is not positive definite. With it: the factor of ``s (scatter + ridge *
            mean(diag scatter) I)`` (no ridge while the identity is in use), or
            ``sqrt(s) I`` when that fails; never None.
        """
        if self.relative_ridge is None:
            return super().factor(scatter)
        scale = self.scaling
        if self.covariance_in_use():
            jitter = self.relative_ridge * max(float(np.mean(np.diag(scatter))), 1e-12)
            cov = scale * (scatter + jitter * np.eye(self.dim))
        else:
            cov = scale * scatter
        try:
            return cholesky_with_jitter(cov)
        except (LinAlgError, ValueError):
            return math.sqrt(scale) * np.eye(self.dim)

    def record(self, x: np.ndarray) -> None:
        """Add one state to the running moments.

        Parameters
        ----------
        x : numpy.ndarray, shape (dim,)
        """
        self.moments.update(x)
        if self.covariance_in_use():
            self.forget_covariance()

    def observe(self, states: np.ndarray, iteration: int, rng: np.random.Generator) -> None:
        """Add other chains' states to the running moments.

        Parameters
        ----------
        states : numpy.ndarray, shape (k, d)
        iteration : int
            Unused.
        rng : numpy.random.Generator
            Unused.
        """
        for x in states:
            self.record(x)

    def learn(self, transition: Transition, rng: np.random.Generator) -> None:
        """Record the current state, then move the scale toward the target acceptance.

        Parameters
        ----------
        transition : Transition
            The iteration just finished: its ``state`` is recorded, its acceptance
            probability drives the scale (see :meth:`update_scale`).
        rng : numpy.random.Generator
            Unused (nothing here is random); part of the :class:`Proposal` protocol.
        """
        self.record(transition.state)
        self.update_scale(transition)

    def stats(self) -> dict[str, Any]:
        """``scaling`` (``s``) and ``n_history`` (states in the running covariance).

        Returns
        -------
        dict of str to float or int
            ``{"scaling": s, "n_history": count}``, the keys of :attr:`stats_dtypes`.
        """
        return {"scaling": self.scaling, "n_history": int(self.moments.count)}
