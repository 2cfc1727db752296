"""Covariance estimates from one warm-up window at a time, and the affine map that whitens by one.

A :class:`WindowedCovariance` collects the states of the current warm-up window (the windows of
:class:`~pymc_kameleon.core.proposals.WhitenedProposal`); :meth:`~WindowedCovariance.close`
turns them into a covariance estimate and starts an empty window, so that every estimate comes
from one window only and the chain's early, unrepresentative states are forgotten.

The estimate is shrunk toward its own diagonal,

.. math:: \\hat\\Sigma = \\frac{n}{n + k} S + \\frac{k}{n + k} \\operatorname{diag}(S),

with :math:`S` the window's sample covariance, :math:`n` its number of states and :math:`k` the
``shrinkage``. Shrinking toward the diagonal (rather than toward a multiple of the identity, as
Stan does) keeps the estimate free of units: rescaling a coordinate rescales its row and column of
:math:`\\hat\\Sigma` and nothing else. A short window is thus mostly a diagonal (per-coordinate
scale) estimate, and a long one mostly the full sample covariance.

:func:`whitening_map` turns a mean and a covariance into the
:class:`~pymc_kameleon.core.proposals.affine.AffineMap` ``u = L^{-1} (x - mean)`` with
``L L^T = cov``: in ``u`` a Gaussian of that mean and covariance is standard normal.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import LinAlgError, cholesky, solve_triangular

from pymc_kameleon.core.adaptation import RunningMoments
from pymc_kameleon.core.checks import check_int, check_nonnegative, check_vector
from pymc_kameleon.core.proposals.affine import AffineMap
from pymc_kameleon.core.proposals.protocol import ComparedByState

__all__ = ["RELATIVE_JITTER", "WindowedCovariance", "whitening_map"]

RELATIVE_JITTER = 1e-10
"""Added to each diagonal entry of a closed window's covariance, times that entry.

Relative to each coordinate's own variance, so that it has no units; it keeps the estimate
positive definite with ``shrinkage=0`` and fewer states than dimensions.
"""

#: largest asymmetry |C_ij - C_ji| accepted by whitening_map, relative to sqrt(C_ii C_jj)
_SYMMETRY_TOLERANCE = 1e-8


class WindowedCovariance(ComparedByState):
    """Sample covariance of the states of the current warm-up window, shrunk toward its diagonal.

    Parameters
    ----------
    dim : int
        Dimension of the states, ``>= 1``.
    shrinkage : float, default 5.0
        The ``k`` of ``n/(n+k) S + k/(n+k) diag(S)``: the number of states' worth of weight the
        diagonal gets (Stan uses 5 toward its identity target). ``0`` gives the sample
        covariance itself.
    min_states : int, default 10
        Fewest states a window needs for an estimate, ``>= 2``.

    Examples
    --------
    >>> import numpy as np
    >>> windowed = WindowedCovariance(2)
    >>> sds = np.array([1e-3, 1e3])
    >>> windowed.update_batch(np.random.default_rng(0).normal(size=(200, 2)) * sds)
    >>> (np.sqrt(np.diag(windowed.close())) / sds).round(2).tolist()
    [0.98, 1.01]
    >>> windowed.count  # a new, empty window
    0
    """

    def __init__(self, dim: int, shrinkage: float = 5.0, min_states: int = 10) -> None:
        self._dim = check_int("dim", dim, minimum=1, hint="It is the length of the states.")
        self._shrinkage = check_nonnegative(
            "shrinkage",
            shrinkage,
            hint="It is the weight, in states, of the diagonal target; 5 is a typical value.",
        )
        self._min_states = check_int(
            "min_states",
            min_states,
            minimum=2,
            hint="A covariance needs at least two states; 10 is the default.",
        )
        self._moments = RunningMoments(self._dim)

    @property
    def dim(self) -> int:
        """Dimension of the states."""
        return self._dim

    @property
    def shrinkage(self) -> float:
        """Weight, in states, of the diagonal target."""
        return self._shrinkage

    @property
    def min_states(self) -> int:
        """Fewest states a window needs for an estimate."""
        return self._min_states

    @property
    def count(self) -> int:
        """Number of states in the current window."""
        return self._moments.count

    @property
    def mean(self) -> np.ndarray:
        """Mean of the current window's states (a copy; zeros for an empty window)."""
        return self._moments.mean.copy()

    def update(self, x: np.ndarray) -> None:
        """Add one state to the current window.

        Parameters
        ----------
        x : array_like, shape (dim,)
            A finite state.
        """
        x = check_vector("x", x, self._dim)
        if not np.all(np.isfinite(x)):
            raise ValueError(f"`x` must be finite, got {x!r}; a chain state has no NaN or inf.")
        self._moments.update(x)

    def update_batch(self, xs: np.ndarray) -> None:
        """Add several states (rows of ``xs``) to the current window.

        Parameters
        ----------
        xs : array_like, shape (n, dim)
            Finite states as rows; ``n`` may be 0.
        """
        xs = np.asarray(xs, dtype=np.float64)
        if xs.ndim != 2 or xs.shape[1] != self._dim:
            raise ValueError(f"`xs` must have shape (n, {self._dim}), got shape {xs.shape}.")
        if not np.all(np.isfinite(xs)):
            raise ValueError("`xs` must be finite; found NaN or inf.")
        self._moments.update_batch(xs)

    def close(self) -> np.ndarray | None:
        """End the current window: its shrunk covariance, then a new, empty window.

        Returns
        -------
        numpy.ndarray of shape (dim, dim), or None
            ``n/(n+k) S + (k/(n+k) + RELATIVE_JITTER) diag(S)``, symmetric positive definite.
            None if the window had fewer than ``min_states`` states or a coordinate that never
            changed (a stuck chain): the caller then keeps the covariance it had.
        """
        estimate = self._estimate()
        self._moments.reset()
        return estimate

    def reset(self) -> None:
        """Forget the current window's states (e.g. for a new chain)."""
        self._moments.reset()

    def _estimate(self) -> np.ndarray | None:
        n = self._moments.count
        if n < self._min_states:
            return None
        sample = self._moments.covariance()
        sample = 0.5 * (sample + sample.T)  # Welford's scatter is symmetric only up to rounding
        variances = np.diag(sample).copy()
        if not np.all(variances > 0.0):  # a coordinate with no spread has nothing to whiten by
            return None
        k = self._shrinkage
        covariance = sample * (n / (n + k))
        covariance[np.diag_indices(self._dim)] += (k / (n + k) + RELATIVE_JITTER) * variances
        return covariance


def whitening_map(mean: np.ndarray, cov: np.ndarray) -> AffineMap:
    """The affine map ``u = L^{-1} (x - mean)`` with ``L`` the lower Cholesky factor of ``cov``.

    Parameters
    ----------
    mean : array_like, shape (d,)
        Centre of the map (its ``shift``), finite.
    cov : array_like, shape (d, d)
        Symmetric positive definite covariance, e.g. from :meth:`WindowedCovariance.close`.

    Returns
    -------
    AffineMap
        ``shift = mean``, ``matrix = L``, ``inverse = L^{-1}`` and ``log_det = sum(log diag L)``
        (half the log-determinant of ``cov``).

    Raises
    ------
    ValueError
        If the shapes do not match or a value is not finite.
    numpy.linalg.LinAlgError
        If ``cov`` is not symmetric positive definite (also a ``ValueError``).
    """
    mean = np.array(mean, dtype=np.float64)  # a copy: the map must not change with the caller's
    if mean.ndim != 1 or mean.size == 0 or not np.all(np.isfinite(mean)):
        raise ValueError(f"`mean` must be a finite, non-empty vector, got shape {mean.shape}.")
    d = mean.size
    cov = np.asarray(cov, dtype=np.float64)
    if cov.shape != (d, d):
        raise ValueError(f"`cov` must have shape ({d}, {d}) like `mean`, got shape {cov.shape}.")
    if not np.all(np.isfinite(cov)):
        raise ValueError("`cov` must be finite; found NaN or inf.")
    _check_positive_definite_shape(cov)
    try:
        lower = cholesky(cov, lower=True, check_finite=False)
    except LinAlgError:
        raise LinAlgError(_NOT_PD) from None
    inverse = solve_triangular(lower, np.eye(d), lower=True, check_finite=False)
    log_det = float(np.sum(np.log(np.diag(lower))))
    return AffineMap(shift=mean, matrix=lower, inverse=inverse, log_det=log_det)


_NOT_PD = (
    "`cov` must be symmetric positive definite; it is not. Regularise it first, e.g. shrink it "
    "toward its diagonal as WindowedCovariance.close() does, or keep the previous map."
)


def _check_positive_definite_shape(cov: np.ndarray) -> None:
    """Refuse a non-positive diagonal or an asymmetric ``cov`` before factorising it."""
    variances = np.diag(cov)
    if not np.all(variances > 0.0):
        raise LinAlgError(f"{_NOT_PD} Its diagonal has entries <= 0: {variances!r}.")
    # asymmetry relative to each entry's scale, so that the test has no units
    scale = np.sqrt(np.outer(variances, variances))
    if np.any(np.abs(cov - cov.T) > _SYMMETRY_TOLERANCE * scale):
        raise LinAlgError(f"{_NOT_PD} It is not symmetric (cov != cov.T).")
