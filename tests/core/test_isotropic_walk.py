"""The isotropic random walk's O(d) density and draws against SciPy's Gaussian (no PyMC)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from pymc_kameleon.core.proposals import IsotropicRandomWalk
from pymc_kameleon.core.windowed_covariance import whitening_map


def _walk(mapped: bool, dim: int = 4) -> tuple[IsotropicRandomWalk, np.ndarray]:
    """A walk with gamma = 0.3, a learned scale of 0.7 and, if mapped, a correlated map."""
    walk = IsotropicRandomWalk(dim, gamma=0.3)
    walk.scale.restart(math.log(0.7))
    shape = np.eye(dim)
    if mapped:
        rng = np.random.default_rng(5)
        a = rng.normal(size=(dim, dim)) * np.logspace(-2, 2, dim)
        shape = a @ a.T + 1e-3 * np.eye(dim)
        walk.set_map(whitening_map(rng.normal(size=dim), shape))
    return walk, (0.09 + 0.7) * shape


@pytest.mark.parametrize("mapped", [False, True])
def test_log_density_is_scipys_gaussian(mapped):
    walk, cov = _walk(mapped)
    rng = np.random.default_rng(1)
    frm = rng.normal(size=4) * 10.0
    to = frm + np.linalg.cholesky(cov) @ rng.normal(size=4)
    expected = stats.multivariate_normal(frm, cov).logpdf(to)
    assert walk.log_density(to, frm) == pytest.approx(expected, rel=1e-10)
    np.testing.assert_allclose(walk.covariance(frm), cov, rtol=1e-10)


@pytest.mark.parametrize("mapped", [False, True])
def test_proposals_have_the_stated_density_and_covariance(mapped):
    walk, cov = _walk(mapped)
    rng = np.random.default_rng(2)
    x = np.arange(4.0)
    moves = []
    for _ in range(4000):
        x_new, log_q = walk.propose(x, rng)
        assert log_q == pytest.approx(walk.log_density(x_new, x), rel=1e-10, abs=1e-10)
        moves.append(x_new - x)
    # 4000 draws: the sample covariance's relative error is about sqrt(2 / 4000) = 2 %
    np.testing.assert_allclose(np.cov(np.array(moves).T), cov, rtol=0.1, atol=0.1 * cov.max())


def test_a_non_finite_scale_refuses_to_draw_and_has_no_density():
    walk = IsotropicRandomWalk(3)
    walk.scale.restart(math.inf)
    assert walk.cholesky(np.zeros(3)) is None
    assert math.isnan(walk.log_density(np.ones(3), np.zeros(3)))
    with pytest.raises(FloatingPointError, match="not finite and positive"):
        walk.propose(np.zeros(3), np.random.default_rng(0))
