"""The base class of every step in this package: a compiled log-density and its cache.

:class:`GradientFreeStep` compiles the model's log-density (no gradients), caches the
log-density of the current state so that each iteration evaluates it exactly once, keeps every
piece of per-chain state in a PyMC ``_state_class`` so that ``sampling_state`` round-trips are
exact, and handles pseudo-marginal models (noise stored with the state, the ``noise_sd``
diagnostic). The Metropolis–Hastings family is in :mod:`pymc_kameleon.step_methods.adaptive_mh`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import field
from typing import Any, ClassVar

import numpy as np
from pymc.blocking import DictToArrayBijection
from pymc.exceptions import SamplingError
from pymc.util import get_random_generator

from pymc_kameleon._compat import (
    ArrayStepShared,
    Competence,
    RaveledVars,
    SamplerWarning,
    StepMethodState,
    compile_pytensor,
    continuous_types,
    dataclass_state,
    join_nonshared_inputs,
    make_shared_replacements,
    warmup_length_from_sampler,
)
from pymc_kameleon.core._threads import limit_blas_in_forked_worker, single_blas_thread
from pymc_kameleon.core.adaptation import AdaptationSchedule, make_schedule
from pymc_kameleon.core.checks import check_bool, check_int, check_mapping
from pymc_kameleon.pseudo_marginal import in_noisy_model, noise_variables, strip_noisy_guards
from pymc_kameleon.step_methods.arguments import (
    caller_stacklevel,
    check_initial_history,
    check_rng,
    model_and_point,
    resolve_vars,
)
from pymc_kameleon.step_methods.interrupts import compiled_code_interrupts, stop_if_interrupted
from pymc_kameleon.step_methods.noise import (
    check_noise_ownership,
    compile_noisy_log_density,
    warn_noisy_estimate,
)
from pymc_kameleon.step_methods.notices import chain_notices, warning_stat
from pymc_kameleon.step_methods.pooling import pooled_variant
from pymc_kameleon.step_methods.prior_starts import prior_draws
from pymc_kameleon.step_methods.progress import progressbar_config, progressbar_updater
from pymc_kameleon.step_methods.start_up import parse_start_up, plan_start_up, start_up_warning
from pymc_kameleon.step_methods.stuck import NOISE_SD_WARNING, stuck_chain_message

__all__ = [
    "NOISE_CHECK_REPEATS",
    "NOISE_SD_WARNING",
    "GradientFreeState",
    "GradientFreeStep",
    "check_initial_history",
]

#: fresh estimates at the current state per noise check (pseudo-marginal models)
NOISE_CHECK_REPEATS = 4
#: lower clip of the measured noise ceiling on the acceptance rate
_MIN_NOISE_CEILING = 0.05


@dataclass_state
class GradientFreeState(StepMethodState):
    """Per-chain state common to all our steps (see :class:`GradientFreeStep`)."""

    tune: bool
    iteration: int
    x_current: np.ndarray | None
    logp_current: float
    noise_current: list | None
    shared_snapshot: list | None
    n_invalid: int
    n_moved: int
    n_accepted_unmoved: int
    stuck_warning: str | None
    noise_sum_squares: float
    noise_dof: int
    null_accept_sum: float
    null_accept_count: int
    warmup_length: int | None
    start_up_status: str
    start_up_warning: str | None
    notices: dict
    dim: int = field(metadata={"frozen": True})


class GradientFreeStep(ArrayStepShared):
    """Base class of every step in this package: a compiled log-density and its cache.

    It compiles the model's log-density of the step's variables (no gradients), keeps the
    log-density of the current state so that an iteration costs one new evaluation, recomputes it
    only when the point or another step's variables changed, seeds and resets per-chain state at
    the start of every chain (PyMC 5 ``set_rng``, PyMC 6 ``setup_chain``), and refuses discrete
    variables. Subclasses implement :meth:`astep` and :meth:`_reset_chain_state`, and call
    :meth:`_reset_common_state` from the latter; they evaluate proposals with
    :meth:`estimate_logp` and accept them with :meth:`_accept`.

    **Pseudo-marginal models.** When the model's log-density draws its own noise (a stochastic
    likelihood estimate, see :mod:`pymc_kameleon.pseudo_marginal`), the noise values ``u`` become
    part of the state: each proposal gets fresh ``u``, the current state keeps the ``u`` (and the
    estimate) it was accepted with, and a change of other steps' variables recomputes the
    estimate with the *stored* ``u``. The standard deviation of ``log p_hat`` at the current state
    is measured during warm-up and reported as the ``noise_sd`` stat.

    **Chains that cannot move.** A model without a stochastic likelihood whose log-density is not
    finite at the starting point raises :class:`pymc.exceptions.SamplingError` at the first
    iteration, as PyMC's HMC does. During warm-up the step counts the proposals that changed the
    state and the invalid ones (``n_moved``, ``n_accepted_unmoved``, ``n_invalid``); a chain that
    never moved, or whose current log-density is not finite, at the end of warm-up gets a
    :class:`~pymc.stats.convergence.SamplerWarning` in the ``warning`` stat of its first
    post-warm-up iteration, which PyMC logs (also from worker processes) and leaves out of the
    InferenceData unless ``pm.sample(keep_warning_stat=True)``.
    """

    default_blocked = True
    _state_class = GradientFreeState
    #: largest number of sampled (raveled) dimensions the step is documented for; the
    #: constructor warns beyond it (None: no limit)
    documented_max_dim: ClassVar[int | None] = None
    #: the progress bar's columns (see :mod:`pymc_kameleon.step_methods.progress`)
    progress_fields: ClassVar[tuple] = ()
    #: what counts as an invalid proposal, for the stuck-chain warning
    invalid_description: ClassVar[str] = "had a NaN/-inf log-density"

    def __new__(cls, *args, **kwargs):
        """``pool_warmup=True`` builds the pooled variant of the class (see :mod:`.pooling`)."""
        if kwargs.get("pool_warmup") is True:
            cls = pooled_variant(cls)
        return super().__new__(cls, *args, **kwargs)

    def __init__(
        self,
        vars=None,
        *,
        adaptation: Any,
        model=None,
        initial_point=None,
        compile_kwargs: dict | None = None,
        blocked: bool = True,
        rng=None,
        noise_free_other_steps: bool = False,
        noise_check_interval: int = 100,
        pool_warmup: bool = False,
        start_up: bool | int = True,
    ) -> None:
        self.initial_history = getattr(self, "initial_history", None)  # a subclass validates it
        blocked = check_bool("blocked", blocked)
        self.start_up = parse_start_up(start_up)  #: True (default budget), False or a budget
        self.pool_warmup = check_bool("pool_warmup", pool_warmup)  #: (then the pooled variant)
        noise_free_other_steps = check_bool(
            "noise_free_other_steps",
            noise_free_other_steps,
            hint="Set True only if every other step leaves the noisy likelihood terms alone.",
        )
        self.noise_check_interval = check_int(
            "noise_check_interval",
            noise_check_interval,
            minimum=0,
            hint="It counts warm-up iterations between checks of the likelihood-estimate noise; "
            "0 turns them off.",
        )
        compile_kwargs = check_mapping("compile_kwargs", compile_kwargs)
        check_rng(rng)
        model, initial_point = model_and_point(model, initial_point)
        vars = resolve_vars(vars, model, type(self).__name__)
        self.dim = int(sum(np.size(initial_point[v.name]) for v in vars))
        #: dtype of the raveled points the compiled log-density takes
        self.logp_dtype = np.result_type(*(np.asarray(initial_point[v.name]) for v in vars))
        self._warn_beyond_documented_dim()
        self.schedule: AdaptationSchedule = make_schedule(adaptation)
        shared = make_shared_replacements(initial_point, vars, model)
        self._compile(model, vars, initial_point, shared, compile_kwargs, noise_free_other_steps)
        self.tune = True
        #: warm-up iterations of the current chain, when PyMC says (None otherwise)
        self.warmup_length: int | None = None
        super().__init__(vars, shared, blocked=blocked, rng=rng)
        self._chain_iterations = 0  # (not in the sampling state, which PyMC resets per chain)
        self._reset_chain_state()
        if self.pool_warmup:
            self.remember_origin()

    def _compile(
        self, model, vars, initial_point, shared, compile_kwargs, noise_free_other_steps
    ) -> None:
        """Compile the log-density: ``_logp(x)``, or ``_noisy_logp`` when it draws noise; and
        the start-up's prior draws (``prior_draws``: None for a noisy model, without a start-up,
        or without a proper prior)."""
        # our steps keep the current state's estimate, so they may evaluate the noisy terms
        logp_graph = strip_noisy_guards(model.logp())
        noise = noise_variables(logp_graph)
        self._logp = None
        self._noisy_logp = None
        if noise:
            check_noise_ownership(model, vars, type(self).__name__, noise_free_other_steps)
            self._noisy_logp = compile_noisy_log_density(
                logp_graph, noise, initial_point, vars, shared, compile_kwargs
            )
            self._add_stats({"noise_sd": (np.float64, [])})
        else:
            [logp], raveled_input = join_nonshared_inputs(
                point=initial_point, outputs=[logp_graph], inputs=vars, shared_inputs=shared
            )
            self._logp = compile_pytensor([raveled_input], logp, **compile_kwargs)
            self._logp.trust_input = True
        self.prior_draws = None if noise or self.start_up is False else prior_draws(model, vars)

    @property
    def compiled_logp(self):
        """The compiled PyTensor log-density of the raveled variables, or None.

        None for a model with a stochastic likelihood estimate, whose log-density draws noise.
        """
        return self._logp

    def _warn_beyond_documented_dim(self) -> None:
        limit = self.documented_max_dim
        if limit is None or self.dim <= limit:
            return
        name = type(self).__name__
        warnings.warn(
            f"{name} samples {self.dim} dimensions, more than the {limit} it is documented for "
            f"({name}.documented_max_dim = {limit}): its proposal is learned from the chain's "
            "own history, and the warm-up needed to learn it grows quickly with the dimension, "
            "so the chain may mix badly or not at all. If PyMC can differentiate the model, use "
            "NUTS (pm.sample's default); otherwise consider pm.sample_smc, or block the "
            f"variables into several steps of at most {limit} dimensions each, e.g. "
            f"step=[{name}([a, b]), {name}([c])].",
            UserWarning,
            stacklevel=caller_stacklevel(),
        )

    def log_density(self, x: np.ndarray) -> float:
        """The model's log-density of the step's variables at a raveled point ``x``.

        For a stochastic likelihood estimate this is a fresh estimate (its noise drawn from a
        generator of its own, so the chain's random stream is untouched).

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)

        Returns
        -------
        float
        """
        if self._noisy_logp is None:
            dtype = self._logp.maker.inputs[0].variable.dtype  # the compiled logp trusts it
            return float(self._logp(np.asarray(x, dtype=dtype)))
        return float(self._noisy_logp(x, self._noisy_logp.draw(x, np.random.default_rng())))

    def log_density_with_frozen_noise(self, x: np.ndarray, rng: np.random.Generator):
        """``x -> log-density``, with a stochastic estimate's noise drawn once and then kept.

        With its noise held fixed (common random numbers) an estimate is a deterministic
        function of ``x``, which the start-up can climb and difference; its values are never
        the chain's estimates. For a deterministic model it is the log-density itself.

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)
            The point at which the noise is drawn (where the climb starts), of the step's dtype.
        rng : numpy.random.Generator
            Draws the noise (unused for a deterministic model).

        Returns
        -------
        callable
            ``(x: numpy.ndarray of shape (d,)) -> float``.
        """
        if self._noisy_logp is None:
            dtype, compiled = np.asarray(x).dtype, self._logp  # x has the step's dtype
            return lambda x: float(compiled(np.asarray(x, dtype=dtype)))
        noisy, frozen = self._noisy_logp, self._noisy_logp.draw(np.asarray(x, dtype=float), rng)
        return lambda x: float(noisy(np.asarray(x, dtype=float), frozen))

    def _add_stats(self, extra: dict[str, tuple[Any, list]]) -> None:
        """Add sampler stats for this instance only (PyMC reads the instance attributes)."""
        self.stats_dtypes_shapes = {**self.stats_dtypes_shapes, **extra}
        self.stats_dtypes = [{name: dtype for name, (dtype, _) in self.stats_dtypes_shapes.items()}]

    @property
    def is_pseudo_marginal(self) -> bool:
        """Whether the model's log-density is a stochastic estimate (noise is part of the state)."""
        return self._noisy_logp is not None

    def step(self, point):
        """One iteration (PyMC's entry point), with one BLAS thread inside it.

        Two OpenBLAS threads contending with the sampling process for the cores made the small
        dense products of an iteration up to 50 times slower (see
        :mod:`pymc_kameleon.core._threads`). A ``KeyboardInterrupt`` (Ctrl-C) that arrives
        while a compiled (Numba) function runs can surface as a ``SystemError`` whose cause is
        the interrupt: it is raised as the ``KeyboardInterrupt`` it is.
        """
        with single_blas_thread(), compiled_code_interrupts():
            result = super().step(point)
        self._chain_iterations += 1
        return result

    # ----------------------------------------------------------------------------------------
    # chain life cycle
    def _reset_common_state(self) -> None:
        """Forget the cached current state and the counters."""
        self.iteration = 0
        self.x_current = None
        self.logp_current = math.nan
        self.noise_current = None
        self.shared_snapshot = None
        self.n_invalid = 0
        self.n_moved = 0
        self.n_accepted_unmoved = 0
        self.stuck_warning = None
        self.noise_sum_squares = 0.0
        self.noise_dof = 0
        self.null_accept_sum = 0.0
        self.null_accept_count = 0
        self.start_up_status = "off"
        self.start_up_warning = None
        self.notices = chain_notices(self)  # (with the chain's warmup_length, once known)

    def _reset_chain_state(self) -> None:
        """Put every piece of per-chain state back to its untuned value."""
        raise NotImplementedError

    def _observe_others(self, states: np.ndarray) -> None:
        """Learn from other chains' current states (``pool_warmup=True``, during warm-up)."""
        raise NotImplementedError

    def _start_chain(self, rng, tune: int | None = None) -> None:
        stop_if_interrupted(id(self), self._chain_iterations)  # Ctrl-C ends the whole call
        self._chain_iterations = 0
        limit_blas_in_forked_worker()
        self.rng = get_random_generator(rng, copy=False)
        self.tune = True if tune is None else bool(tune)
        self.warmup_length = tune
        self._reset_chain_state()

    def set_rng(self, rng) -> None:
        """Seed the step for a new chain and reset its per-chain state (PyMC 5).

        The number of warm-up iterations is read from PyMC's sampling loop when it is the
        caller (see :func:`pymc_kameleon._compat.warmup_length_from_sampler`).
        """
        self._start_chain(rng, warmup_length_from_sampler())

    def setup_chain(self, rng, tune: int | None = None, draws: int | None = None) -> None:
        """Seed the step for a new chain and reset its per-chain state (PyMC 6)."""
        self._start_chain(rng, tune)

    def reset_tuning(self) -> None:
        """Forget everything learned (PyMC calls this before each sequential chain)."""
        self._reset_chain_state()

    def stop_tuning(self) -> None:
        """End warm-up; check that the chain moved; warn about a too noisy likelihood estimate.

        With ``tune=0`` PyMC calls this before the first iteration: there is nothing to check.
        """
        if self.tune and self.iteration > 0:
            self.stuck_warning = self._stuck_chain_message()
        if self.tune and self.is_pseudo_marginal and self.noise_sd > NOISE_SD_WARNING:
            warn_noisy_estimate(type(self).__name__, self.noise_sd)
        super().stop_tuning()

    def _adapting(self) -> bool:
        return bool(self.tune) or self.schedule.adapts_after_tuning

    # ----------------------------------------------------------------------------------------
    # chains that cannot move
    def _check_start(self, q0: RaveledVars) -> None:
        """Refuse a non-finite log-density at the start of a chain (first iteration only).

        Only for models without a stochastic likelihood: an estimate can be ``-inf`` at the start
        by chance, and the next proposal may well be finite (the end-of-warm-up check reports a
        chain that stays stuck).
        """
        if self.iteration != 0 or self.is_pseudo_marginal or math.isfinite(self.logp_current):
            return
        point = DictToArrayBijection.rmap(RaveledVars(self.x_current, q0.point_map_info))
        values = "\n".join(
            f"  {name} = {np.array2string(np.asarray(value), threshold=20)}"
            for name, value in point.items()
        )
        raise SamplingError(
            f"{type(self).__name__}: the model's log-density at the starting point is "
            f"{self.logp_current}, so the chain cannot start there. Starting values of the step's "
            f"variables (sampled, i.e. transformed, space):\n{values}\n"
            "Pass a point inside the support to pm.sample(initvals={...}); "
            "model.point_logps(point) or model.debug() shows which term is not finite."
        )

    def _stuck_chain_message(self) -> str | None:
        """The end-of-warm-up warning for a chain that never moved (None if it moved)."""
        return stuck_chain_message(self)

    # ----------------------------------------------------------------------------------------
    # the start-up (see :mod:`pymc_kameleon.step_methods.start_up`)
    def _start_up(self) -> int:
        """At a chain's first warm-up iteration: climb to a mode; return the evaluations.

        Where the Gaussian at the mode is trusted the chain moves to an overdispersed draw of it
        and the Gaussian goes to :meth:`begin_from_gaussian`; where the climbs found several
        modes of comparable mass the chain moves to one drawn in proportion to their Laplace
        shares; otherwise the chain stays at its initial point (the ordinary warm-up, as without
        the start-up). The modes become the anchors of independence moves
        (:meth:`mix_independence`).
        """
        result = plan_start_up(self)
        if result is None:
            return 0
        initial_value = self.logp_current
        n_evals = result.n_evals
        if result.relocates:
            self.x_current = np.asarray(result.point, dtype=self.x_current.dtype)
            self.logp_current = result.log_density
            if self.is_pseudo_marginal:  # the climb's value used its frozen noise: estimate anew
                self.logp_current, self.noise_current = self.estimate_logp(self.x_current)
                n_evals += 1
        if result.uses_gaussian:
            self.begin_from_gaussian(result.mean, result.covariance)
        self.mix_independence(result.anchors())
        self.start_up_status = result.status
        self.start_up_warning = start_up_warning(self, result, initial_value)
        return n_evals

    @property
    def takes_gaussian_start(self) -> bool:
        """Whether the warm-up can begin from a Gaussian's shape (then the start-up runs)."""
        return False

    def begin_from_gaussian(self, mean: np.ndarray, covariance: np.ndarray) -> None:
        """Begin the warm-up from a Gaussian's shape (the start-up calls it; a hook).

        Parameters
        ----------
        mean : numpy.ndarray, shape (d,)
        covariance : numpy.ndarray, shape (d, d)
            The Gaussian the start-up found at a mode.
        """

    def mix_independence(self, anchors: list[tuple[np.ndarray, np.ndarray, float]]) -> None:
        """Mix independence moves about modes into the warm-up (the start-up calls it; a hook).

        Parameters
        ----------
        anchors : list of (mode, covariance, weight)
            Each mode the start-up found with a share of the posterior worth proposing: the
            mode, the inverse of the curvature there, and its relative weight
            (:meth:`~pymc_kameleon.core.start_up.StartUp.anchors`); empty where it found
            none, and then there are no independence moves.
        """

    def _warning_stat(self) -> SamplerWarning | None:
        """The ``warning`` stat: a start-up fallback's warning at once, then the chain's notices
        (a too short warm-up, a divergence), the stuck-chain warning after warm-up (see
        :mod:`pymc_kameleon.step_methods.notices`)."""
        return warning_stat(self)

    # ----------------------------------------------------------------------------------------
    # the cached log-density of the current state
    def _shared_changed(self) -> bool:
        if not self.shared:
            return False
        if self.shared_snapshot is None:
            return True
        return any(
            not np.array_equal(var.get_value(borrow=True), old)
            for var, old in zip(self.shared.values(), self.shared_snapshot, strict=True)
        )

    def _on_new_current(self) -> None:
        """Hook: the current state was replaced from outside (drop caches that depend on it)."""

    def estimate_logp(self, x: np.ndarray) -> tuple[float, list | None]:
        """Log-density at a new point, with fresh noise if the model has any (one evaluation).

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)
            A point of the sampled space, of the step's dtype.

        Returns
        -------
        value : float
        noise : list or None
            The noise the estimate was computed with (None for a deterministic model).
        """
        if self._noisy_logp is None:
            return float(self._logp(x)), None
        noise = self._noisy_logp.draw(x, self.rng)
        return self._noisy_logp(x, noise), noise

    def accept_state(self, x_new: np.ndarray, logp_new: float, noise_new: list | None) -> None:
        """Make a proposal the current state, with the noise its estimate was computed with.

        During warm-up, counts whether the accepted proposal changed the state at all (a step far
        below the resolution of the values does not).

        Parameters
        ----------
        x_new : numpy.ndarray, shape (d,)
        logp_new : float
            Its (estimated) log-density.
        noise_new : list or None
            The noise of that estimate, kept with the state (pseudo-marginal: never re-drawn).
        """
        if self.tune:
            if np.array_equal(x_new, self.x_current):
                self.n_accepted_unmoved += 1
            else:
                self.n_moved += 1
        self.x_current, self.logp_current, self.noise_current = x_new, logp_new, noise_new

    def _refresh_current(self, x0: np.ndarray) -> int:
        """The name :class:`~pymc_kameleon.KMCStep` calls; see :meth:`refresh_current`."""
        return self.refresh_current(x0)

    def refresh_current(self, x0: np.ndarray) -> int:
        """Sync the cached current state with the point PyMC hands over; count evaluations.

        Called at the start of every iteration. A new point gets a fresh estimate. If only other
        steps' variables changed, a pseudo-marginal estimate is recomputed with the *stored*
        noise: re-drawing it would be Monte Carlo within Metropolis, which is biased (the
        statistical tests build that wrong sampler by overriding this method).

        Parameters
        ----------
        x0 : numpy.ndarray, shape (d,)
            The raveled point of the step's variables.

        Returns
        -------
        int
            Log-density evaluations made (0 or 1).
        """
        same_point = self.x_current is not None and np.array_equal(x0, self.x_current)
        if same_point and not self._shared_changed():
            return 0
        if same_point and self.noise_current is not None:
            self.logp_current = self._noisy_logp(self.x_current, self.noise_current)
        else:
            self.x_current = np.array(x0, copy=True)
            self.logp_current, self.noise_current = self.estimate_logp(self.x_current)
        if self.shared:
            self.shared_snapshot = [
                np.array(v.get_value(borrow=True), copy=True) for v in self.shared.values()
            ]
        self._on_new_current()
        return 1

    # ----------------------------------------------------------------------------------------
    # pseudo-marginal noise diagnostic
    @property
    def noise_sd(self) -> float:
        """Pooled standard deviation of ``log p_hat`` at the current state (NaN if unmeasured)."""
        if self.noise_dof == 0:
            return math.nan
        return math.sqrt(self.noise_sum_squares / self.noise_dof)

    def _measure_noise(self) -> int:
        """Re-estimate the current state a few times (first iteration, then during warm-up).

        The fresh estimates only measure the noise; the chain keeps its stored estimate. Returns
        the number of log-density evaluations made.
        """
        if self._noisy_logp is None or self.noise_check_interval == 0:
            return 0
        due = self.iteration == 0 or (self.tune and self.iteration % self.noise_check_interval == 0)
        if not due:
            return 0
        x = self.x_current
        values = np.array(
            [
                self._noisy_logp(x, self._noisy_logp.draw(x, self.rng))
                for _ in range(NOISE_CHECK_REPEATS)
            ]
        )
        finite = values[np.isfinite(values)]
        if finite.size >= 2:
            self.noise_sum_squares += float(np.sum((finite - finite.mean()) ** 2))
            self.noise_dof += finite.size - 1
        if math.isfinite(self.logp_current):
            # acceptance probability of a move that stays put: the ceiling the noise imposes
            self.null_accept_sum += float(
                np.sum(
                    np.exp(np.minimum(0.0, np.nan_to_num(values - self.logp_current, nan=-np.inf)))
                )
            )
            self.null_accept_count += values.size
        return NOISE_CHECK_REPEATS

    def _acceptance_ceiling(self) -> float:
        """The factor :meth:`_noisy_target` multiplies a target by (1 before any noise check)."""
        if self.null_accept_count == 0:
            return 1.0
        ceiling = self.null_accept_sum / self.null_accept_count
        return min(1.0, max(_MIN_NOISE_CEILING, ceiling))

    def _noisy_target(self, target: float) -> float:
        """Acceptance target for step-size or scale learning, lowered by the noise ceiling.

        With a stochastic likelihood estimate even a proposal at the current point is accepted
        only with probability ``E[min(1, p_hat' / p_hat)] < 1``. The acceptance of a move is
        roughly that ceiling times the acceptance without noise, so the target is scaled by the
        measured ceiling; otherwise a target above the ceiling would shrink the proposal without
        end.
        """
        if self.null_accept_count == 0:
            return target
        ceiling = self.null_accept_sum / self.null_accept_count
        return target * min(1.0, max(_MIN_NOISE_CEILING, ceiling))

    def _noise_stats(self) -> dict[str, float]:
        return {"noise_sd": self.noise_sd} if self.is_pseudo_marginal else {}

    # ----------------------------------------------------------------------------------------
    # PyMC integration
    @classmethod
    def _progressbar_config(cls, n_chains: int = 1):
        return progressbar_config(cls.progress_fields, n_chains)

    @classmethod
    def _make_progressbar_update_functions(cls):
        return progressbar_updater(cls.progress_fields)

    @staticmethod
    def competence(var, has_grad):
        """How suited the step is to a model variable, for ``pm.sample``'s automatic assignment.

        IDEAL for a continuous variable of a model with a stochastic likelihood estimate
        (:func:`~pymc_kameleon.noisy_potential`, :func:`~pymc_kameleon.estimator_potential`),
        which only this package's steps sample exactly; COMPATIBLE for other continuous variables
        (never chosen ahead of PyMC's own steps, which come first in ``STEP_METHODS`` and win
        ties); INCOMPATIBLE for discrete variables.

        Parameters
        ----------
        var : pytensor Variable
            The model random variable.
        has_grad : bool
            Whether PyMC can differentiate the model's log-density with respect to it (unused).

        Returns
        -------
        pymc.step_methods.compound.Competence
        """
        if var.dtype not in continuous_types:
            return Competence.INCOMPATIBLE
        if in_noisy_model(var):
            return Competence.IDEAL
        return Competence.COMPATIBLE
