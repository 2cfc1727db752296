"""Pseudo-marginal likelihood for Gaussian-process classification (pure NumPy/SciPy).

This is the target of the Glass experiment of the Kernel Adaptive Metropolis-Hastings
(KAMH) and Kernel Hamiltonian Monte Carlo (KMC) papers: the posterior over the ARD
length scales of a GP classifier, whose marginal likelihood is intractable and is replaced by
an unbiased importance-sampling estimate.

Model
-----
For training inputs ``X`` of shape ``(n, d)`` and labels ``y`` in ``{-1, +1}``:

* latent values ``f ~ N(0, K_theta)`` with the ARD Gaussian covariance of unit signal
  variance

  ``k(x, x') = exp(-1/2 * sum_d (x_d - x'_d)**2 / l_d**2)``

  parametrised by ``theta_d = log(l_d**2)`` (the log *squared* length scale, as in the
  papers), plus ``jitter * I`` on the diagonal (default ``jitter = 1e-3``);
* logistic likelihood ``p(y_i | f_i) = sigma(y_i f_i)``, ``sigma(z) = 1 / (1 + exp(-z))``,
  evaluated in log space as ``-logaddexp(0, -y_i f_i)`` so that it never overflows;
* prior ``theta ~ N(0, 5 I)`` (:func:`gpc_log_prior`).

Estimator
---------
The Laplace approximation ``q(f) = N(f_hat, Sigma)``, ``Sigma = (K^{-1} + W)^{-1}``, is found
with the Newton iterations of Rasmussen & Williams (2006), *Gaussian Processes for Machine
Learning*, Algorithm 3.1 (``B = I + W^{1/2} K W^{1/2}`` and its Cholesky factor), safeguarded
by step halving. Then, with ``f_i ~ q`` drawn independently,

``p_hat(y | theta) = (1/m) sum_i p(y | f_i) N(f_i; 0, K) / q(f_i)``

is an unbiased estimate of the marginal likelihood ``p(y | theta)`` for any Gaussian ``q``
(so also when the Newton iterations stop early). Its log, computed with a log-sum-exp, is
what :func:`importance_sampling_log_marginal` returns; the papers use ``m = 100``. The log of
an unbiased estimate is biased low (Jensen), which is what pseudo-marginal MCMC expects.

Nothing here imports PyMC or PyTensor; :func:`make_gpc_log_likelihood_estimator` returns the
black-box callable ``estimate(theta, rng) -> float`` that a PyMC layer can wrap.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from scipy.linalg import LinAlgError, cho_solve, cholesky, solve_triangular
from scipy.spatial.distance import pdist, squareform
from scipy.special import expit, logsumexp

from pymc_kameleon.core.checks import check_int, check_nonnegative, check_positive, check_rng

__all__ = [
    "DEFAULT_JITTER",
    "DEFAULT_N_IMPORTANCE",
    "GPC_PRIOR_VARIANCE",
    "GPCLogLikelihoodEstimator",
    "LaplaceApproximation",
    "LaplaceConvergenceError",
    "ard_gaussian_kernel",
    "gpc_log_prior",
    "importance_sampling_log_marginal",
    "importance_sampling_log_weights",
    "laplace_approximation",
    "logistic_log_likelihood",
    "make_gpc_log_likelihood_estimator",
]

DEFAULT_JITTER = 1e-3
"""Ridge added to the diagonal of the kernel matrix."""

DEFAULT_N_IMPORTANCE = 100
"""Number of importance samples per estimate (the papers' value)."""

GPC_PRIOR_VARIANCE = 5.0
"""Variance of the independent Gaussian prior on each ``theta_d = log(l_d**2)``."""

_LOG_2PI = math.log(2.0 * math.pi)


class LaplaceConvergenceError(RuntimeError):
    """Raised by :func:`laplace_approximation` when asked to, if Newton's method stalls."""


class LaplaceApproximation(NamedTuple):
    """Gaussian (Laplace) approximation ``N(mode, cov)`` to ``p(f | y, theta)``.

    Attributes
    ----------
    mode : numpy.ndarray
        Posterior mode ``f_hat`` of shape ``(n,)``.
    alpha : numpy.ndarray
        Vector ``a`` of shape ``(n,)`` with ``mode = K @ a``; at convergence
        ``a = grad log p(y | f_hat)``.
    W : numpy.ndarray
        Diagonal of ``-Hessian log p(y | f)`` at the mode, shape ``(n,)``.
    chol_B : numpy.ndarray
        Lower Cholesky factor of ``B = I + W^{1/2} K W^{1/2}`` at the mode, shape ``(n, n)``.
    cov : numpy.ndarray
        Covariance ``Sigma = (K^{-1} + W)^{-1} = K - K W^{1/2} B^{-1} W^{1/2} K``, shape
        ``(n, n)``.
    log_marginal_likelihood : float
        Laplace approximation of ``log p(y | theta)`` (Rasmussen & Williams eq. 3.32).
    n_iter : int
        Number of Newton iterations performed.
    converged : bool
        Whether the Newton step fell below the tolerance within ``max_iter`` iterations.
    """

    mode: np.ndarray
    alpha: np.ndarray
    W: np.ndarray
    chol_B: np.ndarray
    cov: np.ndarray
    log_marginal_likelihood: float
    n_iter: int
    converged: bool


# --------------------------------------------------------------------------- validation


def _check_inputs(X: np.ndarray) -> np.ndarray:
    """Return ``X`` as a finite float64 matrix of shape ``(n, d)`` or raise ``ValueError``."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(f"X must be a non-empty 2-D array of shape (n, d); got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X must contain only finite values; found NaN or inf")
    return X


def _check_labels(y: np.ndarray, n: int) -> np.ndarray:
    """Return ``y`` as a float64 vector of ``-1``/``+1`` of length ``n`` or raise."""
    y = np.asarray(y)
    if y.shape != (n,):
        raise ValueError(f"y must have shape ({n},) to match the inputs; got shape {y.shape}")
    if not np.issubdtype(y.dtype, np.number):
        raise ValueError(f"y must hold the numbers -1 and +1; got dtype {y.dtype}")
    y = y.astype(np.float64)
    if not np.all((y == 1.0) | (y == -1.0)):
        raise ValueError("y must hold only -1 and +1; convert 0/1 labels with y = 2 * y - 1")
    return y


def _check_theta_shape(theta: np.ndarray, d: int) -> np.ndarray:
    """Return ``theta`` as a float64 vector of length ``d`` (values unchecked) or raise."""
    try:
        theta = np.asarray(theta, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"theta must be a real vector of {d} log squared length scales; got {theta!r}"
        ) from None
    if theta.shape != (d,):
        raise ValueError(
            f"theta must have shape ({d},), one log squared length scale per input column; "
            f"got shape {theta.shape}"
        )
    return theta


# --------------------------------------------------------------------------- model pieces


def ard_gaussian_kernel(
    X: np.ndarray, log_lengthscales_sq: np.ndarray, jitter: float = DEFAULT_JITTER
) -> np.ndarray:
    """Kernel matrix of the ARD Gaussian covariance with unit signal variance, plus a ridge.

    ``K[i, j] = exp(-1/2 * sum_d (X[i, d] - X[j, d])**2 / exp(theta_d)) + jitter * [i == j]``
    with ``theta_d = log(l_d**2)`` the log squared length scale of input column ``d``.

    Parameters
    ----------
    X : numpy.ndarray
        Inputs of shape ``(n, d)``.
    log_lengthscales_sq : numpy.ndarray
        ``theta`` of shape ``(d,)``: finite log squared length scales.
    jitter : float, default 1e-3
        Non-negative ridge added to the diagonal.

    Returns
    -------
    numpy.ndarray
        Symmetric float64 matrix of shape ``(n, n)`` with diagonal ``1 + jitter``.

    Raises
    ------
    ValueError
        If ``X`` is not a finite 2-D array, ``log_lengthscales_sq`` does not have shape
        ``(d,)`` or is not finite, or ``jitter`` is negative or not finite.
    """
    X = _check_inputs(X)
    theta = _check_theta_shape(log_lengthscales_sq, X.shape[1])
    if not np.all(np.isfinite(theta)):
        raise ValueError("log_lengthscales_sq must be finite; found NaN or inf")
    jitter = check_nonnegative("jitter", jitter)
    K = np.exp(-0.5 * _scaled_sq_distances(X, theta))
    K[np.diag_indices_from(K)] = 1.0 + jitter
    return K


def _scaled_sq_distances(X: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Matrix of ``sum_d (X[i, d] - X[j, d])**2 / exp(theta_d)`` with exact zero diagonal."""
    with np.errstate(over="ignore", invalid="ignore"):
        scaled_X = X * np.exp(-0.5 * theta)
    if np.all(np.isfinite(scaled_X)):
        return squareform(pdist(scaled_X, "sqeuclidean"))
    # Some 1 / l_d overflowed (theta_d << 0): let a zero difference contribute 0, not 0 * inf.
    diff_sq = (X[:, None, :] - X[None, :, :]) ** 2
    with np.errstate(over="ignore", invalid="ignore"):
        terms = np.where(diff_sq > 0.0, diff_sq * np.exp(-theta), 0.0)
    return terms.sum(axis=-1)


def logistic_log_likelihood(f: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Log-likelihood ``sum_i log sigma(y_i f_i)`` of latent values, computed stably.

    Parameters
    ----------
    f : numpy.ndarray
        Latent values of shape ``(n,)`` or a batch of shape ``(m, n)``.
    y : numpy.ndarray
        Labels in ``{-1, +1}`` of shape ``(n,)``.

    Returns
    -------
    numpy.ndarray
        Scalar array (for ``f`` of shape ``(n,)``) or shape ``(m,)``.
    """
    return -np.logaddexp(0.0, -y * f).sum(axis=-1)


def _newton_objective(a: np.ndarray, f: np.ndarray, y: np.ndarray) -> float:
    """Unnormalised log posterior ``-1/2 a^T f + log p(y | f)`` with ``f = K a``."""
    return float(-0.5 * a @ f + logistic_log_likelihood(f, y))


def _curvature(f: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gradient of ``log p(y | f)`` and the diagonal ``W`` of its negative Hessian."""
    grad = y * expit(-y * f)  # d/df log sigma(y f) = y sigma(-y f)
    W = expit(f) * expit(-f)
    return grad, W


def _chol_B(K: np.ndarray, sqrt_W: np.ndarray) -> np.ndarray:
    """Lower Cholesky factor of ``B = I + W^{1/2} K W^{1/2}`` (eigenvalues >= 1)."""
    B = sqrt_W[:, None] * K * sqrt_W[None, :]
    B[np.diag_indices_from(B)] += 1.0
    return cholesky(B, lower=True)


def _newton_direction(K: np.ndarray, y: np.ndarray, f: np.ndarray) -> np.ndarray:
    """Full Newton update of ``a`` (Rasmussen & Williams Alg. 3.1, lines 4-7)."""
    grad, W = _curvature(f, y)
    sqrt_W = np.sqrt(W)
    L = _chol_B(K, sqrt_W)
    b = W * f + grad
    return b - sqrt_W * cho_solve((L, True), sqrt_W * (K @ b))


def laplace_approximation(
    K: np.ndarray,
    y: np.ndarray,
    *,
    tol: float = 1e-9,
    max_iter: int = 100,
    raise_on_failure: bool = False,
) -> LaplaceApproximation:
    """Laplace approximation of the GP-classification posterior with a logistic likelihood.

    Newton's method on ``Psi(f) = log p(y | f) - 1/2 f^T K^{-1} f`` in the numerically stable
    form of Rasmussen & Williams (2006), Algorithm 3.1: only ``B = I + W^{1/2} K W^{1/2}``
    (eigenvalues at least one) is factorised, never ``K``. Each step is halved until ``Psi``
    does not decrease, which guarantees convergence for this concave objective.

    Parameters
    ----------
    K : numpy.ndarray
        Symmetric positive semi-definite kernel matrix of shape ``(n, n)``.
    y : numpy.ndarray
        Labels in ``{-1, +1}`` of shape ``(n,)``.
    tol : float, default 1e-9
        Stop when ``max|f_new - f| <= tol * max(1, max|f|)``.
    max_iter : int, default 100
        Maximum number of Newton iterations.
    raise_on_failure : bool, default False
        If true, raise :class:`LaplaceConvergenceError` instead of returning a result with
        ``converged=False``.

    Returns
    -------
    LaplaceApproximation
        Mode, curvature, covariance and the Laplace log marginal likelihood
        ``-1/2 a^T f_hat + log p(y | f_hat) - sum_i log L_ii`` with ``L`` the Cholesky factor
        of ``B`` at the mode.

    Raises
    ------
    ValueError
        If ``K`` is not a finite square matrix, ``y`` is not a vector of ``-1``/``+1`` of
        matching length, or ``tol``/``max_iter`` are not positive.
    LaplaceConvergenceError
        If ``raise_on_failure`` and Newton's method did not converge.
    """
    K = np.asarray(K, dtype=np.float64)
    if K.ndim != 2 or K.shape[0] != K.shape[1] or K.shape[0] < 1:
        raise ValueError(f"K must be a square (n, n) matrix; got shape {K.shape}")
    if not np.all(np.isfinite(K)):
        raise ValueError("K must contain only finite values; found NaN or inf")
    y = _check_labels(y, K.shape[0])
    tol = check_positive("tol", tol)
    max_iter = check_int("max_iter", max_iter, minimum=1)

    n = K.shape[0]
    a = np.zeros(n)
    f = np.zeros(n)
    psi = _newton_objective(a, f, y)
    converged = False
    n_iter = 0
    while n_iter < max_iter and not converged:
        n_iter += 1
        a, f_new, psi = _damped_step(K, y, a, f, psi)
        converged = bool(np.max(np.abs(f_new - f)) <= tol * max(1.0, float(np.max(np.abs(f)))))
        f = f_new
    if raise_on_failure and not converged:
        raise LaplaceConvergenceError(
            f"Newton's method did not converge in {max_iter} iterations; "
            "increase max_iter or loosen tol"
        )
    return _laplace_at_mode(K, y, a, f, n_iter, converged)


def _damped_step(
    K: np.ndarray, y: np.ndarray, a: np.ndarray, f: np.ndarray, psi: float
) -> tuple[np.ndarray, np.ndarray, float]:
    """One Newton step in ``a``, halved up to 30 times until ``Psi`` does not decrease."""
    direction = _newton_direction(K, y, f) - a
    slack = 1e-12 * (1.0 + abs(psi))
    step = 1.0
    for _ in range(31):
        a_try = a + step * direction
        f_try = K @ a_try
        psi_try = _newton_objective(a_try, f_try, y)
        if psi_try >= psi - slack:
            return a_try, f_try, psi_try
        step *= 0.5
    return a, f, psi


def _laplace_at_mode(
    K: np.ndarray, y: np.ndarray, a: np.ndarray, f: np.ndarray, n_iter: int, converged: bool
) -> LaplaceApproximation:
    """Assemble :class:`LaplaceApproximation` from the final Newton iterate."""
    _, W = _curvature(f, y)
    sqrt_W = np.sqrt(W)
    L = _chol_B(K, sqrt_W)
    V = solve_triangular(L, sqrt_W[:, None] * K, lower=True)
    cov = K - V.T @ V
    cov = 0.5 * (cov + cov.T)
    log_ml = _newton_objective(a, f, y) - float(np.sum(np.log(np.diag(L))))
    return LaplaceApproximation(
        mode=f,
        alpha=a,
        W=W,
        chol_B=L,
        cov=cov,
        log_marginal_likelihood=log_ml,
        n_iter=n_iter,
        converged=converged,
    )


# --------------------------------------------------------------------------- estimator


def _log_weights_from_kernel(
    K: np.ndarray, y: np.ndarray, n_importance: int, rng: np.random.Generator
) -> np.ndarray:
    """Importance log-weights for a given kernel matrix (``-inf`` if ``K`` is not PD).

    With ``K = L_K L_K^T`` and ``A = I + L_K^T W L_K = M M^T`` the Laplace covariance is
    ``Sigma = L_K A^{-1} L_K^T``, so ``f = f_hat + L_K M^{-T} z`` with ``z ~ N(0, I)`` is a
    draw from ``q``. Writing ``u = L_K^{-1} f_hat`` and ``v = M^{-T} z``, the log-weight
    ``log p(y|f) + log N(f; 0, K) - log q(f)`` simplifies to

    ``log p(y|f) - 1/2 ||u + v||^2 + 1/2 ||z||^2 - log det M``

    (the ``2 pi`` terms and ``log det L_K`` cancel). ``A`` has eigenvalues at least one.
    """
    try:
        L_K = cholesky(K, lower=True)
    except LinAlgError:
        return np.full(n_importance, -np.inf)
    laplace = laplace_approximation(K, y)
    G = np.sqrt(laplace.W)[:, None] * L_K
    A = G.T @ G
    A[np.diag_indices_from(A)] += 1.0
    M = cholesky(A, lower=True)
    u = solve_triangular(L_K, laplace.mode, lower=True)
    Z = rng.standard_normal((n_importance, K.shape[0]))
    V = solve_triangular(M, Z.T, lower=True, trans="T")  # columns M^{-T} z
    F = laplace.mode[None, :] + (L_K @ V).T
    log_prior_over_q = (
        -0.5 * np.sum((u[:, None] + V) ** 2, axis=0)
        + 0.5 * np.sum(Z**2, axis=1)
        - float(np.sum(np.log(np.diag(M))))
    )
    return logistic_log_likelihood(F, y) + log_prior_over_q


def importance_sampling_log_weights(
    theta: np.ndarray,
    X: np.ndarray,
    y: np.ndarray,
    n_importance: int = DEFAULT_N_IMPORTANCE,
    rng: np.random.Generator | None = None,
    jitter: float = DEFAULT_JITTER,
) -> np.ndarray:
    """Log importance weights ``log p(y|f_i) + log N(f_i; 0, K) - log q(f_i)``, ``f_i ~ q``.

    ``q = N(f_hat, Sigma)`` is the Laplace approximation at ``theta`` (see the module
    docstring). The mean of the exponentiated weights is an unbiased estimate of
    ``p(y | theta)``.

    Parameters
    ----------
    theta : numpy.ndarray
        Log squared length scales ``theta_d = log(l_d**2)``, shape ``(d,)``.
    X : numpy.ndarray
        Training inputs of shape ``(n, d)``.
    y : numpy.ndarray
        Labels in ``{-1, +1}`` of shape ``(n,)``.
    n_importance : int, default 100
        Number of importance samples ``m``.
    rng : numpy.random.Generator
        Source of randomness (required).
    jitter : float, default 1e-3
        Ridge added to the kernel diagonal.

    Returns
    -------
    numpy.ndarray
        Float64 array of shape ``(n_importance,)``. All entries are ``-inf`` when ``theta``
        is not finite (a point outside the support of the prior, so a sampler rejects it) or
        when the kernel matrix is not positive definite even after adding ``jitter`` (its
        Cholesky factorisation fails, e.g. with ``jitter=0`` and duplicated inputs).

    Raises
    ------
    ValueError
        If the shapes of ``theta``, ``X`` and ``y`` do not match, ``y`` is not ``-1``/``+1``,
        ``n_importance < 1``, ``rng`` is not a ``Generator`` or ``jitter`` is invalid.
    """
    X = _check_inputs(X)
    theta = _check_theta_shape(theta, X.shape[1])
    y = _check_labels(y, X.shape[0])
    n_importance = check_int("n_importance", n_importance, minimum=1)
    rng = check_rng("rng", rng)
    jitter = check_nonnegative("jitter", jitter)
    if not np.all(np.isfinite(theta)):
        return np.full(n_importance, -np.inf)
    K = ard_gaussian_kernel(X, theta, jitter)
    return _log_weights_from_kernel(K, y, n_importance, rng)


def importance_sampling_log_marginal(
    theta: np.ndarray,
    X: np.ndarray,
    y: np.ndarray,
    n_importance: int = DEFAULT_N_IMPORTANCE,
    rng: np.random.Generator | None = None,
    jitter: float = DEFAULT_JITTER,
) -> float:
    """Log of the unbiased importance-sampling estimate of ``p(y | theta)``.

    ``log p_hat = logsumexp(log_w) - log(m)`` with the log-weights of
    :func:`importance_sampling_log_weights`. ``p_hat`` (not its log) is unbiased.

    Parameters
    ----------
    theta : numpy.ndarray
        Log squared length scales ``theta_d = log(l_d**2)``, shape ``(d,)``.
    X : numpy.ndarray
        Training inputs of shape ``(n, d)``.
    y : numpy.ndarray
        Labels in ``{-1, +1}`` of shape ``(n,)``.
    n_importance : int, default 100
        Number of importance samples ``m``.
    rng : numpy.random.Generator
        Source of randomness (required).
    jitter : float, default 1e-3
        Ridge added to the kernel diagonal.

    Returns
    -------
    float
        The log estimate; ``-inf`` (never NaN, no exception) when ``theta`` is not finite or
        the kernel matrix is not positive definite even after ``jitter``.

    Raises
    ------
    ValueError
        As :func:`importance_sampling_log_weights`.
    """
    log_w = importance_sampling_log_weights(theta, X, y, n_importance, rng, jitter)
    if np.all(log_w == -np.inf):
        return -math.inf
    return float(logsumexp(log_w) - math.log(log_w.size))


def gpc_log_prior(theta: np.ndarray, variance: float = GPC_PRIOR_VARIANCE) -> float:
    """Log density of the prior ``theta ~ N(0, variance * I)`` (default variance 5).

    Parameters
    ----------
    theta : numpy.ndarray
        Log squared length scales, shape ``(d,)``.
    variance : float, default 5.0
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
    theta = np.asarray(theta, dtype=np.float64)
    if theta.ndim != 1 or theta.size < 1:
        raise ValueError(f"theta must be a non-empty 1-D array; got shape {theta.shape}")
    variance = check_positive("variance", variance)
    if not np.all(np.isfinite(theta)):
        return -math.inf
    return float(
        -0.5 * np.sum(theta**2) / variance - 0.5 * theta.size * (_LOG_2PI + math.log(variance))
    )


@dataclass(frozen=True)
class GPCLogLikelihoodEstimator:
    """Black-box ``estimate(theta, rng) -> float`` for one fixed classification data set.

    Calling the instance returns :func:`importance_sampling_log_marginal` for the stored
    ``X``, ``y``, ``n_importance`` and ``jitter``. Instances are immutable and picklable.

    Parameters
    ----------
    X : numpy.ndarray
        Training inputs of shape ``(n, d)`` (read-only copy).
    y : numpy.ndarray
        Labels in ``{-1, +1}`` of shape ``(n,)`` (read-only copy).
    n_importance : int
        Importance samples per estimate.
    jitter : float
        Ridge added to the kernel diagonal.
    """

    X: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)
    n_importance: int = DEFAULT_N_IMPORTANCE
    jitter: float = DEFAULT_JITTER

    def __post_init__(self) -> None:
        """Validate and freeze the data."""
        X = _check_inputs(self.X).copy()
        y = _check_labels(self.y, X.shape[0]).copy()
        X.setflags(write=False)
        y.setflags(write=False)
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", y)
        object.__setattr__(
            self, "n_importance", check_int("n_importance", self.n_importance, minimum=1)
        )
        object.__setattr__(self, "jitter", check_nonnegative("jitter", self.jitter))

    @property
    def ndim(self) -> int:
        """Dimension of ``theta`` (number of input columns)."""
        return int(self.X.shape[1])

    def __call__(self, theta: np.ndarray, rng: np.random.Generator) -> float:
        """Return a log estimate of ``p(y | theta)`` (``-inf`` as documented above).

        Parameters
        ----------
        theta : numpy.ndarray
            Log squared length scales of shape ``(d,)``.
        rng : numpy.random.Generator
            Source of randomness.

        Returns
        -------
        float
            ``log p_hat(y | theta)``.
        """
        return importance_sampling_log_marginal(
            theta, self.X, self.y, self.n_importance, rng, self.jitter
        )


def make_gpc_log_likelihood_estimator(
    X: np.ndarray,
    y: np.ndarray,
    n_importance: int = DEFAULT_N_IMPORTANCE,
    jitter: float = DEFAULT_JITTER,
) -> GPCLogLikelihoodEstimator:
    """Build the callable ``estimate(theta, rng) -> float`` for GP classification.

    Parameters
    ----------
    X : numpy.ndarray
        Training inputs of shape ``(n, d)`` (for the Glass experiment: the whitened inputs of
        :func:`pymc_kameleon.targets.glass.load_glass_gpc`).
    y : numpy.ndarray
        Labels in ``{-1, +1}`` of shape ``(n,)``.
    n_importance : int, default 100
        Importance samples per estimate.
    jitter : float, default 1e-3
        Ridge added to the kernel diagonal.

    Returns
    -------
    GPCLogLikelihoodEstimator
        Immutable, picklable callable.

    Raises
    ------
    ValueError
        If the data or settings are invalid.
    """
    return GPCLogLikelihoodEstimator(X=X, y=y, n_importance=n_importance, jitter=jitter)
