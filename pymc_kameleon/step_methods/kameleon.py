"""KameleonStep: Kernel Adaptive Metropolis–Hastings (MCMC Kameleon) as a PyMC step method."""

from __future__ import annotations

from dataclasses import field
from functools import partial
from typing import Any, ClassVar

import numpy as np

from pymc_kameleon._compat import dataclass_state
from pymc_kameleon.core.adaptation import optimal_rw_acceptance
from pymc_kameleon.core.checks import (
    check_bool,
    check_choice,
    check_int,
    check_number,
    check_positive,
)
from pymc_kameleon.core.history import ChainHistory
from pymc_kameleon.core.kernels import KERNELS, Kernel, make_kernel
from pymc_kameleon.core.proposals import (
    IsotropicRandomWalk,
    KameleonProposal,
    MixtureProposal,
    PCAKameleonProposal,
    Proposal,
    WhitenedProposal,
)
from pymc_kameleon.step_methods.adaptive_mh import AdaptiveMHState, AdaptiveMHStep
from pymc_kameleon.step_methods.arguments import (
    CLASSIC_TARGET_ACCEPT,
    check_initial_history,
    check_target_accept,
    check_warmup,
)
from pymc_kameleon.step_methods.options import document_options

_GAMMA_HINT = "It is the standard deviation of the isotropic term of the proposal."
#: the global move's probability with ``global_weight=None``: after a Gaussian start-up, and not
DEFAULT_GLOBAL_WEIGHT = 0.5
GAUSSIAN_GLOBAL_WEIGHT = 0.8
#: weight share above which the kernel move is out of use: between d = 10 (0.87-0.88) and
#: d = 20 (0.93) on whitened Gaussians and bananas, where the kernel term is a global covariance
#: up to noise; the 8-D banana B(0.1, 100), where the kernel move beats a global one, stays
#: below it (``benchmarks/kernel_locality.py``; benchmarks/notes/lab-notes.md)
LOCALITY_THRESHOLD = 0.9
KERNEL_MOVES = ("full", "pca")
#: subsample sizes by default: the PCA move eigendecomposes an n x n matrix every 50 warm-up
#: iterations (n = 1000: about 0.1 s; 300: a few ms)
FULL_N_HISTORY, PCA_N_HISTORY = 1000, 300

__all__ = ["KameleonState", "KameleonStep"]


@dataclass_state
class KameleonState(AdaptiveMHState):
    """Per-chain state of :class:`KameleonStep` (the proposal holds what is learned)."""

    capacity: int = field(metadata={"frozen": True})


@document_options
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
    fixed, valid Metropolis–Hastings kernel. By default (``warmup="whitened"``) all of this
    happens in coordinates learned during warm-up in which the posterior has sd about 1, and the
    kernel move is mixed with a global adaptive-Metropolis move; ``warmup="classic"`` is the
    published algorithm in the model's own units.

    Parameters
    ----------
    vars : list of PyMC variables, optional
        Continuous variables to sample jointly; defaults to all continuous variables.
    kernel : {"gaussian", "matern32", "matern52", "linear"} or Kernel, default "gaussian"
        Kernel whose gradients shape the proposal. Bandwidths are length scales: the Gaussian
        kernel is :math:`\exp(-\|x-z\|^2 / (2\sigma^2))`. ``"linear"`` gives a state-independent
        covariance :math:`\gamma^2 I + 4\nu^2 Z^\top H Z`, i.e. adaptive Metropolis.
    n_history : int, optional
        Size :math:`n` of the history subsample used to build the proposal, drawn uniformly
        with replacement from the eligible history: by default 1000, and 300 with
        ``proposal="pca"``. Cost per iteration is :math:`O(n d^2)` (PCA: :math:`O(n d m)`).
    gamma : float, default 0.2
        Standard deviation of the isotropic exploration term :math:`\gamma^2 I`: in posterior
        sds with the default whitened warm-up, in the units of the sampled (possibly
        transformed) variables with ``warmup="classic"``. It keeps the proposal non-degenerate.
    nu2 : float, optional
        Initial :math:`\nu^2`. By default it is set when the proposal first uses the history so
        that the kernel term has the trace of :math:`2.38^2/d` times the history covariance.
    target_accept : float, optional
        Acceptance probability that :math:`\nu^2` and the global move's scale are tuned toward.
        By default 0.234; where the start-up found the posterior Gaussian, the global move's is
        the acceptance rate of the optimal scale on a Gaussian in :math:`d` dimensions (0.36 at
        :math:`d = 2`, toward 0.234; see :class:`~pymc_kameleon.AdaptiveMetropolis`).
    bandwidth : "median" or float, default "median"
        Kernel length scale (the kernels' ``bandwidth``; :class:`~pymc_kameleon.KMCStep` calls
        the same quantity ``lengthscale``). ``"median"`` uses the median pairwise distance of the
        history subsample (the usual median heuristic), re-estimated at iterations ``adapt_start``,
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
    proposal : {"full", "pca"}, default "full"
        The kernel move. ``"full"`` is the Kameleon proposal above. ``"pca"`` is MCMC
        PCA-Kameleon (the KAMH paper's appendix C;
        :class:`~pymc_kameleon.core.proposals.PCAKameleonProposal`): with probability
        :math:`w_j \propto \lambda_j` a rank-one move
        :math:`\mathcal N(y, \gamma^2 I + \nu_j^2 M_y H a_j a_j^\top H M_y^\top)` along the
        :math:`j`-th leading eigenvector :math:`a_j` of the centred kernel matrix
        :math:`HKH`, each direction with its own learned :math:`\nu_j^2`; the Hastings ratio
        uses the mixture density. It costs :math:`O(n d m)` per iteration instead of
        :math:`O(n d^2 + d^3)`, and an eigendecomposition every 50 warm-up iterations.
    n_components : int, default 10
        Only with ``proposal="pca"``: the number :math:`m` of principal directions.
    locality_threshold : float or None, default 0.9
        Only with ``warmup="whitened"`` and a global move (``global_weight`` not 0): every 100
        warm-up iterations the step measures how local its kernel is, as the effective share
        of history points that shape the kernel term (1: all weigh the same, a global
        covariance), on states at least a quarter of the window apart in time and never below
        the share of a standard Gaussian of the same dimension
        (:func:`~pymc_kameleon.core.locality.history_locality`; 0.71 at :math:`d = 2`, 0.88 at
        :math:`d = 10`, 0.99 at :math:`d = 100`). Above the threshold (the mean of the last three
        measures) the kernel move stands down and the global move makes every move, at the
        global move's cost (the Hastings ratio uses the mixture with its one remaining
        component); a later measure can bring it back, and the choice freezes with warm-up.
        With 0.9 it stands down from :math:`d = 13` on. The ``kernel_local`` stat records the
        choice and ``weight_share`` the measure. None keeps the kernel move whatever the
        measure.
    warmup : {"whitened", "classic"}, default "whitened"
        ``"classic"``: the published algorithm, in the units of the model's (transformed)
        variables (on the papers' well-scaled curved targets it mixes about twice as fast as
        the whitened default, at the same accuracy; on real models it passes none of the
        validation suite: see :doc:`/concepts/warmup`). ``"whitened"``: a warm-up with no units
        (:class:`~pymc_kameleon.core.proposals.WhitenedProposal`): first one-coordinate moves
        learn a scale per coordinate, then
        the proposal works in coordinates whitened by covariance estimates from warm-up windows
        of doubling length (each from its own window, so the start is forgotten), and the map
        freezes with the rest after warm-up. ``gamma``, the bandwidth and :math:`\nu^2` then
        live in the whitened coordinates, where the posterior has sd about 1, and the step is
        invariant to affine reparameterisations of the model. See :doc:`/concepts/warmup`.
    global_weight : float or None, default None
        Only with ``warmup="whitened"``: probability of a global move
        :math:`\mathcal N(x, s\hat\Sigma)` (adaptive Metropolis with the warm-up covariance
        :math:`\hat\Sigma`, its own scale :math:`s` learned) instead of the kernel move; the
        Hastings ratio uses the mixture density, so the step stays exact. It lets a chain leave
        regions its history never covered. 0 gives the kernel move alone. None (the default)
        chooses per chain: 0.8 where the start-up found the posterior Gaussian at its mode
        (``start_up`` stat 1; there the global move is the efficient one), 0.5 elsewhere: the
        kernel move earns its cost on a curved posterior, but shrinks toward
        :math:`\gamma^2 I` in a long tail its history has not covered (on a heavy-tailed PK
        posterior 0.2 left chains stuck there: ESS 101 and R-hat 1.06 at one seed of four, where
        0.5 passed all four; 0.4 had not cost ESS on the bananas; benchmarks/notes/lab-notes.md).
    <shared options>
    <independence moves>
        ``"always"`` keeps them after warm-up with the share and the t's fixed there (an exact
        kernel; on GP classification on Glass it takes the median min ESS from 27 to 139);
        ``"warmup"`` stops them with warm-up; ``"off"`` never uses them.
        See :doc:`/concepts/warmup`.
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

    Attributes
    ----------
    proposal : pymc_kameleon.core.proposals.KameleonProposal
        The chain's proposal: its history subsample ``proposal.z``, ``proposal.kernel``, the
        learned scale ``proposal.scale`` and ``proposal.covariance(x)``.
    history : pymc_kameleon.core.ChainHistory
        The chain's history reservoir (``proposal.history``).

    Notes
    -----
    The step is an :class:`~pymc_kameleon.step_methods.adaptive_mh.AdaptiveMHStep` over a
    :class:`~pymc_kameleon.core.proposals.KameleonProposal`; ``step.log_density(x)`` is the
    model's log-density at a raveled point. To mix the kernel move with a global one, build the
    step from proposals, e.g. ``AdaptiveMHStep(proposal=lambda d: MixtureProposal([
    (KameleonProposal(d), 0.8), (AdaptiveCovarianceProposal(d), 0.2)]))``; its Hastings ratio
    uses the mixture density, so it stays exact.

    Documented for up to 50 sampled dimensions (the step's variables raveled;
    ``KameleonStep.documented_max_dim``); beyond that the constructor warns, since the warm-up
    needed to learn the proposal grows quickly with the dimension. Use NUTS where PyMC
    can differentiate the model, otherwise ``pm.sample_smc`` or several steps on blocks
    of at most 50 dimensions.

    Sampler statistics: ``accept`` (min(1, MH ratio)), ``accepted`` (0.0/1.0), ``scaling``
    (:math:`\nu^2`), ``bandwidth``, ``n_history`` (rows of :math:`z` in use), ``model_logp``,
    ``logp_evals`` (log-density evaluations this iteration, the start-up's included at the
    first), ``start_up`` (the start-up's outcome, constant over a chain: 0 did not run, 1
    Gaussian start, 2-8 fallbacks, see :data:`~pymc_kameleon.core.start_up.START_UP_STATUSES`),
    and ``invalid_proposal`` (the proposal had a NaN/-inf log-density and was rejected). With
    ``warmup="whitened"`` there are more: ``warmup_stage`` (0 per-coordinate start, 1 covariance
    windows, 2 settling, 3 frozen), ``n_windows`` (window estimates used so far),
    ``independence_move`` (-1 no independence move, 0 a candidate from the t's, 1 from their wide
    copies), ``independence_share`` (the independence moves' share), ``defensive_weight`` (the
    wide copies' weight: 0 in warm-up), ``component``
    (0 the kernel move, 1 the global move; -1 before the first of them), the kernel move's
    ``move0_scaling``, ``move0_bandwidth``, ``move0_n_history``, ``move0_kernel_local``,
    ``move0_weight_share`` and ``move0_direction`` (the same as ``scaling``, ``bandwidth``,
    ``n_history``, ``kernel_local``, ``weight_share`` and ``direction``), the global move's
    scale ``move1_scaling``, and the locality measure: ``kernel_local`` (False once the kernel
    move stood down, see ``locality_threshold``) and ``weight_share`` (the mean of its last
    three warm-up measures, 0 before the first). With ``proposal="pca"`` there is ``direction``,
    the principal direction of the last kernel move (-1 before the history is used), and
    ``scaling`` is :math:`\sum_j w_j\nu_j^2`. With a stochastic likelihood estimate there is one
    more stat, ``noise_sd``: the standard deviation of :math:`\log \hat p` at the current state,
    pooled over the checks so far (pseudo-marginal chains stick when it is well above 1-2).

    <warning stat>

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
        n_history: int | None = None,
        gamma: float = 0.2,
        nu2: float | None = None,
        target_accept: float | None = None,
        bandwidth: str | float = "median",
        adaptation: Any = "tune",
        adapt_start: int = 100,
        discard_fraction: float = 0.2,
        history_capacity: int | None = None,
        learn_scale: bool = True,
        warmup: str = "whitened",
        global_weight: float | None = None,
        initial_history: Any = None,
        independence: str = "always",
        proposal: str = "full",
        n_components: int = 10,
        locality_threshold: float | None = LOCALITY_THRESHOLD,
        **options: Any,
    ) -> None:
        self.kernel_move = check_choice("proposal", proposal, KERNEL_MOVES)
        if n_history is None:
            n_history = PCA_N_HISTORY if self.kernel_move == "pca" else FULL_N_HISTORY
        self.n_history = check_int("n_history", n_history, minimum=2, also="None (the default)")
        self.gamma = check_positive("gamma", gamma, hint=_GAMMA_HINT)
        self.adapt_start = check_int("adapt_start", adapt_start, minimum=0)
        self.capacity = _capacity(history_capacity, self.n_history, initial_history)
        self.discard_fraction = _check_fraction(discard_fraction)
        base_kernel, median_bandwidth = _parse_kernel(kernel, bandwidth)
        nu2 = None if nu2 is None else check_positive("nu2", nu2, also="None (set automatically)")
        #: None: 0.234, and the global move's the optimal rate on a Gaussian after a Gaussian start
        self.target_accept = None if target_accept is None else check_target_accept(target_accept)
        self.learn_scale = check_bool("learn_scale", learn_scale)
        self.warmup, self.global_weight = check_warmup(warmup), _check_weight(global_weight)
        self.automatic_weight = global_weight is None
        self.n_components = check_int("n_components", n_components, minimum=1)
        self.locality_threshold = _check_threshold(locality_threshold)
        self.initial_history: np.ndarray | None = None
        build = partial(self._build_proposal, initial_history, base_kernel, median_bandwidth, nu2)
        super().__init__(
            vars, proposal=build, adaptation=adaptation, independence=independence, **options
        )

    def _build_proposal(
        self, initial_history: Any, kernel: Kernel, median_bandwidth: bool, nu2, dim: int
    ) -> Proposal:
        """The chain's proposal, once the dimension is known (validates ``initial_history``)."""
        if initial_history is not None:
            self.initial_history = check_initial_history(
                initial_history, dim, 2, type(self).__name__
            )
        kameleon = self._kameleon_proposal(kernel, median_bandwidth, nu2, dim)
        if self.warmup == "classic":
            return kameleon
        main: Proposal = kameleon
        if self.global_weight > 0.0:
            target = self.target_accept or CLASSIC_TARGET_ACCEPT
            move = IsotropicRandomWalk(dim, target_accept=target, learn_scale=self.learn_scale)
            weights = (1.0 - self.global_weight, self.global_weight)
            main = MixtureProposal(list(zip((kameleon, move), weights, strict=True)))
        return WhitenedProposal(main, initial_states=self.initial_history)

    def _kameleon_proposal(
        self, kernel: Kernel, median_bandwidth: bool, nu2, dim: int
    ) -> KameleonProposal:
        pca = {"n_components": self.n_components} if self.kernel_move == "pca" else {}
        move = PCAKameleonProposal if self.kernel_move == "pca" else KameleonProposal
        # only beside a global move can the kernel move stand down
        beside_global = self.warmup == "whitened" and self.global_weight > 0.0
        return move(
            dim,
            **pca,
            locality_threshold=self.locality_threshold if beside_global else None,
            kernel=kernel,
            schedule=self.schedule,
            n_history=self.n_history,
            gamma=self.gamma,
            nu2=nu2,
            target_accept=self.target_accept or CLASSIC_TARGET_ACCEPT,
            median_bandwidth=median_bandwidth,
            adapt_start=self.adapt_start,
            discard_fraction=self.discard_fraction,
            capacity=self.capacity,
            learn_scale=self.learn_scale,
            initial_states=self.initial_history,
        )

    def begin_from_gaussian(self, mean: np.ndarray, covariance: np.ndarray) -> None:
        """Whitened as the other steps; with ``global_weight=None`` the global move's weight
        becomes 0.8, and with ``target_accept=None`` its target the optimal rate on a Gaussian.

        Parameters
        ----------
        mean : numpy.ndarray, shape (d,)
        covariance : numpy.ndarray, shape (d, d)
        """
        super().begin_from_gaussian(mean, covariance)
        main = self.proposal.main if isinstance(self.proposal, WhitenedProposal) else None
        if not isinstance(main, MixtureProposal):
            return
        if self.automatic_weight:
            # near a Gaussian, adaptive Metropolis on its covariance is the efficient move
            main.set_weights((1.0 - GAUSSIAN_GLOBAL_WEIGHT, GAUSSIAN_GLOBAL_WEIGHT))
        if self.target_accept is None:
            main.proposals[1].set_target_accept(optimal_rw_acceptance(self.dim))

    # ----------------------------------------------------------------------------------------
    # read-only views of the proposal (the documented seams are ``proposal`` and ``history``)
    @property
    def kernel_proposal(self) -> KameleonProposal:
        """The Kameleon move itself (``proposal``, or the kernel move inside the whitened one)."""
        proposal = self.proposal
        if isinstance(proposal, WhitenedProposal):
            proposal = proposal.main
        if isinstance(proposal, MixtureProposal):
            proposal = proposal.proposals[0]
        return proposal

    @property
    def history(self) -> ChainHistory:
        """The chain's history reservoir (``kernel_proposal.history``)."""
        return self.kernel_proposal.history

    @property
    def z(self) -> np.ndarray | None:
        """The history subsample the kernel move is built from (``kernel_proposal.z``)."""
        return self.kernel_proposal.z

    @property
    def kernel(self) -> Kernel:
        """The kernel at its current bandwidth (``kernel_proposal.kernel``)."""
        return self.kernel_proposal.kernel

    def proposal_covariance(self, x: np.ndarray) -> np.ndarray:
        """Covariance ``gamma^2 I + nu^2 M_x H M_x^T`` of the proposal at ``x``, as it is now.

        After warm-up this is the frozen proposal the kept draws came from. With
        ``warmup="whitened"`` it is the covariance of the move in use (the mixture of the kernel
        and the global move, mapped back from the whitened coordinates).

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)
            State of the sampled (raveled, transformed) space.

        Returns
        -------
        numpy.ndarray, shape (d, d)
        """
        return self.proposal.covariance(x)


def _check_threshold(locality_threshold: float | None) -> float | None:
    if locality_threshold is None:
        return None
    return check_number(
        "locality_threshold",
        locality_threshold,
        minimum=0.0,
        maximum=1.0,
        also="None (always use the kernel move)",
    )


def _check_fraction(discard_fraction: float) -> float:
    return check_number(
        "discard_fraction", discard_fraction, minimum=0.0, maximum=1.0, open_maximum=True
    )


def _check_weight(global_weight: float | None) -> float:
    if global_weight is None:
        return DEFAULT_GLOBAL_WEIGHT
    return check_number(
        "global_weight",
        global_weight,
        minimum=0.0,
        maximum=1.0,
        open_maximum=True,
        also="None (0.8 after a Gaussian start-up, else 0.2)",
        hint="It is the probability of the global move.",
    )


def _capacity(history_capacity: int | None, n_history: int, initial_history: Any) -> int:
    """History capacity: ``5 * n_history`` by default, at least the rows of ``initial_history``."""
    if history_capacity is not None:
        history_capacity = check_int(
            "history_capacity",
            history_capacity,
            minimum=n_history,
            also="None (5 * n_history)",
            hint="It must hold at least `n_history` states.",
        )
    return max(
        5 * n_history if history_capacity is None else history_capacity,
        _leading_length(initial_history),
    )


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
