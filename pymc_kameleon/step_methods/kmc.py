"""KMCStep: gradient-free Kernel Hamiltonian Monte Carlo (Strathmann et al., 2015) for PyMC.

A builder on the shared Metropolis–Hastings step
(:class:`~pymc_kameleon.step_methods.adaptive_mh.AdaptiveMHStep`): it parses the arguments and
builds the chain's moves, :class:`~pymc_kameleon.core.proposals.kmc_moves.KMCMoves`
(trajectories on the surrogate of :mod:`pymc_kameleon.core.surrogates`, and the exploration
moves that feed it), and names its stats.
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any, ClassVar

import numpy as np

from pymc_kameleon._compat import EMIT_TUNE_STAT, SamplerWarning, dataclass_state
from pymc_kameleon.core.adaptation import ScaleAdapter
from pymc_kameleon.core.checks import check_choice
from pymc_kameleon.core.hamiltonian import UniformTrajectoryLength
from pymc_kameleon.core.proposals import AffineMap, Proposal
from pymc_kameleon.core.proposals.kmc_moves import (
    COORDINATES,
    SURROGATE_STATS,
    KMCMoves,
    KMCSettings,
)
from pymc_kameleon.core.proposals.trajectory import TRAJECTORY_STATS
from pymc_kameleon.core.surrogates.coordinates import LearnerCoordinates
from pymc_kameleon.core.surrogates.learner import LearnerSettings, SurrogateLearner
from pymc_kameleon.step_methods.adaptive_mh import AdaptiveMHState, AdaptiveMHStep
from pymc_kameleon.step_methods.arguments import (
    caller_stacklevel,
    check_independence,
    check_initial_history,
    check_target_accept,
    check_warmup,
    parse_explore_shares,
)
from pymc_kameleon.step_methods.kmc_basis import basis_size_warning
from pymc_kameleon.step_methods.notices import WarmupPlan, divergence_message
from pymc_kameleon.step_methods.options import document_options
from pymc_kameleon.step_methods.progress import ProgressField

__all__ = ["KMCState", "KMCStep"]

#: fewest states of ``initial_history`` for a fit with a fixed length scale / with CV
MIN_INITIAL_HISTORY = 2
MIN_INITIAL_HISTORY_CV = 4
#: the progress bar's columns
PROGRESS_FIELDS = (
    ProgressField("divergences", "Divergences", "diverging", convert=int),
    ProgressField("accept_rate", "Accept Rate", "accept", "0.2f"),
    ProgressField("step_size", "Step size", "step_size", "0.3g"),
)


@dataclass_state
class KMCState(AdaptiveMHState):
    """Per-chain state of :class:`KMCStep`: the common state and its moves (``proposal``)."""


@document_options
class KMCStep(AdaptiveMHStep):
    r"""Kernel Hamiltonian Monte Carlo: HMC on a surrogate gradient learned from the chain.

    KMC (Strathmann, Sejdinovic, Livingstone, Szabo, Gretton, NeurIPS 2015) fits a kernel
    exponential-family surrogate :math:`f \approx \log\pi` to the chain's own history by score
    matching, which needs no gradient of the target. Each iteration draws a momentum
    :math:`p \sim \mathcal N(0, M)`, runs :math:`L` leapfrog steps of size :math:`\epsilon` along
    :math:`\nabla f`, and accepts the end point with the Metropolis test of the **true**
    Hamiltonian :math:`H(q, p) = -\log\pi(q) + \tfrac12 p^\top M^{-1} p`. The leapfrog map of any
    gradient field is volume-preserving and reversible, so the chain targets :math:`\pi` exactly
    however poor the surrogate; a poor surrogate only lowers the acceptance rate. Cost: one
    evaluation of the model's log-density per iteration (at the end point), plus :math:`L+1`
    cheap surrogate gradients. Use it where gradients are unavailable (black-box likelihoods,
    noisy likelihood estimates, simulators); where PyMC can differentiate the model, NUTS is
    better.

    Two surrogates are available, both with the Gaussian kernel
    :math:`k(x, y) = \exp(-\|x-y\|^2 / (2\ell^2))` (:math:`\ell` a length scale):

    * ``"lite"``: :math:`f(x) = \sum_i \alpha_i k(z_i, x)` on a uniform subsample
      :math:`z` of ``n_history`` past states, :math:`\alpha` by regularised score matching (paper
      Prop. 1, ridge :math:`C + \lambda I`). Its gradient vanishes away from the history, so in
      unexplored regions the proposal falls back to a random walk of scale
      :math:`L\epsilon`. Refitting costs :math:`O(d n^3)`; a gradient costs :math:`O(nd)`.
    * ``"finite"``: :math:`f(x) = \theta^\top\phi(x)` on ``n_features`` random Fourier features
      (frequencies :math:`\omega \sim \mathcal N(0, \ell^{-2} I)`) fitted to **every** learned
      state with exact online updates (:math:`d` rank-one Cholesky updates per state,
      :math:`O(d m^2)`, independent of the number of states). Oscillates in the tails, so it is
      best once the history covers the posterior.
    * ``"auto"``: lite while the history is short, then finite (from the first refit with at
      least ``2 * n_features`` learned states, if that happens during warm-up).

    What adapts, and when (by default, ``adaptation="vanishing"``, the surrogate keeps learning
    after warm-up with a vanishing probability, as in the KMC paper; ``adaptation="tune"``
    freezes everything at the end of warm-up):

    * every warm-up state enters the history (and the finite fit);
    * the surrogate is refitted when the number of learned states reaches ``adapt_start`` and
      then each time it has grown by a factor ``refit_growth``, and :math:`\ell` is re-chosen
      by 5-fold cross-validated score matching at the first refit and then whenever the number
      of learned states has doubled since the last choice (the cross-validation is most of a
      refit's cost); before the first fit :math:`\nabla f = 0`,
      i.e. the proposal is a random walk (with ``initial_history`` the first fit is before the first
      iteration);
    * the step-size range is rescaled by Robbins–Monro toward ``target_accept`` (restarting when
      the surrogate first becomes active), and fixed at its warm-up average afterwards. A
      divergent trajectory counts as an acceptance of -10 rather than 0: in low dimension the
      acceptance stays near 1 up to the leapfrog's stability limit and then drops to 0, so a
      mean acceptance of 0.6 over the step-size range otherwise put a quarter of the range past
      the limit (405 of 2000 kept trajectories divergent on a 2-D near-Gaussian posterior);
      with the penalty the range settles where divergences are rare;
    * with ``mass="diagonal"`` the inverse mass is the history variance at each refit.

    Parameters
    ----------
    vars : list of PyMC variables, optional
        Continuous variables to sample jointly; defaults to all continuous variables.
    estimator : {"lite", "finite", "auto"}, default "lite"
        The surrogate (see above). With the pooled warm-up the finite one reached a higher ESS
        on the 8-D bananas (a median of 1021 against 265 on B(0.03, 100)), but on a real model
        (an ARMA(1, 1) posterior) it gave a converged-looking answer without the lower tail of
        one parameter (sd 0.77 of the reference's at R-hat 1.003) where the lite one passed
        (benchmarks/notes/lab-notes.md, "Curved posteriors at the defaults"): the lite one stays the
        default.
    n_history : int, default 500
        Lite: size :math:`n` of the history subsample the surrogate is built on (drawn with
        replacement). Above 500 it is at most the number of states stored so far during
        warm-up, and at most the number stored by its end (warm-up iterations and
        ``initial_history``) afterwards: more would repeat states, and each refit costs
        :math:`O(d n^3)` time and :math:`O(d n^2)` memory. At a chain's first iteration a
        warning says when ``n_history`` is more than warm-up can store, or when a refit after
        warm-up would fit more than 2000 points.
    n_features : int, default 500
        Finite: number :math:`m` of random Fourier features.
    lengthscale : "cv" or float, default "cv"
        Kernel length scale, in the units of the sampled (possibly transformed) variables, or
        with ``warmup="whitened"`` (the default) in the whitened coordinates (posterior sds).
        ``"cv"`` chooses it at each refit during warm-up by 5-fold cross-validation of the
        score-matching objective on at most 300 history points (a log grid around the median
        pairwise distance, then a narrow grid around the previous choice), within a factor 8 of
        the median distance.
    regularisation : float, optional
        Ridge :math:`\lambda`. Lite: added to :math:`C` (default 1.0). Finite: scale-free, in units
        of one state's contribution to the score-matching matrix (default 5.0; see
        :func:`pymc_kameleon.core.surrogates.finite.relative_ridge`).
    step_size_range : tuple of float, default (0.05, 0.3)
        Initial :math:`(\epsilon_{min}, \epsilon_{max})` (in whitened coordinates by default); each
        trajectory draws :math:`\epsilon \sim U[\epsilon_{min}, \epsilon_{max}]`. Both ends are
        rescaled together during warm-up.
    n_steps_range : tuple of int, default (10, 50)
        :math:`(L_{min}, L_{max})`; each trajectory draws :math:`L` uniformly from this range.
    target_accept : float, default 0.6
        Acceptance probability the step size is tuned toward.
    mass : {"identity", "diagonal"}, default "identity"
        Momentum covariance :math:`M`. ``"diagonal"`` sets :math:`M^{-1}` to the history
        variance, for posteriors whose coordinates have very different scales. On curved
        posteriors (banana) the identity was better: marginal variances overstate the scale of
        the narrow directions.
    warmup : {"whitened", "classic"}, default "whitened"
        ``"classic"``: the published algorithm, in the model's units (the length scale, step size
        and mass learned as above from the raw states; a posterior whose sds are far from 1 stops
        it). ``"whitened"``: a warm-up with no units. The exploration moves are whitened adaptive
        Metropolis (:class:`~pymc_kameleon.core.proposals.WhitenedProposal`): during its
        per-coordinate start every move is one (and nothing is learned from those states); then
        covariance windows of doubling length, fed by every state, learn the map :math:`x = c + A z`
        that makes the posterior roughly standard normal in :math:`z`. The surrogate, length scale,
        ``mass`` and ``step_size_range`` live in :math:`z`: the learned states are re-expressed and
        the surrogate refitted (length scale re-chosen) each time the map changes, and the last
        tenth of warm-up keeps the final map while the step size settles. The map is frozen with the
        rest after warm-up; its Jacobian is constant, so the Metropolis test is unchanged and the
        chain stays exact. With ``initial_history`` the map is the one that whitens those states,
        kept for the whole run. When PyMC does not pass the number of warm-up iterations (a step
        driven by hand), 1000 is assumed. See :doc:`/concepts/warmup`.
    adaptation : {"vanishing", "tune"}, AdaptationSchedule or callable, default "vanishing"
        ``"vanishing"`` (the KMC paper's Algorithm 1): learn from every warm-up state; after
        warm-up every kept state enters the history, and at iteration :math:`t` the surrogate
        is refitted on a fresh subsample of it (lite: no larger than the last warm-up fit
        could be, see ``n_history``) or absorbs the state (finite) with probability
        :math:`p_t = (t+1)^{-1/2}`, and with ``independence="always"`` the
        independence moves' followed t takes the mean and covariance of the states kept since
        warm-up. The length scale, mass, step size and independence share stay at their
        warm-up values, and a share ``explore_after_warmup`` of the kept moves (0.1 by default)
        are moves of the frozen exploration random walk, which keeps the adapted kernels
        ergodic. :math:`p_t \to 0` while :math:`\sum_t p_t` diverges, so the chain converges
        to the posterior (diminishing adaptation), but the kept draws do not come from one fixed
        kernel. Why it is the default: the surrogate is only as good as its history,
        and a warm-up of 1000 iterations holds a few hundred independent draws at best (GP
        classification on Glass, median of three seeds: min ESS 346 against 188 frozen).
        ``"tune"``: freeze everything at the end of warm-up, for a kernel that is exactly
        invariant over the kept draws. A callable ``fn(iteration, tuning) -> p`` gives a
        custom schedule (after warm-up, ``p`` is the refit probability).
    adapt_start : int, default 200
        Number of learned states before the first surrogate fit.
    refit_growth : float, default 1.5
        Refit when the number of learned states has grown by this factor since the last fit.
    warmup_explore : float, optional
        During warm-up, the fraction of iterations that make an adaptive-Metropolis move
        (Haario et al.: Gaussian random walk with the history covariance, scale tuned toward
        0.234) instead of a trajectory; before the first fit every move is one. The surrogate
        can only be as good as the history it learns from, and trajectories on a surrogate
        learned from a history that has not yet covered the posterior stay inside that history;
        these moves widen it. They stop at the end of warm-up: every kept draw is a KMC move.
        Defaults to 0.5, or to 0 when ``initial_history`` is given (that history is assumed to
        cover the posterior already, so every iteration is a trajectory).
    explore_after_warmup : float, optional
        After warm-up, the fraction of iterations that make a move of the exploration random
        walk, frozen at the end of warm-up (whitened adaptive Metropolis by default), instead
        of a trajectory (or an independence move). Where the surrogate keeps adapting after
        warm-up it learns from the kept states, and the trajectories only go where its history
        has been; without these moves the chain and its refits can settle together on the part
        of the posterior the warm-up reached, every chain agreeing on a posterior without its
        far tail (on a heavy-tailed PK posterior, the sd of the tail parameters was 0.75 of the
        reference at R-hat 1.004; benchmarks/notes/lab-notes.md, "Heavy tails"). A share of moves of
        a kernel that does not adapt keeps every adapted kernel mixed with one fixed, ergodic
        kernel (the safeguard of Roberts and Rosenthal's adaptive Metropolis) and brings the
        refits states from beyond the history. Defaults to 0.1 when the adaptation goes on
        after warm-up (``adaptation="vanishing"``, the default), else to 0 (with
        ``adaptation="tune"``, and with ``initial_history``, which is assumed to cover the
        posterior). The moves report ``n_steps = 0``.
    history_capacity : int, optional
        Number of past states kept (a uniform reservoir over the whole history); defaults to
        ``max(10 * n_history, 10000)``, and is raised to the size of ``initial_history`` if
        that is larger. The finite fit is rebuilt from it when :math:`\ell` changes.
    initial_history : array_like of shape (n, d), optional
        States to learn from before the first iteration, e.g. exact draws from the target or a
        previous run's draws, in the sampled space: the step's variables raveled and
        concatenated in the order of ``step.vars``, in their transformed (unconstrained) values
        (e.g. ``log(sigma)`` for a ``HalfNormal``). Every chain starts with these ``n`` states in
        its history (recorded at iterations ``-n, ..., -1``, counted as learned states), and the
        surrogate is fitted on them at the start of the chain's first iteration (length scale by
        cross-validation if ``lengthscale="cv"``, inverse mass with ``mass="diagonal"``), so the
        first iteration is already a Hamiltonian move. With ``tune > 0`` the chain then keeps
        learning from its warm-up states as usual (the next refit when the learned states have
        grown by ``refit_growth``); with ``tune=0`` it samples with the surrogate fitted on
        ``initial_history`` (step size from ``step_size_range``, surrogate scale 1), refitted
        with the kept states added under ``adaptation="vanishing"``. Needs at
        least 2 finite states (4 with ``lengthscale="cv"``), each coordinate varying across
        them (a constant one is the mark of a stuck pilot chain); fewer than 10 % distinct rows
        give a warning. The chain is exact whatever these states are; they only shape the
        proposal.
    <shared options>
    <independence moves>
        ``"always"`` (the default) keeps them after warm-up with the share
        fixed there, alongside the trajectories (GP classification on Glass, median of three
        seeds: min ESS 346 with them kept, 214 in warm-up only; benchmarks/notes/lab-notes.md);
        ``"warmup"`` uses them in warm-up only; ``"off"`` never.
        See :doc:`/concepts/warmup`.
    coordinates : {"global", "local"}, default "global"
        Where the surrogate, its length scale, the mass and the step size live, with
        ``warmup="whitened"``. "global": the warm-up's whitened coordinates (unit global
        covariance). "local": coordinates of unit *average local precision*, which keep a
        curved posterior's thin direction as wide as the others; pooled, they took the 8-D
        banana's min ESS to 202–389 (plain) and 29–75 (under an affine map) where "global" had
        68 and 5 unpooled, but on a black-box ODE model (flu-sir) their finite-difference scores
        left the chains apart (R-hat 2.5) where "global" passes (benchmarks/notes/lab-notes.md,
        "Curved posteriors at the defaults"): not the default. Every
        ``4 d``-th warm-up iteration takes a forward-difference score at the chain's state
        (``d`` evaluations, counted in ``logp_evals``); at each new whitening map the Fisher
        information of the later half of the scores, ``E[s s^T]``, gives the map
        (:mod:`pymc_kameleon.core.local_precision`): eigenvalues its noise can explain are
        raised to the Cramér–Rao bound 1, and one far below it widens a direction the
        whitening has made too thin.
        With ``initial_history`` the scores are taken once, at pilot states. Stochastic
        likelihood estimates keep the global coordinates. On a Gaussian both are one.

    Notes
    -----
    Documented for up to 50 sampled dimensions (the step's variables raveled;
    ``KMCStep.documented_max_dim``); beyond that the constructor warns, since the warm-up
    needed to learn the proposal grows quickly with the dimension. Use NUTS where PyMC
    can differentiate the model, otherwise ``pm.sample_smc`` or several steps on blocks
    of at most 50 dimensions.

    Each chain learns from its own history, and ``pm.sample`` runs ``KMCStep`` on PyMC's
    ordinary paths: Ctrl-C returns the draws made so far, ``callback=`` is called after every
    draw, and in a compound step the other steps behave as beside ``pm.Slice``.
    :class:`~pymc_kameleon.PooledKMCStep` pools the warm-up across chains instead, on PyMC's
    population sampler, which has none of these three (see its page).

    Sampler statistics (HamiltonianMC names where the meaning is the same): ``accept`` (min(1,
    exp(-energy_error))), ``accepted`` (0.0/1.0), ``step_size``, ``n_steps``, ``energy``
    (Hamiltonian of the state kept), ``energy_error`` (:math:`H` at the end point minus
    :math:`H` at the start), ``diverging`` (the trajectory left the finite numbers, the end
    point has a NaN/-inf log-density, the energy error exceeded 1000, or it was screened; never
    accepted), ``screened`` (rejected before the model was asked: its energy error on the
    surrogate itself exceeded 10, a leapfrog gone unstable that typically ends far beyond the
    history; the rule is symmetric under reversal, so the chain stays exact; 0 evaluations),
    ``model_logp``, ``logp_evals`` (model log-density evaluations this iteration), ``start_up``
    (the start-up's outcome, constant over a chain: 0 did not run, 1 Gaussian start, 2-8
    fallbacks, see :data:`~pymc_kameleon.core.start_up.START_UP_STATUSES`),
    ``surrogate_grad_evals``, ``lengthscale`` and ``n_basis`` (basis points or features of the
    surrogate in use; 0 before the first fit), and ``surrogate_scale`` (the calibrated factor
    :math:`\beta` on the surrogate gradient). With ``warmup="whitened"`` also ``warmup_stage``
    (0 per-coordinate start, 1 covariance windows, 2 settling with the final map, 3 frozen after
    warm-up), ``n_windows`` (covariance windows used so far), ``independence_move`` (-1 no
    independence move, 0 a candidate from the t's, 1 from their wide copies),
    ``independence_share`` (the independence moves' share) and ``defensive_weight`` (the wide
    copies' weight: 0 in warm-up). With a stochastic likelihood
    estimate there is one more stat, ``noise_sd``: the standard deviation of :math:`\log \hat p`
    at the current state, pooled over the checks so far (pseudo-marginal chains stick when it is
    well above 1-2). The Metropolis test uses the stored estimate of the current state and a
    fresh one at the end point, so the chain stays exact.

    <warning stat>

    Names: ``lengthscale`` is the kernel length scale :math:`\ell` everywhere (the argument, the
    stat, ``step.lengthscale``); the argument ``regularisation`` is the ridge :math:`\lambda`,
    called ``ridge`` in :mod:`pymc_kameleon.core.surrogates`; ``surrogate_scale`` (stat and
    attribute) is the calibrated factor :math:`\beta` on the surrogate gradient.

    What a step exposes after a run in this process (the plots read it): ``step.surrogate``, the
    fitted :class:`~pymc_kameleon.core.surrogates.base.Surrogate` (None before the first fit);
    ``step.history``, the :class:`~pymc_kameleon.core.history.ChainHistory` it learned from;
    ``step.log_density(x)``, the model's log-density at a raveled state; and
    ``step.surrogate_gradient(x)``, ``step.inv_mass_diag``, ``step.surrogate_scale``,
    ``step.lengthscale``, ``step.current_step_size_range``. With ``warmup="whitened"``,
    ``step.kernel_map`` is the :class:`~pymc_kameleon.core.proposals.AffineMap` of the surrogate's
    coordinates (None during the per-coordinate start) and ``step.history``, the surrogate, the
    length scale, mass and step sizes are in those coordinates; ``step.surrogate_gradient(x)`` is
    with respect to ``x``. The learning itself is a
    :class:`~pymc_kameleon.core.surrogates.learner.SurrogateLearner` (``step.learner``).

    References
    ----------
    .. [1] Strathmann, H., Sejdinovic, D., Livingstone, S., Szabo, Z., Gretton, A. (2015).
       Gradient-free Hamiltonian Monte Carlo with efficient kernel exponential families. NeurIPS.
    .. [2] Hyvärinen, A. (2005). Estimation of non-normalized statistical models by score
       matching. JMLR.
    """

    name = "kmc"
    stats_dtypes_shapes: ClassVar[dict[str, tuple[Any, list]]] = {
        "accept": (np.float64, []),
        "accepted": (np.float64, []),
        **TRAJECTORY_STATS,
        "model_logp": (np.float64, []),
        "logp_evals": (np.int64, []),
        "start_up": (np.int64, []),
        **SURROGATE_STATS,
        "warning": (SamplerWarning, None),
        **({"tune": (bool, [])} if EMIT_TUNE_STAT else {}),
    }
    documented_max_dim = 50
    progress_fields = PROGRESS_FIELDS
    _state_class = KMCState
    invalid_description: ClassVar[str] = (
        "had a NaN/-inf log-density or a trajectory that left the finite numbers"
    )

    def __init__(
        self,
        vars=None,
        *,
        estimator: str = "lite",
        n_history: int = 500,
        n_features: int = 500,
        lengthscale: str | float = "cv",
        regularisation: float | None = None,
        step_size_range: tuple[float, float] = (0.05, 0.3),
        n_steps_range: tuple[int, int] = (10, 50),
        target_accept: float = 0.6,
        mass: str = "identity",
        warmup: str = "whitened",
        adaptation: Any = "vanishing",
        adapt_start: int = 200,
        refit_growth: float = 1.5,
        warmup_explore: float | None = None,
        explore_after_warmup: float | None = None,
        history_capacity: int | None = None,
        initial_history: np.ndarray | None = None,
        independence: str = "always",
        coordinates: str = "global",
        **options: Any,
    ) -> None:
        self.coordinates_choice = check_choice("coordinates", coordinates, tuple(COORDINATES))
        self.learner_settings = LearnerSettings.from_arguments(
            estimator, n_history, n_features, lengthscale, regularisation, mass,
            adapt_start, refit_growth, history_capacity,
        )  # fmt: skip
        lengths = self.trajectory_length = UniformTrajectoryLength(n_steps_range, step_size_range)
        self.step_size_range, self.n_steps_range = lengths.step_size_range, lengths.n_steps_range
        self.target_accept = check_target_accept(target_accept, "0.6-0.8 suits Hamiltonian moves.")
        self.warmup = check_warmup(warmup)
        check_independence(independence)
        shares = (warmup_explore, explore_after_warmup)
        build = lambda dim: self._build_moves(initial_history, shares, dim)  # noqa: E731
        super().__init__(
            vars, proposal=build, adaptation=adaptation, independence=independence, **options
        )

    def _build_moves(self, initial_history: Any, shares: tuple, dim: int) -> KMCMoves:
        """The chain's moves, once the dimension is known: ``initial_history`` validated and
        the exploration shares (``warmup_explore``, ``explore_after_warmup``), whose defaults
        depend on it and on the adaptation, set."""
        self.warmup_explore, self.explore_after_warmup = parse_explore_shares(
            *shares, self.schedule.adapts_after_tuning, initial_history
        )
        if initial_history is not None:
            settings = self.learner_settings
            cv = settings.lengthscale is None
            minimum = MIN_INITIAL_HISTORY_CV if cv else MIN_INITIAL_HISTORY
            reason = "the length-scale cross-validation needs" if cv else "the fit needs"
            self.initial_history = check_initial_history(
                initial_history, dim, minimum, type(self).__name__, reason
            )
            capacity = max(settings.capacity, self.initial_history.shape[0])
            self.learner_settings = dataclasses.replace(settings, capacity=capacity)
        local = (
            self.coordinates_choice == "local"
            and self.warmup == "whitened"
            and not self.is_pseudo_marginal  # a noisy estimate has no usable differences
        )
        settings = KMCSettings(
            self.learner_settings, self.trajectory_length, self.target_accept, self.warmup,
            self.schedule, self.warmup_explore, self.explore_after_warmup, local,
            self.initial_history,
        )  # fmt: skip
        return KMCMoves(dim, settings)

    # ----------------------------------------------------------------------------------------
    # what a run step exposes
    @property
    def learner(self) -> SurrogateLearner:
        """What the chain's surrogate learned (history, fits, metric, surrogate scale)."""
        return self.proposal.learner

    @property
    def explore(self) -> Proposal:
        """The exploration moves (the whitened warm-up's, or the classic random walk)."""
        return self.proposal.explore

    @property
    def coordinates(self) -> LearnerCoordinates:
        """The map between the chain's states and the surrogate's coordinates."""
        return self.proposal.coordinates

    @property
    def step_scale(self) -> ScaleAdapter:
        """The learned factor on both ends of ``step_size_range``."""
        return self.proposal.step_scale

    @property
    def n_divergent(self) -> int:
        """Divergent trajectories of the current chain."""
        return self.proposal.n_divergent

    @property
    def surrogate(self) -> Any:
        """The fitted surrogate of the current chain (None before the first fit)."""
        return self.learner.surrogate

    @surrogate.setter
    def surrogate(self, surrogate: Any) -> None:
        self.learner.surrogate = surrogate

    @property
    def history(self) -> Any:
        """The :class:`~pymc_kameleon.core.history.ChainHistory` the surrogate learns from."""
        return self.learner.history

    @property
    def lengthscale(self) -> float:
        """Kernel length scale in use (NaN before it is first chosen)."""
        return self.learner.lengthscale

    @property
    def kernel_map(self) -> AffineMap | None:
        """The map ``x = shift + matrix @ z`` to the surrogate's coordinates (None: ``x``)."""
        return self.coordinates.affine

    @property
    def inv_mass_diag(self) -> np.ndarray | None:
        """Diagonal of the inverse mass matrix (None: the identity)."""
        return self.learner.metric.inv_mass_diag

    @property
    def surrogate_scale(self) -> float:
        """The calibrated factor :math:`\\beta` on the surrogate gradient."""
        return self.learner.surrogate_scale

    @surrogate_scale.setter
    def surrogate_scale(self, value: float) -> None:
        self.learner.surrogate_scale = float(value)

    @property
    def current_step_size_range(self) -> tuple[float, float]:
        """The step-size range in use (the initial range times the learned scale)."""
        return self.trajectory_length.step_size_bounds(self.step_scale.current)

    def surrogate_gradient(self, x: np.ndarray) -> np.ndarray:
        """Gradient of the current surrogate log-density at ``x`` (zero before the first fit).

        Scaled by ``surrogate_scale``, as the step's trajectories use it. With
        ``warmup="whitened"`` the surrogate lives in the coordinates ``kernel_map`` whitens to,
        and this is its gradient with respect to ``x`` (the chain rule through the map).

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)

        Returns
        -------
        numpy.ndarray, shape (d,)
        """
        z = self.coordinates.to_kernel(np.asarray(x, dtype=float))
        return self.coordinates.gradient_to_states(self.learner.gradient(z))

    # ----------------------------------------------------------------------------------------
    # the shared iteration's hooks
    @property
    def warmup_plan(self) -> WarmupPlan:
        """What KMC's warm-up must fit in: its surrogate's first fit, ``adapt_start`` states."""
        return WarmupPlan(
            type(self).__name__, self.dim, self.warmup, int(self.learner_settings.adapt_start),
            surrogate=True, initial_history=self.initial_history is not None,
        )  # fmt: skip

    def divergence_notice(self) -> str:
        """The notice of a chain's first trajectory that diverged after warm-up.

        Returns
        -------
        str
            Naming ``KMCStep(target_accept=...)``.
        """
        return divergence_message(type(self).__name__, self.target_accept)

    def basis_size_message(self) -> str | None:
        """The warning of an ``n_history`` this chain cannot use or pay for, or None.

        Given at a chain's first iteration (see :mod:`~pymc_kameleon.step_methods.kmc_basis`).

        Returns
        -------
        str or None
        """
        n_chains = len(getattr(self, "population", None) or [None])  # (all, when pooled)
        n_initial = 0 if self.initial_history is None else self.initial_history.shape[0]
        return basis_size_warning(
            self.learner_settings, self.warmup_length, n_chains, n_initial,
            self.schedule.adapts_after_tuning,
        )  # fmt: skip

    def _first_iteration(self) -> None:
        """Warn about an ``n_history`` the run cannot use; pilot scores and first fit."""
        message = self.basis_size_message()
        if message is not None:
            warnings.warn(message, UserWarning, stacklevel=caller_stacklevel())
        evaluate = None if self.is_pseudo_marginal else self.density.counted
        self.proposal.first_iteration(evaluate, self.rng)
