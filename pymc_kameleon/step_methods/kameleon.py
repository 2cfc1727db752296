"""KameleonStep: Kernel Adaptive Metropolis–Hastings (MCMC Kameleon) as a PyMC step method."""

from __future__ import annotations

import math
from dataclasses import field
from typing import Any, ClassVar

import numpy as np

from pymc_kameleon._compat import dataclass_state
from pymc_kameleon.core.bandwidth import median_heuristic
from pymc_kameleon.core.checks import check_choice, check_int, check_number, check_positive
from pymc_kameleon.core.history import PINNED_ITERATION, ChainHistory
from pymc_kameleon.core.kernels import KERNELS, Kernel, make_kernel
from pymc_kameleon.core.proposals import (
    kameleon_scatter,
    kernel_term_trace,
    random_walk_trace,
    scale_for_trace,
)
from pymc_kameleon.step_methods.adaptive_mh import AdaptiveMHState, AdaptiveMHStep

__all__ = ["KameleonState", "KameleonStep"]

_MEDIAN_MAX_POINTS = 500


@dataclass_state
class KameleonState(AdaptiveMHState):
    """Per-chain state of :class:`KameleonStep`."""

    history: ChainHistory
    z: np.ndarray | None
    kernel: Kernel
    next_bandwidth_update: int
    capacity: int = field(metadata={"frozen": True})


class KameleonStep(AdaptiveMHStep):
    r"""Kernel Adaptive Metropolis–Hastings (MCMC Kameleon; Sejdinovic et al., 2014).

    At the current state :math:`y` the proposal is
    :math:`\mathcal N(y, \gamma^2 I + \nu^2 M_y H M_y^\top)`, where the columns of :math:`M_y`
    are :math:`2\nabla_x k(x, z_i)|_{x=y}` for a uniform subsample :math:`z_1..z_n` of the
    chain's own history and :math:`H` centres them. With a Gaussian kernel the proposal
    stretches along the directions in which the posterior extends *near* :math:`y`, so it follows
    curved (banana- or ring-shaped) posteriors that a single global covariance cannot. The
    proposal depends on :math:`y`, so the Metropolis–Hastings test includes the reverse proposal
    density, computed with the very parameters used for the forward draw.

    Each iteration evaluates the model's log-density once, at the proposal. During warm-up the
    history subsample :math:`z` is refreshed, the kernel bandwidth is re-estimated on a doubling
    schedule and :math:`\log\nu^2` is learned by Robbins–Monro toward ``target_accept``; after
    warm-up everything freezes (unless ``adaptation="vanishing"``), so the kept draws come from a
    fixed, valid Metropolis–Hastings kernel.

    Parameters
    ----------
    vars : list of PyMC variables, optional
        Continuous variables to sample jointly; defaults to all continuous variables.
    kernel : {"gaussian", "matern32", "matern52", "linear"} or Kernel, default "gaussian"
        Kernel whose gradients shape the proposal. Bandwidths are length scales: the Gaussian
        kernel is :math:`\exp(-\|x-z\|^2 / (2\sigma^2))`. ``"linear"`` gives a state-independent
        covariance :math:`\gamma^2 I + 4\nu^2 Z^\top H Z`, i.e. adaptive Metropolis.
    n_history : int, default 1000
        Size :math:`n` of the history subsample used to build the proposal, drawn uniformly
        with replacement from the eligible history. Cost per iteration is :math:`O(n d^2)`.
    gamma : float, default 0.2
        Standard deviation of the isotropic exploration term :math:`\gamma^2 I` (in the units of
        the sampled, possibly transformed, variables). It keeps the proposal non-degenerate.
    nu2 : float, optional
        Initial :math:`\nu^2`. By default it is set when the proposal first uses the history so
        that the kernel term has the trace of :math:`2.38^2/d` times the history covariance.
    target_accept : float, default 0.234
        Acceptance probability that :math:`\nu^2` is tuned toward.
    bandwidth : "median" or float, default "median"
        Kernel length scale. ``"median"`` uses the median pairwise distance of the history
        subsample (the usual median heuristic), re-estimated at iterations ``adapt_start``,
        ``2 * adapt_start``, ``4 * adapt_start``, ... during warm-up. On the 8-D banana this was
        more robust than the median divided by :math:`\sqrt 2` (the authors' later code): a
        shorter length scale makes the kernel term vanish sooner in parts of the posterior the
        history has not reached, where the proposal then shrinks to :math:`\gamma^2 I`.
    adaptation : {"tune", "vanishing"}, AdaptationSchedule or callable, default "tune"
        ``"tune"`` refreshes the history subsample at every warm-up iteration and freezes
        afterwards. ``"vanishing"`` keeps adapting after warm-up with probability
        :math:`p_t = (t+1)^{-1/2}`, and keeps learning :math:`\nu^2`; a callable
        ``fn(iteration, tuning) -> p`` gives a custom schedule.
    adapt_start : int, default 100
        Number of iterations of plain random walk :math:`\mathcal N(y, \gamma^2 I)` before the
        history is used.
    discard_fraction : float, default 0.2
        When refreshing at iteration :math:`t`, only states recorded after iteration
        ``discard_fraction * t`` are eligible, so that the very start of warm-up is forgotten
        (on the 8-D banana, 0.2 and 0.0 mixed better than 0.5: early excursions into the tails
        are worth keeping).
    history_capacity : int, optional
        Number of past states kept in memory (a uniform reservoir over the whole history);
        defaults to ``5 * n_history``, and is at least the number of rows of
        ``initial_history``. Memory is bounded whatever the number of draws.
    learn_scale : bool, default True
        Learn :math:`\nu^2` (KAMH-LS). With False, :math:`\nu^2` stays at its initial value.
    model, initial_point, compile_kwargs, blocked, rng
        As for PyMC's own step methods. ``compile_kwargs`` (e.g. ``{"mode": "NUMBA"}``) is passed
        to the log-density compilation.
    noise_free_other_steps : bool, default False
        Only for models with a stochastic likelihood estimate (see
        :mod:`pymc_kameleon.pseudo_marginal`). Such a model must by default be sampled by this
        step alone, because PyMC's other samplers would re-draw the noise at every evaluation;
        set True only if every other step updates its variables without evaluating the noisy
        terms (e.g. a hand-written conjugate Gibbs step).
    noise_check_interval : int, default 100
        Only for stochastic likelihood estimates: at the first iteration and then every this many
        warm-up iterations, the current state is re-estimated 4 extra times (counted in
        ``logp_evals``; the chain keeps its stored estimate) to measure the ``noise_sd`` stat.
        0 turns the checks off.
    initial_history : array_like of shape (n, d), optional
        States of the sampled space (the step's variables raveled in order, on the transformed
        scale, as ``model.initial_point()`` lists them), e.g. exact draws from the target or the
        draws of a previous run, with ``n >= 2``. They fill every chain's history before its
        first iteration: the first proposal already uses a subsample :math:`z` of them, with the
        bandwidth from their median heuristic (``bandwidth="median"``) and the automatic
        :math:`\nu^2`, and there is no plain random-walk phase. ``discard_fraction`` never
        discards them (only the chain's own early states are forgotten); as the reservoir
        fills, the chain's states share it with them uniformly. With ``tune > 0`` the chain
        keeps learning from its own warm-up states as usual; with ``tune=0`` the proposal
        built at the first iteration is used unchanged. Every coordinate must vary across the
        rows (a constant one is the mark of a stuck pilot chain); fewer than 10 % distinct rows
        give a warning.

    Notes
    -----
    Documented for up to 50 sampled dimensions (the step's variables raveled;
    ``KameleonStep.documented_max_dim``); beyond that the constructor warns, since the warm-up
    needed to learn the proposal grows quickly with the dimension. Use NUTS where PyMC
    can differentiate the model, otherwise ``pm.sample_smc`` or several steps on blocks
    of at most 50 dimensions.

    Sampler statistics: ``accept`` (min(1, MH ratio)), ``accepted`` (0.0/1.0), ``scaling``
    (:math:`\nu^2`), ``bandwidth``, ``n_history`` (rows of :math:`z` in use), ``model_logp``,
    ``logp_evals`` (log-density evaluations this iteration) and ``invalid_proposal`` (the proposal
    had a NaN/-inf log-density and was rejected).
    With a stochastic likelihood estimate there is one more stat, ``noise_sd``: the standard
    deviation of :math:`\log \hat p` at the current state, pooled over the checks so far
    (pseudo-marginal chains stick when it is well above 1-2).

    ``warning`` is None except at the first iteration after warm-up of a chain that never moved
    during warm-up (or ended it with a non-finite log-density): then it holds a
    :class:`~pymc.stats.convergence.SamplerWarning` naming the counts and the likely cause, which
    PyMC logs (with any ``cores``) and leaves out of the InferenceData unless
    ``pm.sample(keep_warning_stat=True)``. A model without a stochastic likelihood whose
    log-density is not finite at the starting point raises
    :class:`~pymc.exceptions.SamplingError` at the first iteration instead.

    References
    ----------
    .. [1] Sejdinovic, D., Strathmann, H., Lomeli, M. G., Andrieu, C., Gretton, A. (2014).
       Kernel Adaptive Metropolis-Hastings. ICML.
    .. [2] Andrieu, C., Thoms, J. (2008). A tutorial on adaptive MCMC. Statistics and Computing.
    """

    name = "kameleon"
    stats_dtypes_shapes: ClassVar[dict[str, tuple[Any, list]]] = {
        **AdaptiveMHStep.stats_dtypes_shapes,
        "bandwidth": (np.float64, []),
        "n_history": (np.int64, []),
    }
    documented_max_dim = 50
    _state_class = KameleonState

    def __init__(
        self,
        vars=None,
        *,
        kernel: str | Kernel = "gaussian",
        n_history: int = 1000,
        gamma: float = 0.2,
        nu2: float | None = None,
        target_accept: float = 0.234,
        bandwidth: str | float = "median",
        adaptation: Any = "tune",
        adapt_start: int = 100,
        discard_fraction: float = 0.2,
        history_capacity: int | None = None,
        learn_scale: bool = True,
        model=None,
        initial_point=None,
        compile_kwargs: dict | None = None,
        blocked: bool = True,
        rng=None,
        noise_free_other_steps: bool = False,
        noise_check_interval: int = 100,
        initial_history: Any = None,
    ) -> None:
        self.n_history = check_int("n_history", n_history, minimum=2)
        self.gamma = check_positive(
            "gamma",
            gamma,
            hint="It is the standard deviation of the isotropic term of the proposal.",
        )
        self.adapt_start = check_int("adapt_start", adapt_start, minimum=0)
        if history_capacity is not None:
            history_capacity = check_int(
                "history_capacity",
                history_capacity,
                minimum=self.n_history,
                also="None (5 * n_history)",
                hint="It must hold at least `n_history` states.",
            )
        self.capacity = max(
            5 * self.n_history if history_capacity is None else history_capacity,
            _leading_length(initial_history),
        )
        self.discard_fraction = check_number(
            "discard_fraction", discard_fraction, minimum=0.0, maximum=1.0, open_maximum=True
        )
        self._base_kernel, self._median_bandwidth = _parse_kernel(kernel, bandwidth)
        self._auto_nu2 = nu2 is None
        self._initial_nu2 = (
            1.0 if nu2 is None else check_positive("nu2", nu2, also="None (set automatically)")
        )
        super().__init__(
            vars,
            target_accept=target_accept,
            adaptation=adaptation,
            learn_scale=learn_scale,
            model=model,
            initial_point=initial_point,
            compile_kwargs=compile_kwargs,
            blocked=blocked,
            rng=rng,
            noise_free_other_steps=noise_free_other_steps,
            noise_check_interval=noise_check_interval,
            initial_history=initial_history,
        )

    # ---------------------------------------------------------------------------------------
    def _reset_adaptation(self) -> None:
        self.history = ChainHistory(self.dim, self.capacity)
        self.z = None
        self.kernel = self._base_kernel
        self.next_bandwidth_update = self.adapt_start
        if self.initial_history is not None:
            # pinned: eligible whatever discard_fraction forgets of the chain's own warm-up
            self.history.extend(self.initial_history, PINNED_ITERATION)
            self.next_bandwidth_update = 0

    def _min_initial_rows(self) -> int:
        return 2

    def _prepare_current(self, x: np.ndarray) -> None:
        # with a supplied history the very first proposal already uses it
        if self.z is None and self.initial_history is not None:
            self._refresh_subsample(x, self.iteration)

    def _untuned_log_scale(self) -> float:
        return math.log(self._initial_nu2)

    def _scale_is_active(self) -> bool:
        return self.z is not None

    def _scatter(self, x: np.ndarray) -> np.ndarray:
        if self.z is None or self.z.shape[0] < 2:
            return np.zeros((self.dim, self.dim))
        return kameleon_scatter(x, self.z, self.kernel)

    def _learn(self, x: np.ndarray, accept_prob: float) -> bool:
        t = self.iteration
        self.history.record(x, t, self.rng)
        if self.history.n_seen < max(self.adapt_start, 2):
            return False
        p = self.schedule.probability(t, bool(self.tune))
        if p <= 0.0 or (p < 1.0 and self.rng.random() >= p):
            return False
        self._refresh_subsample(x, t)
        return True

    def _refresh_subsample(self, x: np.ndarray, t: int) -> None:
        """Draw a new history subsample; re-estimate the bandwidth when it is due."""
        since = int(self.discard_fraction * t)
        new_z = self.history.subsample(self.n_history, self.rng, since=since, replace=True)
        if new_z.shape[0] == 0:  # cannot happen while the current state is recorded; be safe
            new_z = self.history.subsample(self.n_history, self.rng, replace=True)
        first = self.z is None
        bandwidth_due = self._median_bandwidth and t >= self.next_bandwidth_update
        # trace of the scaled kernel term nu^2 M H M^T at x, to carry over to the new bandwidth
        old_trace = (
            None
            if first or not bandwidth_due
            else self.scaling * kernel_term_trace(x, self.z, self.kernel)
        )
        self.z = new_z
        if bandwidth_due:
            self._update_bandwidth(t)
        if first and self._auto_nu2:
            self._match_trace(x, random_walk_trace(new_z))
        elif old_trace is not None:
            self._match_trace(x, old_trace)

    def _update_bandwidth(self, t: int) -> None:
        try:
            bandwidth = median_heuristic(self.z, max_points=_MEDIAN_MAX_POINTS, rng=self.rng)
        except ValueError:  # all history points identical: keep the previous bandwidth
            return
        self.kernel = self.kernel.with_bandwidth(bandwidth)
        self.next_bandwidth_update = max(2 * t, t + 1, self.adapt_start)

    def _match_trace(self, x: np.ndarray, target_trace: float) -> None:
        """Rescale nu^2 so that the kernel term at ``x`` has the given trace.

        nu^2 then means something else than before (a new bandwidth changes the scale of
        ``M H M^T``), so its warm-up average restarts.
        """
        nu2 = scale_for_trace(x, self.z, self.kernel, target_trace)
        if nu2 is not None:
            self.scale.restart(math.log(nu2))

    def _extra_stats(self) -> dict[str, Any]:
        return {
            "bandwidth": float(getattr(self.kernel, "bandwidth", math.nan)),
            "n_history": 0 if self.z is None else int(self.z.shape[0]),
        }


def _leading_length(values: Any) -> int:
    """Number of rows of an array-like (0 for None or a scalar); validated elsewhere."""
    try:
        shape = np.shape(values) if values is not None else ()
    except ValueError:  # ragged nested sequences
        return 0
    return int(shape[0]) if len(shape) > 0 else 0


def _parse_kernel(kernel: str | Kernel, bandwidth: str | float) -> tuple[Kernel, bool]:
    """Validate ``kernel`` and ``bandwidth``; return the kernel and whether to use the median."""
    if isinstance(bandwidth, str):
        check_choice("bandwidth", bandwidth, ("median",), also="a finite number > 0")
        value = None
    else:
        value = check_positive("bandwidth", bandwidth, also="'median'")
    if not isinstance(kernel, Kernel):
        check_choice("kernel", kernel, tuple(KERNELS), also="a pymc_kameleon.core.Kernel instance")
    if isinstance(kernel, Kernel):
        base = kernel if value is None else kernel.with_bandwidth(value)
    else:
        base = make_kernel(kernel, value)
    return base, value is None and getattr(base, "bandwidth", None) is not None
