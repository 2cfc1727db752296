"""KMCStep: gradient-free Kernel Hamiltonian Monte Carlo (Strathmann et al., 2015) for PyMC.

The step is PyMC glue around the NumPy core: the Hamiltonian primitives of
:mod:`pymc_kameleon.core.hamiltonian`, the surrogates of :mod:`pymc_kameleon.core.surrogates`
and their :class:`~pymc_kameleon.core.surrogates.learner.SurrogateLearner`. It keeps the
argument parsing, the two moves (a trajectory on the surrogate; during warm-up an adaptive
random walk) and the sampler stats.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import field
from typing import Any, ClassVar

import numpy as np

from pymc_kameleon._compat import EMIT_TUNE_STAT, RaveledVars, SamplerWarning, dataclass_state
from pymc_kameleon.core.adaptation import ScaleAdapter
from pymc_kameleon.core.checks import check_choice
from pymc_kameleon.core.hamiltonian import LeapfrogResult, UniformTrajectoryLength, log_accept_ratio
from pymc_kameleon.core.mh import mh_decide
from pymc_kameleon.core.proposals import (
    AdaptiveCovarianceProposal,
    AffineMap,
    IsotropicRandomWalk,
    Proposal,
    Transition,
    WhitenedProposal,
)
from pymc_kameleon.core.start_up import START_UP_STATUSES
from pymc_kameleon.core.surrogates.coordinates import LearnerCoordinates
from pymc_kameleon.core.surrogates.learner import LearnerSettings, SurrogateLearner
from pymc_kameleon.step_methods import local_coordinates as local
from pymc_kameleon.step_methods.arguments import (
    check_independence,
    check_target_accept,
    check_warmup,
    parse_explore_shares,
)
from pymc_kameleon.step_methods.base import (
    GradientFreeState,
    GradientFreeStep,
    check_initial_history,
)
from pymc_kameleon.step_methods.kmc_basis import warn_basis_size
from pymc_kameleon.step_methods.kmc_metropolis import (
    follow_kept_states,
    metropolis_move,
    move_after_warmup,
)
from pymc_kameleon.step_methods.notices import note_divergence
from pymc_kameleon.step_methods.pooling import pooled_variant
from pymc_kameleon.step_methods.progress import ProgressField
from pymc_kameleon.step_methods.start_up import ASSUMED_WARMUP_LENGTH

__all__ = ["KMCState", "KMCStep"]

#: PyMC's HMC threshold: an energy error above this marks a divergent trajectory
MAX_ENERGY_ERROR = 1000.0
#: what a divergent trajectory counts as in the step-size tuning (a rejection counts 0)
DIVERGENT_ACCEPT_STAT = -10.0
#: before the first fit the proposal is a random walk, tuned like one
RANDOM_WALK_TARGET = 0.234
#: ridge of the random walk's covariance, relative to its mean variance
RANDOM_WALK_RIDGE = 1e-6
#: fewest states of ``initial_history`` for a fit with a fixed length scale / with CV
MIN_INITIAL_HISTORY = 2
MIN_INITIAL_HISTORY_CV = 4
#: the progress bar's columns
PROGRESS_FIELDS = (
    ProgressField("divergences", "Divergences", "diverging", convert=int),
    ProgressField("accept_rate", "Accept Rate", "accept", "0.2f"),
    ProgressField("step_size", "Step size", "step_size", "0.3g"),
)
#: the stats ``warmup="whitened"`` adds
WHITENED_WARMUP_STATS = {"warmup_stage": (np.int64, []), "n_windows": (np.int64, [])}


@dataclass_state
class KMCState(GradientFreeState):
    """Per-chain state of :class:`KMCStep`."""

    learner: SurrogateLearner
    step_scale: ScaleAdapter
    n_divergent: int
    explore: Proposal
    coordinates: LearnerCoordinates
    learner_settings: LearnerSettings = field(metadata={"frozen": True})


class KMCStep(GradientFreeStep):
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
        The surrogate (see above).
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
        reference at R-hat 1.004; BENCHMARKS.md, "Heavy tails", issue 46). A share of moves of
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
    model, initial_point, compile_kwargs, blocked, rng
        As for PyMC's own step methods.
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
    pool_warmup : bool, default False
        Pool the warm-up across chains: ``pm.sample`` then runs the chains in lock-step (PyMC's
        population sampling, also with ``cores > 1``) and, before each warm-up iteration, each chain
        learns from the other chains' current states as well as its own (the surrogate's history,
        the exploration moves' covariance and, with ``warmup="whitened"``, the covariance windows);
        their starts are spread over the posterior, so the learned coordinates and history cover
        more of it. After warm-up nothing is shared and every chain is an exact chain of its own
        frozen kernel. Works with any number of chains (with one there is nothing to pool); with
        ``cores=1`` the step object passed holds the last chain's learned state afterwards. See
        :doc:`/concepts/warmup`.
    start_up : bool or int, default True
        With ``warmup="whitened"``, each chain first climbs from its initial point to a mode (Newton
        steps on finite differences, no gradients; a stochastic likelihood estimate with its noise
        held fixed) and takes the curvature there. Where that Gaussian fits the posterior (checked
        at 3 sds along each principal axis), the chain starts at an overdispersed draw of it and the
        warm-up's first whitening map is its covariance; elsewhere (a banana's or a funnel's mode, a
        saddle, a climb that did not finish) the chain starts at its initial point with the ordinary
        warm-up, and the ``start_up`` stat names the reason (a warning for the reasons a user can
        act on). True spends at most half of ``tune`` evaluations (all counted in ``logp_evals``);
        an int is the budget; False turns it off. Skipped with ``initial_history`` and ``tune=0``.
        See :doc:`/concepts/warmup`.
    independence : {"always", "warmup", "off"}, default "always"
        Independence moves (a Student t with 4 degrees of freedom, proposing regardless of the
        current state), when the start-up found a mode with a positive definite curvature (Gaussian
        or not): during warm-up a share of the moves are drawn from an equal mixture of the t at
        that mode with its curvature's covariance and the t of the latest covariance window; the
        share follows their acceptance rate (at most 0.5, at least 0.02). On a posterior that is
        roughly elliptical, each accepted one is a nearly independent draw (a fifth to a half of
        them are accepted on GP classification on Glass), which gives warm-up a history that
        covers the posterior. ``"always"`` (the default) keeps them after warm-up with the share
        fixed there, alongside the trajectories (GP classification on Glass, median of three
        seeds: min ESS 346 with them kept, 214 in warm-up only; BENCHMARKS.md); ``"warmup"``
        uses them in warm-up only; ``"off"`` never.
        See :doc:`/concepts/warmup`.
    coordinates : {"global", "local"}, default "global"
        Where the surrogate, its length scale, the mass and the step size live, with
        ``warmup="whitened"``. "global": the warm-up's whitened coordinates (unit global
        covariance). "local" (experimental, issue 31): coordinates of unit *average local
        precision*, which keep a curved posterior's thin direction as wide as the others. Every
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

    Sampler statistics (HamiltonianMC names where the meaning is the same): ``accept`` (min(1,
    exp(-energy_error))), ``accepted`` (0.0/1.0), ``step_size``, ``n_steps``, ``energy``
    (Hamiltonian of the state kept), ``energy_error`` (:math:`H` at the end point minus
    :math:`H` at the start), ``diverging`` (the trajectory left the finite numbers, the end
    point has a NaN/-inf log-density, or the energy error exceeded 1000; never accepted),
    ``model_logp``, ``logp_evals`` (model log-density evaluations this iteration), ``start_up``
    (the start-up's outcome, constant over a chain: 0 did not run, 1 Gaussian start, 2-8
    fallbacks, see :data:`~pymc_kameleon.core.start_up.START_UP_STATUSES`),
    ``surrogate_grad_evals``, ``lengthscale`` and ``n_basis`` (basis points or features of the
    surrogate in use; 0 before the first fit), and ``surrogate_scale`` (the calibrated factor
    :math:`\beta` on the surrogate gradient). With ``warmup="whitened"`` also ``warmup_stage``
    (0 per-coordinate start, 1 covariance windows, 2 settling with the final map, 3 frozen after
    warm-up) and ``n_windows`` (covariance windows used so far). With a stochastic likelihood
    estimate there is one more stat, ``noise_sd``: the standard deviation of :math:`\log \hat p`
    at the current state, pooled over the checks so far (pseudo-marginal chains stick when it is
    well above 1-2). The Metropolis test uses the stored estimate of the current state and a
    fresh one at the end point, so the chain stays exact.

    ``warning`` is None except where it holds a :class:`~pymc.stats.convergence.SamplerWarning`,
    which PyMC logs (with any ``cores``) and leaves out of the InferenceData unless
    ``pm.sample(keep_warning_stat=True)``: near a chain's first iteration when its warm-up is
    too short to learn the proposal (``tune=0``, or below the minimum the message names),
    at a chain's first trajectory that diverges after warm-up (naming
    ``KMCStep(target_accept=...)``, which PyMC's "Increase `target_accept`" means here),
    and at the first iteration after warm-up of a chain that never moved during warm-up (or
    ended it with a non-finite log-density), naming the counts and the likely cause. A model
    without a stochastic likelihood whose log-density is not finite at the starting point
    raises :class:`~pymc.exceptions.SamplingError` at the first iteration instead.

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
        "step_size": (np.float64, []),
        "n_steps": (np.int64, []),
        "energy": (np.float64, []),
        "energy_error": (np.float64, []),
        "diverging": (bool, []),
        "model_logp": (np.float64, []),
        "logp_evals": (np.int64, []),
        "start_up": (np.int64, []),
        "surrogate_grad_evals": (np.int64, []),
        "lengthscale": (np.float64, []),
        "n_basis": (np.int64, []),
        "surrogate_scale": (np.float64, []),
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
        model=None,
        initial_point=None,
        compile_kwargs: dict | None = None,
        blocked: bool = True,
        rng=None,
        noise_free_other_steps: bool = False,
        noise_check_interval: int = 100,
        pool_warmup: bool = False,
        start_up: bool | int = True,
        independence: str = "always",
        coordinates: str = "global",
    ) -> None:
        self.coordinates_choice = check_choice("coordinates", coordinates, tuple(local.COORDINATES))
        self.learner_settings = LearnerSettings.from_arguments(
            estimator, n_history, n_features, lengthscale, regularisation, mass,
            adapt_start, refit_growth, history_capacity,
        )  # fmt: skip
        lengths = self.trajectory_length = UniformTrajectoryLength(n_steps_range, step_size_range)
        self.step_size_range, self.n_steps_range = lengths.step_size_range, lengths.n_steps_range
        self.target_accept = check_target_accept(target_accept, "0.6-0.8 suits Hamiltonian moves.")
        self.warmup, self.independence = check_warmup(warmup), check_independence(independence)
        super().__init__(
            vars, adaptation=adaptation, model=model, initial_point=initial_point, rng=rng,
            compile_kwargs=compile_kwargs, blocked=blocked, start_up=start_up,
            noise_free_other_steps=noise_free_other_steps, pool_warmup=pool_warmup,
            noise_check_interval=noise_check_interval,
        )  # fmt: skip
        self._set_initial_history(initial_history, warmup_explore, explore_after_warmup)
        self._add_stats(WHITENED_WARMUP_STATS if self.warmup == "whitened" else {})

    def _set_initial_history(self, initial_history: Any, *explore_shares: Any) -> None:
        """Validate ``initial_history`` (now that the dimension is known) and enter it; set the
        exploration shares (``warmup_explore``, ``explore_after_warmup``), whose defaults
        depend on it and on the adaptation."""
        self.warmup_explore, self.explore_after_warmup = parse_explore_shares(
            *explore_shares, self.schedule.adapts_after_tuning, initial_history
        )
        if initial_history is None:
            return
        settings = self.learner_settings
        cv = settings.lengthscale is None
        minimum = MIN_INITIAL_HISTORY_CV if cv else MIN_INITIAL_HISTORY
        reason = "the length-scale cross-validation needs" if cv else "the fit needs"
        self.initial_history = check_initial_history(
            initial_history, self.dim, minimum, type(self).__name__, reason
        )
        capacity = max(settings.capacity, self.initial_history.shape[0])
        self.learner_settings = dataclasses.replace(settings, capacity=capacity)
        self._reset_chain_state()

    # ----------------------------------------------------------------------------------------
    # what a run step exposes
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
    # chain life cycle
    def _reset_chain_state(self) -> None:
        self._reset_common_state()
        self.learner = SurrogateLearner(self.learner_settings, self.dim)
        # log of the factor on both ends of step_size_range, toward target_accept
        self.step_scale = ScaleAdapter()
        self.n_divergent = 0
        self.coordinates = LearnerCoordinates()
        if self.warmup == "whitened":
            self._reset_whitened()
            return
        # Haario's adaptive random walk; its covariance once the chain moved dim + 1 times
        self.explore = AdaptiveCovarianceProposal(
            self.dim, min_states=self.dim + 2, relative_ridge=RANDOM_WALK_RIDGE
        )
        if self.initial_history is not None:
            # recorded at iterations -n..-1 and counted as learned; fitted at the first iteration
            self.learner.enter_initial_history(self.initial_history, self.rng)
            for x in self.initial_history:
                self.explore.record(x)

    def _reset_whitened(self) -> None:
        """The unit-free warm-up: the exploration moves carry the whitening (see ``warmup``)."""
        pilot = self.initial_history
        self.explore = WhitenedProposal(
            IsotropicRandomWalk(self.dim),
            initial_states=pilot,
            learn_map=pilot is None,  # a pilot's coordinates are kept: no exploration moves
        )
        length = self.warmup_length
        self.explore.plan_warmup(ASSUMED_WARMUP_LENGTH if length is None else length)
        self.coordinates = LearnerCoordinates(self.explore.affine)
        self.local_scores = local.new_local_scores(self)
        if pilot is not None:
            self.learner.enter_initial_history(self.coordinates.to_kernel(pilot), self.rng)

    @property
    def takes_gaussian_start(self) -> bool:
        """Whether the warm-up can begin from a Gaussian's shape (the whitened one can)."""
        return self.warmup == "whitened"

    def begin_from_gaussian(self, mean: np.ndarray, covariance: np.ndarray) -> None:
        """The exploration moves, the mass and the surrogate's coordinates begin whitened.

        Parameters
        ----------
        mean : numpy.ndarray, shape (d,)
        covariance : numpy.ndarray, shape (d, d)
        """
        self.explore.start_from(mean, covariance)
        self.coordinates.follow(local.kernel_affine(self), self.learner)

    def mix_independence(self, anchors: list[tuple[np.ndarray, np.ndarray, float]]) -> None:
        """The whitened warm-up's exploration moves mix in independence moves about the modes.

        Parameters
        ----------
        anchors : list of (mode, covariance, weight)
        """
        if anchors and self.warmup == "whitened" and self.independence != "off":
            self.explore.mix_independence(anchors)

    def stop_tuning(self) -> None:
        """End warm-up: fix the step-size scale at its weighted warm-up average; freeze."""
        if self.tune:
            self.step_scale.settle()
            if self.warmup == "whitened":
                self.explore.end_warmup()
        super().stop_tuning()

    # ----------------------------------------------------------------------------------------
    # one iteration
    def astep(self, q0: RaveledVars) -> tuple[RaveledVars, list[dict[str, Any]]]:
        """One leapfrog trajectory on the surrogate, accepted with the true target.

        During warm-up some iterations are adaptive random-walk moves instead (see
        ``warmup_explore``), after it independence moves and moves of the frozen random walk
        (``independence``, ``explore_after_warmup``); they report ``n_steps = 0``.

        Parameters
        ----------
        q0 : RaveledVars
            The current state, raveled.

        Returns
        -------
        tuple of (RaveledVars, list of dict)
            The new state and the sampler statistics of the iteration.
        """
        logp_evals = self._refresh_current(q0.data)
        self.extra_evals = local.score_pilot(self) if self.iteration == 0 else 0
        if self.iteration == 0:
            warn_basis_size(self)
        if self.iteration == 0 and self.surrogate is None and self.initial_history is not None:
            # fitted on initial_history with hyperparameters chosen as in warm-up, even tune=0
            if self.learner.refit(self.rng, learn=True):
                self.step_scale.reset()
        self._check_start(q0)
        logp_evals += self._measure_noise()
        logp_evals += self._start_up()
        explore = self.tune and (
            self.surrogate is None  # (never fitted during a whitened warm-up's start)
            or (self.warmup_explore > 0.0 and self.rng.random() < self.warmup_explore)
        )
        fixed = None if self.tune else move_after_warmup(self)  # (None: a trajectory)
        if fixed is not None or explore:
            explore = True  # (not a trajectory: the step size does not learn from it)
            accept_prob, moved_stats = metropolis_move(self, fixed or self.explore)
        else:
            accept_prob, moved_stats = self._hamiltonian_move(self.x_current)
        if self._adapting():
            self._adapt(DIVERGENT_ACCEPT_STAT if moved_stats["diverging"] else accept_prob, explore)
        self.iteration += 1
        stats = {
            "accept": accept_prob,
            **moved_stats,
            "model_logp": self.logp_current,
            "logp_evals": logp_evals + self.extra_evals + moved_stats.pop("logp_evals"),
            "start_up": START_UP_STATUSES[self.start_up_status],
            "lengthscale": float(self.learner.lengthscale),
            "n_basis": self.learner.n_basis,
            "surrogate_scale": self.learner.surrogate_scale,
            "warning": self._warning_stat(),
            **self._noise_stats(),
        }
        if self.warmup == "whitened":
            warmup = self.explore.stats()
            stats.update(warmup_stage=warmup["warmup_stage"], n_windows=warmup["n_windows"])
        if EMIT_TUNE_STAT:
            stats["tune"] = bool(self.tune)
        return RaveledVars(self.x_current, q0.point_map_info), [stats]

    def _hamiltonian_move(self, x: np.ndarray) -> tuple[float, dict[str, Any]]:
        """Leapfrog on the surrogate; Metropolis test with the true Hamiltonian."""
        n_steps, step_size = self.trajectory_length.draw(self.rng, self.step_scale.current)
        metric = self.learner.metric
        p0 = metric.draw_momentum(self.rng, self.dim)
        z = self.coordinates.to_kernel(x)
        trajectory = self.learner.trajectory(z, p0, step_size, n_steps)
        logp_new, noise_new, logp_evals = -math.inf, None, 0
        x_new = self.coordinates.to_states(trajectory.q)
        if trajectory.finite:
            # keep the model's dtype (float32 under floatX=float32): the compiled logp trusts it
            x_new = x_new.astype(x.dtype, copy=False)
            logp_new, noise_new = self.estimate_logp(x_new)
            logp_evals = 1
        kinetic_start = metric.kinetic_energy(p0)
        log_accept = self.log_accept_ratio(x, trajectory, logp_new, kinetic_start)
        energy_start = -self.logp_current + kinetic_start
        energy_error = -log_accept if not math.isnan(log_accept) else math.inf
        diverging = not (
            trajectory.finite and math.isfinite(logp_new) and energy_error < MAX_ENERGY_ERROR
        )
        decision = mh_decide(log_accept if not diverging else -math.inf, self.rng)
        if self.tune and not diverging and self.surrogate is not None:
            self.learner.calibrate(z, trajectory.q, logp_new - self.logp_current)
        energy = energy_start
        if decision.accepted:
            self.accept_state(x_new, logp_new, noise_new)
            energy = energy_start + energy_error
        if diverging:
            self.n_divergent += 1
            self.n_invalid += int(not math.isfinite(logp_new))
            if not self.tune:  # PyMC counts these: say which target_accept it means
                note_divergence(self)
        return decision.accept_prob, {
            "accepted": float(decision.accepted),
            "step_size": step_size,
            "n_steps": n_steps,
            "energy": energy,
            "energy_error": energy_error,
            "diverging": diverging,
            "logp_evals": logp_evals,
            "surrogate_grad_evals": trajectory.n_grad_evals,
        }

    def log_accept_ratio(
        self, x: np.ndarray, trajectory: LeapfrogResult, logp_new: float, kinetic_start: float
    ) -> float:
        """Log Metropolis ratio of a trajectory from ``x``: ``H(start) - H(end)``, true target.

        ``H(q, p) = -log pi(q) + 1/2 p^T M^{-1} p`` with the model's log-densities at the two
        end points; the leapfrog map is volume-preserving and reversible for any gradient field,
        so this keeps the chain exact however poor the surrogate. (The test suite's negative
        control overrides it to accept with the surrogate's energy instead, which is wrong.)

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)
            The start of the trajectory (the current state).
        trajectory : LeapfrogResult
            The end point, momentum and finiteness of the trajectory.
        logp_new : float
            The model's log-density at the end point (``-inf`` if it was not evaluated).
        kinetic_start : float
            The kinetic energy of the initial momentum.

        Returns
        -------
        float
            ``-inf`` for an invalid end point; ``+inf`` for a valid one from an invalid start.
        """
        return log_accept_ratio(
            logp_new,
            self.logp_current,
            trajectory.p,
            kinetic_start,
            self.learner.metric,
            finite=trajectory.finite,
        )

    # ----------------------------------------------------------------------------------------
    # adaptation
    def _adapt(self, accept_prob: float, explored: bool) -> None:
        if not self.tune:
            self._adapt_after_warmup()
            return
        if self.warmup == "whitened":
            self._adapt_whitened(accept_prob, explored)
            return
        if explored:
            self.explore.scale.update(accept_prob, self._noisy_target(RANDOM_WALK_TARGET))
        else:
            self.step_scale.update(accept_prob, self._noisy_target(self.target_accept))
        t = self.iteration
        p = self.schedule.probability(t, True)
        if p <= 0.0 or (p < 1.0 and self.rng.random() >= p):
            return
        x = self.x_current
        self.explore.record(x)
        if self.learner.learn(x, t, self.rng, tuning=True):
            self.step_scale.reset()  # the proposal mechanism changed: learn the step afresh

    def _adapt_after_warmup(self) -> None:
        # the step size stays at its warm-up value: a surrogate refitted on more of the same
        # posterior needs no new step, and relearning it after each refit cost half the ESS
        t = self.iteration
        p = self.schedule.probability(t, False)
        adapt = p >= 1.0 or (p > 0.0 and self.rng.random() < p)
        self.learner.keep(self.coordinates.to_kernel(self.x_current), t, self.rng, adapt)
        follow_kept_states(self, adapt)

    def _adapt_whitened(self, accept_prob: float, explored: bool) -> None:
        x, t = self.x_current, self.iteration
        if not explored:
            self.step_scale.update(accept_prob, self._noisy_target(self.target_accept))
        transition = Transition(
            x, accept_prob if explored else None, t, True, self._acceptance_ceiling()
        )
        self.explore.learn(transition, self.rng)
        self.extra_evals += local.record_local_score(self)
        self.coordinates.follow(local.kernel_affine(self), self.learner)
        p = self.schedule.probability(t, True)
        if p <= 0.0 or (p < 1.0 and self.rng.random() >= p):
            return
        if self.explore.stage == "start":  # the stuck start is not learned
            return
        if self.learner.learn(self.coordinates.to_kernel(x), t, self.rng, tuning=True):
            self.step_scale.reset()

    def _observe_others(self, states: np.ndarray) -> None:
        t = self.iteration
        self.explore.observe(states, t, self.rng)
        if self.warmup == "whitened" and self.explore.stage == "start":
            return  # each chain learns from its own moves until its map exists
        for x in states:
            if self.learner.learn(self.coordinates.to_kernel(x), t, self.rng, tuning=True):
                self.step_scale.reset()


pooled_variant(KMCStep)  # the pool_warmup=True class, made at import: it pickles by name


# --------------------------------------------------------------------------------------------
# argument parsing
