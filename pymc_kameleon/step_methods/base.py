"""The base class of every step in this package: the model's log-density and a chain's life.

:class:`GradientFreeStep` owns its parts, as PyMC's ``BaseHMC`` owns its potential and
integrator: the compiled log-density (:class:`~.model_density.ModelLogDensity`), and per chain
the current point with its cached value (:class:`~.model_density.CurrentPoint`), the noise
measurement of a stochastic estimate (:class:`~.noise_monitor.NoiseMonitor`) and the chain's
health (:class:`~.chain_health.ChainHealth`: stuck chains, warnings). It runs the chain's life
cycle for PyMC 5 and 6 and the start-up (:func:`~.start_up.run_start_up`). The one
Metropolis–Hastings iteration every step shares is in
:mod:`pymc_kameleon.step_methods.adaptive_mh`.
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
    StepMethodState,
    continuous_types,
    dataclass_state,
    make_shared_replacements,
    warmup_length_from_sampler,
)
from pymc_kameleon.core._threads import limit_blas_in_forked_worker, single_blas_thread
from pymc_kameleon.core.adaptation import AdaptationSchedule, make_schedule
from pymc_kameleon.core.checks import check_bool, check_int, check_mapping
from pymc_kameleon.pseudo_marginal import in_noisy_model
from pymc_kameleon.step_methods.arguments import (
    caller_stacklevel,
    check_rng,
    model_and_point,
    resolve_vars,
)
from pymc_kameleon.step_methods.chain_health import ChainHealth
from pymc_kameleon.step_methods.interrupts import compiled_code_interrupts, stop_if_interrupted
from pymc_kameleon.step_methods.model_density import CurrentPoint, ModelLogDensity
from pymc_kameleon.step_methods.noise import warn_noisy_estimate
from pymc_kameleon.step_methods.noise_monitor import NOISE_CHECK_REPEATS, NoiseMonitor
from pymc_kameleon.step_methods.notices import WarmupPlan, short_warmup_message
from pymc_kameleon.step_methods.options import parse_options
from pymc_kameleon.step_methods.prior_starts import prior_draws
from pymc_kameleon.step_methods.progress import progressbar_config, progressbar_updater
from pymc_kameleon.step_methods.start_up import (
    parse_start_up,
    run_start_up,
    start_up_budget,
    start_up_messages,
    start_up_noise_rng,
)
from pymc_kameleon.step_methods.stuck import NOISE_SD_WARNING, ChainFacts, stuck_chain_message

__all__ = ["NOISE_CHECK_REPEATS", "NOISE_SD_WARNING", "GradientFreeState", "GradientFreeStep"]


@dataclass_state
class GradientFreeState(StepMethodState):
    """Per-chain state common to all our steps (see :class:`GradientFreeStep`)."""

    tune: bool
    iteration: int
    current: CurrentPoint
    noise: NoiseMonitor
    health: ChainHealth
    start_up_status: str
    warmup_length: int | None
    dim: int = field(metadata={"frozen": True})


class GradientFreeStep(ArrayStepShared):
    """Base class of every step in this package: the model's log-density and a chain's life.

    It compiles the model's log-density of the step's variables (no gradients), keeps the
    log-density of the current state so that an iteration costs one new evaluation, recomputes it
    only when the point or another step's variables changed, seeds and resets per-chain state at
    the start of every chain (PyMC 5 ``set_rng``, PyMC 6 ``setup_chain``), and refuses discrete
    variables. Subclasses implement :meth:`astep` and :meth:`_reset_chain_state`, and call
    :meth:`_reset_common_state` from the latter.

    **Pseudo-marginal models.** When the model's log-density draws its own noise (a stochastic
    likelihood estimate, see :mod:`pymc_kameleon.pseudo_marginal`), the noise values ``u`` become
    part of the state: each proposal gets fresh ``u``, the current state keeps the ``u`` (and the
    estimate) it was accepted with, and a change of other steps' variables recomputes the
    estimate with the *stored* ``u``. The standard deviation of ``log p_hat`` at the current state
    is measured during warm-up and reported as the ``noise_sd`` stat.

    **Chains that cannot move.** A model without a stochastic likelihood whose log-density is not
    finite at the starting point raises :class:`pymc.exceptions.SamplingError` at the first
    iteration, as PyMC's HMC does. A chain that never moved during warm-up, or whose current
    log-density is not finite at its end, gets a
    :class:`~pymc.stats.convergence.SamplerWarning` in the ``warning`` stat of its first
    post-warm-up iteration (:mod:`pymc_kameleon.step_methods.chain_health`).
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

    def __init__(self, vars=None, *, adaptation: Any, **options: Any) -> None:
        self.initial_history = getattr(self, "initial_history", None)  # a subclass validates it
        options = parse_options(type(self).__name__, options, _own_arguments(type(self)))
        blocked = check_bool("blocked", options["blocked"])
        self.start_up = parse_start_up(options["start_up"])  #: True, False or a budget
        noise_free_other_steps = check_bool(
            "noise_free_other_steps",
            options["noise_free_other_steps"],
            hint="Set True only if every other step leaves the noisy likelihood terms alone.",
        )
        self.noise_check_interval = check_int(
            "noise_check_interval",
            options["noise_check_interval"],
            minimum=0,
            hint="It counts warm-up iterations between checks of the likelihood-estimate noise; "
            "0 turns them off.",
        )
        compile_kwargs = check_mapping("compile_kwargs", options["compile_kwargs"])
        rng = options["rng"]
        check_rng(rng)
        model, initial_point = model_and_point(options["model"], options["initial_point"])
        vars = resolve_vars(vars, model, type(self).__name__)
        self.dim = int(sum(np.size(initial_point[v.name]) for v in vars))
        #: dtype of the raveled points the compiled log-density takes
        self.logp_dtype = np.result_type(*(np.asarray(initial_point[v.name]) for v in vars))
        self._warn_beyond_documented_dim()
        self.schedule: AdaptationSchedule = make_schedule(adaptation)
        shared = make_shared_replacements(initial_point, vars, model)
        self.density = ModelLogDensity(
            model, vars, initial_point, shared, compile_kwargs, type(self).__name__,
            noise_free_other_steps,
        )  # fmt: skip
        if self.density.is_pseudo_marginal:
            self._add_stats({"noise_sd": (np.float64, [])})
        #: the start-up's prior draws (None for a noisy model, without a start-up or a prior)
        self.prior_draws = (
            None
            if self.density.is_pseudo_marginal or self.start_up is False
            else prior_draws(model, vars)
        )
        self.tune = True
        #: warm-up iterations of the current chain, when PyMC says (None otherwise)
        self.warmup_length: int | None = None
        super().__init__(vars, shared, blocked=blocked, rng=rng)
        self._chain_iterations = 0  # (not in the sampling state, which PyMC resets per chain)
        self._reset_chain_state()

    @property
    def compiled_logp(self):
        """The compiled PyTensor log-density of the raveled variables, or None.

        None for a model with a stochastic likelihood estimate, whose log-density draws noise.
        """
        return self.density.compiled

    @property
    def is_pseudo_marginal(self) -> bool:
        """Whether the model's log-density is a stochastic estimate (noise is part of the state)."""
        return self.density.is_pseudo_marginal

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
        return self.density.fresh(x)

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
        return self.density.with_frozen_noise(x, rng)

    def _add_stats(self, extra: dict[str, tuple[Any, list]]) -> None:
        """Add sampler stats for this instance only (PyMC reads the instance attributes)."""
        self.stats_dtypes_shapes = {**self.stats_dtypes_shapes, **extra}
        self.stats_dtypes = [{name: dtype for name, (dtype, _) in self.stats_dtypes_shapes.items()}]

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
    # the current state (per chain: ``step.current``)
    @property
    def x_current(self) -> np.ndarray | None:
        """The chain's current state, raveled (None before its first iteration)."""
        return self.current.x

    @x_current.setter
    def x_current(self, value: np.ndarray | None) -> None:
        self.current.x = value

    @property
    def logp_current(self) -> float:
        """The (estimated) log-density of the current state."""
        return self.current.logp

    @logp_current.setter
    def logp_current(self, value: float) -> None:
        self.current.logp = value

    @property
    def noise_current(self) -> list | None:
        """The noise of the current state's estimate (None for a deterministic model)."""
        return self.current.noise

    @noise_current.setter
    def noise_current(self, value: list | None) -> None:
        self.current.noise = value

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
        return self.density.estimate(x, self.rng)

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
            self.health.count_accepted(x_new, self.current.x)
        current = self.current
        current.x, current.logp, current.noise = x_new, logp_new, noise_new

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
        return self.current.refresh(x0, self.density, self.shared, self.rng)

    # ----------------------------------------------------------------------------------------
    # chain life cycle
    def _reset_common_state(self) -> None:
        """Forget the current state, the noise measurement and the counts."""
        self.iteration = 0
        self.current = CurrentPoint()
        self.noise = NoiseMonitor()
        message = short_warmup_message(self.warmup_plan, self.warmup_length)
        self.health = ChainHealth({} if message is None else {"short_warmup": message})
        self.start_up_status = "off"
        self.density.take_count()  # (evaluations counted by an earlier chain are not this one's)

    @property
    def warmup_plan(self) -> WarmupPlan:
        """What the step's warm-up must fit in (for the too-short-warm-up notice)."""
        return WarmupPlan(
            type(self).__name__, self.dim, getattr(self, "warmup", None),
            getattr(self, "adapt_start", None), initial_history=self.initial_history is not None,
        )  # fmt: skip

    def _reset_chain_state(self) -> None:
        """Put every piece of per-chain state back to its untuned value."""
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
            self.health.stuck_warning = self._stuck_chain_message()
        if self.tune and self.is_pseudo_marginal and self.noise_sd > NOISE_SD_WARNING:
            warn_noisy_estimate(type(self).__name__, self.noise_sd)
        super().stop_tuning()

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
        facts = ChainFacts(
            name=type(self).__name__,
            variables=", ".join(v.name for v in self.vars),
            n_iterations=self.iteration,
            logp_current=self.logp_current,
            invalid_description=self.invalid_description,
            pseudo_marginal=self.is_pseudo_marginal,
            noise_sd=self.noise_sd,
        )
        return stuck_chain_message(self.health, facts)

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
        if self.iteration != 0 or not self._start_up_applies():
            return 0
        budget = start_up_budget(self.start_up, self.warmup_length)
        # a stochastic estimate is climbed with one noise draw held fixed (common random numbers)
        log_density = self.density.with_frozen_noise(self.x_current, start_up_noise_rng(self.rng))
        # an explicit budget is spent on climbs from further starts; the default stops at one mode
        result = run_start_up(
            log_density, self.x_current, budget, self.rng, self.prior_draws,
            economical=self.start_up is True,
        )  # fmt: skip
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
        variables = ", ".join(v.name for v in self.vars)
        fact, notice = start_up_messages(
            result, initial_value, type(self).__name__, variables, budget
        )
        self.health.start_up_fact = fact
        if notice is not None:
            self.health.note(notice.kind, notice)
        return n_evals

    def _start_up_applies(self) -> bool:
        return (
            self.iteration == 0
            and bool(self.tune)
            and self.warmup_length != 0
            and self.start_up is not False
            and self.takes_gaussian_start  # (the classic warm-up keeps the published algorithm)
            and self.initial_history is None  # a pilot already gives the shape
            and math.isfinite(self.logp_current)
        )

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
            none, and then the moves wait for the warm-up's first window (a whitened warm-up).
        """

    # ----------------------------------------------------------------------------------------
    # pseudo-marginal noise diagnostic
    @property
    def noise_sd(self) -> float:
        """Pooled standard deviation of ``log p_hat`` at the current state (NaN if unmeasured)."""
        return self.noise.noise_sd

    def _measure_noise(self) -> int:
        """Re-estimate the current state a few times (first iteration, then during warm-up).

        The fresh estimates only measure the noise; the chain keeps its stored estimate. Returns
        the number of log-density evaluations made.
        """
        noisy = self.density.noisy
        if noisy is None or self.noise_check_interval == 0:
            return 0
        due = self.iteration == 0 or (self.tune and self.iteration % self.noise_check_interval == 0)
        if not due:
            return 0
        x = self.x_current
        values = np.array([noisy(x, noisy.draw(x, self.rng)) for _ in range(NOISE_CHECK_REPEATS)])
        self.noise.measure(values, self.logp_current)
        return NOISE_CHECK_REPEATS

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


def _own_arguments(cls: type) -> list[str]:
    """The keyword arguments ``cls``'s constructors declare (for a misspelt name's hint)."""
    names: list[str] = []
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        code = getattr(init, "__code__", None)
        if code is not None:
            names += code.co_varnames[1 : code.co_argcount + code.co_kwonlyargcount]
    return names
