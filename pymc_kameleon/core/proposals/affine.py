"""Affine coordinates for proposals: ``u = A^{-1} (x - shift)`` and back ``x = shift + A u``.

A proposal built in ``u`` (e.g. one whitened by a warm-up covariance estimate) draws a move
``du`` there and moves the state by ``A du``; its log-density in the states' coordinates is the
one in ``u`` minus ``log |det A|``. The map must stay fixed while the chain uses it for draws
that are kept (it is frozen with the rest of the proposal after warm-up).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pymc_kameleon.core.proposals.protocol import ComparedByState

__all__ = ["AffineMap", "diagonal_map"]


@dataclass(frozen=True, eq=False)
class AffineMap(ComparedByState):
    """Kernel coordinates ``u = inverse @ (x - shift)``; back: ``x = shift + matrix @ u``.

    A learner (e.g. one that whitens by a warm-up covariance estimate) hands it to a proposal's
    ``set_map``; the proposal's kernel, history subsample and covariance then live in ``u``.

    Parameters
    ----------
    shift : numpy.ndarray, shape (d,)
    matrix : numpy.ndarray, shape (d, d)
        Invertible linear part ``A``.
    inverse : numpy.ndarray, shape (d, d)
        ``A^{-1}``.
    log_det : float
        ``log |det A|``: the log-Jacobian of ``u -> x``.
    """

    shift: np.ndarray
    matrix: np.ndarray
    inverse: np.ndarray
    log_det: float

    def to_kernel(self, x: np.ndarray) -> np.ndarray:
        """Kernel coordinates of the rows (or the single state) ``x``.

        Parameters
        ----------
        x : numpy.ndarray, shape (d,) or (n, d)
            One state, or states as rows.

        Returns
        -------
        numpy.ndarray, shape (d,) or (n, d)
            ``inverse @ (x - shift)`` for each state, as floats (a new array).
        """
        return (np.asarray(x, dtype=float) - self.shift) @ self.inverse.T

    def to_states(self, u: np.ndarray) -> np.ndarray:
        """The states at kernel coordinates ``u`` (the inverse of :meth:`to_kernel`).

        Parameters
        ----------
        u : numpy.ndarray, shape (d,) or (n, d)
            One point, or points as rows.

        Returns
        -------
        numpy.ndarray, shape (d,) or (n, d)
            ``shift + matrix @ u`` for each point (a new array).
        """
        return self.shift + np.asarray(u, dtype=float) @ self.matrix.T


def diagonal_map(shift: np.ndarray, scales: np.ndarray) -> AffineMap:
    """The map ``u_i = (x_i - shift_i) / scales_i``: per-coordinate standardisation.

    Parameters
    ----------
    shift : array_like, shape (d,)
        Centre (finite).
    scales : array_like, shape (d,)
        Positive, finite scale of each coordinate.

    Returns
    -------
    AffineMap

    Raises
    ------
    ValueError
        If a scale is not positive and finite, or the shapes differ.
    """
    shift = np.array(shift, dtype=np.float64)
    scales = np.array(scales, dtype=np.float64)
    if shift.shape != scales.shape or shift.ndim != 1:
        raise ValueError(
            f"`shift` and `scales` must be vectors of one length, got shapes {shift.shape} and "
            f"{scales.shape}."
        )
    if not np.all(np.isfinite(scales) & (scales > 0.0)) or not np.all(np.isfinite(shift)):
        raise ValueError("`scales` must be positive and finite, and `shift` finite.")
    return AffineMap(
        shift=shift,
        matrix=np.diag(scales),
        inverse=np.diag(1.0 / scales),
        log_det=float(np.sum(np.log(scales))),
    )
