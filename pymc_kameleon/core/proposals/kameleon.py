"""Gaussian random-walk proposals, including the kernel-informed Kameleon proposal.

The Kameleon proposal at a point :math:`y` (Sejdinovic et al., 2014) is

.. math:: q(\\cdot \\mid y) = \\mathcal N\\big(y,\\; \\gamma^2 I + \\nu^2 M_y H M_y^\\top\\big),

where the columns of the :math:`d \\times n` matrix :math:`M_y` are :math:`2\\nabla_x k(x, z_i)`
evaluated at :math:`x = y` for a subsample :math:`z_1, \\dots, z_n` of the chain history, and
:math:`H = I_n - \\tfrac1n \\mathbf 1 \\mathbf 1^\\top` is the centering matrix. We never form
:math:`H`: :math:`M H M^\\top = \\sum_i (m_i - \\bar m)(m_i - \\bar m)^\\top` with :math:`m_i` the
columns of :math:`M`, which costs :math:`O(n d^2)`.

The proposal depends on :math:`y`, so it is *not* symmetric and the Metropolis–Hastings ratio must
include :math:`q(x \\mid x^*) / q(x^* \\mid x)`.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from pymc_kameleon.core import accelerated
from pymc_kameleon.core.adaptation import (
    AdaptationSchedule,
    ScaleAdapter,
    TuningOnly,
    optimal_rw_scale,
)
from pymc_kameleon.core.bandwidth import median_heuristic
from pymc_kameleon.core.history import PINNED_ITERATION, ChainHistory
from pymc_kameleon.core.kernels import GaussianKernel, Kernel
from pymc_kameleon.core.locality import history_locality, reference_share
from pymc_kameleon.core.proposals.affine import AffineMap
from pymc_kameleon.core.proposals.protocol import Transition
from pymc_kameleon.core.proposals.random_walk import GaussianRandomWalk

__all__ = [
    "KameleonProposal",
    "centered_gradient_matrix",
    "kameleon_covariance",
    "kameleon_gradient_matrix",
    "kameleon_scatter",
    "kameleon_scatters",
    "kernel_term_trace",
    "random_walk_trace",
    "scale_for_trace",
]


def kameleon_gradient_matrix(y: np.ndarray, history: np.ndarray, kernel: Kernel) -> np.ndarray:
    """The matrix ``M_y`` of the KAMH paper, stored transposed: row i is ``2 grad_x k(y, z_i)``.

    Parameters
    ----------
    y : numpy.ndarray, shape (d,)
        The point at which the proposal is built.
    history : numpy.ndarray, shape (n, d)
        Subsample ``z_1..z_n`` of the chain history.
    kernel : Kernel
        Kernel with gradients in its first argument.

    Returns
    -------
    numpy.ndarray, shape (n, d)
    """
    return 2.0 * kernel.grad(y, history)


def centered_gradient_matrix(y: np.ndarray, history: np.ndarray, kernel: Kernel) -> np.ndarray:
    """``M_y`` (transposed, as in :func:`kameleon_gradient_matrix`) with its row mean removed.

    ``C^T C`` of the result equals ``M H M^T``. The Gaussian kernel uses a compiled loop when
    Numba is available.

    Parameters
    ----------
    y : numpy.ndarray, shape (d,)
        The point at which the gradients are taken.
    history : numpy.ndarray, shape (n, d)
        History subsample.
    kernel : Kernel
        Kernel with gradients in its first argument.

    Returns
    -------
    numpy.ndarray, shape (n, d)
    """
    if accelerated.HAVE_NUMBA and type(kernel) is GaussianKernel:
        inv_bandwidth2 = 1.0 / kernel.bandwidth**2
        return accelerated.gaussian_centered_gradients(
            np.ascontiguousarray(y, dtype=float),
            np.ascontiguousarray(history, dtype=float),
            inv_bandwidth2,
        )
    m = kameleon_gradient_matrix(y, history, kernel)
    m -= m.sum(axis=0) * (1.0 / m.shape[0])
    return m


def kameleon_scatter(y: np.ndarray, history: np.ndarray, kernel: Kernel) -> np.ndarray:
    """The kernel term ``M_y H M_y^T`` of the Kameleon covariance (a new d x d array).

    The Gaussian kernel uses one compiled pass (gradients, centring and the d x d product) when
    Numba is available; the NumPy twin is ``C.T @ C`` with ``C`` from
    :func:`centered_gradient_matrix`.

    Parameters
    ----------
    y : numpy.ndarray, shape (d,)
        The point at which the proposal is built.
    history : numpy.ndarray, shape (n, d)
        Subsample ``z_1..z_n`` of the chain history, ``n >= 1``.
    kernel : Kernel
        Kernel with gradients in its first argument.

    Returns
    -------
    numpy.ndarray, shape (d, d)
    """
    if accelerated.HAVE_NUMBA and type(kernel) is GaussianKernel:
        return accelerated.gaussian_gradient_scatter(
            np.ascontiguousarray(y, dtype=float),
            np.ascontiguousarray(history, dtype=float),
            1.0 / kernel.bandwidth**2,
        )
    m = centered_gradient_matrix(y, history, kernel)
    return m.T @ m


def kameleon_scatters(points: np.ndarray, history: np.ndarray, kernel: Kernel) -> np.ndarray:
    """:func:`kameleon_scatter` at every row of ``points`` (one compiled loop with Numba).

    Parameters
    ----------
    points : numpy.ndarray, shape (m, d)
    history : numpy.ndarray, shape (n, d)
    kernel : Kernel

    Returns
    -------
    numpy.ndarray, shape (m, d, d)
    """
    if accelerated.HAVE_NUMBA and type(kernel) is GaussianKernel:
        return accelerated.gaussian_gradient_scatters(
            np.ascontiguousarray(points, dtype=float),
            np.ascontiguousarray(history, dtype=float),
            1.0 / kernel.bandwidth**2,
        )
    return np.stack([kameleon_scatter(y, history, kernel) for y in points])


def kameleon_covariance(
    y: np.ndarray, history: np.ndarray | None, kernel: Kernel, gamma2: float, nu2: float
) -> np.ndarray:
    """Covariance ``gamma2 I + nu2 M H M^T`` of the Kameleon proposal at ``y``.

    Parameters
    ----------
    y : numpy.ndarray, shape (d,)
        The point at which the proposal is built.
    history : numpy.ndarray of shape (n, d), or None
        Subsample of the chain history. ``None`` or fewer than two rows give ``gamma2 I``
        (a plain random walk).
    kernel : Kernel
        Kernel with gradients in its first argument.
    gamma2 : float
        Variance of the isotropic exploration term (gamma squared).
    nu2 : float
        Scale of the kernel-informed term (nu squared).

    Returns
    -------
    numpy.ndarray, shape (d, d)
    """
    dim = y.shape[0]
    cov = np.zeros((dim, dim))
    if history is not None and history.shape[0] >= 2:
        cov = kameleon_scatter(y, history, kernel)
        cov *= nu2
    cov.flat[:: dim + 1] += gamma2
    return cov


def kernel_term_trace(y: np.ndarray, history: np.ndarray, kernel: Kernel) -> float:
    """Trace of ``M H M^T`` at ``y``: the size of the kernel term before the scale ``nu2``.

    Parameters
    ----------
    y : numpy.ndarray, shape (d,)
        The point at which the proposal is built.
    history : numpy.ndarray, shape (n, d)
        History subsample.
    kernel : Kernel
        Kernel with gradients in its first argument.

    Returns
    -------
    float
    """
    m = centered_gradient_matrix(y, history, kernel)
    return float(np.einsum("ij,ij->", m, m))


def random_walk_trace(history: np.ndarray) -> float:
    """Trace of ``2.38^2 / d`` times the covariance of ``history``.

    The size of the optimally scaled random walk with the history's covariance; the Kameleon
    proposal's kernel term gets this trace when the history is first used.

    Parameters
    ----------
    history : numpy.ndarray, shape (n, d)
        History subsample (``n >= 2``).

    Returns
    -------
    float
    """
    history = np.asarray(history, dtype=float)
    return optimal_rw_scale(history.shape[1]) * float(np.trace(np.atleast_2d(np.cov(history.T))))


def scale_for_trace(
    y: np.ndarray, history: np.ndarray, kernel: Kernel, target_trace: float
) -> float | None:
    """The ``nu2`` that gives the kernel term at ``y`` the trace ``target_trace``.

    Parameters
    ----------
    y : numpy.ndarray, shape (d,)
        The point at which the proposal is built.
    history : numpy.ndarray, shape (n, d)
        History subsample.
    kernel : Kernel
        Kernel with gradients in its first argument.
    target_trace : float
        Wanted trace of ``nu2 M H M^T``.

    Returns
    -------
    float or None
        None when no positive finite scale does it (the kernel term vanishes at ``y``, or the
        target is not positive).
    """
    current = kernel_term_trace(y, history, kernel)
    if current > 0.0 and math.isfinite(current) and target_trace > 0.0:
        return target_trace / current
    return None


#: warm-up iterations between two locality measures, and how many recent ones are averaged
LOCALITY_INTERVAL = 100
LOCALITY_MEASURES = 3
_MEDIAN_MAX_POINTS = 500


class KameleonProposal(GaussianRandomWalk):
    r"""The Kameleon proposal ``N(y, gamma^2 I + nu^2 M_y H M_y^T)`` and how it learns.

    It keeps the chain's history (a :class:`~pymc_kameleon.core.history.ChainHistory`), draws the
    subsample ``z`` from it, re-estimates the kernel length scale (the ``bandwidth`` of the
    kernels, the one name this package uses for it in Kameleon; KMC calls the same quantity
    ``lengthscale``) on a doubling schedule, and learns ``nu^2`` by Robbins–Monro; when the
    bandwidth changes, ``nu^2`` is rescaled so that the kernel term keeps its trace.

    With an :class:`~pymc_kameleon.core.proposals.affine.AffineMap` (:meth:`set_map`) the
    proposal is built in kernel coordinates ``u`` (see
    :class:`~pymc_kameleon.core.proposals.random_walk.GaussianRandomWalk`); the history is kept
    in the states' coordinates and the subsample mapped.

    Parameters
    ----------
    dim : int
        Dimension of the states.
    kernel : Kernel, optional
        Kernel at its initial bandwidth; by default a Gaussian kernel of bandwidth 1 (replaced by
        the median heuristic when the history is first used).
    schedule : AdaptationSchedule, optional
        When the subsample is refreshed; by default :class:`~pymc_kameleon.core.TuningOnly`.
    n_history, gamma, adapt_start, discard_fraction, target_accept, learn_scale
        As for :class:`~pymc_kameleon.KameleonStep`.
    capacity : int
        Capacity of the history reservoir.
    median_bandwidth : bool
        Re-estimate the bandwidth by the median heuristic.
    nu2 : float, optional
        Initial ``nu^2``; None sets it by trace matching when the history is first used.
    initial_states : numpy.ndarray of shape (n, dim), optional
        States pinned in the history at every :meth:`reset` and used from the first proposal.
    locality_threshold : float, optional
        With a threshold, every 100 warm-up iterations the proposal measures its kernel's
        locality on the history (:func:`~pymc_kameleon.core.locality.history_locality`, the
        mean of the last three measures); above the threshold the kernel term is a global
        covariance up to noise, the proposal reports
        :attr:`in_use` False (a :class:`~pymc_kameleon.core.proposals.MixtureProposal` then
        gives it no weight) and stops refreshing its subsample until a measure finds it local
        again. After warm-up the decision stays. None (the default) never measures.
    """

    stats_dtypes: ClassVar[dict[str, tuple[Any, list]]] = {
        "scaling": (np.float64, []),
        "bandwidth": (np.float64, []),
        "n_history": (np.int64, []),
    }
    #: stats added with a ``locality_threshold``
    locality_stats: ClassVar[dict[str, tuple[Any, list]]] = {
        "weight_share": (np.float64, []),
        "kernel_local": (bool, []),
    }

    def __init__(
        self,
        dim: int,
        *,
        kernel: Kernel | None = None,
        schedule: AdaptationSchedule | None = None,
        n_history: int = 1000,
        gamma: float = 0.2,
        nu2: float | None = None,
        target_accept: float = 0.234,
        median_bandwidth: bool = True,
        adapt_start: int = 100,
        discard_fraction: float = 0.2,
        capacity: int = 5000,
        learn_scale: bool = True,
        initial_states: np.ndarray | None = None,
        locality_threshold: float | None = None,
    ) -> None:
        initial = ScaleAdapter(math.log(1.0 if nu2 is None else nu2))
        super().__init__(dim, gamma, initial, learn_scale, target_accept)
        self.base_kernel = GaussianKernel(1.0) if kernel is None else kernel
        self.schedule = TuningOnly() if schedule is None else schedule
        self.n_history = int(n_history)
        self.auto_nu2 = nu2 is None
        self.median_bandwidth = bool(median_bandwidth)
        self.adapt_start = int(adapt_start)
        self.discard_fraction = float(discard_fraction)
        self.capacity = int(capacity)
        self.initial_states = initial_states
        self.locality_threshold = locality_threshold
        if locality_threshold is not None:
            self.stats_dtypes = {**type(self).stats_dtypes, **self.locality_stats}
        self.reset()

    # ----------------------------------------------------------------------------------------
    def reset(self) -> None:
        """Empty history (but for ``initial_states``), no subsample, initial kernel and scale."""
        self.history = ChainHistory(self.dim, self.capacity)
        self.z: np.ndarray | None = None
        self.basis: np.ndarray | None = None  # z in kernel coordinates (z itself by default)
        self.kernel = self.base_kernel
        self.next_bandwidth_update = self.adapt_start
        self.map_changed = False  # re-match nu^2 at the next refresh (set_map)
        self.affine = None
        self.scale.reset()
        #: the mean of the recent warm-up measures of :func:`history_locality` (0 before the first)
        self.weight_share = 0.0
        self.kernel_local = True
        self._tuning = True
        self._next_locality_check = 0
        self._shares: list[float] = []
        if self.initial_states is not None:
            # pinned: eligible whatever discard_fraction forgets of the chain's own warm-up
            self.history.extend(self.initial_states, PINNED_ITERATION)
            self.next_bandwidth_update = 0
        self.forget_covariance()

    @property
    def in_use(self) -> bool:
        """False once a warm-up measure found the kernel no longer local (see the class)."""
        return self.kernel_local

    def set_map(self, affine: AffineMap | None) -> None:
        """Build the proposal in the kernel coordinates of ``affine`` (None: the states).

        The subsample is re-expressed in the new coordinates; at the next refresh of the
        subsample the bandwidth is re-estimated there and (with the automatic ``nu^2``) the kernel
        term gets the trace of the optimal random walk again, as when the history was first used.

        Parameters
        ----------
        affine : AffineMap or None
        """
        super().set_map(affine)
        self.basis = self.to_kernel(self.z)
        self.map_changed = self.z is not None
        if self.median_bandwidth:
            self.next_bandwidth_update = 0

    def use_states(
        self, states: np.ndarray, rng: np.random.Generator, nu2_factor: float = 1.0
    ) -> None:
        """Build the proposal from ``states`` at once, e.g. a particle population.

        The subsample is ``n_history`` of the rows of ``states`` drawn without replacement (all of
        them if there are fewer), the bandwidth is the median heuristic on them in the kernel
        coordinates (with ``median_bandwidth``), and ``nu^2`` is ``nu2_factor`` times the value
        that gives the kernel term, averaged over up to 50 of the subsample's points, the trace of
        the optimally scaled random walk with the subsample's covariance. The chain history is
        not touched.

        Parameters
        ----------
        states : numpy.ndarray, shape (n, dim)
            At least two finite rows, in the states' coordinates.
        rng : numpy.random.Generator
            Source of the subsample and of the points the bandwidth and trace are taken on.
        nu2_factor : float, default 1.0
            Multiplier of the matched ``nu^2`` (what an SMC kernel adapts between stages).

        Raises
        ------
        ValueError
            If ``states`` has fewer than two rows or the kernel term vanishes on it.
        """
        states = np.asarray(states, dtype=float)
        if states.ndim != 2 or states.shape[1] != self.dim or states.shape[0] < 2:
            raise ValueError(
                f"`states` must have shape (n, {self.dim}) with n >= 2, got {states.shape}."
            )
        size = min(self.n_history, states.shape[0])
        self.z = states[np.sort(rng.choice(states.shape[0], size=size, replace=False))]
        self.basis = self.to_kernel(self.z)
        self.map_changed = False
        if self.median_bandwidth:
            self._update_bandwidth(0, rng)
        points = self.basis[rng.choice(size, size=min(size, 50), replace=False)]
        current = float(np.mean([kernel_term_trace(u, self.basis, self.kernel) for u in points]))
        target = random_walk_trace(self.basis)
        if not (current > 0.0 and math.isfinite(current) and target > 0.0):
            raise ValueError(
                "the kernel term of the Kameleon proposal vanishes on these states (identical "
                "rows, or a bandwidth far too small for their spread); use more distinct states."
            )
        self.scale.restart(math.log(nu2_factor * target / current))
        self.forget_covariance()

    # ----------------------------------------------------------------------------------------
    def learned_covariance(self, x: np.ndarray) -> np.ndarray:
        """``M H M^T`` at ``x``, given in kernel coordinates; zero before the history is used.

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)
            The point, in kernel coordinates (the state itself without an :class:`AffineMap`).

        Returns
        -------
        numpy.ndarray, shape (d, d)
            The kernel term over the current subsample, in kernel coordinates; zeros while the
            subsample has fewer than two rows.
        """
        if self.basis is None or self.basis.shape[0] < 2:
            return np.zeros((self.dim, self.dim))
        return kameleon_scatter(x, self.basis, self.kernel)

    def learned_covariances(self, u: np.ndarray) -> np.ndarray:
        """:meth:`learned_covariance` at every row of ``u``, in one pass.

        Parameters
        ----------
        u : numpy.ndarray, shape (n, d)
            Points in kernel coordinates.

        Returns
        -------
        numpy.ndarray, shape (n, d, d)
        """
        if self.basis is None or self.basis.shape[0] < 2:
            return np.zeros((u.shape[0], self.dim, self.dim))
        return kameleon_scatters(u, self.basis, self.kernel)

    def propose(self, x: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, float]:
        """Draw from ``N(x, covariance(x))``; see :meth:`Proposal.propose`.

        With ``initial_states`` and no subsample yet, the subsample is drawn first (so the very
        first proposal uses the supplied history).

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)
            The current state (not modified).
        rng : numpy.random.Generator
            Source of the noise (and of that first subsample).

        Returns
        -------
        x_new : numpy.ndarray, shape (d,)
            The candidate, of the dtype of ``x``.
        log_q_forward : float
            ``log q(x_new | x)`` in the states' coordinates (``-log|det A|`` included with an
            :class:`AffineMap`).

        Raises
        ------
        FloatingPointError
            If the covariance at ``x`` is not finite and positive definite.
        """
        if self.z is None and self.initial_states is not None:
            # with a supplied history the very first proposal (iteration 0) already uses it
            self._refresh_subsample(x, 0, rng)
        return super().propose(x, rng)

    def propose_many(
        self, x: np.ndarray, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        """Draw for every row at once; see :meth:`GaussianRandomWalk.propose_many`.

        Parameters
        ----------
        x : numpy.ndarray, shape (n, d)
        rng : numpy.random.Generator

        Returns
        -------
        x_new : numpy.ndarray, shape (n, d)
        log_q_forward : numpy.ndarray, shape (n,)
        """
        if self.z is None and self.initial_states is not None:
            self._refresh_subsample(x[0], 0, rng)  # as in :meth:`propose`
        return super().propose_many(x, rng)

    # ----------------------------------------------------------------------------------------
    def learn(self, transition: Transition, rng: np.random.Generator) -> None:
        """Record the state; refresh the subsample when the schedule says so; learn ``nu^2``.

        Parameters
        ----------
        transition : Transition
            The iteration just finished: its ``state`` and ``iteration`` enter the history,
            ``tuning`` goes to the schedule, and the acceptance probability drives ``nu^2``
            (only once a subsample exists, see :meth:`update_scale`).
        rng : numpy.random.Generator
            Source of the history reservoir, the schedule's coin, the subsample and the
            bandwidth's point subset.
        """
        if self._learn_history(transition, rng):
            self.forget_covariance()
        if self.z is not None:  # nu^2 means nothing before the history is used
            self.update_scale(transition)

    def observe(self, states: np.ndarray, iteration: int, rng: np.random.Generator) -> None:
        """Record other chains' states in the history (the next refresh may draw them).

        Parameters
        ----------
        states : numpy.ndarray, shape (k, d)
        iteration : int
        rng : numpy.random.Generator
            Source of the history reservoir.
        """
        for x in states:
            self.history.record(x, iteration, rng)

    def _learn_history(self, transition: Transition, rng: np.random.Generator) -> bool:
        t = transition.iteration
        self._tuning = transition.tuning
        self.history.record(transition.state, t, rng)
        if self.history.n_seen < max(self.adapt_start, 2):
            return False
        if self.locality_threshold is not None and self._tuning and t >= self._next_locality_check:
            self._measure_locality(t)
        if not self._refresh_wanted(t):
            return False
        p = self.schedule.probability(t, transition.tuning)
        if p <= 0.0 or (p < 1.0 and rng.random() >= p):
            return False
        self._refresh_subsample(transition.state, t, rng)
        return True

    def _refresh_wanted(self, t: int) -> bool:
        """Whether a refresh may happen at ``t``: not while the kernel move is out of use (when
        it comes back, its first refresh re-matches ``nu^2`` if the map changed meanwhile)."""
        return self.kernel_local

    def _bandwidth_due(self, t: int) -> bool:
        return self.median_bandwidth and t >= self.next_bandwidth_update

    def _refresh_subsample(self, x: np.ndarray, t: int, rng: np.random.Generator) -> None:
        """Draw a new history subsample; re-estimate the bandwidth when it is due."""
        u = self.to_kernel(x)
        # new coordinates (set_map) count as a first use: the old trace means nothing there
        first = self.z is None or self.map_changed
        bandwidth_due = self._bandwidth_due(t)
        # trace of the scaled kernel term nu^2 M H M^T at x, to carry over to the new bandwidth
        old_trace = (
            None
            if first or not bandwidth_due
            else self.scaling * kernel_term_trace(u, self.basis, self.kernel)
        )
        self._draw_subsample(t, rng)
        if first and self.auto_nu2:
            self._match_trace(u, random_walk_trace(self.basis))
        elif old_trace is not None:
            self._match_trace(u, old_trace)

    def _draw_subsample(self, t: int, rng: np.random.Generator) -> None:
        """New ``z`` (and ``basis``), and the bandwidth when it is due."""
        since = int(self.discard_fraction * t)
        new_z = self.history.subsample(self.n_history, rng, since=since, replace=True)
        if new_z.shape[0] == 0:  # cannot happen while the current state is recorded; be safe
            new_z = self.history.subsample(self.n_history, rng, replace=True)
        bandwidth_due = self._bandwidth_due(t)
        self.map_changed = False
        self.z, self.basis = new_z, self.to_kernel(new_z)
        if bandwidth_due:
            self._update_bandwidth(t, rng)

    def _measure_locality(self, t: int) -> None:
        """Measure the kernel's locality on the history; stand the move down above threshold."""
        self._next_locality_check = t + LOCALITY_INTERVAL
        floor = reference_share(self.dim)
        if floor > self.locality_threshold:  # the measure is at least this: no need to take it
            share = floor
        else:
            share = history_locality(
                self.history, int(self.discard_fraction * t), self.kernel, self.to_kernel
            )
        if math.isnan(share):  # too few states, or identical ones: keep the last decision
            return
        # one measure spreads by +-0.05 in warm-up; the decision uses the recent mean
        self._shares = [*self._shares[-(LOCALITY_MEASURES - 1) :], share]
        self.weight_share = float(np.mean(self._shares))
        self.kernel_local = self.weight_share <= self.locality_threshold

    def _update_bandwidth(self, t: int, rng: np.random.Generator) -> None:
        try:
            bandwidth = median_heuristic(self.basis, max_points=_MEDIAN_MAX_POINTS, rng=rng)
        except ValueError:  # all history points identical: keep the previous bandwidth
            return
        self.kernel = self.kernel.with_bandwidth(bandwidth)
        self.next_bandwidth_update = max(2 * t, t + 1, self.adapt_start)

    def _match_trace(self, u: np.ndarray, target_trace: float) -> None:
        """Rescale nu^2 so that the kernel term at ``u`` has the given trace.

        nu^2 then means something else than before (a new bandwidth changes the scale of
        ``M H M^T``), so its warm-up average restarts.
        """
        nu2 = scale_for_trace(u, self.basis, self.kernel, target_trace)
        if nu2 is not None:
            self.scale.restart(math.log(nu2))

    def stats(self) -> dict[str, Any]:
        """``scaling`` (``nu^2``), ``bandwidth``, ``n_history`` (rows of ``z``) and the locality.

        Returns
        -------
        dict of str to float, int or bool
            The keys of :attr:`stats_dtypes`; the bandwidth is NaN for a kernel without one,
            ``n_history`` is 0 before the first subsample; with a ``locality_threshold`` also
            ``weight_share``, the locality measure (0 before it: a share is > 0), and
            ``kernel_local``, whether the move is in use.
        """
        stats = {
            "scaling": self.scaling,
            "bandwidth": float(getattr(self.kernel, "bandwidth", math.nan)),
            "n_history": 0 if self.z is None else int(self.z.shape[0]),
        }
        if self.locality_threshold is not None:
            stats["weight_share"] = self.weight_share
            stats["kernel_local"] = self.kernel_local
        return stats
