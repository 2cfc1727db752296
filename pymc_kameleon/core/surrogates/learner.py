"""SurrogateLearner: how a KMC chain learns its surrogate from its own history.

The policy of Kernel HMC's warm-up, without PyMC:

* every learned state enters a :class:`~pymc_kameleon.core.history.ChainHistory` (and an online
  surrogate, through :meth:`Surrogate.update
  <pymc_kameleon.core.surrogates.base.Surrogate.update>`);
* the surrogate is refitted when the number of learned states reaches ``adapt_start`` and then
  each time it has grown by ``refit_growth``;
* at a refit during warm-up: the diagonal inverse mass becomes the history variance
  (``diagonal_mass``), ``"auto"`` switches from lite to finite once ``2 * n_features`` states are
  learned, and the length scale is re-chosen by cross-validation at the first refit and whenever
  the learned states have doubled since the last choice;
* the surrogate scale :math:`\\beta` (``surrogate_scale``) is calibrated on warm-up proposals;
* after warm-up (:meth:`SurrogateLearner.keep`) every kept state enters the history, and a refit
  draws its lite basis from all of it, but never more points than the end of warm-up allowed
  (:meth:`SurrogateLearner.basis_size`): each refit costs :math:`O(d n^3)` in its basis size,
  and vanishing adaptation refits about :math:`2\\sqrt{T}` times in :math:`T` iterations.

Vocabulary: ``lengthscale`` is the Gaussian kernel's length scale :math:`\\ell`, ``ridge`` the
ridge of the score-matching fit (``lite_ridge`` absolute, ``finite_ridge`` scale-free, see
:func:`~pymc_kameleon.core.surrogates.finite.relative_ridge`), ``surrogate_scale`` the factor
:math:`\\beta` on the surrogate gradient.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pymc_kameleon.core._threads import single_blas_thread
from pymc_kameleon.core.bandwidth import median_heuristic
from pymc_kameleon.core.checks import (
    check_choice,
    check_int,
    check_nonnegative,
    check_number,
    check_positive,
)
from pymc_kameleon.core.hamiltonian import DiagonalMetric, LeapfrogResult, leapfrog
from pymc_kameleon.core.history import ChainHistory
from pymc_kameleon.core.surrogates import SURROGATES, Surrogate, make_surrogate
from pymc_kameleon.core.surrogates.lengthscale_cv import select_lengthscale
from pymc_kameleon.core.surrogates.lite import REPEATED_BASIS_LIMIT

__all__ = [
    "ESTIMATORS",
    "MASS_OPTIONS",
    "LearnerSettings",
    "SurrogateLearner",
    "states_in_time_order",
]

#: the ``estimator`` choices: a surrogate of :data:`~pymc_kameleon.core.surrogates.SURROGATES`,
#: or lite then finite
ESTIMATORS = ("lite", "finite", "auto")
MASS_OPTIONS = ("identity", "diagonal")

#: points used for the median distance and the cross-validation of the length scale
CV_MAX_POINTS = 300
CV_FOLDS = 5
#: re-choose the length scale once the learned states have grown by this factor since the last
#: choice (the cross-validation is most of a refit's cost)
LENGTHSCALE_RECHOOSE_GROWTH = 2.0
#: the length scale may range from this fraction to this multiple of the median distance: far
#: past it the lite gradient is a near-linear field that no longer decays outside the history,
#: and where the cross-validated objective is flat (whitened Glass) the choice ran to the upper
#: bound, with 0.6 times the ESS of 2 x the median (benchmarks/notes/lab-notes.md)
LENGTHSCALE_BOUNDS = (0.5, 2.0)
#: proposals needed before the surrogate scale is estimated, and its admissible range: never
#: above 1, since a surrogate flatter than the target in the bulk is flatter still in the tails
#: (its gradient vanishes away from the history), and scaling it up confines the trajectories to
#: the bulk (5-D Gaussian, finite: beta 2.2 gave a chi-square ESS of 26 in 20000 draws, capped
#: at 1 it gave 2660; benchmarks/notes/lab-notes.md, "Statistical tests: seed sweep")
CALIBRATION_MIN_COUNT = 20
#: the surrogate scale is the median over at most this many latest trajectories (bounded cost
#: per warm-up iteration, and an online fit's scale follows the fit as it learns)
CALIBRATION_WINDOW = 500
SURROGATE_SCALE_BOUNDS = (0.01, 1.0)


@dataclass(frozen=True)
class LearnerSettings:
    """The fixed choices of a :class:`SurrogateLearner` (validated by the caller).

    Parameters
    ----------
    estimator : {"lite", "finite", "auto"}
        The surrogate; ``"auto"`` is lite until ``2 * n_features`` states are learned.
    n_history : int
        Lite: number of basis points.
    n_features : int
        Finite: number of random Fourier features.
    lengthscale : float or None
        A fixed kernel length scale, or None to cross-validate it.
    lite_ridge, finite_ridge : float
        Ridges of the lite fit (absolute) and the finite fit (scale-free).
    diagonal_mass : bool
        Set the inverse mass to the history variance at each warm-up refit.
    adapt_start : int
        Learned states before the first fit.
    refit_growth : float
        Refit when the learned states have grown by this factor since the last fit.
    capacity : int
        Number of states the history keeps.
    """

    estimator: str
    n_history: int
    n_features: int
    lengthscale: float | None
    lite_ridge: float
    finite_ridge: float
    diagonal_mass: bool
    adapt_start: int
    refit_growth: float
    capacity: int

    @classmethod
    def from_arguments(
        cls,
        estimator: object,
        n_history: object,
        n_features: object,
        lengthscale: object,
        regularisation: object,
        mass: object,
        adapt_start: object,
        refit_growth: object,
        history_capacity: object,
    ) -> LearnerSettings:
        """Validate KMCStep's learning arguments (same names and meanings) into settings.

        Parameters
        ----------
        estimator : {"lite", "finite", "auto"}
            The surrogate.
        n_history : int
            Lite: number of basis points (at least 10).
        n_features : int
            Finite: number of random Fourier features (at least 1).
        lengthscale : "cv" or float
            ``"cv"`` to cross-validate the kernel length scale, or a fixed positive finite one.
        regularisation : float or None
            None for the default ridges (1 for lite, 5 for finite), or one ridge (>= 0, and > 0
            unless ``estimator`` is ``"lite"``) for both fits.
        mass : {"identity", "diagonal"}
            ``"diagonal"`` sets the inverse mass to the history variance at warm-up refits.
        adapt_start : int
            Learned states before the first fit (at least 10).
        refit_growth : float
            Refit when the learned states have grown by this factor (> 1).
        history_capacity : int or None
            Number of states the history keeps (at least ``n_history``); None for
            ``max(10 * n_history, 10000)``.

        Returns
        -------
        LearnerSettings

        Raises
        ------
        ValueError
            If an argument is invalid; the message names it.
        """
        estimator = check_choice(
            "estimator",
            estimator,
            ESTIMATORS,
            hint="'lite' is the robust default, 'finite' scales to long histories.",
        )
        n_history = check_int("n_history", n_history, minimum=10)
        return cls(
            estimator=estimator,
            n_history=n_history,
            n_features=check_int("n_features", n_features, minimum=1),
            lengthscale=_parse_lengthscale(lengthscale),
            **_parse_ridges(regularisation, estimator),
            diagonal_mass=check_choice("mass", mass, MASS_OPTIONS) == "diagonal",
            adapt_start=check_int("adapt_start", adapt_start, minimum=10),
            refit_growth=check_number("refit_growth", refit_growth, minimum=1.0, open_minimum=True),
            capacity=_parse_capacity(history_capacity, n_history),
        )

    def n_basis(self, name: str) -> int:
        """Size of the surrogate called ``name``.

        Parameters
        ----------
        name : str
            A surrogate name: ``"lite"``, or any other (the finite one).

        Returns
        -------
        int
            ``n_history`` for ``"lite"``, else ``n_features``.
        """
        return self.n_history if name == "lite" else self.n_features

    def ridge(self, name: str) -> float:
        """Ridge of the surrogate called ``name``, in its own convention.

        Parameters
        ----------
        name : str
            A surrogate name: ``"lite"``, or any other (the finite one).

        Returns
        -------
        float
            ``lite_ridge`` (absolute) for ``"lite"``, else ``finite_ridge`` (scale-free).
        """
        return self.lite_ridge if name == "lite" else self.finite_ridge


class SurrogateLearner:
    """Per-chain learning state of Kernel HMC: history, surrogate, metric and surrogate scale.

    Parameters
    ----------
    settings : LearnerSettings
        The fixed choices.
    dim : int
        Dimension of the states.

    Attributes
    ----------
    history : ChainHistory
        The learned states.
    surrogate : Surrogate or None
        The fitted surrogate (None before the first fit).
    active_estimator : str
        Name of the surrogate in use or to be fitted next (``"lite"`` or ``"finite"``).
    lengthscale : float
        Kernel length scale (NaN before the first cross-validation).
    metric : DiagonalMetric
        The mass matrix of the trajectories.
    surrogate_scale : float
        The calibrated factor :math:`\\beta` on the surrogate gradient.
    n_learned : int
        Number of states learned so far.
    warmup_states : int or None
        States stored when warm-up ended (None during warm-up); bounds the lite basis after it.
    """

    def __init__(self, settings: LearnerSettings, dim: int) -> None:
        self.settings = settings
        self.dim = int(dim)
        self.reset()

    def reset(self) -> None:
        """Forget everything learned."""
        settings = self.settings
        self.history = ChainHistory(self.dim, settings.capacity)
        self.active_estimator = "finite" if settings.estimator == "finite" else "lite"
        self.surrogate: Surrogate | None = None
        self.lengthscale = math.nan if settings.lengthscale is None else settings.lengthscale
        self.metric = DiagonalMetric()
        self.n_learned = 0
        self.next_refit = settings.adapt_start
        self.lengthscale_chosen_at = 0
        self.surrogate_scale = 1.0
        self.calibration_ratios: list[float] = []
        self.warmup_states: int | None = None

    @property
    def n_basis(self) -> int:
        """Basis points or features of the surrogate in use (0 before the first fit)."""
        return 0 if self.surrogate is None else int(self.surrogate.n_basis)

    # ----------------------------------------------------------------------------------------
    # learning
    def enter_initial_history(self, rows: np.ndarray, rng: np.random.Generator) -> None:
        """Learn ``rows`` as if visited at iterations ``-n, ..., -1`` (no fit yet).

        Parameters
        ----------
        rows : numpy.ndarray, shape (n, d)
            At most ``capacity`` states.
        rng : numpy.random.Generator
            Passed to the history (no draw while it is not full).
        """
        n = rows.shape[0]
        for i, x in enumerate(rows):
            self.history.record(x, i - n, rng)
        self.n_learned = n
        self.next_refit = max(n + 1, math.ceil(self.settings.refit_growth * n))

    def learn(self, x: np.ndarray, iteration: int, rng: np.random.Generator, tuning: bool) -> bool:
        """Learn one state; refit when due.

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)
            The state.
        iteration : int
            The chain's iteration (recorded with the state).
        rng : numpy.random.Generator
            Random source of the history and the refit.
        tuning : bool
            Whether the chain is in warm-up (hyperparameters are re-chosen only then).

        Returns
        -------
        bool
            Whether the proposal mechanism changed (see :meth:`refit`).
        """
        self.record(x, iteration, rng)
        if self.n_learned < self.next_refit:
            return False
        changed = self.refit(rng, learn=tuning)
        growth = self.settings.refit_growth
        self.next_refit = max(self.n_learned + 1, math.ceil(growth * self.n_learned))
        return changed

    def keep(self, x: np.ndarray, iteration: int, rng: np.random.Generator, adapt: bool) -> bool:
        """Learn one state after warm-up, changing the surrogate only when ``adapt``.

        Vanishing adaptation as in the KMC paper: the lite surrogate's history takes every
        state, and ``adapt`` refits it on a fresh subsample of that history; the online (finite)
        surrogate absorbs the state only when ``adapt``, since absorbing changes its fit. The
        hyperparameters and the mass stay as warm-up left them.

        Parameters
        ----------
        x, iteration, rng
            As for :meth:`learn`.
        adapt : bool
            Whether the surrogate may change at this iteration.

        Returns
        -------
        bool
            Whether the surrogate changed.
        """
        if self.warmup_states is None:  # the first state kept: warm-up has just ended
            self.warmup_states = self.history.size
        if self.surrogate is not None and self.surrogate.online:
            if adapt:
                self.record(x, iteration, rng)
            return adapt
        self.record(x, iteration, rng)  # (the lite surrogate ignores it until its refit)
        if not adapt or (self.surrogate is None and self.n_learned < self.next_refit):
            return False  # (no fit yet, e.g. tune=0: the first waits for adapt_start states)
        self.refit(rng, learn=False)
        return True

    def record(self, x: np.ndarray, iteration: int, rng: np.random.Generator) -> None:
        """Learn one state without refitting (e.g. while its coordinates may still change).

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)
        iteration : int
        rng : numpy.random.Generator
        """
        self.history.record(x, iteration, rng)
        self.n_learned += 1
        if self.surrogate is not None:
            self.surrogate.update(x)

    def change_coordinates(self, function) -> None:
        """Re-express the learned states in new coordinates and start the fit afresh.

        The surrogate, metric and surrogate scale were learned in the old coordinates, so they
        are dropped; the next :meth:`learn` refits, re-choosing a cross-validated length scale
        on the narrow grid about the old one (both coordinates have the same units, whitened).

        Parameters
        ----------
        function : callable
            Maps states (rows of an ``(m, d)`` array) from the old coordinates to the new.
        """
        self.history.transform_states(function)
        self.surrogate = None
        self.active_estimator = "finite" if self.settings.estimator == "finite" else "lite"
        self.metric = DiagonalMetric()
        self.surrogate_scale = 1.0
        self.calibration_ratios = []
        self.lengthscale_chosen_at = 0
        self.next_refit = max(self.settings.adapt_start, self.n_learned + 1)

    def refit(self, rng: np.random.Generator, learn: bool) -> bool:
        """Re-choose the hyperparameters (if ``learn``) and rebuild the surrogate.

        Parameters
        ----------
        rng : numpy.random.Generator
            Random source (subsamples, folds, features).
        learn : bool
            Whether to update the mass, apply the ``"auto"`` switch and re-choose the length
            scale when due.

        Returns
        -------
        bool
            True at the first fit and when the surrogate kind changed: the step size should
            then be learned afresh.
        """
        with single_blas_thread():  # a few hundred rows: extra BLAS threads only contend
            first = self.surrogate is None
            previous_estimator = self.active_estimator
            if learn:
                self._learn_hyperparameters(rng)
            old_lengthscale = self.lengthscale
            if self._lengthscale_due(learn):
                self._choose_lengthscale(rng)
                self.lengthscale_chosen_at = self.n_learned
            if self._fit(rng, old_lengthscale):
                # a new fit has its own surrogate scale; an online fit kept at the same length
                # scale keeps its calibration (restarted, a late refit left the scale to a few
                # dozen trajectories: 0.29 against 0.97 before, acceptance 0.23 after warm-up)
                self.calibration_ratios = []
            return first or self.active_estimator != previous_estimator

    def _learn_hyperparameters(self, rng: np.random.Generator) -> None:
        """Diagonal mass from the history variance; the ``"auto"`` switch to finite."""
        settings = self.settings
        if settings.diagonal_mass:
            z = self.history.subsample(self.history.size, rng)
            variance = np.var(z, axis=0)
            if np.all(np.isfinite(variance)) and np.all(variance > 0.0):
                self.metric = DiagonalMetric(variance)
        if settings.estimator == "auto" and self.n_learned >= 2 * settings.n_features:
            self.active_estimator = "finite"

    def _lengthscale_due(self, learn: bool) -> bool:
        if self.settings.lengthscale is not None:
            return False
        if math.isnan(self.lengthscale):
            return True
        return learn and self.n_learned >= LENGTHSCALE_RECHOOSE_GROWTH * self.lengthscale_chosen_at

    def _choose_lengthscale(self, rng: np.random.Generator) -> None:
        """Cross-validated length scale on at most 300 states in time order."""
        z = states_in_time_order(self.history, CV_MAX_POINTS, rng)
        try:
            median = median_heuristic(z, max_points=CV_MAX_POINTS, rng=rng)
        except ValueError:  # all states identical (e.g. nothing accepted yet)
            if math.isnan(self.lengthscale):
                self.lengthscale = 1.0
            return
        bounds = (median * LENGTHSCALE_BOUNDS[0], median * LENGTHSCALE_BOUNDS[1])
        previous = None if math.isnan(self.lengthscale) else self.lengthscale
        self.lengthscale = select_lengthscale(
            z,
            ridge=self.settings.lite_ridge,
            n_folds=min(CV_FOLDS, z.shape[0] // 2),
            rng=rng,
            previous=previous,
            bounds=bounds,
            blocked=True,
        )

    def _fit(self, rng: np.random.Generator, old_lengthscale: float) -> bool:
        """Refit, unless an online surrogate of the active kind holds at the same length scale;
        whether a new surrogate was fitted."""
        name = self.active_estimator
        kind = SURROGATES[name]
        if kind.online and isinstance(self.surrogate, kind):
            if self.lengthscale == old_lengthscale:
                return False
        self.surrogate = make_surrogate(
            name,
            self.history,
            rng,
            lengthscale=self.lengthscale,
            n_basis=self.basis_size(name),
            ridge=self.settings.ridge(name),
        )
        return True

    def basis_size(self, name: str) -> int:
        """Most basis points (lite) or features (finite) the next fit of ``name`` uses.

        Lite: ``n_history``, but above
        :data:`~pymc_kameleon.core.surrogates.lite.REPEATED_BASIS_LIMIT` at most the stored
        states (:meth:`LiteSurrogate.from_history
        <pymc_kameleon.core.surrogates.lite.LiteSurrogate.from_history>`), and after warm-up at
        most those stored when it ended. The kept draws still enter the history, so each refit
        after warm-up draws its basis afresh from every state so far, as vanishing adaptation
        asks; but its size no longer grows with them: a refit costs :math:`O(d n^3)` time and
        :math:`O(d n^2)` memory, and ``n_history=5000`` after a 300-iteration warm-up grew to
        3300 points in 3000 draws: 16 times the CPU time and 2.8 times the peak memory of
        ``n_history=500``, for about the same ESS (benchmarks/notes/lab-notes.md).

        Parameters
        ----------
        name : str
            A surrogate name: ``"lite"``, or any other (the finite one).

        Returns
        -------
        int
        """
        n = self.settings.n_basis(name)
        if name != "lite" or self.warmup_states is None:
            return n
        return min(n, max(REPEATED_BASIS_LIMIT, self.warmup_states))

    def calibrate(self, x: np.ndarray, x_new: np.ndarray, logp_change: float) -> None:
        """Learn the surrogate scale ``beta`` that best predicts true log-density differences.

        Along a trajectory the kinetic energy changes by about ``beta * (f(x) - f(x_new))``, so
        the energy error is about ``beta * df - dlogp`` with ``df = f(x_new) - f(x)``: ``beta``
        is the median of ``dlogp / df`` over the warm-up trajectories since the surrogate was
        last fitted afresh (from :data:`CALIBRATION_MIN_COUNT` of them on, the latest
        :data:`CALIBRATION_WINDOW`). A surrogate learned
        from a history that has not yet covered the posterior is typically too steep
        (``beta < 1``); scaling it down lets trajectories travel beyond the history instead of
        forcing tiny steps. ``beta`` is capped at 1 (see ``SURROGATE_SCALE_BOUNDS``). The
        median, not least squares: a few trajectories whose surrogate change is large and
        unrelated to the target's (the finite surrogate oscillating where the history is thin)
        dominated ``sum(df * dlogp) / sum(df**2)`` and took it from 1 to 0.06 at the end of a
        warm-up, and the acceptance after it to 0.01.

        Parameters
        ----------
        x, x_new : numpy.ndarray, shape (d,)
            Start and end of a trajectory.
        logp_change : float
            ``log pi(x_new) - log pi(x)``.
        """
        df = self.surrogate.value(x_new) - self.surrogate.value(x)
        if not (math.isfinite(df) and math.isfinite(logp_change)) or df == 0.0:
            return
        self.calibration_ratios.append(logp_change / df)
        del self.calibration_ratios[:-CALIBRATION_WINDOW]
        if len(self.calibration_ratios) >= CALIBRATION_MIN_COUNT:
            beta = float(np.median(self.calibration_ratios))
            self.surrogate_scale = float(np.clip(beta, *SURROGATE_SCALE_BOUNDS))

    # ----------------------------------------------------------------------------------------
    # the learned dynamics
    def gradient(self, x: np.ndarray) -> np.ndarray:
        """``surrogate_scale`` times the surrogate gradient at ``x`` (zero before the first fit).

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)

        Returns
        -------
        numpy.ndarray, shape (d,)
        """
        if self.surrogate is None:
            return np.zeros(self.dim)
        return self.surrogate_scale * self.surrogate.gradient(np.asarray(x, dtype=float))

    def potential_change(self, x: np.ndarray, x_new: np.ndarray) -> float:
        """``U_f(x_new) - U_f(x)``, the change of the potential the trajectories follow.

        ``U_f = -surrogate_scale * f`` (zero before the first fit, as :meth:`gradient`).

        Parameters
        ----------
        x, x_new : numpy.ndarray, shape (d,)

        Returns
        -------
        float
        """
        if self.surrogate is None:
            return 0.0
        change = float(self.surrogate.value(x_new)) - float(self.surrogate.value(x))
        return -self.surrogate_scale * change

    def trajectory(
        self, q: np.ndarray, p: np.ndarray, step_size: float, n_steps: int
    ) -> LeapfrogResult:
        """Leapfrog from ``(q, p)`` along :meth:`gradient`, with the learned metric.

        Parameters
        ----------
        q, p : numpy.ndarray, shape (d,)
            Start position and momentum.
        step_size : float
            Leapfrog step size.
        n_steps : int
            Number of leapfrog steps.

        Returns
        -------
        LeapfrogResult
        """
        if self.surrogate is None:  # a random walk of scale n_steps * step_size
            return leapfrog(q, p, self.gradient, step_size, n_steps, self.metric.inv_mass_diag)
        return self.surrogate.trajectory(
            q, p, step_size, n_steps, self.metric, self.surrogate_scale
        )

    def __eq__(self, other: object) -> bool:
        """Exact comparison of every field (NaN equal to NaN)."""
        if not isinstance(other, SurrogateLearner):
            return NotImplemented
        mine, theirs = vars(self), vars(other)
        return mine.keys() == theirs.keys() and all(
            _same_value(mine[key], theirs[key]) for key in mine
        )

    __hash__ = None  # type: ignore[assignment]


def states_in_time_order(history: ChainHistory, n: int, rng: np.random.Generator) -> np.ndarray:
    """Up to ``n`` stored states, chosen uniformly, in the order the chain visited them.

    Parameters
    ----------
    history : ChainHistory
        The stored states.
    n : int
        Most states returned (all of them, without a random draw, if ``size <= n``).
    rng : numpy.random.Generator
        Random source of the choice.

    Returns
    -------
    numpy.ndarray, shape (min(n, size), d)
    """
    size = history.size
    rows = np.arange(size) if size <= n else rng.choice(size, size=n, replace=False)
    rows = rows[np.argsort(history.iterations[rows], kind="stable")]
    return history.values[rows].copy()


def _same_value(a: object, b: object) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and np.array_equal(a, b, equal_nan=True)
        )
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


def _parse_lengthscale(lengthscale: object) -> float | None:
    """``"cv"`` (None: cross-validate) or a positive finite float."""
    if isinstance(lengthscale, str):
        check_choice("lengthscale", lengthscale, ("cv",), also="a finite number > 0")
        return None
    return check_positive("lengthscale", lengthscale, also="'cv'")


def _parse_ridges(regularisation: object, estimator: str) -> dict[str, float]:
    """The ``regularisation`` argument -> the ridges of the lite and the finite fit."""
    if regularisation is None:
        return {"lite_ridge": 1.0, "finite_ridge": 5.0}
    value = check_nonnegative(
        "regularisation",
        regularisation,
        also="None (the defaults)",
        hint="It is the ridge lambda of the score-matching fit.",
    )
    if value == 0.0 and estimator != "lite":
        raise ValueError(
            f"`regularisation` must be > 0 with estimator={estimator!r} (the finite "
            f"estimator's linear system is singular without a ridge), got "
            f"{regularisation!r}; leave it unset for the default."
        )
    return {"lite_ridge": value, "finite_ridge": value}


def _parse_capacity(history_capacity: object, n_history: int) -> int:
    """The ``history_capacity`` argument -> the number of states the history keeps."""
    if history_capacity is None:
        return max(10 * n_history, 10_000)
    return check_int(
        "history_capacity",
        history_capacity,
        minimum=n_history,
        also="None (max(10 * n_history, 10000))",
        hint="It must hold at least `n_history` states.",
    )
