"""Coordinates in which a posterior's *local* width is about 1 in every direction.

Whitening by the global covariance makes a curved posterior's thin direction much thinner than
its others: on the banana B(0.03, 100) the local width across the ridge is 0.16 in globally
whitened coordinates while the other directions stay at 1, and one isotropic kernel length
scale and one step size cannot fit both. The average local precision, the Fisher
information ``F = E[s s^T]`` of the score ``s = grad log p``, measures widths where the
posterior is rather than how far it spreads. It is affine equivariant (``F`` becomes
``M^-T F M^-1`` under ``x -> M x``), and by the Cramér–Rao inequality ``F >= Sigma^-1``: in
globally whitened coordinates every eigenvalue is at least 1, with equality for a Gaussian.

:func:`finite_difference_scores` estimates scores without gradients (central differences of
the log-density, ``2 d`` evaluations a point); :func:`local_width_map` turns scores taken in
whitened coordinates into the map to local-width coordinates: eigenvalues the estimate's noise
can explain are raised to the bound 1, and those far below it widen a direction the whitening
made too thin. :class:`LocalWidthScores` collects such scores along a chain's warm-up and
composes a whitening map with the local-width map.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from pymc_kameleon.core.proposals.affine import AffineMap

__all__ = [
    "LocalWidthScores",
    "average_local_precision",
    "finite_difference_scores",
    "local_width_map",
    "noise_edge",
]

#: central-difference step, in whitened units: the error is (h / width)^2 relative, 1e-6 for a
#: direction 100 times thinner than the posterior's spread, far above round-off at 1e-3
DIFFERENCE_STEP = 1e-3


def finite_difference_scores(
    log_density: Callable[[np.ndarray], float], points: np.ndarray, step: float = DIFFERENCE_STEP
) -> np.ndarray:
    """Central-difference scores ``grad log p`` at the rows of ``points`` (2 d evaluations each).

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


def noise_edge(n_scores: int, dim: int) -> float:
    """The smallest eigenvalue that ``n_scores`` scores of a unit precision would show.

    The Marchenko–Pastur lower edge ``(1 - sqrt(d / n))^2`` of ``mean(s s^T)`` for ``n``
    standard normal ``s`` in ``d`` dimensions (0 when ``n <= d``: the estimate is singular).

    Parameters
    ----------
    n_scores, dim : int

    Returns
    -------
    float
    """
    if n_scores <= dim:
        return 0.0
    return (1.0 - np.sqrt(dim / n_scores)) ** 2


def local_width_map(precision: np.ndarray, n_scores: int | None = None) -> np.ndarray:
    """The matrix ``B`` with ``z = B u``: from whitened ``z`` to local-width coordinates ``u``.

    ``B = V diag(w)^-1/2 V^T`` for ``precision = V diag(w) V^T``, so the average local precision
    in ``u`` is the identity. By the Cramér–Rao bound every eigenvalue is at least 1 where the
    whitening is right. One from ``n_scores`` scores that is still at least :func:`noise_edge`
    can be noise, and is raised to 1. One below the edge is evidence that the whitening made
    that direction too thin (a warm-up that has not yet spread along it), so the map widens it,
    by ``sqrt(edge / w)``, which is conservative.

    Parameters
    ----------
    precision : numpy.ndarray, shape (d, d)
        Average local precision in whitened coordinates (:func:`average_local_precision`).
    n_scores : int, optional
        The number of scores behind it (None: no direction is widened).

    Returns
    -------
    numpy.ndarray, shape (d, d)
        Symmetric and positive definite.
    """
    values, vectors = np.linalg.eigh(0.5 * (precision + precision.T))
    edge = 0.0 if n_scores is None else noise_edge(n_scores, values.size)
    raised = np.maximum(values, 1.0)
    if edge > 0.0:
        # a zero eigenvalue (a direction with no slope at all) is widened at most 1e4-fold
        widened = np.maximum(values, 1e-8 * edge) / edge
        values = np.where(values < edge, widened, raised)
    else:
        values = raised
    return (vectors / np.sqrt(values)) @ vectors.T


class LocalWidthScores:
    """Scores taken along a warm-up, and the local-width coordinates they give.

    At each iteration that is a multiple of ``every``, :meth:`record` takes a
    forward-difference score at the chain's state along the axes of the current whitening map
    (``d`` evaluations; its log-density is known), and keeps it in the states' own coordinates,
    where it does not depend on the map. :meth:`kernel_map` composes a whitening map with the
    local-width map of the scores of the later half of the iterations so far (the early ones come
    from before the chain reached the bulk), and keeps the result until the whitening map
    changes (a new kernel map makes the surrogate refit, which a new score alone is not worth).

    Parameters
    ----------
    every : int
        Iterations between scores (``4 d`` by default in KMCStep: a quarter of an evaluation
        per iteration).
    step : float
        The forward-difference step in whitened units.
    """

    def __init__(self, every: int, step: float = DIFFERENCE_STEP) -> None:
        self.every = max(1, int(every))
        self.step = float(step)
        self.scores: list[np.ndarray] = []
        self.iterations: list[int] = []
        self._cached: tuple[AffineMap | None, AffineMap | None] | None = None

    def __eq__(self, other: object) -> bool:
        """Same interval, step and scores (the cached map is derived from them)."""
        if not isinstance(other, LocalWidthScores):
            return NotImplemented
        return (
            (self.every, self.step, self.iterations) == (other.every, other.step, other.iterations)
            and len(self.scores) == len(other.scores)
            and all(np.array_equal(a, b) for a, b in zip(self.scores, other.scores, strict=True))
        )

    __hash__ = None  # type: ignore[assignment]

    def record(self, log_density, x: np.ndarray, value: float, affine: AffineMap, t: int) -> int:
        """Take a score at ``x`` if iteration ``t`` is due; return the evaluations spent.

        Parameters
        ----------
        log_density : callable
            ``x -> log p(x)``, deterministic.
        x : numpy.ndarray, shape (d,)
        value : float
            ``log p(x)``.
        affine : AffineMap
            The whitening map: the differences are taken along its columns.
        t : int
            The iteration.

        Returns
        -------
        int
        """
        if t % self.every != 0 or not np.isfinite(value):
            return 0
        whitened = np.empty(x.size)
        for i in range(x.size):
            whitened[i] = (log_density(x + self.step * affine.matrix[:, i]) - value) / self.step
        if np.all(np.isfinite(whitened)):
            # s_x = A^-T s_z: the score in the states' coordinates
            self.scores.append(affine.inverse.T @ whitened)
            self.iterations.append(t)
        return x.size

    def kernel_map(self, affine: AffineMap | None) -> AffineMap | None:
        """``affine`` composed with the local-width map of the later half of the scores.

        Parameters
        ----------
        affine : AffineMap or None
            The whitening map (None: no map yet, and none is returned).

        Returns
        -------
        AffineMap or None
            The same object until ``affine`` changes; ``affine`` itself while fewer than 2
            scores are kept.
        """
        if self._cached is not None and self._cached[0] is affine:
            return self._cached[1]
        kept = [s for s, t in zip(self.scores, self.iterations, strict=True)
                if t >= self.iterations[-1] // 2] if self.scores else []  # fmt: skip
        if affine is None or len(kept) < 2:
            result = affine
        else:
            whitened = np.asarray(kept) @ affine.matrix  # s_z = A^T s_x, as rows
            b = local_width_map(average_local_precision(whitened), len(kept))
            matrix = affine.matrix @ b
            log_det = affine.log_det + float(np.linalg.slogdet(b)[1])
            result = AffineMap(affine.shift, matrix, np.linalg.inv(matrix), log_det)
        self._cached = (affine, result)
        return result

    def record_states(self, log_density, states: np.ndarray, affine: AffineMap) -> int:
        """Take a score at each of ``states`` (e.g. a pilot sample); return the evaluations.

        Parameters
        ----------
        log_density : callable
        states : numpy.ndarray, shape (m, d)
        affine : AffineMap

        Returns
        -------
        int
        """
        spent = 0
        for x in np.asarray(states, dtype=float):
            value = float(log_density(x))
            spent += 1 + self.record(log_density, x, value, affine, 0)
        self._cached = None
        return spent
