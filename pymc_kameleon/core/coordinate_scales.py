"""Per-coordinate proposal scales learned by Robbins–Monro, for the first stage of a warm-up.

Before any covariance can be estimated, a chain whose coordinates live on very different scales
(posterior sds of 1e-3 next to 1e3) needs a proposal scale per coordinate, or every joint move is
far too long in some direction and almost nothing is accepted. :class:`CoordinateScales` learns
one scale per coordinate from the acceptance probabilities of moves of that coordinate alone
(or of per-coordinate acceptance probabilities), each by its own Robbins–Monro recursion on the
log-scale (:func:`~pymc_kameleon.core.adaptation.robbins_monro_update`).

The default target 0.44 is the acceptance rate of the best one-dimensional Gaussian random walk
(Gelman, Roberts & Gilks, 1996). On a Gaussian coordinate of sd :math:`\\sigma` a random-walk
move of sd :math:`s` is accepted, at stationarity, with probability
:math:`\\tfrac{2}{\\pi} \\arctan(2\\sigma / s)`, so the recursion settles at
:math:`s = 2\\sigma / \\tan(\\pi\\,\\mathrm{target} / 2)`, which is :math:`2.42\\,\\sigma` for
0.44 (:func:`gaussian_coordinate_scale`).

A scale far from its fixed point is found by a **search** first: until the acceptance of a
coordinate's moves first falls on the other side of the target than at its first move, each
update moves its log-scale by ``SEARCH_GAIN * (accept - target)`` (about a factor 3 per update
when nearly everything, or nearly nothing, is accepted), so a scale 10^6 times off is found in
about 15 moves of that coordinate. From then on the gain is the usual ``(t + 1) ** -0.5``, whose
sum ``2 sqrt(t)`` averages the noise of the acceptance probabilities away.
"""

from __future__ import annotations

import math

import numpy as np

from pymc_kameleon.core.adaptation import robbins_monro_update
from pymc_kameleon.core.checks import (
    ArgumentTypeError,
    check_int,
    check_number,
    check_positive,
    show,
)
from pymc_kameleon.core.proposals.protocol import ComparedByState

__all__ = ["SEARCH_GAIN", "CoordinateScales", "gaussian_coordinate_scale"]

SEARCH_GAIN = 2.0
"""Gain of a coordinate's Robbins–Monro updates until its acceptance first crosses the target."""


def gaussian_coordinate_scale(target: float = 0.44) -> float:
    """The random-walk sd, in units of the target's sd, accepted with probability ``target``.

    For a Gaussian target of sd ``sigma`` and a Gaussian random-walk proposal of sd ``s``, the
    stationary acceptance probability is ``(2 / pi) * arctan(2 sigma / s)``; this returns the
    ``s / sigma`` that makes it ``target``: ``2 / tan(pi * target / 2)``.

    Parameters
    ----------
    target : float, default 0.44
        Acceptance probability, strictly between 0 and 1.

    Returns
    -------
    float
        About 2.42 for the default 0.44.
    """
    target = _check_target(target)
    return 2.0 / math.tan(math.pi * target / 2.0)


class CoordinateScales(ComparedByState):
    """One Robbins–Monro log-scale per coordinate, each driven by its own acceptance probability.

    Parameters
    ----------
    dim : int
        Number of coordinates, ``>= 1``.
    target : float, default 0.44
        Target acceptance probability of a one-coordinate move, strictly between 0 and 1.
    initial_scales : float or array_like of shape (dim,), default 1.0
        Starting scales (positive and finite), also restored by :meth:`reset`. The log-scales
        are kept in ``[-50, 50]`` like every Robbins–Monro scale of the package.
    exponent : float, default 0.5
        Gain decay exponent of :func:`~pymc_kameleon.core.adaptation.robbins_monro_update`, in
        ``(0, 1]``; the gain of a coordinate's ``t``-th update is ``(t + 1) ** -exponent``.

    Examples
    --------
    >>> scales = CoordinateScales(2, initial_scales=[1.0, 5.0])
    >>> round(scales.update(1, accept_prob=0.0), 4)  # rejected: the scale of coordinate 1 shrinks
    2.0739
    >>> scales.scales.round(4).tolist()
    [1.0, 2.0739]
    """

    def __init__(
        self,
        dim: int,
        target: float = 0.44,
        initial_scales: float | np.ndarray = 1.0,
        exponent: float = 0.5,
    ) -> None:
        self._dim = check_int("dim", dim, minimum=1, hint="It is the number of coordinates.")
        self._target = _check_target(target)
        self._exponent = check_number(
            "exponent",
            exponent,
            minimum=0.0,
            maximum=1.0,
            open_minimum=True,
            hint="The Robbins-Monro gain is (t + 1) ** -exponent; 0.5 is the default.",
        )
        self._initial_log_scales = np.log(_positive_scales(initial_scales, self._dim))
        self.reset()

    @property
    def dim(self) -> int:
        """Number of coordinates."""
        return self._dim

    @property
    def target(self) -> float:
        """Target acceptance probability of a one-coordinate move."""
        return self._target

    @property
    def scales(self) -> np.ndarray:
        """The current scale of every coordinate (a new array)."""
        return np.exp(self._log_scales)

    @property
    def log_scales(self) -> np.ndarray:
        """The current log-scales (a copy)."""
        return self._log_scales.copy()

    @property
    def updates(self) -> np.ndarray:
        """How many updates each coordinate has had since the start or the last :meth:`reset`."""
        return self._updates.copy()

    @property
    def searching(self) -> np.ndarray:
        """Which coordinates are still in their search (see the module docstring)."""
        return self._first_side != 2

    def update(self, index: int, accept_prob: float) -> float:
        """One Robbins–Monro step of coordinate ``index`` toward the target acceptance.

        Parameters
        ----------
        index : int
            The coordinate that was moved, ``0 <= index < dim``.
        accept_prob : float
            Acceptance probability ``min(1, alpha)`` of that move, in ``[0, 1]``.

        Returns
        -------
        float
            The coordinate's new scale.
        """
        index = check_int("index", index, minimum=0, maximum=self._dim - 1)
        accept_prob = check_number(
            "accept_prob",
            accept_prob,
            minimum=0.0,
            maximum=1.0,
            hint="Pass the acceptance probability min(1, alpha) of the move.",
        )
        side = 1 if accept_prob > self._target else -1
        if self._first_side[index] == 0:
            self._first_side[index] = side
        elif self._first_side[index] != 2 and side != self._first_side[index]:
            self._first_side[index] = 2  # crossed the target: the search is over
        log_scale = float(self._log_scales[index])
        if self._first_side[index] != 2:
            updated = log_scale + SEARCH_GAIN * (accept_prob - self._target)
            self._log_scales[index] = min(50.0, max(-50.0, updated))
        else:
            self._log_scales[index] = robbins_monro_update(
                log_scale, accept_prob, self._target, int(self._settled[index]), self._exponent
            )
            self._settled[index] += 1
        self._updates[index] += 1
        return math.exp(self._log_scales[index])

    def reset(self) -> None:
        """Start afresh: the initial scales, every coordinate searching, no updates."""
        self._log_scales = self._initial_log_scales.copy()
        self._updates = np.zeros(self._dim, dtype=np.int64)
        self._settled = np.zeros(self._dim, dtype=np.int64)  # updates since the search ended
        # side of the target of each coordinate's first acceptance (1 above, -1 below, 0 none
        # yet); 2 once an acceptance fell on the other side, which ends the search
        self._first_side = np.zeros(self._dim, dtype=np.int64)


def _check_target(target: float) -> float:
    """``target`` as a float strictly between 0 and 1."""
    return check_number(
        "target",
        target,
        minimum=0.0,
        maximum=1.0,
        open_minimum=True,
        open_maximum=True,
        hint="It is an acceptance probability; 0.44 is best for one coordinate.",
    )


def _positive_scales(value: float | np.ndarray, dim: int) -> np.ndarray:
    """``value`` as ``dim`` positive finite floats (a scalar is repeated)."""
    hint = "They are the starting random-walk sds of the coordinates; 1.0 is the default."
    if not isinstance(value, list | tuple | np.ndarray):
        return np.full(dim, check_positive("initial_scales", value, hint=hint))
    array = np.asarray(value)
    if array.dtype.kind not in "iuf":  # no bools, strings or objects
        raise ArgumentTypeError(
            f"`initial_scales` must be a positive number or {dim} positive numbers, got "
            f"{show(value)}. {hint}"
        )
    if array.shape not in ((), (dim,)):
        raise ValueError(
            f"`initial_scales` must be one number or have shape ({dim},), got shape "
            f"{array.shape}. {hint}"
        )
    scales = np.array(np.broadcast_to(array.astype(np.float64), (dim,)))
    if not np.all(np.isfinite(scales) & (scales > 0.0)):
        raise ValueError(f"`initial_scales` must be positive and finite, got {show(value)}. {hint}")
    return scales
