"""The mathematics of MCMC PCA-Kameleon (KAMH paper, appendix C): a mixture of rank-one moves.

The centred kernel matrix ``H K H`` of a history subsample ``z_1..z_n`` has leading eigenvectors
``a_1..a_m`` (the RKHS's principal directions of the subsample). Mapped back to the state space
through the kernel gradients at ``y`` they give one direction per component,
``b_j(y) = M_y H a_j``, and the proposal at ``y`` picks component ``j`` with probability ``w_j``
and draws ``x ~ N(y, gamma^2 I + nu_j^2 b_j b_j^T)``. Its density is the mixture over ``j``
(the appendix's Proposition 3), so the reverse density is the same mixture built at ``x``: the
Metropolis-Hastings ratio stays exact. Each component is a rank-one update of ``gamma^2 I``, so
its log-density needs ``O(d)`` once ``b_j`` is known (Sherman-Morrison and the matrix
determinant lemma), and no ``d x d`` matrix is ever formed.

This module holds the pure functions; the proposal that learns ``a_j``, ``w_j`` and ``nu_j`` in
warm-up builds on them.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from pymc_kameleon.core.kernels import Kernel
from pymc_kameleon.core.proposals.kameleon import centered_gradient_matrix

__all__ = [
    "direction_vectors",
    "draw_rank_one_mixture",
    "principal_directions",
    "rank_one_mixture_logpdf",
]

_LOG_2PI = float(np.log(2.0 * np.pi))


def principal_directions(
    history: np.ndarray, kernel: Kernel, n_components: int
) -> tuple[np.ndarray, np.ndarray]:
    """Leading eigenpairs of the centred kernel matrix ``H K H`` of a subsample.

    Parameters
    ----------
    history : numpy.ndarray, shape (n, d)
        The subsample ``z_1..z_n``.
    kernel : Kernel
    n_components : int
        ``m``, at most ``n - 1`` (``H K H`` has rank at most ``n - 1``).

    Returns
    -------
    vectors : numpy.ndarray, shape (n, m)
        Unit eigenvectors ``a_j`` as columns, largest eigenvalue first.
    values : numpy.ndarray, shape (m,)
        Their eigenvalues ``lambda_j >= 0`` (rounding below zero is clipped).
    """
    history = np.asarray(history, dtype=float)
    n = history.shape[0]
    if not 1 <= n_components <= n - 1:
        raise ValueError(
            f"n_components must be between 1 and n - 1 = {n - 1} for {n} history points; "
            f"got {n_components}."
        )
    gram = np.vstack([kernel.value(z, history) for z in history])
    centred = gram - gram.mean(axis=0) - gram.mean(axis=1, keepdims=True) + gram.mean()
    values, vectors = np.linalg.eigh((centred + centred.T) / 2.0)
    order = np.argsort(values)[::-1][:n_components]
    return vectors[:, order], np.clip(values[order], 0.0, None)


def direction_vectors(
    y: np.ndarray, history: np.ndarray, kernel: Kernel, vectors: np.ndarray
) -> np.ndarray:
    """``b_j(y) = M_y H a_j`` for every component: the principal directions seen from ``y``.

    Parameters
    ----------
    y : numpy.ndarray, shape (d,)
    history : numpy.ndarray, shape (n, d)
    kernel : Kernel
    vectors : numpy.ndarray, shape (n, m)
        The ``a_j`` of :func:`principal_directions`.

    Returns
    -------
    numpy.ndarray, shape (d, m)
    """
    return centered_gradient_matrix(np.asarray(y, dtype=float), history, kernel).T @ vectors


def rank_one_mixture_logpdf(
    x: np.ndarray,
    center: np.ndarray,
    directions: np.ndarray,
    log_weights: np.ndarray,
    gamma: float,
    scales: np.ndarray,
) -> float:
    """``log sum_j w_j N(x; center, gamma^2 I + nu_j^2 b_j b_j^T)`` in ``O(d m)``.

    Parameters
    ----------
    x, center : numpy.ndarray, shape (d,)
    directions : numpy.ndarray, shape (d, m)
        The ``b_j`` as columns.
    log_weights : numpy.ndarray, shape (m,)
        ``log w_j``, summing (in probability) to one.
    gamma : float
        Standard deviation of the isotropic part, > 0.
    scales : numpy.ndarray, shape (m,)
        ``nu_j``.

    Returns
    -------
    float
    """
    r = np.asarray(x, dtype=float) - np.asarray(center, dtype=float)
    d = r.shape[0]
    g2 = float(gamma) ** 2
    nu2 = np.asarray(scales, dtype=float) ** 2
    b_norm2 = np.einsum("ij,ij->j", directions, directions)
    along = directions.T @ r  # b_j^T r
    denominator = g2 + nu2 * b_norm2  # 1 + nu^2 |b|^2 / gamma^2, times gamma^2
    # Sherman-Morrison for the quadratic form, the determinant lemma for the log-determinant
    quadratic = (r @ r - nu2 * along**2 / denominator) / g2
    log_det = d * np.log(g2) + np.log(denominator / g2)
    log_components = -0.5 * (d * _LOG_2PI + log_det + quadratic)
    return float(logsumexp(np.asarray(log_weights, dtype=float) + log_components))


def draw_rank_one_mixture(
    center: np.ndarray,
    directions: np.ndarray,
    weights: np.ndarray,
    gamma: float,
    scales: np.ndarray,
    rng: np.random.Generator,
) -> tuple[np.ndarray, int]:
    """One draw of the mixture: a component ``j ~ w``, then ``center + gamma e + nu_j b_j eta``.

    Parameters
    ----------
    center : numpy.ndarray, shape (d,)
    directions : numpy.ndarray, shape (d, m)
    weights : numpy.ndarray, shape (m,)
        Probabilities ``w_j``.
    gamma : float
    scales : numpy.ndarray, shape (m,)
    rng : numpy.random.Generator

    Returns
    -------
    x : numpy.ndarray, shape (d,)
    component : int
    """
    j = int(rng.choice(len(weights), p=np.asarray(weights, dtype=float)))
    d = center.shape[0]
    x = (
        center
        + gamma * rng.standard_normal(d)
        + scales[j] * directions[:, j] * rng.standard_normal()
    )
    return x, j
