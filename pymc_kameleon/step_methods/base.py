"""Shared machinery for our adaptive Metropolis–Hastings step methods.

:class:`AdaptiveMHStep` compiles the model's log-density (no gradients), caches the log-density
of the current state so that each iteration evaluates it exactly once, runs a Metropolis–Hastings
test with forward and reverse proposal densities, learns a log-scale by Robbins–Monro, and keeps
every piece of per-chain state in a PyMC ``_state_class`` so that ``sampling_state`` round-trips
are exact. Subclasses supply the proposal covariance and what they learn from the chain.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import field
from typing import Any, ClassVar

import numpy as np
from pymc.util import get_random_generator
from rich.progress import TextColumn
from rich.table import Column
from scipy.linalg import LinAlgError

from pymc_kameleon._compat import (
    EMIT_TUNE_STAT,
    ArrayStepShared,
    Competence,
    RaveledVars,
    StepMethodState,
    compile_pytensor,
    continuous_types,
    dataclass_state,
    get_value_vars_from_user_vars,
    join_nonshared_inputs,
    make_shared_replacements,
    modelcontext,
)
from pymc_kameleon.core.adaptation import AdaptationSchedule, make_schedule, robbins_monro_update
from pymc_kameleon.core.mh import mh_decide, mh_log_ratio
from pymc_kameleon.core.proposals import (
    cholesky_with_jitter,
    gaussian_log_pdf,
    gaussian_log_pdf_of_noise,
)
from pymc_kameleon.pseudo_marginal import noise_variables
from pymc_kameleon.step_methods.noise import check_noise_ownership, compile_noisy_log_density

__all__ = [
    "NOISE_CHECK_REPEATS",
    "NOISE_SD_WARNING",
    "AdaptiveMHState",
    "AdaptiveMHStep",
    "GradientFreeState",
    "GradientFreeStep",
]

#: fresh estimates at the current state per noise check (pseudo-marginal models)
NOISE_CHECK_REPEATS = 4
#: warn at the end of warm-up when the standard deviation of log p_hat exceeds this
NOISE_SD_WARNING = 3.0
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
    noise_sum_squares: float
    noise_dof: int
    null_accept_sum: float
    null_accept_count: int
    dim: int = field(metadata={"frozen": True})


@dataclass_state
class AdaptiveMHState(GradientFreeState):
    """Per-chain state common to every adaptive MH step (see :class:`AdaptiveMHStep`)."""

    scatter_current: np.ndarray | None
    proposal_chol: np.ndarray | None
    log_scale: float
    scale_updates: int
    log_scale_weighted_sum: float
    scale_weight_sum: float


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
    """

    default_blocked = True
    _state_class = GradientFreeState
    #: test hook: a negative control sets this to True to re-estimate the current state every
    #: iteration (Monte Carlo within Metropolis, which is biased)
    _reestimate_current: ClassVar[bool] = False

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
        model = modelcontext(model)
        if initial_point is None:
            initial_point = model.initial_point()
        step_name = type(self).__name__
        vars = _resolve_vars(vars, model, step_name)
        self.schedule: AdaptationSchedule = make_schedule(adaptation)
        self.noise_check_interval = _check_noise_interval(noise_check_interval)
        shared = make_shared_replacements(initial_point, vars, model)
        logp_graph = model.logp()
        noise = noise_variables(logp_graph)
        self._logp = None
        self._noisy_logp = None
        if noise:
            check_noise_ownership(model, vars, step_name, bool(noise_free_other_steps))
            self._noisy_logp = compile_noisy_log_density(
                logp_graph, noise, initial_point, vars, shared, compile_kwargs
            )
            self._add_stats({"noise_sd": (np.float64, [])})
        else:
            [logp], raveled_input = join_nonshared_inputs(
                point=initial_point, outputs=[logp_graph], inputs=vars, shared_inputs=shared
            )
            self._logp = compile_pytensor([raveled_input], logp, **(compile_kwargs or {}))
            self._logp.trust_input = True
        self.dim = int(sum(np.size(initial_point[v.name]) for v in vars))
        self.tune = True
        super().__init__(vars, shared, blocked=blocked, rng=rng)
        self._reset_chain_state()

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
        self.noise_sum_squares = 0.0
        self.noise_dof = 0
        self.null_accept_sum = 0.0
        self.null_accept_count = 0

    def _reset_chain_state(self) -> None:
        """Put every piece of per-chain state back to its untuned value."""
        raise NotImplementedError

    def _start_chain(self, rng, tune: int | None = None) -> None:
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
        """End warm-up; warn if a stochastic likelihood estimate is too noisy to mix well."""
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
        """Make a proposal the current state, with the noise its estimate was computed with."""
        self.x_current, self.logp_current, self.noise_current = x_new, logp_new, noise_new

    def _refresh_current(self, x0: np.ndarray) -> int:
        """Recompute the cached log-density when the point or other steps' variables changed.

        A new point gets a fresh estimate. If only other steps' variables changed, a
        pseudo-marginal estimate is recomputed with the *stored* noise: re-drawing it would be
        Monte Carlo within Metropolis, which is biased. Returns the number of log-density
        evaluations made (0 or 1).
        """
        same_point = self.x_current is not None and np.array_equal(x0, self.x_current)
        reestimate = self._reestimate_current and self.is_pseudo_marginal
        if same_point and not reestimate and not self._shared_changed():
            return 0
        if same_point and not reestimate and self.noise_current is not None:
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
        """COMPATIBLE with continuous variables, INCOMPATIBLE with discrete ones.

        Never auto-assigned ahead of NUTS; pass the step explicitly to use it.
        """
        if var.dtype in continuous_types:
            return Competence.COMPATIBLE
        return Competence.INCOMPATIBLE


class AdaptiveMHStep(GradientFreeStep):
    """Base class: a joint Gaussian random-walk proposal whose covariance is learned.

    The proposal at ``x`` is ``N(x, gamma^2 I + scale * S(x))``. Subclasses implement the
    matrix :meth:`_scatter` ``S(x)``, :meth:`_learn`, :meth:`_untuned_log_scale` and
    :meth:`_reset_adaptation`, set ``self.gamma``, and may extend the stats. ``S`` at the current
    state and the Cholesky factor of the covariance are cached separately, so that a change of
    scale alone costs one d x d Cholesky factorisation.
    """

    stats_dtypes_shapes: ClassVar[dict[str, tuple[Any, list]]] = {
        "accept": (np.float64, []),
        "accepted": (np.float64, []),
        "scaling": (np.float64, []),
        "model_logp": (np.float64, []),
        "logp_evals": (np.int64, []),
        "invalid_proposal": (bool, []),
        **({"tune": (bool, [])} if EMIT_TUNE_STAT else {}),
    }
    _state_class = AdaptiveMHState
    #: whether the proposal covariance is the same at every point (then log q terms cancel)
    _symmetric: ClassVar[bool] = False
    #: test hook: a negative control sets this to False to drop the Hastings term
    _hastings_correction: ClassVar[bool] = True

    def __init__(
        self,
        vars=None,
        *,
        target_accept: float,
        adaptation: Any,
        learn_scale: bool,
        model=None,
        initial_point=None,
        compile_kwargs: dict | None = None,
        blocked: bool = True,
        rng=None,
        noise_free_other_steps: bool = False,
        noise_check_interval: int = 100,
    ) -> None:
        target_accept = float(target_accept)
        if not (0.0 < target_accept < 1.0) or not math.isfinite(target_accept):
            raise ValueError(
                f"`target_accept` must lie strictly between 0 and 1, got {target_accept!r} "
                "(0.234 is optimal for random-walk proposals in moderate dimension)."
            )
        self.target_accept = target_accept
        self.learn_scale = bool(learn_scale)
        super().__init__(
            vars,
            adaptation=adaptation,
            model=model,
            initial_point=initial_point,
            compile_kwargs=compile_kwargs,
            blocked=blocked,
            rng=rng,
            noise_free_other_steps=noise_free_other_steps,
            noise_check_interval=noise_check_interval,
        )

    # ----------------------------------------------------------------------------------------
    # hooks for subclasses
    def _scatter(self, x: np.ndarray) -> np.ndarray:
        """Unscaled, learned part ``S(x)`` of the proposal covariance at ``x`` (a new array)."""
        raise NotImplementedError

    def _learn(self, x: np.ndarray, accept_prob: float) -> bool:
        """Learn from the new current state; return True if ``S`` changed."""
        raise NotImplementedError

    def _reset_adaptation(self) -> None:
        """Reset subclass-specific adaptation state to its untuned value."""
        raise NotImplementedError

    def _untuned_log_scale(self) -> float:
        """Log-scale at the start of a chain."""
        raise NotImplementedError

    def _scale_is_active(self) -> bool:
        """Whether the learned scale currently affects the proposal."""
        return True

    def _extra_stats(self) -> dict[str, Any]:
        """Subclass-specific stats for the current iteration."""
        return {}

    # ----------------------------------------------------------------------------------------
    # chain life cycle
    def _reset_chain_state(self) -> None:
        """Put every piece of per-chain state back to its untuned value."""
        self._reset_common_state()
        self.scatter_current = None
        self.proposal_chol = None
        self.log_scale = self._untuned_log_scale()
        self.scale_updates = 0
        self.log_scale_weighted_sum = 0.0
        self.scale_weight_sum = 0.0
        self._reset_adaptation()

    def stop_tuning(self) -> None:
        """End warm-up: fix the scale at its weighted iterate average and freeze adaptation.

        The Robbins–Monro iterate keeps fluctuating with where the chain happens to be; its
        average over warm-up (weights growing linearly with the update count) is a steadier
        value for the frozen kernel.
        """
        if self.tune and self.learn_scale and self.scale_weight_sum > 0.0:
            self.log_scale = self.log_scale_weighted_sum / self.scale_weight_sum
            self.proposal_chol = None
        super().stop_tuning()

    # ----------------------------------------------------------------------------------------
    # one iteration
    @property
    def scaling(self) -> float:
        """The learned scale (``exp(log_scale)``)."""
        return math.exp(self.log_scale)

    def _on_new_current(self) -> None:
        self.scatter_current = None
        self.proposal_chol = None

    def _cholesky(self, scatter: np.ndarray) -> np.ndarray | None:
        """Cholesky factor of ``gamma^2 I + scale * scatter``; None if that is impossible."""
        cov = scatter * self.scaling
        cov.flat[:: self.dim + 1] += self.gamma**2
        try:
            return cholesky_with_jitter(cov)
        except LinAlgError:
            return None

    def _current_cholesky(self) -> np.ndarray:
        if self.scatter_current is None:
            self.scatter_current = self._scatter(self.x_current)
            self.proposal_chol = None
        if self.proposal_chol is None:
            self.proposal_chol = self._cholesky(self.scatter_current)
            if self.proposal_chol is None:
                raise FloatingPointError(
                    f"{type(self).__name__}: the proposal covariance at the current state is not "
                    "finite and positive definite. Check that the model's variables are on a "
                    "sensible scale, or increase `gamma`."
                )
        return self.proposal_chol

    def astep(self, q0: RaveledVars) -> tuple[RaveledVars, list[dict[str, Any]]]:
        """Propose, accept or reject, learn; exactly one new log-density evaluation."""
        logp_evals = self._refresh_current(q0.data)
        logp_evals += self._measure_noise()
        x = self.x_current
        chol = self._current_cholesky()
        noise = self.rng.standard_normal(self.dim)
        # keep the model's dtype (float32 under floatX=float32): the compiled logp trusts its input
        x_new = (x + chol @ noise).astype(x.dtype, copy=False)
        logp_new, likelihood_noise_new = self._estimate_logp(x_new)
        logp_evals += 1
        scatter_new, chol_new = (self.scatter_current, chol) if self._symmetric else (None, None)
        log_q_reverse = log_q_forward = 0.0
        valid = math.isfinite(logp_new)
        if valid and not self._symmetric:
            scatter_new = self._scatter(x_new)
            chol_new = self._cholesky(scatter_new)
            if chol_new is None:
                valid = False
            elif self._hastings_correction:
                log_q_forward = gaussian_log_pdf_of_noise(noise, chol)
                log_q_reverse = gaussian_log_pdf(x, x_new, chol_new)
        log_ratio = mh_log_ratio(
            logp_new if valid else -math.inf, self.logp_current, log_q_reverse, log_q_forward
        )
        decision = mh_decide(log_ratio, self.rng)
        if not valid:
            self.n_invalid += 1
        if decision.accepted:
            self._accept(x_new, logp_new, likelihood_noise_new)
            self.scatter_current, self.proposal_chol = scatter_new, chol_new
        if self._adapting():
            self._adapt(decision.accept_prob)
        self.iteration += 1
        stats = {
            "accept": decision.accept_prob,
            "accepted": float(decision.accepted),
            "scaling": self.scaling,
            "model_logp": self.logp_current,
            "logp_evals": logp_evals,
            "invalid_proposal": not valid,
            **self._extra_stats(),
            **self._noise_stats(),
        }
        if EMIT_TUNE_STAT:
            stats["tune"] = bool(self.tune)
        return RaveledVars(self.x_current, q0.point_map_info), [stats]

    def _adapt(self, accept_prob: float) -> None:
        if self._learn(self.x_current, accept_prob):
            self.scatter_current = None
            self.proposal_chol = None
        if self.learn_scale and self._scale_is_active():
            self.log_scale = robbins_monro_update(
                self.log_scale,
                accept_prob,
                self._noisy_target(self.target_accept),
                self.scale_updates,
            )
            self.scale_updates += 1
            self.proposal_chol = None
            # iterate average with weights growing linearly, so the end of warm-up dominates
            self.log_scale_weighted_sum += self.scale_updates * self.log_scale
            self.scale_weight_sum += self.scale_updates

    def _restart_scale_average(self) -> None:
        """Forget the scale's iterate average (call when the meaning of the scale changed)."""
        self.log_scale_weighted_sum = 0.0
        self.scale_weight_sum = 0.0

    # ----------------------------------------------------------------------------------------
    # PyMC integration
    @staticmethod
    def _progressbar_config(n_chains: int = 1):
        columns = [
            TextColumn("{task.fields[accept_rate]:0.2f}", table_column=Column("Accept Rate")),
            TextColumn("{task.fields[scaling]:0.3g}", table_column=Column("Scaling")),
        ]
        stats = {"accept_rate": [0.0] * n_chains, "scaling": [0.0] * n_chains}
        return columns, stats

    @staticmethod
    def _make_progressbar_update_functions():
        def update_stats(step_stats):
            return {"accept_rate": step_stats["accept"], "scaling": step_stats["scaling"]}

        return (update_stats,)


def _check_noise_interval(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
        raise ValueError(
            f"`noise_check_interval` must be a non-negative integer (warm-up iterations between "
            f"checks of the likelihood-estimate noise; 0 turns them off), got {value!r}."
        )
    return int(value)


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
    discrete = [v.name for v in value_vars if v.dtype not in continuous_types]
    if discrete:
        raise ValueError(
            f"{step_name} samples continuous variables only, but was given the discrete "
            f"variable(s) {discrete}. Assign those to pm.Metropolis, pm.BinaryGibbsMetropolis "
            "or pm.CategoricalGibbsMetropolis, e.g. step=[KameleonStep([continuous vars]), "
            "pm.Metropolis([discrete vars])], or leave them out and let PyMC assign them."
        )
    return value_vars
