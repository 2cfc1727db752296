"""The base class of every step in this package: a compiled log-density and its cache.

:class:`GradientFreeStep` compiles the model's log-density (no gradients), caches the
log-density of the current state so that each iteration evaluates it exactly once, keeps every
piece of per-chain state in a PyMC ``_state_class`` so that ``sampling_state`` round-trips are
exact, and handles pseudo-marginal models (noise stored with the state, the ``noise_sd``
diagnostic). The Metropolis–Hastings family is in :mod:`pymc_kameleon.step_methods.adaptive_mh`.
"""

from __future__ import annotations

import math
import os
import sys
import warnings
from dataclasses import field
from typing import Any, ClassVar

import numpy as np
from pymc.blocking import DictToArrayBijection
from pymc.exceptions import SamplingError
from pymc.model import Model
from pymc.util import get_random_generator

from pymc_kameleon._compat import (
    ArrayStepShared,
    Competence,
    RaveledVars,
    SamplerWarning,
    StepMethodState,
    WarningType,
    compile_pytensor,
    continuous_types,
    dataclass_state,
    get_value_vars_from_user_vars,
    join_nonshared_inputs,
    make_shared_replacements,
    modelcontext,
)
from pymc_kameleon.core._threads import limit_blas_in_forked_worker
from pymc_kameleon.core.adaptation import AdaptationSchedule, make_schedule
from pymc_kameleon.core.checks import ArgumentTypeError, check_bool, check_int, check_mapping, show
from pymc_kameleon.pseudo_marginal import in_noisy_model, noise_variables, strip_noisy_guards
from pymc_kameleon.step_methods.noise import check_noise_ownership, compile_noisy_log_density

__all__ = [
    "NOISE_CHECK_REPEATS",
    "NOISE_SD_WARNING",
    "GradientFreeState",
    "GradientFreeStep",
    "check_initial_history",
]

#: fresh estimates at the current state per noise check (pseudo-marginal models)
NOISE_CHECK_REPEATS = 4
#: warn at the end of warm-up when the standard deviation of log p_hat exceeds this
NOISE_SD_WARNING = 3.0
#: lower clip of the measured noise ceiling on the acceptance rate
_MIN_NOISE_CEILING = 0.05
#: warn when fewer than this fraction of the rows of ``initial_history`` are distinct
_MIN_DISTINCT_FRACTION = 0.1
#: most coordinates quoted in a message
_MAX_SHOWN = 10
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _caller_stacklevel() -> int:
    """``stacklevel`` that points a warning at the first frame outside this package."""
    frame = sys._getframe(1)
    level = 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    return level


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
    dim: int = field(metadata={"frozen": True})


class GradientFreeStep(ArrayStepShared):
    """Base class of every step in this package: a compiled log-density and its cache.

    It compiles the model's log-density of the step's variables (no gradients), keeps the
    log-density of the current state so that an iteration costs one new evaluation, recomputes it
    only when the point or another step's variables changed, seeds and resets per-chain state at
    the start of every chain (PyMC 5 ``set_rng``, PyMC 6 ``setup_chain``), and refuses discrete
    variables. Subclasses implement :meth:`astep` and :meth:`_reset_chain_state`, and call
    :meth:`_reset_common_state` from the latter; they evaluate proposals with
    :meth:`_estimate_logp` and accept them with :meth:`_accept`.

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
    #: what counts as an invalid proposal, for the stuck-chain warning
    _invalid_description: ClassVar[str] = "had a NaN/-inf log-density"

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
    ) -> None:
        blocked = check_bool("blocked", blocked)
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
        _check_rng(rng)
        model = modelcontext(model)
        if not isinstance(model, Model):
            raise ArgumentTypeError(
                f"`model` must be a pymc.Model, or None inside a `with model:` block, got "
                f"{show(model)}."
            )
        if initial_point is None:
            initial_point = model.initial_point()
        else:
            initial_point = check_mapping(
                "initial_point", initial_point, hint="Use a point such as model.initial_point()."
            )
        step_name = type(self).__name__
        vars = _resolve_vars(vars, model, step_name)
        self.dim = int(sum(np.size(initial_point[v.name]) for v in vars))
        #: dtype of the raveled points the compiled log-density takes
        self.logp_dtype = np.result_type(*(np.asarray(initial_point[v.name]) for v in vars))
        self._warn_beyond_documented_dim()
        self.schedule: AdaptationSchedule = make_schedule(adaptation)
        shared = make_shared_replacements(initial_point, vars, model)
        # our steps keep the current state's estimate, so they may evaluate the noisy terms
        logp_graph = strip_noisy_guards(model.logp())
        noise = noise_variables(logp_graph)
        self._logp = None
        self._noisy_logp = None
        if noise:
            check_noise_ownership(model, vars, step_name, noise_free_other_steps)
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
        self.tune = True
        super().__init__(vars, shared, blocked=blocked, rng=rng)
        self._reset_chain_state()

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
            stacklevel=_caller_stacklevel(),
        )

    def _add_stats(self, extra: dict[str, tuple[Any, list]]) -> None:
        """Add sampler stats for this instance only (PyMC reads the instance attributes)."""
        self.stats_dtypes_shapes = {**self.stats_dtypes_shapes, **extra}
        self.stats_dtypes = [{name: dtype for name, (dtype, _) in self.stats_dtypes_shapes.items()}]

    @property
    def is_pseudo_marginal(self) -> bool:
        """Whether the model's log-density is a stochastic estimate (noise is part of the state)."""
        return self._noisy_logp is not None

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

    def _reset_chain_state(self) -> None:
        """Put every piece of per-chain state back to its untuned value."""
        raise NotImplementedError

    def _start_chain(self, rng, tune: int | None = None) -> None:
        limit_blas_in_forked_worker()
        self.rng = get_random_generator(rng, copy=False)
        self.tune = True if tune is None else bool(tune)
        self._reset_chain_state()

    def set_rng(self, rng) -> None:
        """Seed the step for a new chain and reset its per-chain state (PyMC 5)."""
        self._start_chain(rng)

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
            warnings.warn(
                f"{type(self).__name__}: the standard deviation of the log-likelihood estimate "
                f"at the current state is about {self.noise_sd:.2g}. Pseudo-marginal chains "
                "stick when it is well above 1-2; reduce the estimator's variance (more "
                "importance samples, particles or simulations).",
                UserWarning,
                stacklevel=2,
            )
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
        n = self.iteration
        logp_finite = math.isfinite(self.logp_current)
        if self.n_moved > 0 and logp_finite:
            return None
        facts = [f"{self.n_moved} of {n} warm-up proposals moved the chain"]
        if self.n_invalid:
            facts.append(f"{self.n_invalid} {self._invalid_description}")
        if self.n_accepted_unmoved:
            facts.append(
                f"{self.n_accepted_unmoved} were accepted but too small to change the values in "
                "floating point"
            )
        if not logp_finite:
            facts.append(f"the log-density at the current state is {self.logp_current}")
        if not logp_finite and self.is_pseudo_marginal:
            cause = (
                "The likelihood estimator returned NaN or -inf at the current state: check that "
                "it returns a finite log-likelihood for plausible parameters (a NaN estimate is "
                "never accepted), or start where it is finite with pm.sample(initvals={...})."
            )
        elif not logp_finite:
            cause = (
                "The chain is outside the support: start it inside with pm.sample(initvals={...}); "
                "model.point_logps(point) or model.debug() shows which term is not finite."
            )
        elif self.n_invalid == n:
            cause = (
                "Every proposal landed where the log-density is NaN or -inf: the support around "
                "the start is much narrower than the proposal, or the likelihood "
                "(estimator) returns NaN there; check it at points near the start, or start "
                "elsewhere with pm.sample(initvals={...})."
            )
        elif self.is_pseudo_marginal and self.noise_sd > NOISE_SD_WARNING:
            cause = (
                "The likelihood estimate is very noisy (noise_sd about "
                f"{self.noise_sd:.2g}): an unusually high estimate at the current state makes "
                "every proposal look worse. Reduce the estimator's variance (more importance "
                "samples, particles or simulations)."
            )
        else:
            cause = (
                "Every proposal was rejected or changed nothing: the posterior is on a scale far "
                "from 1 (e.g. a standard deviation of 1e-6 or 1e6, or a location far larger than "
                "the spread): rescale the parameters, e.g. sample z ~ N(0, 1) and set "
                "x = loc + scale * z with loc and scale roughly the posterior's."
            )
        variables = ", ".join(v.name for v in self.vars)
        what = (
            "this chain never left its starting point during warm-up"
            if self.n_moved == 0
            else "this chain ended warm-up at a point with a non-finite log-density"
        )
        return (
            f"{type(self).__name__} ({variables}): {what}: {'; '.join(facts)}. Its draws are "
            f"not posterior draws. {cause}"
        )

    def _warning_stat(self) -> SamplerWarning | None:
        """The ``warning`` stat: the stuck-chain warning at the first post-warm-up iteration."""
        if self.stuck_warning is None or self.tune:
            return None
        message, self.stuck_warning = self.stuck_warning, None
        return SamplerWarning(WarningType.CONVERGENCE, message, "error", step=self.iteration)

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

    def _estimate_logp(self, x: np.ndarray) -> tuple[float, list | None]:
        """Log-density at a new point: ``(value, noise)``, with fresh noise if the model has any."""
        if self._noisy_logp is None:
            return float(self._logp(x)), None
        noise = self._noisy_logp.draw(x, self.rng)
        return self._noisy_logp(x, noise), noise

    def _accept(self, x_new: np.ndarray, logp_new: float, noise_new: list | None) -> None:
        """Make a proposal the current state, with the noise its estimate was computed with.

        During warm-up, counts whether the accepted proposal changed the state at all (a step far
        below the resolution of the values does not).
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
            self.logp_current, self.noise_current = self._estimate_logp(self.x_current)
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


def _check_rng(rng: Any) -> None:
    """Refuse what PyMC cannot turn into a generator, naming ``rng`` (without drawing from it)."""
    error = None
    if isinstance(rng, bool | np.bool_):
        error = "a bool is not a seed"
    else:
        try:
            get_random_generator(rng)  # copies a Generator or BitGenerator: no state is consumed
        except (TypeError, ValueError) as exc:
            error = str(exc)
    if error is not None:
        raise ArgumentTypeError(
            "`rng` must be None, a non-negative int seed (or a sequence of them), a "
            f"numpy.random.SeedSequence, BitGenerator or Generator, got {show(rng)} ({error})."
        )


def _resolve_vars(vars, model, step_name: str) -> list:
    """Map user variables to value variables and refuse discrete ones."""
    if vars is None:
        value_vars = list(model.continuous_value_vars)
        if not value_vars:
            raise ValueError(
                f"{step_name}: the model has no continuous variables to sample. Use "
                "pm.Metropolis, pm.BinaryGibbsMetropolis or pm.CategoricalGibbsMetropolis for "
                "discrete variables."
            )
        return value_vars
    value_vars = get_value_vars_from_user_vars(vars, model)
    _check_no_duplicates(vars, value_vars, model, step_name)
    discrete = [v.name for v in value_vars if v.dtype not in continuous_types]
    if discrete:
        raise ValueError(
            f"{step_name} samples continuous variables only, but was given the discrete "
            f"variable(s) {discrete}. Assign those to pm.Metropolis, pm.BinaryGibbsMetropolis "
            "or pm.CategoricalGibbsMetropolis, e.g. step=[KameleonStep([continuous vars]), "
            "pm.Metropolis([discrete vars])], or leave them out and let PyMC assign them."
        )
    return value_vars


def _check_no_duplicates(user_vars, value_vars: list, model, step_name: str) -> None:
    """Refuse a variable listed twice (also as a random variable and its value variable)."""
    seen: set = set()
    repeated = []
    for value_var in value_vars:
        if value_var in seen and value_var not in repeated:
            repeated.append(value_var)
        seen.add(value_var)
    if not repeated:
        return
    names = ", ".join(repr(model.values_to_rvs[v].name) for v in repeated)
    given = [getattr(v, "name", None) or repr(v) for v in user_vars]
    unique = ", ".join(dict.fromkeys(model.values_to_rvs[v].name for v in value_vars))
    raise ValueError(
        f"{step_name}: `vars` lists the variable(s) {names} more than once (a random variable "
        f"and its value variable count as the same variable), got vars={given}. List each "
        f"variable once, e.g. {step_name}([{unique}])."
    )


def check_initial_history(
    values: Any, dim: int, min_rows: int, owner: str, reason: str = "the step needs"
) -> np.ndarray:
    """Validate an ``initial_history`` argument; return it as a read-only float64 copy.

    Shared by every step of this package, so the messages name the owner and the fix.

    Parameters
    ----------
    values : array_like
        Candidate states, one per row, in the sampled (raveled, transformed) space.
    dim : int
        Dimension of the step (number of raveled, transformed values it samples).
    min_rows : int
        Fewest rows accepted.
    owner : str
        Name of the step, for the error messages.
    reason : str, default "the step needs"
        Who needs ``min_rows`` rows, for the error message.

    Returns
    -------
    numpy.ndarray, shape (n, dim)

    Raises
    ------
    ValueError
        If ``values`` is not numeric, not of shape ``(n, dim)``, has fewer than ``min_rows`` rows,
        contains NaN or infinite values, has all rows identical, has a coordinate that is the
        same in every row (a pilot chain stuck in that coordinate), or holds values so large that
        their squared distances overflow.

    Warns
    -----
    UserWarning
        If fewer than 10 % of the rows are distinct (repeated rows from rejections are normal,
        but this few suggests a badly mixing pilot chain).
    """
    try:
        if np.asarray(values).dtype.kind in "bSU":  # bools and strings are not states
            raise TypeError
        array = np.array(values, dtype=np.float64, copy=True)
    except (TypeError, ValueError):
        raise ValueError(
            f"{owner}: `initial_history` must be a numeric array of shape (n, {dim}), got "
            f"{type(values).__name__} {show(values)}."
        ) from None
    if array.ndim != 2 or array.shape[1] != dim:
        columns = (
            f" ({array.shape[1]} columns but the step samples {dim})"
            if array.ndim == 2
            else f" ({show(values)})"
        )
        raise ValueError(
            f"{owner}: `initial_history` must have shape (n, d) with d = {dim}, i.e. shape "
            f"(n, {dim}), one state of the sampled (raveled, transformed) variables per row; got "
            f"shape {array.shape}{columns}. Stack draws in the order of the step's variables, on "
            "the transformed scale (e.g. log(sigma) for a positive variable), e.g. with "
            "`np.column_stack`, or `.reshape(-1, 1)` for a single scalar variable."
        )
    if array.shape[0] < min_rows:
        raise ValueError(
            f"{owner}: `initial_history` has {array.shape[0]} rows, fewer than the {min_rows} "
            f"{reason} (it needs at least {min_rows} rows); supply more states (a few hundred "
            "are typical), or leave it out to learn from the chain alone."
        )
    if not np.all(np.isfinite(array)):
        bad = int(np.count_nonzero(~np.all(np.isfinite(array), axis=1)))
        raise ValueError(
            f"{owner}: `initial_history` contains non-finite values (NaN or infinite) in {bad} "
            "row(s); drop those rows (states must be finite points of the sampled space)."
        )
    _check_history_spread(array, owner)
    array.setflags(write=False)
    return array


def _check_history_spread(array: np.ndarray, owner: str) -> None:
    """Refuse a history without spread or too large to square; warn if it barely moves."""
    n = array.shape[0]
    fix = (
        "Supply states that spread over the posterior (e.g. the draws of a pilot run that "
        "mixed), or leave `initial_history` out to learn from the chain alone."
    )
    constant = np.all(array == array[0], axis=0)
    if np.all(constant):
        raise ValueError(
            f"{owner}: all {n} rows of `initial_history` are identical (every row is "
            f"{_row_text(array[0])}), so they say nothing about the posterior's shape. {fix}"
        )
    if np.any(constant):
        columns = np.flatnonzero(constant)
        shown = ", ".join(str(int(c)) for c in columns[:_MAX_SHOWN])
        shown += ", ..." if columns.size > _MAX_SHOWN else ""
        raise ValueError(
            f"{owner}: coordinate(s) [{shown}] of `initial_history` (column indices in the "
            f"step's raveled variables) have the same value in all {n} rows "
            f"({_row_text(array[0, columns[:_MAX_SHOWN]])}): the chain that produced them never "
            f"moved in those coordinates (a stuck pilot chain, or a variable it held fixed). {fix}"
        )
    with np.errstate(over="ignore", invalid="ignore"):
        spread_ok = np.all(np.isfinite(np.var(array, axis=0)))
        norms_ok = np.all(np.isfinite(np.einsum("ij,ij->i", array, array)))
    if not (spread_ok and norms_ok):
        raise ValueError(
            f"{owner}: `initial_history` holds values so large (largest magnitude "
            f"{float(np.max(np.abs(array))):.3g}) that their squared distances and variances "
            "overflow float64. Rescale the model's variables (e.g. standardise them, or change "
            "units) so that the sampled values are of moderate size."
        )
    distinct = np.unique(array, axis=0).shape[0]
    if distinct < _MIN_DISTINCT_FRACTION * n:
        warnings.warn(
            f"{owner}: only {distinct} of the {n} rows of `initial_history` are distinct "
            f"({distinct / n:.1%}). Repeated rows from rejected proposals are normal, but this "
            "few suggests a badly mixing pilot chain whose states may not cover the posterior; "
            "check its acceptance rate and trace plots, or run it longer.",
            UserWarning,
            stacklevel=_caller_stacklevel(),
        )


def _row_text(row: np.ndarray) -> str:
    return np.array2string(row, precision=4, threshold=_MAX_SHOWN, separator=", ")
