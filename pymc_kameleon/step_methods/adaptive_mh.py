"""Adaptive Metropolis–Hastings: a Gaussian random walk whose covariance is learned.

:class:`AdaptiveMHStep` runs a Metropolis–Hastings test with forward and reverse proposal
densities, caches the proposal's Cholesky factor at the current state, and learns a log-scale by
Robbins–Monro. Subclasses (:class:`~pymc_kameleon.KameleonStep`,
:class:`~pymc_kameleon.AdaptiveMetropolis`) supply the proposal covariance and what they learn
from the chain.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
from rich.progress import TextColumn
from rich.table import Column
from scipy.linalg import LinAlgError

from pymc_kameleon._compat import EMIT_TUNE_STAT, RaveledVars, SamplerWarning, dataclass_state
from pymc_kameleon.core.adaptation import ScaleAdapter
from pymc_kameleon.core.checks import check_bool, check_number
from pymc_kameleon.core.mh import mh_decide, mh_log_ratio
from pymc_kameleon.core.proposals import (
    gaussian_log_pdf,
    gaussian_log_pdf_of_noise,
    proposal_cholesky,
)
from pymc_kameleon.step_methods.base import (
    GradientFreeState,
    GradientFreeStep,
    check_initial_history,
)

__all__ = ["AdaptiveMHState", "AdaptiveMHStep"]


@dataclass_state
class AdaptiveMHState(GradientFreeState):
    """Per-chain state common to every adaptive MH step (see :class:`AdaptiveMHStep`)."""

    scatter_current: np.ndarray | None
    proposal_chol: np.ndarray | None
    scale: ScaleAdapter


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
        "warning": (SamplerWarning, None),
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
        initial_history: Any = None,
    ) -> None:
        self.target_accept = check_number(
            "target_accept",
            target_accept,
            minimum=0.0,
            maximum=1.0,
            open_minimum=True,
            open_maximum=True,
            hint="0.234 is optimal for random-walk proposals in moderate dimension.",
        )
        self.learn_scale = check_bool("learn_scale", learn_scale)
        # validated once the base class knows the dimension; the chain state is then reset again
        self.initial_history: np.ndarray | None = None
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
        if initial_history is not None:
            self.initial_history = check_initial_history(
                initial_history, self.dim, self._min_initial_rows(), type(self).__name__
            )
            self._reset_chain_state()

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

    def _min_initial_rows(self) -> int:
        """Fewest rows accepted in ``initial_history`` (a non-singular sample covariance)."""
        return self.dim + 1

    def _prepare_current(self, x: np.ndarray) -> None:
        """Hook called before ``S`` is computed at the current state ``x`` (default: nothing)."""

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
        self.scale = ScaleAdapter(self._untuned_log_scale())
        self._reset_adaptation()

    def stop_tuning(self) -> None:
        """End warm-up: fix the scale at its weighted iterate average and freeze adaptation.

        The Robbins–Monro iterate keeps fluctuating with where the chain happens to be; its
        average over warm-up (weights growing linearly with the update count) is a steadier
        value for the frozen kernel.
        """
        if self.tune and self.learn_scale and self.scale.weight_sum > 0.0:
            self.scale.settle()
            self.proposal_chol = None
        super().stop_tuning()

    # ----------------------------------------------------------------------------------------
    # one iteration
    @property
    def scaling(self) -> float:
        """The learned scale (``exp(log_scale)``)."""
        return self.scale.current

    @property
    def log_scale(self) -> float:
        """Logarithm of :attr:`scaling` (the Robbins–Monro iterate)."""
        return self.scale.log_scale

    def proposal_covariance(self, x: np.ndarray) -> np.ndarray:
        """Covariance ``gamma^2 I + scaling * S(x)`` of the proposal at ``x``, as it is now.

        After warm-up this is the frozen proposal the kept draws came from; ``astep`` draws
        with the Cholesky factor of this matrix.

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)
            State of the sampled (raveled, transformed) space.

        Returns
        -------
        numpy.ndarray, shape (d, d)
        """
        cov = np.array(self._scatter(np.asarray(x, dtype=float)), dtype=float) * self.scaling
        cov.flat[:: self.dim + 1] += self.gamma * self.gamma
        return cov

    def _on_new_current(self) -> None:
        self.scatter_current = None
        self.proposal_chol = None

    def _cholesky(self, scatter: np.ndarray) -> np.ndarray | None:
        """Cholesky factor of ``gamma^2 I + scale * scatter``; None if that is impossible."""
        try:
            return proposal_cholesky(scatter, self.scaling, self.gamma * self.gamma)
        except LinAlgError:
            return None

    def _current_cholesky(self) -> np.ndarray:
        if self.scatter_current is None:
            self._prepare_current(self.x_current)
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
        self._check_start(q0)
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
            "warning": self._warning_stat(),
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
            self.scale.update(accept_prob, self._noisy_target(self.target_accept))
            self.proposal_chol = None

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
