"""Climbs from several starts (core/multi_start.py): screening, explained points, polishing,
every separate mode, and when the climbs stop."""

import numpy as np
import pytest
from scipy.special import logsumexp
from scipy.stats import multivariate_normal

from pymc_kameleon.core.mode_start import ModeStart
from pymc_kameleon.core.multi_start import (
    EXPLAINED_MARGIN,
    FRUITLESS_CLIMBS,
    MODE_SEPARATION,
    climb_from_starts,
    distinct_modes,
    explained_by,
    same_mode,
    screening_size,
)
from pymc_kameleon.core.start_up import draw_mode, gaussian_start_up, laplace_shares

MINOR = np.array([-6.0, 1.0])
MAJOR = np.array([5.0, -2.0])
MAJOR_COV = np.array([[1.0, 0.5], [0.5, 2.0]])


def two_modes(x):
    """A minor narrow mode at MINOR (weight 0.05) and a major one at MAJOR (weight 0.95)."""
    minor = multivariate_normal(MINOR, 0.3**2 * np.eye(2)).logpdf(x) + np.log(0.05)
    major = multivariate_normal(MAJOR, MAJOR_COV).logpdf(x) + np.log(0.95)
    return float(logsumexp([minor, major]))


def mixture(weights, centres, sd=1.0):
    """A mixture of isotropic Gaussians with sd ``sd``."""

    def log_density(x):
        x = np.asarray(x, dtype=float)
        terms = [np.log(w) - 0.5 * np.sum((x - c) ** 2) / sd**2 for w, c in zip(weights, centres)]
        return float(logsumexp(terms))

    return log_density


def banana(b=0.1, d=4):
    """Haario's twisted Gaussian B(b, 100): one mode on a long curved ridge."""

    def log_density(x):
        y = np.array(x, dtype=float)
        y[1] = x[1] + b * (x[0] ** 2 - 100.0)
        return -0.5 * (y[0] ** 2 / 100.0 + float(np.sum(y[1:] ** 2)))

    return log_density


def counted(f):
    calls = [0]

    def g(x):
        calls[0] += 1
        return f(x)

    return g, calls


def starts_at(*points):
    return lambda k: np.asarray(points[k % len(points)], dtype=float)


def prior_draws(seed, d, sd=10.0):
    rng = np.random.default_rng(seed)
    return lambda k: rng.normal(0.0, sd, size=d)


def test_a_screened_start_finds_the_other_mode_and_both_are_reported():
    f, calls = counted(two_modes)
    climbs = climb_from_starts(f, MINOR + 0.1, 2000, starts_at(MAJOR + np.array([1.0, 1.0])))
    assert climbs.n_climbs == 2
    np.testing.assert_allclose(climbs.best.mode, MAJOR, atol=0.05)
    found = distinct_modes(climbs.modes)
    assert len(found) == 2
    assert found[0].log_density > found[1].log_density  # best first
    assert climbs.n_evals == calls[0]
    assert climbs.n_screened == screening_size(2, 2000) == 250  # an eighth of the budget


def test_a_gaussian_explains_every_screened_point_so_one_climb_is_enough():
    gaussian = multivariate_normal(MAJOR, MAJOR_COV).logpdf
    f, calls = counted(gaussian)
    climbs = climb_from_starts(f, MAJOR + 3.0, 5000, prior_draws(0, 2))
    assert climbs.n_climbs == 1 and climbs.n_screened == screening_size(2, 5000)
    assert climbs.n_evals == calls[0]


def test_the_screening_size_can_be_set_and_takes_at_most_a_quarter_of_what_is_left():
    gaussian = multivariate_normal(MAJOR, MAJOR_COV).logpdf
    assert climb_from_starts(gaussian, MAJOR, 5000, prior_draws(0, 2), n_screen=7).n_screened == 7
    first = climb_from_starts(gaussian, MAJOR + 3.0, 5000)
    budget = first.n_evals + 40
    assert climb_from_starts(gaussian, MAJOR + 3.0, budget, prior_draws(0, 2)).n_screened == 10


def test_the_default_screening_is_30_plus_10_d_or_an_eighth_of_the_budget():
    assert screening_size(4) == screening_size(4, 500) == 70
    assert screening_size(3, 1500) == 187


def test_explained_points_are_those_a_known_mode_s_gaussian_predicts():
    mode = ModeStart(MAJOR, 0.0, MAJOR_COV, "gaussian", 1)
    step = np.array([1.0, 0.0])
    points = np.array([MAJOR, MAJOR + step, MAJOR + step, MINOR])
    gaussian = multivariate_normal(MAJOR, MAJOR_COV)
    predicted = gaussian.logpdf(points) - gaussian.logpdf(MAJOR)
    values = predicted + np.array([0.0, EXPLAINED_MARGIN - 0.01, EXPLAINED_MARGIN + 0.01, 30.0])
    np.testing.assert_array_equal(explained_by([mode], points, values), [True, True, False, False])
    assert not explained_by([], points, values).any()


def test_a_mixture_s_every_component_is_found_from_prior_draws():
    """Weights 0.3 / 0.7, 12 sds apart in 4-D, started in the heavier component's basin."""
    d = 4
    centre = np.zeros(d)
    centre[0] = 6.0
    f = mixture([0.3, 0.7], [-centre, centre])
    for seed in range(20):
        climbs = climb_from_starts(f, 0.4 * centre, 1500, prior_draws(seed, d))
        found = distinct_modes(climbs.modes)
        assert len(found) == 2, seed
        assert climbs.n_climbs == 2  # the second climb from the best unexplained draw


def test_three_components_are_all_found():
    centres = [np.array([-8.0, 0.0]), np.array([8.0, 0.0]), np.array([0.0, 9.0])]
    f = mixture([0.2, 0.3, 0.5], centres)
    for seed in range(10):
        climbs = climb_from_starts(f, np.array([0.5, 0.5]), 3000, prior_draws(seed, 2))
        found = sorted(tuple(np.round(m.mode)) for m in distinct_modes(climbs.modes))
        assert found == sorted(tuple(c) for c in centres), seed


@pytest.mark.parametrize("seed", range(6))
def test_a_banana_s_ridge_is_one_mode_after_polishing(seed):
    """Climbs stopped on the curved ridge at different points are polished to its top."""
    climbs = climb_from_starts(banana(), np.full(4, 0.5), 3000, prior_draws(seed, 4))
    assert len(distinct_modes(climbs.modes)) == 1


def test_fruitless_climbs_end_the_search():
    """A banana's far points are unexplained by its mode's Gaussian: each climb from one finds
    the same mode, and FRUITLESS_CLIMBS of them in a row stop the search."""
    climbs = climb_from_starts(banana(0.03), np.full(4, 0.5), 100_000, prior_draws(1, 4))
    assert climbs.n_climbs == 1 + FRUITLESS_CLIMBS
    unstopped = climb_from_starts(
        banana(0.03), np.full(4, 0.5), 100_000, prior_draws(1, 4), stop_at_one_mode=False
    )
    assert unstopped.n_climbs == 6  # the cap


def test_no_further_start_means_one_climb():
    climbs = climb_from_starts(two_modes, MINOR + 0.1, 2000)
    assert climbs.n_climbs == 1 and climbs.n_screened == 0
    np.testing.assert_allclose(climbs.best.mode, MINOR, atol=0.3)  # within its sd, 0.3


@pytest.mark.parametrize("budget", [150, 400, 900])
def test_the_climbs_stay_within_the_budget(budget):
    f, calls = counted(two_modes)
    starts = starts_at(MAJOR + 2.0, MINOR - 0.2, MAJOR - 2.0)
    climbs = climb_from_starts(f, MINOR + 0.1, budget, starts, stop_at_one_mode=False)
    assert climbs.n_evals == calls[0] <= budget


def test_screened_starts_with_a_non_finite_density_are_never_climbed():
    def f(x):
        return -np.inf if x[0] > 100 else two_modes(x)

    bad, good = [200.0, 0.0], MAJOR + 1.0
    climbs = climb_from_starts(f, MINOR + 0.1, 3000, starts_at(bad, bad, good))
    np.testing.assert_allclose(climbs.best.mode, MAJOR, atol=0.05)
    climbs = climb_from_starts(f, MINOR + 0.1, 3000, starts_at(bad))
    assert climbs.n_climbs == 1


def test_same_mode_is_a_distance_in_sds():
    cov = np.diag([1.0, 100.0])
    a = ModeStart(np.zeros(2), 0.0, cov, "gaussian", 1)
    near = ModeStart(np.array([0.0, 0.9 * MODE_SEPARATION * 10.0]), -1.0, cov, "gaussian", 1)
    far = ModeStart(np.array([1.1 * MODE_SEPARATION, 0.0]), -1.0, cov, "gaussian", 1)
    assert same_mode(a, near) and same_mode(near, a)
    assert not same_mode(a, far) and not same_mode(far, a)
    assert len(distinct_modes([far, a, near])) == 2


def test_laplace_shares_are_the_weights_of_a_gaussian_mixture():
    centres = [np.array([-8.0, 0.0]), np.array([8.0, 0.0])]
    widths = [1.0, 3.0]

    def f(x):
        return float(
            logsumexp(
                [
                    multivariate_normal(c, s**2 * np.eye(2)).logpdf(x) + np.log(w)
                    for c, s, w in zip(centres, widths, [0.4, 0.6])
                ]
            )
        )

    climbs = climb_from_starts(f, np.array([-7.0, 0.5]), 3000, starts_at([7.0, -1.0]))
    modes = distinct_modes(climbs.modes)
    shares = laplace_shares(modes)
    by_centre = {int(np.round(m.mode[0])): share for m, share in zip(modes, shares)}
    assert by_centre == pytest.approx({-8: 0.4, 8: 0.6}, abs=1e-3)


def test_the_start_up_reports_every_mode_and_starts_in_one_drawn_by_their_shares():
    d = 2
    centre = np.array([6.0, 0.0])
    f = mixture([0.3, 0.7], [-centre, centre])
    starts = set()
    for seed in range(12):
        result = gaussian_start_up(
            f, 0.4 * centre, 3000, np.random.default_rng(seed), prior_draws(seed, d)
        )
        assert result.status == "gaussian" and len(result.modes) == 2 and result.relocates
        assert result.shares == pytest.approx((0.7, 0.3), abs=1e-3)
        np.testing.assert_allclose(result.mean, result.modes[result.chosen].mode)
        starts.add(result.chosen)
        anchors = result.anchors()
        assert len(anchors) == 2 and sum(w for *_, w in anchors) == pytest.approx(1.0)
        # half the Laplace share, half equal
        assert anchors[0][2] == pytest.approx(0.5 * 0.7 + 0.25, abs=1e-3)
    assert starts == {0, 1}  # (the highest-mode rule would start every chain at 0)


def test_the_drawn_mode_follows_the_shares_and_one_mode_draws_nothing():
    rng = np.random.default_rng(0)
    shares = np.array([0.6, 0.3, 0.1])
    n = 4000
    counts = np.bincount([draw_mode(shares, rng) for _ in range(n)], minlength=3)
    assert np.all(np.abs(counts / n - shares) < 4.0 * np.sqrt(shares * (1 - shares) / n))
    before = rng.bit_generator.state
    assert draw_mode(np.array([1.0]), rng) == 0
    assert rng.bit_generator.state == before


def test_a_local_mode_with_a_negligible_share_is_no_start_and_no_anchor():
    """A spurious mode 40 below the main one (as lynx-hare-ode's)."""
    centre = np.array([6.0, 0.0])
    f = mixture([np.exp(-40.0), 1.0], [-centre, centre])
    for seed in range(5):
        result = gaussian_start_up(
            f, -centre, 3000, np.random.default_rng(seed), starts_at(centre + 0.5)
        )
        assert len(result.modes) == 2
        np.testing.assert_allclose(result.mode, centre, atol=0.1)
        assert len(result.anchors()) == 1 and result.comparable_modes == (0,)


def test_a_climb_cut_off_above_the_best_mode_is_reported_as_the_highest_point():
    def rare_minor(x):
        """MINOR's weight 0.001: the major mode's top is about 4 above the minor's."""
        minor = multivariate_normal(MINOR, 0.3**2 * np.eye(2)).logpdf(x) + np.log(0.001)
        major = multivariate_normal(MAJOR, MAJOR_COV).logpdf(x)
        return float(logsumexp([minor, major]))

    alone = climb_from_starts(rare_minor, MINOR + 0.1, 2000)
    # the second climb starts (it has one curvature's worth) but cannot finish
    budget = alone.n_evals + 2 * (2 + 5) + 2 + 1
    climbs = climb_from_starts(rare_minor, MINOR + 0.1, budget, starts_at(MAJOR + 1.0), n_screen=1)
    assert climbs.n_climbs == 2 and len(climbs.modes) == 1  # only the minor mode finished
    np.testing.assert_allclose(climbs.best.mode, MINOR, atol=0.3)
    assert climbs.highest > climbs.best.log_density + 3.0
    # with the budget to finish, the climb reaches the major mode and both are modes
    finished = climb_from_starts(rare_minor, MINOR + 0.1, 5000, starts_at(MAJOR + 1.0))
    assert finished.highest == pytest.approx(finished.best.log_density)
