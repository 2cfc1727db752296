"""Adaptation schedules, Robbins–Monro scale learning and running moments.

Adaptive MCMC stays valid if adaptation either stops (the kernel is then a fixed Metropolis–Hastings
kernel) or *vanishes*: the probability :math:`p_t` of changing the proposal at iteration :math:`t`
tends to zero. With :math:`\\sum_t p_t = \\infty` the sampler still adapts indefinitely often
(Roberts & Rosenthal, 2007; Sejdinovic et al., 2014, Section 4).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = [
    "AdaptationSchedule",
    "CallableSchedule",
    "RunningMoments",
    "TuningOnly",
    "VanishingAdaptation",
    "make_schedule",
    "optimal_rw_scale",
    "robbins_monro_update",
]


class AdaptationSchedule:
    """Decides, at each iteration, how likely the proposal is to be re-learned.

    Subclasses implement :meth:`probability`. :attr:`adapts_after_tuning` tells the sampler whether
    the scale learning and the history recording continue once warm-up has ended.
    """

    adapts_after_tuning: bool = False

    def probability(self, iteration: int, tuning: bool) -> float:
        """Probability of refreshing the proposal at ``iteration``.

        Parameters
        ----------
        iteration : int
            Iterations since the chain started (0-based).
        tuning : bool
            Whether the chain is in warm-up.

        Returns
        -------
        float
            A probability in ``[0, 1]``.
        """
        raise NotImplementedError


@dataclass(frozen=True)
class TuningOnly(AdaptationSchedule):
    """Adapt during warm-up, then freeze (the default).

    After warm-up the proposal no longer changes, so the post-warm-up chain is an ordinary,
    time-homogeneous Metropolis–Hastings chain.

    Parameters
    ----------
    probability_during_tuning : float, default 1.0
        Probability of refreshing the proposal at each warm-up iteration, in (0, 1]. Values
        below 1 make warm-up cheaper for proposals that are costly to rebuild.
    """

    probability_during_tuning: float = 1.0
    adapts_after_tuning = False

    def __post_init__(self) -> None:
        """Check the probability."""
        p = self.probability_during_tuning
        if isinstance(p, bool) or not (0.0 < float(p) <= 1.0):
            raise ValueError(
                f"`probability_during_tuning` of TuningOnly must lie in (0, 1], got {p!r}."
            )

    def probability(self, iteration: int, tuning: bool) -> float:
        return float(self.probability_during_tuning) if tuning else 0.0


@dataclass(frozen=True)
class VanishingAdaptation(AdaptationSchedule):
    """Keep adapting forever with a vanishing probability.

    During warm-up the proposal is refreshed at every iteration; afterwards with probability
    ``p_t = min(1, (t + 1) ** -exponent)``, which tends to 0 while ``sum_t p_t`` diverges for
    ``0 < exponent <= 1``.

    Parameters
    ----------
    exponent : float, default 0.5
        Decay exponent ``a`` in ``(0, 1]``.
    """

    exponent: float = 0.5
    adapts_after_tuning = True

    def __post_init__(self) -> None:
        """Check the exponent."""
        if not (0.0 < float(self.exponent) <= 1.0):
            raise ValueError(
                f"`exponent` of VanishingAdaptation must lie in (0, 1] so that p_t -> 0 and "
                f"sum p_t = inf; got {self.exponent!r}."
            )

    def probability(self, iteration: int, tuning: bool) -> float:
        if tuning:
            return 1.0
        return min(1.0, (iteration + 1.0) ** (-float(self.exponent)))


@dataclass(frozen=True)
class CallableSchedule(AdaptationSchedule):
    """A user-supplied schedule ``fn(iteration, tuning) -> p``.

    Parameters
    ----------
    fn : callable
        Function of the iteration (int) and the warm-up flag (bool) returning a probability. For
        a valid sampler it should tend to zero after warm-up (or be zero).
    adapts_after_tuning : bool, default True
        Whether scale learning and history recording continue after warm-up.
    """

    fn: Callable[[int, bool], float]
    adapts_after_tuning: bool = True  # type: ignore[misc]

    def probability(self, iteration: int, tuning: bool) -> float:
        """Evaluate the user function and check that it returned a probability.

        Parameters
        ----------
        iteration : int
            Iterations since the chain started (0-based).
        tuning : bool
            Whether the chain is in warm-up.

        Returns
        -------
        float
            A probability in ``[0, 1]``.
        """
        p = float(self.fn(iteration, tuning))
        if not (0.0 <= p <= 1.0):
            raise ValueError(
                f"The adaptation schedule returned {p!r} at iteration {iteration}; "
                "it must return a probability in [0, 1]."
            )
        return p


def make_schedule(adaptation: str | AdaptationSchedule | Callable) -> AdaptationSchedule:
    """Turn the user's ``adaptation=`` argument into a schedule.

    Parameters
    ----------
    adaptation : {"tune", "vanishing"}, AdaptationSchedule or callable
        ``"tune"`` adapts during warm-up and then freezes, ``"vanishing"`` is
        :class:`VanishingAdaptation` with exponent 0.5, a callable is wrapped in
        :class:`CallableSchedule`.

    Returns
    -------
    AdaptationSchedule
    """
    if isinstance(adaptation, AdaptationSchedule):
        return adaptation
    if isinstance(adaptation, type):
        raise TypeError(
            f"`adaptation` got the class {adaptation.__name__}; pass an instance, e.g. "
            f"{adaptation.__name__}()."
        )
    if isinstance(adaptation, str):
        if adaptation == "tune":
            return TuningOnly()
        if adaptation == "vanishing":
            return VanishingAdaptation()
        raise ValueError(
            f"Unknown `adaptation` {adaptation!r}; use 'tune' (adapt during warm-up, then freeze), "
            "'vanishing', an AdaptationSchedule instance, or a callable fn(iteration, tuning) -> p."
        )
    if callable(adaptation):
        return CallableSchedule(adaptation)
    raise TypeError(
        f"`adaptation` must be 'tune', 'vanishing', an AdaptationSchedule or a callable; "
        f"got {type(adaptation).__name__}."
    )


def robbins_monro_update(
    log_scale: float, accept_prob: float, target: float, count: int, exponent: float = 0.5
) -> float:
    """One Robbins–Monro step on a log scale toward a target acceptance probability.

    ``log_scale + (count + 1) ** -exponent * (accept_prob - target)``, as in Andrieu & Thoms
    (2008), Algorithm 4. Using the acceptance *probability* ``min(1, alpha)`` rather than the
    0/1 accept indicator lowers the variance of the update.

    Parameters
    ----------
    log_scale : float
        Current log scale (for example log nu^2).
    accept_prob : float
        Acceptance probability of the last proposal, in [0, 1].
    target : float
        Target acceptance probability in (0, 1).
    count : int
        Number of updates made so far (0 for the first).
    exponent : float, default 0.5
        Step-size decay exponent in (0.5, 1] for classic conditions; 0.5 is the KAMH choice.

    Returns
    -------
    float
        The updated log scale, clipped to ``[-50, 50]`` so that it can never overflow.
    """
    step = (count + 1.0) ** (-exponent)
    updated = log_scale + step * (accept_prob - target)
    return float(min(50.0, max(-50.0, updated)))


class RunningMoments:
    """Running mean and covariance of a stream of vectors (Welford's algorithm).

    Parameters
    ----------
    dim : int
        Dimension of the vectors.
    """

    def __init__(self, dim: int) -> None:
        self.count = 0
        self.mean = np.zeros(dim)
        self.scatter = np.zeros((dim, dim))

    def update(self, x: np.ndarray) -> None:
        """Add one vector: O(dim^2) work, constant memory.

        Parameters
        ----------
        x : numpy.ndarray, shape (dim,)
        """
        self.count += 1
        delta = x - self.mean
        self.mean = self.mean + delta / self.count
        self.scatter = self.scatter + np.outer(delta, x - self.mean)

    def update_batch(self, xs: np.ndarray) -> None:
        """Add several vectors at once (rows of ``xs``), merging moments as Chan et al. do.

        Parameters
        ----------
        xs : numpy.ndarray, shape (n, dim)
            Vectors to add; the result equals ``n`` calls of :meth:`update` up to rounding.
        """
        xs = np.asarray(xs, dtype=np.float64)
        n_b = xs.shape[0]
        if n_b == 0:
            return
        mean_b = xs.mean(axis=0)
        centred = xs - mean_b
        n_a, n = self.count, self.count + n_b
        delta = mean_b - self.mean
        self.mean = self.mean + delta * (n_b / n)
        self.scatter = self.scatter + centred.T @ centred + np.outer(delta, delta) * (n_a * n_b / n)
        self.count = n

    def covariance(self) -> np.ndarray:
        """Unbiased sample covariance (requires at least two vectors).

        Returns
        -------
        numpy.ndarray, shape (dim, dim)
        """
        if self.count < 2:
            raise ValueError("RunningMoments needs at least two vectors for a covariance.")
        return self.scatter / (self.count - 1)

    def reset(self) -> None:
        """Forget every vector."""
        self.count = 0
        self.mean = np.zeros_like(self.mean)
        self.scatter = np.zeros_like(self.scatter)

    def __eq__(self, other: object) -> bool:
        """Compare contents exactly."""
        if not isinstance(other, RunningMoments):
            return NotImplemented
        return (
            self.count == other.count
            and np.array_equal(self.mean, other.mean)
            and np.array_equal(self.scatter, other.scatter)
        )

    __hash__ = None  # type: ignore[assignment]


def optimal_rw_scale(dim: int) -> float:
    """Return the Roberts–Gelman–Gilks optimal random-walk variance factor ``2.38**2 / dim``.

    Parameters
    ----------
    dim : int
        Dimension of the sampled space.

    Returns
    -------
    float
    """
    return 2.38**2 / dim
