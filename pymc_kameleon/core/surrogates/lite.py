"""Kernel exponential-family surrogate fitted by score matching ("KMC lite").

Kernel Hamiltonian Monte Carlo (Strathmann et al., NeurIPS 2015) replaces the
gradient of an intractable log-density by the gradient of a surrogate

.. math:: f(x) = \\sum_{i=1}^n \\alpha_i k(z_i, x),

where :math:`z_1, \\dots, z_n` are (a sub-sample of) the Markov chain history.
The weights :math:`\\alpha` minimise a regularised empirical score-matching
objective, which has a closed-form solution (Prop. 1 of the paper).

Kernel convention
-----------------
We use the Gaussian kernel with a *length scale* :math:`\\ell`,

.. math:: k(x, y) = \\exp\\left(-\\frac{\\lVert x - y \\rVert^2}{2 \\ell^2}\\right).

The paper writes :math:`k(x, y) = \\exp(-\\lVert x - y \\rVert^2 / \\sigma)`, so
:math:`\\sigma = 2 \\ell^2`. Every public function takes ``lengthscale`` and
converts internally.

Objective
---------
For a basis ``Z`` (``n`` rows) and evaluation points ``Y`` (``m`` rows) the
empirical score-matching objective (Hyvärinen, constant dropped) is

.. math:: J(\\alpha) = \\frac{1}{m} \\sum_{i=1}^m \\sum_{l=1}^d
          \\left[\\partial_l^2 f(y_i) + \\tfrac12 (\\partial_l f(y_i))^2\\right]
          = \\frac{2}{m\\sigma} \\alpha^\\top b + \\frac{2}{m\\sigma^2} \\alpha^\\top C \\alpha,

with :math:`\\Delta^{(l)}_{ij} = z_{jl} - y_{il}`, :math:`K_{ij} = k(y_i, z_j)`,
:math:`M_l = K \\odot \\Delta^{(l)}`,

.. math:: b = \\sum_l \\left[\\tfrac{2}{\\sigma} (K \\odot \\Delta^{(l)2})^\\top \\mathbf 1
          - K^\\top \\mathbf 1\\right], \\qquad C = \\sum_l M_l^\\top M_l .

For ``Y = Z`` these are exactly the paper's ``b`` and ``C``. :func:`lite_fit`
returns the exact minimiser of

.. math:: J(\\alpha; Z, Z) + \\frac{2 \\lambda}{n \\sigma^2} \\lVert \\alpha \\rVert^2,
          \\quad\\text{i.e.}\\quad \\alpha = -\\frac{\\sigma}{2} (C + \\lambda I)^{-1} b .

Regulariser
-----------
We follow the paper and use :math:`C + \\lambda I`. The authors' code
(``kamiltonian``, ``kernel_exp_family``) used :math:`C + \\lambda (K + I)`,
which adds a penalty on the RKHS norm :math:`\\alpha^\\top K \\alpha` to the ridge
on :math:`\\alpha`. We keep the single ridge: it is one knob instead of two, the
extra :math:`K` term only changes how strongly the RKHS norm is penalised.
``lambda`` is not scale-free (``C`` grows with ``n`` and depends on ``ell``); only the length
scale is chosen by cross-validation (:mod:`pymc_kameleon.core.surrogates.lengthscale_cv`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from pymc_kameleon.core.checks import (
    check_nonnegative,
    check_positive,
    check_samples,
    check_vector,
)
from pymc_kameleon.core.hamiltonian import DiagonalMetric, LeapfrogResult
from pymc_kameleon.core.kernels import GaussianKernel
from pymc_kameleon.core.surrogates._compiled import lite_leapfrog
from pymc_kameleon.core.surrogates.base import Surrogate

__all__ = [
    "LiteSurrogate",
    "lite_fit",
    "lite_gradient",
    "lite_objective",
    "lite_value",
]

#: basis points drawn with repetition even from a smaller history (KMCStep's default
#: ``n_history``). Capping the default fits at the stored states too (200 distinct points at
#: the first refit instead of 500 draws) cut KMCStep's ESS on the real suite's anes-logit at 3 of
#: 3 seeds (benchmarks/notes/lab-notes.md, "KMCStep's divergences and its step-size tuning").
REPEATED_BASIS_LIMIT = 500

_MAX_JITTER_TRIES = 8


def _sigma(lengthscale: float) -> float:
    """Convert a length scale to the paper's bandwidth ``sigma = 2 * lengthscale**2``.

    Parameters
    ----------
    lengthscale : float
        Gaussian kernel length scale.

    Returns
    -------
    float
        The paper's ``sigma``.
    """
    return 2.0 * lengthscale * lengthscale


def _kernel_matrix(Y: np.ndarray, Z: np.ndarray, sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian kernel matrix ``K[i, j] = k(y_i, z_j)`` and squared distances.

    Parameters
    ----------
    Y : numpy.ndarray
        Evaluation points, shape ``(m, d)``.
    Z : numpy.ndarray
        Basis points, shape ``(n, d)``.
    sigma : float
        Paper bandwidth ``2 * lengthscale**2``.

    Returns
    -------
    K : numpy.ndarray
        Kernel matrix of shape ``(m, n)``.
    sq_dist : numpy.ndarray
        Squared Euclidean distances of shape ``(m, n)``.
    """
    sq_dist = np.sum(Y * Y, axis=1)[:, None] + np.sum(Z * Z, axis=1)[None, :] - 2.0 * (Y @ Z.T)
    np.maximum(sq_dist, 0.0, out=sq_dist)
    return np.exp(-sq_dist / sigma), sq_dist


def _linear_term(K: np.ndarray, sq_dist: np.ndarray, sigma: float, d: int) -> np.ndarray:
    """The vector ``b`` of the score-matching objective.

    Parameters
    ----------
    K : numpy.ndarray
        Kernel matrix of shape ``(m, n)``.
    sq_dist : numpy.ndarray
        Squared distances of shape ``(m, n)``.
    sigma : float
        Paper bandwidth.
    d : int
        Dimension.

    Returns
    -------
    numpy.ndarray
        ``b`` of shape ``(n,)``.
    """
    return (2.0 / sigma) * np.sum(K * sq_dist, axis=0) - d * np.sum(K, axis=0)


def _derivative_factors(Y: np.ndarray, Z: np.ndarray, K: np.ndarray) -> list[np.ndarray]:
    """The matrices ``M_l = K * (z_jl - y_il)``, one per dimension.

    Parameters
    ----------
    Y : numpy.ndarray
        Evaluation points, shape ``(m, d)``.
    Z : numpy.ndarray
        Basis points, shape ``(n, d)``.
    K : numpy.ndarray
        Kernel matrix of shape ``(m, n)``.

    Returns
    -------
    list of numpy.ndarray
        ``d`` matrices of shape ``(m, n)``; ``(2 / sigma) * M_l @ alpha`` is
        the ``l``-th partial derivative of ``f`` at the rows of ``Y``.
    """
    return [K * (Z[:, ell][None, :] - Y[:, ell][:, None]) for ell in range(Z.shape[1])]


def _quadratic_term(factors: list[np.ndarray]) -> np.ndarray:
    """The matrix ``C = sum_l M_l^T M_l``.

    Parameters
    ----------
    factors : list of numpy.ndarray
        The matrices ``M_l`` from :func:`_derivative_factors`.

    Returns
    -------
    numpy.ndarray
        Symmetric positive semi-definite ``C`` of shape ``(n, n)``.
    """
    C = factors[0].T @ factors[0]
    for M in factors[1:]:
        C += M.T @ M
    return C


def _solve_psd(A: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Solve ``A x = rhs`` for symmetric PSD ``A``, adding diagonal jitter on failure.

    Parameters
    ----------
    A : numpy.ndarray
        Symmetric positive semi-definite matrix of shape ``(n, n)``.
    rhs : numpy.ndarray
        Right-hand side of shape ``(n,)``.

    Returns
    -------
    numpy.ndarray
        The solution of shape ``(n,)``.

    Raises
    ------
    numpy.linalg.LinAlgError
        If the system stays singular after the largest jitter.
    """
    scale = max(float(np.mean(np.diag(A))), np.finfo(np.float64).tiny)
    jitter = 0.0
    for attempt in range(_MAX_JITTER_TRIES):
        try:
            A_reg = A if jitter == 0.0 else A + jitter * np.eye(A.shape[0])
            factor = scipy.linalg.cho_factor(A_reg, lower=True, check_finite=False)
            return scipy.linalg.cho_solve(factor, rhs, check_finite=False)
        except np.linalg.LinAlgError:
            jitter = scale * 10.0 ** (attempt - 10)
    raise np.linalg.LinAlgError("score-matching system is singular even with jitter")


# ----------------------------------------------------------------------------- public API


def lite_fit(Z: np.ndarray, lengthscale: float, ridge: float) -> np.ndarray:
    """Closed-form score-matching weights of the lite surrogate (paper Prop. 1).

    Solves ``(C + ridge * I) alpha = -(sigma / 2) b`` with ``sigma = 2 * lengthscale**2``,
    which is the exact minimiser of
    ``lite_objective(alpha, Z, Z, lengthscale) + 2 * ridge / (n * sigma**2) * ||alpha||**2``.

    Parameters
    ----------
    Z : numpy.ndarray
        Basis / training samples of shape ``(n, d)``, ``n >= 2``, finite.
    lengthscale : float
        Gaussian kernel length scale, finite and > 0.
    ridge : float
        Ridge regularisation, finite and >= 0. With ``ridge = 0`` a small jitter
        is added if ``C`` is numerically singular.

    Returns
    -------
    numpy.ndarray
        Weights ``alpha`` of shape ``(n,)``.

    Raises
    ------
    ValueError
        If an argument is invalid; the message names it.
    """
    Z = check_samples("Z", Z)
    lengthscale = check_positive("lengthscale", lengthscale)
    ridge = check_nonnegative("ridge", ridge)
    sigma = _sigma(lengthscale)
    K, sq_dist = _kernel_matrix(Z, Z, sigma)
    b = _linear_term(K, sq_dist, sigma, Z.shape[1])
    C = _quadratic_term(_derivative_factors(Z, Z, K))
    C[np.diag_indices_from(C)] += ridge
    return _solve_psd(C, -0.5 * sigma * b)


def lite_objective(
    alpha: np.ndarray, Z_basis: np.ndarray, Y: np.ndarray, lengthscale: float
) -> float:
    """Empirical score-matching objective ``J`` of the surrogate on points ``Y``.

    ``J = mean_i sum_l [d_l^2 f(y_i) + 0.5 * (d_l f(y_i))**2]`` for
    ``f(x) = sum_j alpha_j k(z_j, x)``; no regulariser is included. It equals
    ``2 / (m sigma) alpha^T b + 2 / (m sigma^2) alpha^T C alpha`` (module docstring)
    but is evaluated in ``O(m n d)`` without forming ``C``.

    Parameters
    ----------
    alpha : numpy.ndarray
        Weights of shape ``(n,)``.
    Z_basis : numpy.ndarray
        Basis points of shape ``(n, d)``.
    Y : numpy.ndarray
        Evaluation points of shape ``(m, d)``, ``m >= 1``.
    lengthscale : float
        Gaussian kernel length scale, finite and > 0.

    Returns
    -------
    float
        The objective value (lower is better).
    """
    Z_basis = check_samples("Z_basis", Z_basis, min_rows=1)
    Y = check_samples("Y", Y, min_rows=1)
    if Y.shape[1] != Z_basis.shape[1]:
        raise ValueError(f"Y must have {Z_basis.shape[1]} columns; got {Y.shape[1]}")
    alpha = check_vector("alpha", alpha, Z_basis.shape[0])
    lengthscale = check_positive("lengthscale", lengthscale)
    sigma = _sigma(lengthscale)
    K, sq_dist = _kernel_matrix(Y, Z_basis, sigma)
    b = _linear_term(K, sq_dist, sigma, Z_basis.shape[1])
    quad = sum(float(np.sum((M @ alpha) ** 2)) for M in _derivative_factors(Y, Z_basis, K))
    m = Y.shape[0]
    return float(2.0 / (m * sigma) * (alpha @ b) + 2.0 / (m * sigma**2) * quad)


def lite_value(x: np.ndarray, Z: np.ndarray, alpha: np.ndarray, lengthscale: float) -> float:
    """Surrogate log-density ``f(x) = sum_i alpha_i k(z_i, x)`` (up to a constant).

    Parameters
    ----------
    x : numpy.ndarray
        Point of shape ``(d,)``.
    Z : numpy.ndarray
        Basis points of shape ``(n, d)``.
    alpha : numpy.ndarray
        Weights of shape ``(n,)``.
    lengthscale : float
        Gaussian kernel length scale.

    Returns
    -------
    float
        ``f(x)``.
    """
    Z = np.asarray(Z, dtype=np.float64)
    x = check_vector("x", x, Z.shape[1])
    return float(GaussianKernel(lengthscale).value(x, Z) @ alpha)


def lite_gradient(
    x: np.ndarray, Z: np.ndarray, alpha: np.ndarray, lengthscale: float
) -> np.ndarray:
    """Gradient of the surrogate, ``sum_i alpha_i k(z_i, x) (z_i - x) / lengthscale**2``.

    Costs ``O(n d)``; it decays to exactly zero far from the basis (the kernel
    underflows), so a sampler driven by it falls back to a random walk there.

    Parameters
    ----------
    x : numpy.ndarray
        Point of shape ``(d,)``.
    Z : numpy.ndarray
        Basis points of shape ``(n, d)``.
    alpha : numpy.ndarray
        Weights of shape ``(n,)``.
    lengthscale : float
        Gaussian kernel length scale.

    Returns
    -------
    numpy.ndarray
        ``grad f(x)`` of shape ``(d,)``.
    """
    Z = np.asarray(Z, dtype=np.float64)
    x = check_vector("x", x, Z.shape[1])
    return alpha @ GaussianKernel(lengthscale).grad(x, Z)


@dataclass(eq=False)
class LiteSurrogate(Surrogate):
    """A fitted lite surrogate ``f(x) = sum_i alpha_i k(z_i, x)``, cheap to differentiate.

    Unlike :func:`lite_gradient`, :meth:`gradient` does not re-validate its inputs on every
    call: it is the inner loop of a leapfrog trajectory.

    Parameters
    ----------
    basis : numpy.ndarray, shape (n, d)
        Basis points ``z``.
    alpha : numpy.ndarray, shape (n,)
        Weights.
    lengthscale : float
        Gaussian kernel length scale.
    """

    basis: np.ndarray
    alpha: np.ndarray
    lengthscale: float

    @classmethod
    def fit(cls, Z: np.ndarray, lengthscale: float, ridge: float) -> LiteSurrogate:
        """Fit the weights on ``Z`` with :func:`lite_fit` and return the surrogate.

        Parameters
        ----------
        Z : numpy.ndarray, shape (n, d)
            Samples (duplicates allowed), ``n >= 2``.
        lengthscale : float
            Gaussian kernel length scale (> 0).
        ridge : float
            Ridge regularisation (>= 0).

        Returns
        -------
        LiteSurrogate
        """
        Z = check_samples("Z", Z)
        return cls(Z.copy(), lite_fit(Z, lengthscale, ridge), float(lengthscale))

    @property
    def n_basis(self) -> int:
        """Number of basis points ``n``."""
        return int(self.basis.shape[0])

    @classmethod
    def from_history(
        cls,
        history,
        rng: np.random.Generator,
        *,
        lengthscale: float,
        n_basis: int,
        ridge: float,
    ) -> LiteSurrogate:
        """Fit on ``n_basis`` states drawn uniformly, with replacement, from ``history``.

        Beyond :data:`REPEATED_BASIS_LIMIT` points, at most ``history.size`` are drawn: more
        basis points than stored states only repeat states, at a cost quadratic in their number
        (``n_history=5000`` after a 300-iteration warm-up took 17 times as long and 1.7 GB). Up
        to that limit the draws may repeat states, as the defaults were tuned with. After
        warm-up the learner passes at most the size warm-up's states allowed
        (:meth:`~pymc_kameleon.core.surrogates.learner.SurrogateLearner.basis_size`).

        Parameters
        ----------
        history : ChainHistory
            The stored states.
        rng : numpy.random.Generator
            Source of the subsample.
        lengthscale : float
            Gaussian kernel length scale (> 0).
        n_basis : int
            Number ``n`` of basis points.
        ridge : float
            Ridge ``ridge`` added to ``C`` (>= 0).

        Returns
        -------
        LiteSurrogate
        """
        z = history.subsample(
            min(n_basis, max(history.size, REPEATED_BASIS_LIMIT)), rng, replace=True
        )
        return cls.fit(z, lengthscale, ridge)

    def trajectory(
        self,
        q: np.ndarray,
        p: np.ndarray,
        step_size: float,
        n_steps: int,
        metric: DiagonalMetric,
        surrogate_scale: float,
    ) -> LeapfrogResult:
        # the base class documents it; this override runs the compiled loop
        return lite_leapfrog(
            q, p, self.basis, self.alpha, self.lengthscale, surrogate_scale,
            step_size, n_steps, metric.inv_mass_diag,
        )  # fmt: skip

    def gradient(self, x: np.ndarray) -> np.ndarray:
        """``grad f(x) = sum_i alpha_i k(z_i, x) (z_i - x) / lengthscale**2``, ``O(n d)``.

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)

        Returns
        -------
        numpy.ndarray, shape (d,)
        """
        diff = self.basis - x
        inv_ell2 = 1.0 / (self.lengthscale * self.lengthscale)
        weights = self.alpha * np.exp(-0.5 * inv_ell2 * np.einsum("ij,ij->i", diff, diff))
        return (weights @ diff) * inv_ell2

    def value(self, x: np.ndarray) -> float:
        """Surrogate log-density ``f(x)`` (up to a constant).

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)

        Returns
        -------
        float
        """
        return lite_value(x, self.basis, self.alpha, self.lengthscale)

    def __eq__(self, other: object) -> bool:
        """Exact comparison of basis, weights and length scale."""
        if not isinstance(other, LiteSurrogate):
            return NotImplemented
        return (
            self.lengthscale == other.lengthscale
            and np.array_equal(self.basis, other.basis)
            and np.array_equal(self.alpha, other.alpha)
        )

    __hash__ = None  # type: ignore[assignment]
