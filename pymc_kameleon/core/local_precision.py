"""Coordinates in which a posterior's *local* width is about 1 in every direction.

Whitening by the global covariance makes a curved posterior's thin direction much thinner than
its others: on the banana B(0.03, 100) the local width across the ridge is 0.16 in globally
whitened coordinates while the other directions stay at 1, and one isotropic kernel length
scale and one step size cannot fit both (issue 31). The average local precision, the Fisher
information ``F = E[s s^T]`` of the score ``s = grad log p``, measures widths where the
posterior is rather than how far it spreads. It is affine equivariant (``F`` becomes
``M^-T F M^-1`` under ``x -> M x``), and by the Cramér–Rao inequality ``F >= Sigma^-1``: in
globally whitened coordinates every eigenvalue is at least 1, with equality for a Gaussian.

:func:`finite_difference_scores` estimates scores without gradients (central differences of
the log-density, ``2 d`` evaluations a point); :func:`local_width_map` turns scores taken in
whitened coordinates into the map to local-width coordinates, clipping the estimate's
eigenvalues at the bound 1 (noise below it is only noise).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["average_local_precision", "finite_difference_scores", "local_width_map"]

#: central-difference step, in whitened units: the error is (h / width)^2 relative, 1e-6 for a
#: direction 100 times thinner than the posterior's spread, far above round-off at 1e-3
DIFFERENCE_STEP = 1e-3


def finite_difference_scores(
    log_density: Callable[[np.ndarray], float], points: np.ndarray, step: float = DIFFERENCE_STEP
) -> np.ndarray:
    """Central-difference scores ``grad log p`` at each row of ``points`` (``2 d`` evaluations a row).

    Parameters
    ----------
    log_density : callable
        ``x -> log p(x)``, deterministic.
    points : numpy.ndarray, shape (m, d)
    step : float
        The difference step in the points' units (whitened coordinates: about 1e-3 of the
        posterior's spread).

    Returns
    -------
    numpy.ndarray, shape (m, d)
        Non-finite where a neighbouring evaluation was not finite.
    """
    points = np.atleast_2d(np.asarray(points, dtype=float))
    scores = np.empty_like(points)
    for row, x in enumerate(points):
        for i in range(x.size):
            up, down = x.copy(), x.copy()
            up[i] += step
            down[i] -= step
            scores[row, i] = (log_density(up) - log_density(down)) / (2.0 * step)
    return scores


def average_local_precision(scores: np.ndarray) -> np.ndarray:
    """The Fisher information ``mean(s s^T)`` of scores with finite entries.

    Parameters
    ----------
    scores : numpy.ndarray, shape (m, d)

    Returns
    -------
    numpy.ndarray, shape (d, d)

    Raises
    ------
    ValueError
        If no row is finite.
    """
    finite = scores[np.all(np.isfinite(scores), axis=1)]
    if finite.shape[0] == 0:
        raise ValueError("no finite score: the log-density is not finite near any point given")
    return finite.T @ finite / finite.shape[0]


def local_width_map(precision: np.ndarray) -> np.ndarray:
    """The matrix ``B`` with ``z = B u``: from whitened ``z`` to local-width coordinates ``u``.

    ``B = V diag(w)^-1/2 V^T`` for ``precision = V diag(w) V^T`` with ``w`` clipped below at 1
    (the Cramér–Rao bound in whitened coordinates), so the average local precision in ``u`` is
    the identity, where it was estimated above the bound.

    Parameters
    ----------
    precision : numpy.ndarray, shape (d, d)
        Average local precision in whitened coordinates (:func:`average_local_precision`).

    Returns
    -------
    numpy.ndarray, shape (d, d)
        Symmetric, with eigenvalues in (0, 1].
    """
    values, vectors = np.linalg.eigh(0.5 * (precision + precision.T))
    values = np.maximum(values, 1.0)
    return (vectors / np.sqrt(values)) @ vectors.T
