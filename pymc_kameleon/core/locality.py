"""How local a kernel is on a chain's history: the evidence for dropping a kernel move.

A Kameleon move at ``y`` is shaped by the history points with weights that scale as
``k(y, z_i)^2``. Where these weights are nearly equal, the kernel term is a global covariance
up to noise and the kernel's cost buys nothing over a global move; in whitened coordinates with
the median length scale this happens from about ten dimensions on, as pairwise distances
concentrate (``benchmarks/kernel_locality.py``).

A chain's own history is autocorrelated: a state's neighbours in time are also its neighbours in
space, which makes any kernel look local. :func:`history_locality` therefore weighs each state
only against the states at least a quarter of the eligible window away from it in time. That is
not enough early in a warm-up in many dimensions, where the whole window is one slow path, seen
through a whitening map that is still being learned (at d = 100 such histories measured 0.7-0.9,
where exact draws give 0.985, and a Gaussian with the history's own covariance 0.76-0.97). So
the measure is never taken below :func:`reference_share`, the share of the standard Gaussian of
the same dimension: what the kernel would see if whitening had succeeded and the posterior had
no structure beyond its covariance. Curvature lowers the share only in a few dimensions (on the
padded banana it is within 0.02 of the Gaussian's from d = 10 on); autocorrelation lowers it
spuriously. From 13 dimensions on the reference alone is above ``KameleonStep``'s threshold
(0.9), so there the decision is in effect one on the dimension.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np

from pymc_kameleon.core.bandwidth import median_heuristic
from pymc_kameleon.core.history import ChainHistory
from pymc_kameleon.core.kernels import GaussianKernel, Kernel

__all__ = ["history_locality", "kernel_weight_share", "reference_share"]

#: evaluation points and reference points of :func:`history_locality` (evenly thinned)
LOCALITY_POINTS = 20
LOCALITY_REFERENCE = 200
#: fewer eligible states than this: no measure
MIN_STATES = 40


def kernel_weight_share(points: np.ndarray, reference: np.ndarray, kernel: Kernel) -> float:
    """How evenly the reference points weigh in a kernel term, averaged over ``points``.

    At ``y`` the reference point ``z_i`` enters ``M_y H M_y^T`` with a weight that scales as
    ``w_i = k(y, z_i)^2``; the share is ``(sum w)^2 / (n sum w^2)``, the effective fraction of
    the ``n`` points that shape the term: 1 when every point counts the same, ``1/n`` when one
    point does. On exact draws of whitened Gaussians and bananas, with the median length scale,
    it is 0.6-0.7 at d = 2, 0.8 at d = 5, 0.87-0.88 at d = 10 and 0.985 at d = 100.

    Parameters
    ----------
    points : numpy.ndarray, shape (k, d)
        Where to look at the weights.
    reference : numpy.ndarray, shape (n, d)
    kernel : Kernel

    Returns
    -------
    float
        In ``(0, 1]``; NaN where the weights vanish at every point.
    """
    shares = []
    for y in np.atleast_2d(points):
        weights = kernel.value(y, reference) ** 2
        total = float(np.sum(weights**2))
        if total > 0.0 and math.isfinite(total):
            shares.append(float(np.sum(weights)) ** 2 / (weights.shape[0] * total))
    return float(np.mean(shares)) if shares else math.nan


def history_locality(
    history: ChainHistory,
    since: int,
    kernel: Kernel,
    to_coordinates: Callable[[np.ndarray], np.ndarray] | None = None,
) -> float:
    """:func:`kernel_weight_share` of a chain's history, each point against its distant past
    and future, and at least :func:`reference_share` of their dimension.

    The states recorded at ``since`` or later are ordered by iteration, and thinned evenly to at
    most 200 (so no random number of the chain is drawn). Each of 20 evenly spaced ones is
    weighed against the thinned states more than a quarter of the window away from it in time,
    at the median length scale of the thinned states.

    Parameters
    ----------
    history : ChainHistory
    since : int
        First eligible iteration.
    kernel : Kernel
        Kernel whose family is used (its length scale is replaced by the median).
    to_coordinates : callable, optional
        Maps states (rows) to the coordinates the kernel works in.

    Returns
    -------
    float
        The share, or NaN with fewer than 40 eligible states (or identical ones).
    """
    size = history.size
    eligible = np.flatnonzero(history.iterations[:size] >= since)
    if eligible.size < MIN_STATES:
        return math.nan
    ordered = eligible[np.argsort(history.iterations[eligible], kind="stable")]
    positions = _thinned(np.arange(ordered.size), LOCALITY_REFERENCE)
    states = history.values[ordered[positions]]
    if to_coordinates is not None:
        states = to_coordinates(states)
    try:
        bandwidth = median_heuristic(states, max_points=LOCALITY_REFERENCE)
    except ValueError:  # every state the same
        return math.nan
    scaled = kernel.with_bandwidth(bandwidth)
    gap = ordered.size / 4.0  # neighbours in time are neighbours in space: leave them out
    shares = []
    for at in _thinned(np.arange(positions.size), LOCALITY_POINTS):
        far = np.abs(positions - positions[at]) > gap
        if far.sum() >= MIN_STATES // 2:
            shares.append(kernel_weight_share(states[at], states[far], scaled))
    shares = [share for share in shares if not math.isnan(share)]
    measured = float(np.mean(shares)) if shares else math.nan
    return float(np.fmax(measured, reference_share(states.shape[1])))  # fmax: NaN loses


@functools.lru_cache(maxsize=64)
def reference_share(dim: int) -> float:
    """:func:`kernel_weight_share` of exact draws of the standard Gaussian in ``dim`` dimensions.

    The share of a posterior without structure beyond its covariance, in coordinates that whiten
    it (what the whitened warm-up aims at): 200 draws of a generator of fixed seed, 20 of them
    weighed against the rest at their median length scale: 0.71 at d = 2, 0.79 at d = 5, 0.86 at
    d = 8, 0.88 at d = 10, 0.90 at d = 12, 0.93 at d = 20 and 0.99 at d = 100.

    Parameters
    ----------
    dim : int

    Returns
    -------
    float
    """
    sample = np.random.default_rng(0).standard_normal((LOCALITY_REFERENCE, int(dim)))
    bandwidth = median_heuristic(sample, max_points=LOCALITY_REFERENCE)
    kernel = GaussianKernel(bandwidth)
    return kernel_weight_share(sample[:LOCALITY_POINTS], sample[LOCALITY_POINTS:], kernel)


def _thinned(indices: np.ndarray, at_most: int) -> np.ndarray:
    if indices.size <= at_most:
        return indices
    return indices[np.linspace(0, indices.size - 1, at_most).round().astype(int)]
