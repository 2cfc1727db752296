"""SurrogateLearner and the surrogate registry, without PyMC."""

from __future__ import annotations

import copy
import dataclasses
import itertools
import math

import numpy as np
import pytest

from pymc_kameleon.core.hamiltonian import DiagonalMetric, leapfrog
from pymc_kameleon.core.history import ChainHistory
from pymc_kameleon.core.surrogates import (
    SURROGATES,
    FiniteScoreMatching,
    LiteSurrogate,
    Surrogate,
    make_surrogate,
)
from pymc_kameleon.core.surrogates.learner import (
    CALIBRATION_WINDOW,
    LearnerSettings,
    SurrogateLearner,
    states_in_time_order,
)

D = 2
SETTINGS = LearnerSettings(
    estimator="lite",
    n_history=15,
    n_features=12,
    lengthscale=None,
    lite_ridge=1.0,
    finite_ridge=5.0,
    diagonal_mass=False,
    adapt_start=20,
    refit_growth=1.5,
    capacity=500,
)


def learner_with(**changes) -> SurrogateLearner:
    return SurrogateLearner(dataclasses.replace(SETTINGS, **changes), D)


def feed(learner: SurrogateLearner, n: int, rng, tuning: bool = True, scale=(1.0, 3.0)) -> list:
    """Learn ``n`` Gaussian states; return the n_learned values at which learn() said True."""
    changed = []
    for _ in range(n):
        x = rng.standard_normal(D) * np.asarray(scale)
        if learner.learn(x, learner.n_learned, rng, tuning):
            changed.append(learner.n_learned)
    return changed


def test_refit_schedule_and_first_fit():
    learner, rng = learner_with(), np.random.default_rng(0)
    feed(learner, 19, rng)
    assert learner.surrogate is None and learner.n_basis == 0
    assert math.isnan(learner.lengthscale)
    changed = feed(learner, 1, rng)
    assert changed == [20], "the first fit changes the proposal mechanism"
    assert isinstance(learner.surrogate, LiteSurrogate) and learner.n_basis == 15
    assert learner.next_refit == 30
    fits = []
    for _ in range(60):
        before = learner.surrogate
        feed(learner, 1, rng)
        if learner.surrogate is not before:
            fits.append(learner.n_learned)
    assert fits == [30, 45, 68]


def test_lengthscale_rechosen_when_learned_states_double():
    learner, rng = learner_with(), np.random.default_rng(1)
    chosen = []
    for _ in range(100):
        feed(learner, 1, rng)
        if learner.lengthscale_chosen_at and learner.lengthscale_chosen_at not in chosen:
            chosen.append(learner.lengthscale_chosen_at)
    # refits at 20, 30, 45, 68; re-chosen once the states doubled since the last choice
    assert chosen == [20, 45]
    assert math.isfinite(learner.lengthscale) and learner.lengthscale > 0


def test_fixed_lengthscale_and_no_learning_after_warmup():
    learner, rng = learner_with(lengthscale=0.7, diagonal_mass=True), np.random.default_rng(2)
    feed(learner, 40, rng)
    assert learner.lengthscale == 0.7
    mass = learner.metric.inv_mass_diag.copy()
    feed(learner, 40, rng, tuning=False, scale=(10.0, 10.0))  # refits at 45 and 68
    assert learner.lengthscale == 0.7
    assert np.array_equal(learner.metric.inv_mass_diag, mass), "mass frozen after warm-up"


def test_diagonal_mass_is_the_history_variance():
    learner, rng = learner_with(diagonal_mass=True), np.random.default_rng(3)
    feed(learner, 20, rng)
    history = learner.history
    expected = np.var(history.values[: history.size], axis=0)
    np.testing.assert_allclose(learner.metric.inv_mass_diag, expected, rtol=1e-12)
    assert expected[1] > 3 * expected[0]


def test_auto_switches_to_finite_and_restarts_the_step_size():
    learner, rng = learner_with(estimator="auto"), np.random.default_rng(4)
    changed = feed(learner, 45, rng)
    # 2 * n_features = 24 learned states: lite at 20, finite from the refit at 30
    assert changed == [20, 30]
    assert learner.active_estimator == "finite"
    assert isinstance(learner.surrogate, FiniteScoreMatching) and learner.n_basis == 12


def test_finite_absorbs_every_state_online():
    learner, rng = learner_with(estimator="finite", lengthscale=1.0), np.random.default_rng(5)
    feed(learner, 20, rng)
    fitted = learner.surrogate
    assert fitted.n_states == 20
    feed(learner, 9, rng)
    assert learner.surrogate is fitted and fitted.n_states == 29
    feed(learner, 1, rng)  # refit at 30 keeps the online fit: same length scale
    assert learner.surrogate is fitted and fitted.n_states == 30


def calibrate_along(learner, points, factor):
    """Calibrate on trajectories between consecutive ``points`` whose target changes by
    ``factor`` times the surrogate's."""
    for x, x_new in itertools.pairwise(points):
        df = learner.surrogate.value(x_new) - learner.surrogate.value(x)
        learner.calibrate(x, x_new, factor * df)


@pytest.mark.parametrize(("factor", "beta"), [(0.5, 0.5), (2.0, 1.0)])
def test_calibration_learns_beta_after_enough_proposals(factor, beta):
    # beta is the median factor, capped at 1 (a surrogate is never made steeper)
    learner, rng = learner_with(lengthscale=1.0), np.random.default_rng(6)
    feed(learner, 20, rng)
    points = rng.standard_normal((30, D))
    calibrate_along(learner, points[:19], factor)  # 18 trajectories: too few to learn from
    assert learner.surrogate_scale == 1.0
    calibrate_along(learner, points[18:26], factor)
    assert learner.surrogate_scale == pytest.approx(beta)
    learner.calibrate(points[0], points[1], math.nan)  # ignored
    assert len(learner.calibration_ratios) == 25


def test_calibration_is_not_taken_away_by_a_few_wild_trajectories():
    # a surrogate change unrelated to the target's in a few trajectories (the finite surrogate
    # oscillating where its history is thin) moved a least-squares beta from 1 to 0.06
    learner, rng = learner_with(lengthscale=1.0), np.random.default_rng(6)
    feed(learner, 20, rng)
    points = rng.standard_normal((60, D))
    calibrate_along(learner, points[:41], 0.8)
    scale = learner.surrogate_scale
    for i in range(40, 45):  # what a wild surrogate change looks like to the calibration
        learner.calibrate(points[i], points[i] + 50.0 * (points[i + 1] - points[i]), 0.5)
    assert scale == pytest.approx(0.8)
    assert learner.surrogate_scale > 0.7


def test_initial_history_is_learned_without_a_fit():
    learner, rng = learner_with(), np.random.default_rng(7)
    rows = rng.standard_normal((40, D))
    learner.enter_initial_history(rows, rng)
    assert learner.n_learned == 40 and learner.surrogate is None
    assert np.array_equal(learner.history.iterations[:40], np.arange(-40, 0))
    assert learner.next_refit == 60
    assert learner.refit(rng, learn=True) is True
    assert learner.surrogate is not None


def test_equality_and_copies():
    learner, rng = learner_with(), np.random.default_rng(8)
    assert learner == copy.deepcopy(learner), "NaN length scale equals itself"
    feed(learner, 25, rng)
    clone = copy.deepcopy(learner)
    assert clone == learner
    feed(clone, 1, rng)
    assert clone != learner


def test_trajectory_before_a_fit_is_a_straight_line_and_after_matches_the_gradient():
    learner, rng = learner_with(lengthscale=1.0), np.random.default_rng(9)
    q, p = np.zeros(D), np.array([1.0, -2.0])
    path = learner.trajectory(q, p, 0.1, 10)
    np.testing.assert_allclose(path.q, q + 1.0 * p)
    feed(learner, 20, rng)
    learner.surrogate_scale = 0.5
    fast = learner.trajectory(q, p, 0.1, 10)
    slow = leapfrog(q, p, learner.gradient, 0.1, 10)
    np.testing.assert_allclose(fast.q, slow.q, atol=1e-12)
    np.testing.assert_allclose(fast.p, slow.p, atol=1e-12)


def test_states_in_time_order():
    history, rng = ChainHistory(1, 50), np.random.default_rng(10)
    for t in range(30):
        history.record(np.array([float(t)]), t, rng)
    assert np.array_equal(states_in_time_order(history, 100, rng)[:, 0], np.arange(30.0))
    some = states_in_time_order(history, 10, rng)[:, 0]
    assert some.size == 10 and np.all(np.diff(some) > 0)


def test_registry_fits_by_name():
    history, rng = ChainHistory(D, 100), np.random.default_rng(11)
    for t in range(40):
        history.record(rng.standard_normal(D), t, rng)
    for name, cls in SURROGATES.items():
        fitted = make_surrogate(name, history, rng, lengthscale=1.0, n_basis=10, ridge=1.0)
        assert isinstance(fitted, cls) and isinstance(fitted, Surrogate)
        assert fitted.n_basis == 10
    with pytest.raises(ValueError, match="unknown surrogate"):
        make_surrogate("exact", history, rng, lengthscale=1.0, n_basis=10, ridge=1.0)


def test_generic_trajectory_of_a_new_surrogate():
    class Quadratic(Surrogate):
        """``f(x) = -|x|^2 / 2``: a standard normal."""

        n_basis = 0

        @classmethod
        def from_history(cls, history, rng, *, lengthscale, n_basis, ridge):
            return cls()

        def value(self, x):
            return -0.5 * float(np.dot(x, x))

        def gradient(self, x):
            return -np.asarray(x, dtype=float)

    q, p = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    metric = DiagonalMetric(np.array([1.0, 4.0]))
    result = Quadratic().trajectory(q, p, 0.1, 5, metric, 2.0)
    expected = leapfrog(q, p, lambda x: -2.0 * x, 0.1, 5, metric.inv_mass_diag)
    assert np.array_equal(result.q, expected.q) and np.array_equal(result.p, expected.p)


def test_surrogates_import_only_the_numpy_core():
    """The learner is testable without PyMC: core/surrogates imports nothing above core."""
    import ast
    from pathlib import Path

    import pymc_kameleon.core.surrogates as package

    allowed = ("numpy", "scipy", "pymc_kameleon.core", "__future__", "abc", "dataclasses",
               "math", "typing")  # fmt: skip
    for path in Path(package.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                assert name.startswith(allowed), f"{path.name} imports {name}"


def test_record_learns_without_fitting():
    rng = np.random.default_rng(0)
    learner = SurrogateLearner(SETTINGS, D)
    for t in range(SETTINGS.adapt_start + 5):
        learner.record(rng.normal(size=D), t, rng)
    assert learner.n_learned == SETTINGS.adapt_start + 5
    assert learner.surrogate is None


def test_change_coordinates_re_expresses_the_states_and_refits_afresh():
    rng = np.random.default_rng(1)
    learner = SurrogateLearner(SETTINGS, D)
    for t in range(40):
        learner.learn(rng.normal(size=D), t, rng, tuning=True)
    assert learner.surrogate is not None and math.isfinite(learner.lengthscale)
    before = learner.history.values[: learner.history.size].copy()
    old_lengthscale = learner.lengthscale
    learner.change_coordinates(lambda rows: 10.0 * rows - 2.0)
    np.testing.assert_allclose(learner.history.values[: learner.history.size], 10.0 * before - 2.0)
    # the fit in the old coordinates is gone; the next state refits (a first fit), choosing the
    # length scale again from the old one (within the bounds of the new states' spread)
    assert learner.surrogate is None and learner.lengthscale == old_lengthscale
    assert learner.surrogate_scale == 1.0
    assert learner.learn(10.0 * rng.normal(size=D) - 2.0, 40, rng, tuning=True)
    assert learner.surrogate is not None
    # the length scale was re-chosen for states ten times as spread
    assert learner.lengthscale > 3.0


def test_keep_after_warmup_lite_records_every_state_and_refits_only_when_told():
    learner, rng = learner_with(), np.random.default_rng(7)
    feed(learner, 40, rng)
    fitted, lengthscale, seen = learner.surrogate, learner.lengthscale, learner.history.n_seen
    for t in range(30):
        assert learner.keep(rng.standard_normal(D), 40 + t, rng, adapt=False) is False
    assert learner.surrogate is fitted  # recording alone leaves the kernel as it was
    assert learner.history.n_seen == seen + 30 == learner.n_learned
    assert learner.keep(rng.standard_normal(D), 70, rng, adapt=True) is True
    assert learner.surrogate is not fitted  # refitted on a fresh subsample of the history
    assert learner.lengthscale == lengthscale  # hyperparameters stay as warm-up left them


def test_keep_after_warmup_finite_absorbs_only_when_told():
    learner, rng = learner_with(estimator="finite", lengthscale=1.0), np.random.default_rng(5)
    feed(learner, 20, rng)
    fitted = learner.surrogate
    theta = fitted.theta.copy()
    assert learner.keep(rng.standard_normal(D), 20, rng, adapt=False) is False
    assert fitted.n_states == 20 and np.array_equal(fitted.theta, theta)  # absorbing changes it
    assert learner.keep(rng.standard_normal(D), 21, rng, adapt=True) is True
    assert learner.surrogate is fitted and fitted.n_states == 21
    assert not np.array_equal(fitted.theta, theta)


def test_keep_without_a_fit_waits_for_adapt_start():
    learner, rng = learner_with(), np.random.default_rng(1)
    for t in range(SETTINGS.adapt_start - 1):
        assert learner.keep(rng.standard_normal(D), t, rng, adapt=True) is False
    assert learner.surrogate is None
    assert learner.keep(rng.standard_normal(D), SETTINGS.adapt_start, rng, adapt=True) is True
    assert learner.surrogate is not None


def test_after_warmup_the_lite_basis_stays_at_what_warmup_allowed():
    """Issue 46: kept draws enter the history, but a refit's basis no longer grows with them."""
    learner = learner_with(n_history=5000, adapt_start=200, capacity=1000)
    rng = np.random.default_rng(3)
    feed(learner, 300, rng)  # a 300-iteration warm-up
    assert learner.n_basis == 500  # (the default's size, drawn with repetition)
    values = learner.history.values
    for t in range(3000):  # vanishing adaptation: every kept state is learned
        learner.keep(rng.standard_normal(D), 300 + t, rng, adapt=False)
    assert learner.warmup_states == 300 and learner.n_learned == 3300
    assert learner.keep(rng.standard_normal(D), 3300, rng, adapt=True)
    assert learner.n_basis == learner.basis_size("lite") == 500  # it was 1000, the stored states
    # the history is a reservoir: its memory is fixed, whatever the number of kept states
    assert learner.history.values is values and learner.history.size == 1000
    assert np.count_nonzero(learner.history.iterations >= 300) > 600  # drawn from the kept too


def test_after_a_longer_warmup_the_lite_basis_is_the_states_it_stored():
    learner, rng = learner_with(n_history=5000, capacity=5000), np.random.default_rng(4)
    feed(learner, 700, rng)
    assert learner.basis_size("lite") == 5000  # (in warm-up from_history caps it at the states)
    assert learner.n_basis == 518  # the states stored at the last warm-up fit
    for t in range(400):
        learner.keep(rng.standard_normal(D), 700 + t, rng, adapt=False)
    learner.keep(rng.standard_normal(D), 1100, rng, adapt=True)
    assert learner.warmup_states == 700 and learner.n_basis == 700
    assert learner.basis_size("finite") == SETTINGS.n_features  # the finite fit is not capped


def test_the_default_basis_size_is_unchanged_after_warmup():
    learner, rng = learner_with(n_history=500, capacity=5000), np.random.default_rng(5)
    feed(learner, 100, rng)
    learner.keep(rng.standard_normal(D), 100, rng, adapt=True)
    assert learner.warmup_states == 100 and learner.n_basis == 500


def test_calibration_keeps_the_latest_window_of_trajectories():
    # a bounded cost per warm-up iteration; the scale follows an online fit's latest trajectories
    learner, rng = learner_with(lengthscale=1.0), np.random.default_rng(6)
    feed(learner, 20, rng)
    points = rng.standard_normal((2 * CALIBRATION_WINDOW + 2, D))
    calibrate_along(learner, points[: CALIBRATION_WINDOW + 1], 0.3)
    calibrate_along(learner, points[CALIBRATION_WINDOW:], 0.9)
    assert len(learner.calibration_ratios) == CALIBRATION_WINDOW
    assert learner.surrogate_scale == pytest.approx(0.9)
