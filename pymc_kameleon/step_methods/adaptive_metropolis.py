"""AdaptiveMetropolis: Haario et al.'s adaptive Metropolis, with fixed or learned scale."""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from pymc_kameleon._compat import dataclass_state
from pymc_kameleon.core.adaptation import RunningMoments, optimal_rw_acceptance
from pymc_kameleon.core.checks import check_bool, check_choice, check_int, check_nonnegative
from pymc_kameleon.core.proposals import (
    AdaptiveCovarianceProposal,
    IsotropicRandomWalk,
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

__all__ = ["AdaptiveMetropolis", "AdaptiveMetropolisState"]


@dataclass_state
class AdaptiveMetropolisState(AdaptiveMHState):
    """Per-chain state of :class:`AdaptiveMetropolis` (the proposal holds what is learned)."""


@document_options
class AdaptiveMetropolis(AdaptiveMHStep):
    r"""Adaptive Metropolis (Haario, Saksman & Tamminen, 2001) as a PyMC step method.

    A joint Gaussian random walk :math:`\mathcal N(x, \gamma^2 I + s\,\hat\Sigma_t)` whose
    covariance :math:`\hat\Sigma_t` is the running covariance of every state the chain visited
    (rejections included), updated in :math:`O(d^2)` per iteration with constant memory. Before
    ``adapt_start`` states, :math:`\hat\Sigma` is the identity. The proposal is symmetric, so the
    acceptance ratio is the target ratio; one log-density evaluation per iteration.

    Parameters
    ----------
    vars : list of PyMC variables, optional
        Continuous variables to sample jointly; defaults to all continuous variables.
    scale : {"learn", "fixed"}, default "learn"
        ``"fixed"`` keeps :math:`s = 2.38^2/d` (AM-FS); ``"learn"`` starts there and learns
        :math:`\log s` by Robbins–Monro toward ``target_accept`` (AM-LS).
    gamma : float, default 0.0
        Standard deviation of an isotropic term added to the covariance (Haario's
        :math:`\varepsilon` regulariser); if the covariance is singular a tiny relative jitter
        is added anyway.
    target_accept : float, optional
        Target acceptance probability for ``scale="learn"``. By default 0.234, and where the
        start-up found the posterior Gaussian (``start_up`` stat 1) the acceptance rate of the
        optimal scale :math:`2.38^2/d` on a Gaussian in :math:`d` dimensions (0.36 at
        :math:`d = 2`, 0.29 at 5, 0.26 at 10, toward 0.234): in the coordinates that whiten the
        start-up's Gaussian the posterior is near :math:`N(0, I)`, where that rate leads the
        learned scale to :math:`2.38^2/d`.
    adaptation : {"tune", "vanishing"}, AdaptationSchedule or callable, default "tune"
        ``"tune"`` adapts during warm-up and freezes; anything else keeps updating the covariance
        (and the scale) after warm-up.
    adapt_start : int, default 100
        Number of states recorded before the running covariance replaces the identity (not
        used with ``initial_history``: its covariance is used from the first iteration).
        Only with ``warmup="classic"``.
    warmup : {"whitened", "classic"}, default "whitened"
        ``"classic"``: Haario's algorithm as published, the running covariance of the whole
        history (the papers' baseline). ``"whitened"``: a warm-up with no units
        (:class:`~pymc_kameleon.core.proposals.WhitenedProposal`): one-coordinate moves learn
        a scale per coordinate, then the proposal is
        :math:`\mathcal N(x, \gamma^2 \hat\Sigma + s\hat\Sigma)` with :math:`\hat\Sigma` estimated
        in warm-up windows of doubling length, each from its own window only (so a stuck start is
        forgotten), shrunk toward its diagonal; :math:`\hat\Sigma` freezes after warm-up (also
        with ``adaptation="vanishing"``, which then keeps learning only :math:`s`), and
        ``gamma`` is in the whitened coordinates. See :doc:`/concepts/warmup`.
    <shared options>
    independence : {"always", "warmup", "off"}, default "always"
        Independence moves from a Student t at the start-up's mode (and at each covariance
        window's moments), kept after warm-up at the share warm-up learned; as for
        :class:`~pymc_kameleon.KameleonStep`. On GP classification on Glass they take the median
        min ESS from 31 to 122. See :doc:`/concepts/warmup`.
    initial_history : array_like of shape (n, d), optional
        States of the sampled space (the step's variables raveled in order, on the transformed
        scale, as ``model.initial_point()`` lists them), e.g. exact draws from the target or the
        draws of a previous run, with ``n >= d + 1``. The first proposal is
        :math:`\mathcal N(x, s\,\hat\Sigma)` (plus :math:`\gamma^2`) with :math:`\hat\Sigma`
        their sample covariance and :math:`s = 2.38^2/d`: with ``warmup="whitened"`` the
        per-coordinate start is skipped and the windows begin at once; with ``"classic"`` the
        rows enter the running mean and covariance, and the chain's own warm-up states are
        added to them. With ``tune=0`` the proposal built from them is used unchanged. Every
        coordinate must vary across the rows (a constant one is the mark of a stuck pilot
        chain); fewer than 10 % distinct rows give a warning.

    Attributes
    ----------
    proposal : pymc_kameleon.core.proposals.AdaptiveCovarianceProposal
        The chain's proposal: the running moments ``proposal.moments``, the scale
        ``proposal.scale`` and ``proposal.covariance(x)``.

    Notes
    -----
    The step is an :class:`~pymc_kameleon.step_methods.adaptive_mh.AdaptiveMHStep` over an
    :class:`~pymc_kameleon.core.proposals.AdaptiveCovarianceProposal`; ``step.log_density(x)``
    is the model's log-density at a raveled point.

    Documented for up to 100 sampled dimensions (the step's variables raveled;
    ``AdaptiveMetropolis.documented_max_dim``); beyond that the constructor warns, since the warm-up
    needed to learn the proposal grows quickly with the dimension. Use NUTS where PyMC
    can differentiate the model, otherwise ``pm.sample_smc`` or several steps on blocks
    of at most 100 dimensions.

    Sampler statistics: ``accept``, ``accepted`` (0.0/1.0), ``scaling`` (:math:`s`),
    ``model_logp``, ``logp_evals``, ``start_up`` (the start-up's outcome, constant over a chain:
    0 did not run, 1 Gaussian start, 2-8 fallbacks, see
    :data:`~pymc_kameleon.core.start_up.START_UP_STATUSES`), ``invalid_proposal``; with
    ``warmup="classic"`` ``n_history`` (states in the running covariance), with
    ``warmup="whitened"`` ``warmup_stage`` (0 per-coordinate start, 1 covariance windows, 2
    settling, 3 frozen), ``n_windows`` (window estimates used so far), ``independence_move``
    (-1 no independence move, 0 a candidate from the t's, 1 from their wide copies),
    ``independence_share`` (the independence moves' share) and ``defensive_weight`` (the wide
    copies' weight: 0 in warm-up). With a stochastic likelihood estimate there is one more
    stat, ``noise_sd``: the standard deviation of :math:`\log \hat p` at the current state,
    pooled over the checks so far (pseudo-marginal chains stick when it is well above 1-2).

    <warning stat>

    References
    ----------
    .. [1] Haario, H., Saksman, E., Tamminen, J. (2001). An adaptive Metropolis algorithm.
       Bernoulli 7(2), 223-242.
    .. [2] Andrieu, C., Thoms, J. (2008). A tutorial on adaptive MCMC. Statistics and Computing.
    """

    name = "adaptive_metropolis"
    # the proposal adds its own stats (``n_history`` for "classic", the warm-up stage for
    # "whitened") to each instance
    stats_dtypes_shapes = AdaptiveMHStep.stats_dtypes_shapes
    documented_max_dim = 100
    _state_class = AdaptiveMetropolisState

    def __init__(
        self,
        vars=None,
        *,
        scale: str = "learn",
        gamma: float = 0.0,
        target_accept: float | None = None,
        adaptation: Any = "tune",
        adapt_start: int = 100,
        warmup: str = "whitened",
        initial_history: Any = None,
        independence: str = "always",
        **options: Any,
    ) -> None:
        scale = check_choice(
            "scale",
            scale,
            ("learn", "fixed"),
            hint="'learn' learns the scale (AM-LS); 'fixed' keeps s = 2.38**2/d (AM-FS).",
        )
        self.gamma = check_nonnegative(
            "gamma",
            gamma,
            hint="It is the standard deviation of an isotropic regulariser; 0 is none.",
        )
        self.adapt_start = check_int("adapt_start", adapt_start, minimum=2)
        self.scale_mode = scale
        #: None: 0.234, and after a Gaussian start-up the optimal scale's rate on a Gaussian
        self.target_accept = None if target_accept is None else check_target_accept(target_accept)
        self.learn_scale = check_bool("learn_scale", scale == "learn")
        self.warmup = check_warmup(warmup)
        self.initial_history: np.ndarray | None = None

        make_proposal = partial(self._build_proposal, initial_history)
        super().__init__(
            vars,
            proposal=make_proposal,
            adaptation=adaptation,
            independence=independence,
            **options,
        )

    def _build_proposal(self, initial_history: Any, dim: int) -> Proposal:
        """The chain's proposal, once the dimension is known (validates ``initial_history``)."""
        if initial_history is not None:
            self.initial_history = check_initial_history(
                initial_history, dim, dim + 1, type(self).__name__
            )
        if self.warmup == "whitened":
            move = IsotropicRandomWalk(
                dim,
                gamma=self.gamma,
                target_accept=self.target_accept or CLASSIC_TARGET_ACCEPT,
                learn_scale=self.learn_scale,
            )
            return WhitenedProposal(move, initial_states=self.initial_history)
        return AdaptiveCovarianceProposal(
            dim,
            gamma=self.gamma,
            min_states=self.adapt_start,
            learn_scale=self.learn_scale,
            target_accept=CLASSIC_TARGET_ACCEPT
            if self.target_accept is None
            else self.target_accept,
            initial_states=self.initial_history,
        )

    def begin_from_gaussian(self, mean: np.ndarray, covariance: np.ndarray) -> None:
        """Whitened as the other steps; with ``target_accept=None`` the scale is then learned
        toward the optimal rate on a Gaussian of the dimension.

        Parameters
        ----------
        mean : numpy.ndarray, shape (d,)
        covariance : numpy.ndarray, shape (d, d)
        """
        super().begin_from_gaussian(mean, covariance)
        if self.target_accept is None and isinstance(self.proposal, WhitenedProposal):
            self.proposal.main.set_target_accept(optimal_rw_acceptance(self.dim))

    @property
    def moments(self) -> RunningMoments | None:
        """Running mean and covariance of the visited states (``proposal.moments``).

        None with ``warmup="whitened"``, whose covariance comes from windows
        (``proposal.affine``).
        """
        return getattr(self.proposal, "moments", None)

    def proposal_covariance(self, x: np.ndarray) -> np.ndarray:
        """Covariance ``gamma^2 I + s Sigma`` of the proposal (the same at every ``x``).

        With ``warmup="whitened"``: the covariance of the move in use, in the model's
        coordinates.

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)

        Returns
        -------
        numpy.ndarray, shape (d, d)
        """
        return self.proposal.covariance(x)
