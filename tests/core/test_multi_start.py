"""Climbs from several starts (core/multi_start.py): the best mode, and when the climbs stop."""

import numpy as np
import pytest
from scipy.special import logsumexp
from scipy.stats import multivariate_normal

from pymc_kameleon.core.mode_start import ModeStart
from pymc_kameleon.core.multi_start import (
    MODE_SEPARATION,
    climb_from_starts,
    distinct_modes,
    same_mode,
)
from pymc_kameleon.core.start_up import gaussian_start_up

MINOR = np.array([-6.0, 1.0])
MAJOR = np.array([5.0, -2.0])


def two_modes(x):
    """A minor narrow mode at MINOR (weight 0.05) and a major one at MAJOR (weight 0.95)."""
    minor = multivariate_normal(MINOR, 0.3**2 * np.eye(2)).logpdf(x) + np.log(0.05)
    major = multivariate_normal(MAJOR, [[1.0, 0.5], [0.5, 2.0]]).logpdf(x) + np.log(0.95)
    return float(logsumexp([minor, major]))


def counted(f):
    calls = [0]

    def g(x):
        calls[0] += 1
        return f(x)

    return g, calls


def starts_at(*points):
    return lambda k: np.asarray(points[k % len(points)], dtype=float)


def test_a_second_start_finds_the_higher_mode_and_both_are_reported():
    f, calls = counted(two_modes)
    climbs = climb_from_starts(f, MINOR + 0.1, 2000, starts_at(MAJOR + np.array([1.0, 1.0])))
    assert climbs.n_climbs >= 2
    np.testing.assert_allclose(climbs.best.mode, MAJOR, atol=0.05)
    found = distinct_modes(climbs.modes)
    assert len(found) == 2
    assert found[0].log_density > found[1].log_density  # best first
    assert climbs.n_evals == calls[0]


def test_two_climbs_to_one_mode_stop_the_search():
    gaussian = multivariate_normal(MAJOR, [[1.0, 0.5], [0.5, 2.0]]).logpdf
    climbs = climb_from_starts(gaussian, MAJOR + 3.0, 5000, starts_at(MAJOR - 3.0))
    assert climbs.n_climbs == 2
    assert len(distinct_modes(climbs.modes)) == 1


def test_without_stopping_at_one_mode_it_climbs_while_the_budget_lasts():
    gaussian = multivariate_normal(MAJOR, [[1.0, 0.5], [0.5, 2.0]]).logpdf
    starts = starts_at(MAJOR + 3.0, MAJOR - 2.0, MAJOR + np.array([1.0, -4.0]))
    climbs = climb_from_starts(gaussian, MAJOR - 3.0, 100_000, starts, stop_at_one_mode=False)
    assert climbs.n_climbs == 6  # the cap


def test_no_further_start_means_one_climb():
    climbs = climb_from_starts(two_modes, MINOR + 0.1, 2000)
    assert climbs.n_climbs == 1
    np.testing.assert_allclose(climbs.best.mode, MINOR, atol=0.3)  # within its sd, 0.3


@pytest.mark.parametrize("budget", [150, 400, 900])
def test_the_climbs_stay_within_the_budget(budget):
    f, calls = counted(two_modes)
    starts = starts_at(MAJOR + 2.0, MINOR - 0.2, MAJOR - 2.0)
    climbs = climb_from_starts(f, MINOR + 0.1, budget, starts, stop_at_one_mode=False)
    assert climbs.n_evals == calls[0] <= budget


def test_further_starts_with_a_non_finite_density_are_skipped():
    def f(x):
        return -np.inf if x[0] > 100 else two_modes(x)

    bad, good = [200.0, 0.0], MAJOR + 1.0
    climbs = climb_from_starts(f, MINOR + 0.1, 3000, starts_at(bad, bad, good))
    np.testing.assert_allclose(climbs.best.mode, MAJOR, atol=0.05)
    # three non-finite starts in a row end the search
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


def test_the_start_up_reports_every_separate_mode_and_starts_from_the_highest():
    result = gaussian_start_up(
        two_modes, MINOR + 0.1, 3000, np.random.default_rng(1), starts_at(MAJOR + 1.0)
    )
    assert result.status == "gaussian"
    assert len(result.mode_log_densities) == 2
    np.testing.assert_allclose(result.mean, MAJOR, atol=0.05)
    assert result.n_climbs == 6  # two modes found: the climbs go on, to the cap


def test_a_climb_cut_off_above_the_best_mode_is_reported_as_the_highest_point():
    def rare_minor(x):
        """MINOR's weight 0.001: the major mode's top is about 4 above the minor's."""
        minor = multivariate_normal(MINOR, 0.3**2 * np.eye(2)).logpdf(x) + np.log(0.001)
        major = multivariate_normal(MAJOR, [[1.0, 0.5], [0.5, 2.0]]).logpdf(x)
        return float(logsumexp([minor, major]))

    alone = climb_from_starts(rare_minor, MINOR + 0.1, 2000)
    # the second climb starts (it has one curvature's worth) but cannot finish
    budget = alone.n_evals + 2 * (2 + 5) + 2
    climbs = climb_from_starts(rare_minor, MINOR + 0.1, budget, starts_at(MAJOR + 1.0))
    assert climbs.n_climbs == 2 and len(climbs.modes) == 1  # only the minor mode finished
    np.testing.assert_allclose(climbs.best.mode, MINOR, atol=0.3)
    assert climbs.highest > climbs.best.log_density + 3.0
    # with the budget to finish, the climb reaches the major mode and both are modes
    finished = climb_from_starts(rare_minor, MINOR + 0.1, 5000, starts_at(MAJOR + 1.0))
    assert finished.highest == pytest.approx(finished.best.log_density)
