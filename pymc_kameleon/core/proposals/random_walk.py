"""Gaussian random walks ``N(x, gamma^2 I + s S(x))`` with a learned part ``S`` and scale ``s``.

:class:`GaussianRandomWalk` is the common part of the Kameleon and adaptive-covariance
proposals: drawing ``x + L @ noise`` with the Cholesky factor ``L`` of the covariance, the
Gaussian log-densities, and a cache of ``S`` and ``L`` at the current state and at the last
candidate (which becomes the current state when it is accepted). ``S`` and ``L`` are cached
separately, so that a change of scale alone costs one d x d factorisation.
"""

from __future__ import annotations

from abc import abstractmethod

import numpy as np
from scipy.linalg import LinAlgError

from pymc_kameleon.core.adaptation import ScaleAdapter
from pymc_kameleon.core.linalg import (
    gaussian_log_pdf,
    gaussian_log_pdf_of_noise,
    gaussian_log_pdfs_of_noise,
    proposal_cholesky,
)
from pymc_kameleon.core.proposals.affine import AffineMap
from pymc_kameleon.core.proposals.protocol import Proposal, Transition

__all__ = ["GaussianRandomWalk"]


class _Factor:
    """``S`` and (lazily) the Cholesky factor ``L`` of the covariance at one point."""

    def __init__(self, point: np.ndarray, scatter: np.ndarray) -> None:
        self.point = point
        self.scatter = scatter
        self.chol: np.ndarray | None = None
        self.failed = False


class GaussianRandomWalk(Proposal):
    """Base class: ``q(. | x) = N(x, gamma^2 I + s S(x))``, optionally in mapped coordinates.

    With an :class:`~pymc_kameleon.core.proposals.affine.AffineMap` ``u = A^{-1}(x - c)``
    (:meth:`set_map`), ``gamma``, ``S`` and the scale live in ``u``: the move is ``A`` times a
    draw of ``N(0, gamma^2 I + s S(u))``, so the covariance in the states' coordinates is
    ``A (gamma^2 I + s S(u)) A^T`` and every log-density gains ``-log|det A|``. Without a map
    (the default) the states are used as they are, with no extra arithmetic.

    Subclasses implement :meth:`learned_covariance` (``S(x)``), :meth:`learn`, :meth:`reset`
    and :meth:`stats`, and call :meth:`forget_covariance` when ``S`` changed (changes of
    :attr:`scale` are noticed on their own).

    Parameters
    ----------
    dim : int
        Dimension of the states.
    gamma : float
        Standard deviation of the isotropic term.
    scale : ScaleAdapter
        The learned scale ``s`` (``scale.current``).
    learn_scale : bool
        Whether :meth:`update_scale` learns it.
    target_accept : float
        Target acceptance probability of the scale learning.
    """

    def __init__(
        self, dim: int, gamma: float, scale: ScaleAdapter, learn_scale: bool, target_accept: float
    ) -> None:
        self.dim = int(dim)
        self.gamma = float(gamma)
        self.scale = scale
        self.learn_scale = bool(learn_scale)
        self.target_accept = float(target_accept)
        self.affine: AffineMap | None = None
        self._cache_factors: list[_Factor] = []  # at most two: current state, last candidate
        self._cache_log_scale = scale.log_scale

    def set_map(self, affine: AffineMap | None) -> None:
        """Work in the coordinates ``u`` of ``affine`` from now on (None: the states themselves).

        Parameters
        ----------
        affine : AffineMap or None
        """
        self.affine = affine
        self.forget_covariance()

    def to_kernel(self, x: np.ndarray | None) -> np.ndarray | None:
        """The coordinates ``u`` the proposal works in, of a state or of states as rows.

        Parameters
        ----------
        x : numpy.ndarray of shape (d,) or (n, d), or None

        Returns
        -------
        numpy.ndarray or None
            ``x`` itself without a map (or when ``x`` is None), else ``A^{-1}(x - c)``.
        """
        if self.affine is None or x is None:
            return x
        return self.affine.to_kernel(x)

    @property
    def scaling(self) -> float:
        """The scale ``s`` in use."""
        return self.scale.current

    def update_scale(self, transition: Transition) -> None:
        """Robbins–Monro step of the scale toward ``target_accept * transition.target_factor``.

        Nothing when the scale is not learned or another proposal made the move.

        Parameters
        ----------
        transition : Transition
            The iteration just finished; its ``accept_prob`` (None: leave the scale alone) and
            ``target_factor`` (multiplier of ``target_accept``) are used.
        """
        if self.learn_scale and transition.accept_prob is not None:
            self.scale.update(transition.accept_prob, self.target_accept * transition.target_factor)

    def end_warmup(self) -> None:
        """Fix the scale at its weighted warm-up average."""
        if self.learn_scale:
            self.scale.settle()

    @abstractmethod
    def learned_covariance(self, x: np.ndarray) -> np.ndarray:
        """The learned, unscaled part ``S(x)`` of the covariance at ``x`` (a new array).

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)
            The point at which the proposal is built, in the proposal's coordinates (the state
            itself without a map).

        Returns
        -------
        numpy.ndarray, shape (d, d)
            ``S(x)``, symmetric positive semi-definite; the caller may modify it.
        """

    def learned_covariances(self, u: np.ndarray) -> np.ndarray:
        """``S`` at every row of ``u`` (the proposal's coordinates), as an (n, d, d) array.

        The default calls :meth:`learned_covariance` row by row; subclasses with a faster batch
        override it.

        Parameters
        ----------
        u : numpy.ndarray, shape (n, d)

        Returns
        -------
        numpy.ndarray, shape (n, d, d)
        """
        out = np.empty((u.shape[0], self.dim, self.dim))
        for i, row in enumerate(u):
            out[i] = self.learned_covariance(row)
        return out

    def choleskys(self, u: np.ndarray) -> np.ndarray:
        """Cholesky factors of the covariance at every row of ``u``; NaN where it is not PD.

        Parameters
        ----------
        u : numpy.ndarray, shape (n, d)
            Points in the proposal's coordinates.

        Returns
        -------
        numpy.ndarray, shape (n, d, d)
        """
        scatters = self.learned_covariances(u)
        cov = scatters * self.scaling
        cov[:, np.arange(self.dim), np.arange(self.dim)] += self.gamma * self.gamma
        if np.all(np.isfinite(cov)):
            try:
                return np.linalg.cholesky(cov)
            except np.linalg.LinAlgError:
                pass
        out = np.full_like(cov, np.nan)  # some row is not PD: the jittered path, row by row
        for i, scatter in enumerate(scatters):
            chol = self.factor(scatter)
            if chol is not None:
                out[i] = chol
        return out

    def propose_many(
        self, x: np.ndarray, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        """``x[i] + L(x[i]) @ noise[i]`` for every row at once; see :meth:`Proposal.propose_many`.

        Parameters
        ----------
        x : numpy.ndarray, shape (n, d)
        rng : numpy.random.Generator

        Returns
        -------
        x_new : numpy.ndarray, shape (n, d)
        log_q_forward : numpy.ndarray, shape (n,)

        Raises
        ------
        FloatingPointError
            If the covariance at some row is not finite and positive definite.
        """
        chol = self.choleskys(self.to_kernel(np.asarray(x, dtype=float)))
        if np.isnan(chol).any():
            raise FloatingPointError(
                "the proposal covariance at some particle is not finite and positive definite. "
                "Check that the model's variables are on a sensible scale, or increase `gamma`."
            )
        noise = rng.standard_normal(x.shape)
        move = np.einsum("nij,nj->ni", chol, noise)
        log_q = gaussian_log_pdfs_of_noise(noise, chol)
        if self.affine is not None:
            move = move @ self.affine.matrix.T
            log_q -= self.affine.log_det
        return (x + move).astype(x.dtype, copy=False), log_q

    def log_density_many(self, to: np.ndarray, frm: np.ndarray) -> np.ndarray:
        """``log q(to[i] | frm[i])`` for every row; NaN where the covariance is not PD.

        Parameters
        ----------
        to, frm : numpy.ndarray, shape (n, d)

        Returns
        -------
        numpy.ndarray, shape (n,)
        """
        to, frm = (
            self.to_kernel(np.asarray(to, dtype=float)),
            self.to_kernel(np.asarray(frm, dtype=float)),
        )
        chol = self.choleskys(frm)
        good = ~np.isnan(chol).any(axis=(1, 2))
        log_q = np.full(to.shape[0], np.nan)
        if good.any():
            diff = (to - frm)[good][..., None]
            noise = np.linalg.solve(chol[good], diff)[..., 0]  # batched (SciPy's loops in Python)
            log_q[good] = gaussian_log_pdfs_of_noise(noise, chol[good])
        return log_q if self.affine is None else log_q - self.affine.log_det

    def covariance(self, x: np.ndarray) -> np.ndarray:
        """Covariance of the proposal at the state ``x``, in the states' coordinates, as it is now.

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)

        Returns
        -------
        numpy.ndarray, shape (d, d)
            ``gamma^2 I + s S(x)``, or ``A (gamma^2 I + s S(u)) A^T`` with a map.
        """
        u = self.to_kernel(np.asarray(x, dtype=float))
        cov = np.array(self.learned_covariance(u), dtype=float)
        cov *= self.scaling
        cov.flat[:: self.dim + 1] += self.gamma * self.gamma
        if self.affine is not None:
            cov = self.affine.matrix @ cov @ self.affine.matrix.T
        return cov

    def factor(self, scatter: np.ndarray) -> np.ndarray | None:
        """Cholesky factor of ``gamma^2 I + s * scatter``; None if that is impossible.

        Parameters
        ----------
        scatter : numpy.ndarray, shape (d, d)
            A learned, unscaled covariance part ``S(x)`` (symmetric).

        Returns
        -------
        numpy.ndarray of shape (d, d), or None
            Lower-triangular factor (with diagonal jitter if one was needed), or None when the
            matrix is not finite or not positive definite even with jitter.
        """
        try:
            return proposal_cholesky(scatter, self.scaling, self.gamma * self.gamma)
        except LinAlgError:
            return None

    def cholesky(self, x: np.ndarray) -> np.ndarray | None:
        """Cholesky factor of the covariance at ``x`` (cached); None if it is not PD.

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)

        Returns
        -------
        numpy.ndarray of shape (d, d), or None
        """
        if self._cache_log_scale != self.scale.log_scale:
            self._cache_log_scale = self.scale.log_scale
            for cached in self._cache_factors:
                cached.chol, cached.failed = None, False
        cached = self._cached(x)
        if cached.chol is None and not cached.failed:
            cached.chol = self.factor(cached.scatter)
            cached.failed = cached.chol is None
        return cached.chol

    def _cached(self, x: np.ndarray) -> _Factor:
        for cached in self._cache_factors:
            if cached.point is x or np.array_equal(cached.point, x):
                return cached
        cached = _Factor(x, self.learned_covariance(x))
        self._cache_factors = [*self._cache_factors[-1:], cached]
        return cached

    def forget_covariance(self) -> None:
        """Drop the cached ``S`` and factors (call when ``S`` changed)."""
        self._cache_factors = []

    def propose(self, x: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, float]:
        """``x + L @ noise`` with standard normal noise; see :meth:`Proposal.propose`.

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)
            The current state (not modified).
        rng : numpy.random.Generator
            Source of the noise.

        Returns
        -------
        x_new : numpy.ndarray, shape (d,)
            The candidate, of the dtype of ``x``.
        log_q_forward : float
            ``log q(x_new | x)`` in the states' coordinates.

        Raises
        ------
        FloatingPointError
            If the covariance at ``x`` is not finite and positive definite.
        """
        if self.affine is None:
            move, log_q = self.draw_move(x, rng)
        else:
            move, log_q = self.draw_move(self.affine.to_kernel(x), rng)
            move = self.affine.matrix @ move
            log_q -= self.affine.log_det
        # keep the model's dtype (float32 under floatX=float32): the compiled logp trusts its input
        return (x + move).astype(x.dtype, copy=False), log_q

    def draw_move(self, x: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, float]:
        """A draw of ``L(x) @ noise`` and the log-density of ``x`` plus it (in the map's ``u``).

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)
            The point, in the proposal's coordinates.
        rng : numpy.random.Generator

        Returns
        -------
        move : numpy.ndarray, shape (d,)
        log_q : float

        Raises
        ------
        FloatingPointError
            If the covariance at ``x`` is not finite and positive definite.
        """
        chol = self.cholesky(x)
        if chol is None:
            raise FloatingPointError(
                "the proposal covariance at the current state is not finite and positive "
                "definite. Check that the model's variables are on a sensible scale, or increase "
                "`gamma`."
            )
        noise = rng.standard_normal(self.dim)
        return chol @ noise, gaussian_log_pdf_of_noise(noise, chol)

    def log_density(self, to: np.ndarray, frm: np.ndarray) -> float:
        """Gaussian log-density of ``to`` under ``N(frm, covariance(frm))``; NaN if not PD.

        Parameters
        ----------
        to : numpy.ndarray, shape (d,)
            The state moved to.
        frm : numpy.ndarray, shape (d,)
            The state moved from (the mean of the Gaussian).

        Returns
        -------
        float
            ``log q(to | frm)`` in the states' coordinates, or NaN when the covariance at ``frm``
            cannot be factorised.
        """
        if self.affine is not None:
            to, frm = self.affine.to_kernel(to), self.affine.to_kernel(frm)
        chol = self.cholesky(frm)
        if chol is None:
            return float("nan")
        log_q = gaussian_log_pdf(to, frm, chol)
        return log_q if self.affine is None else log_q - self.affine.log_det
