"""Tests for the lite score-matching surrogate (KMC lite)."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest
from scipy.optimize import minimize

from pymc_kameleon.core.surrogates.lengthscale_cv import (
    cross_validated_objective,
    select_lengthscale,
)
from pymc_kameleon.core.surrogates.lite import (
    lite_fit,
    lite_gradient,
    lite_objective,
    lite_value,
)

try:  # BLAS oversubscription on a busy machine makes many small solves slow.
    from threadpoolctl import threadpool_limits
except ImportError:  # pragma: no cover - optional
    threadpool_limits = None


@pytest.fixture(autouse=True)
def _single_blas_thread():
    """Run each test with one BLAS thread when threadpoolctl is available."""
    ctx = threadpool_limits(limits=1) if threadpool_limits else contextlib.nullcontext()
    with ctx:
        yield


CORRELATED_COV = np.array([[1.0, 0.6], [0.6, 1.0]])


def _correlated_gaussian(n: int, seed: int) -> np.ndarray:
    chol = np.linalg.cholesky(CORRELATED_COV)
    return np.random.default_rng(seed).standard_normal((n, 2)) @ chol.T


def test_closed_form_matches_numerical_minimiser():
    Z = np.random.default_rng(3).standard_normal((15, 2))
    lengthscale, ridge = 0.8, 0.1
    n, sigma = Z.shape[0], 2.0 * lengthscale**2
    alpha = lite_fit(Z, lengthscale, ridge)

    def regularised(a: np.ndarray) -> float:
        return lite_objective(a, Z, Z, lengthscale) + 2.0 * ridge / (n * sigma**2) * (a @ a)

    result = minimize(regularised, np.zeros(n), method="BFGS", options={"gtol": 1e-12})
    rel = np.linalg.norm(result.x - alpha) / np.linalg.norm(alpha)
    assert rel < 1e-5
    assert regularised(alpha) <= result.fun + 1e-12


def test_gradient_matches_finite_differences():
    Z = _correlated_gaussian(30, seed=4)
    lengthscale = 0.9
    alpha = lite_fit(Z, lengthscale, 0.5)
    h = 1e-5
    for x in np.random.default_rng(5).standard_normal((5, 2)):
        fd = np.array(
            [
                (
                    lite_value(x + h * e, Z, alpha, lengthscale)
                    - lite_value(x - h * e, Z, alpha, lengthscale)
                )
                / (2 * h)
                for e in np.eye(2)
            ]
        )
        np.testing.assert_allclose(
            lite_gradient(x, Z, alpha, lengthscale), fd, rtol=1e-6, atol=1e-8
        )


def test_gradient_recovers_gaussian_score():
    # Tolerance: mean over 50 test points (drawn from the target, so ~within 1-2 sd)
    # of ||grad f(x) + Sigma^-1 x|| / ||Sigma^-1 x|| must be < 0.25 (observed ~0.11).
    Z = _correlated_gaussian(400, seed=1)
    ridge = 1e-2
    lengthscale = select_lengthscale(Z, ridge=ridge, rng=np.random.default_rng(0))
    alpha = lite_fit(Z, lengthscale, ridge)
    X = _correlated_gaussian(50, seed=5)
    truth = -X @ np.linalg.inv(CORRELATED_COV).T
    fitted = np.array([lite_gradient(x, Z, alpha, lengthscale) for x in X])
    rel = np.linalg.norm(fitted - truth, axis=1) / np.linalg.norm(truth, axis=1)
    assert np.mean(rel) < 0.25


def test_select_lengthscale_range_and_hot_start():
    # For N(0, I_2) the log-density is quadratic, the ell -> infinity limit of the
    # model, so CV favours large length scales; the held-out objective is flat
    # (near its optimum -1) above ~2 (median distance ~1.7). Observed choice: 13.6,
    # the top of the default grid (8 x median).
    Z = np.random.default_rng(200).standard_normal((200, 2))
    rng_seed = 0
    chosen = select_lengthscale(Z, rng=np.random.default_rng(rng_seed))
    assert 1.0 <= chosen <= 16.0
    assert chosen == select_lengthscale(Z, rng=np.random.default_rng(rng_seed))
    small = cross_validated_objective(Z, 0.3, 1.0, rng=np.random.default_rng(1))
    best = cross_validated_objective(Z, chosen, 1.0, rng=np.random.default_rng(1))
    assert best < small
    previous = 1.5
    hot = select_lengthscale(Z, rng=np.random.default_rng(1), previous=previous)
    assert previous / 2.0 - 1e-12 <= hot <= previous * 2.0 + 1e-12


def test_cross_validated_objective_near_gaussian_optimum():
    # The population score-matching objective of N(0, I_2) at its own log-density is -d/2 = -1.
    Z = np.random.default_rng(7).standard_normal((200, 2))
    value = cross_validated_objective(Z, 4.0, 1.0, rng=np.random.default_rng(0))
    assert -1.2 < value < -0.7


def test_gradient_vanishes_far_from_data():
    Z = _correlated_gaussian(50, seed=2)
    alpha = lite_fit(Z, 1.0, 0.1)
    assert np.linalg.norm(lite_gradient(50.0 * np.ones(2), Z, alpha, 1.0)) < 1e-8


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"ridge": -1.0}, "ridge"),
        ({"ridge": np.nan}, "ridge"),
        ({"lengthscale": 0.0}, "lengthscale"),
        ({"lengthscale": -2.0}, "lengthscale"),
        ({"Z": np.array([[0.0, np.nan], [1.0, 2.0]])}, "Z"),
        ({"Z": np.ones((1, 2))}, "Z"),
        ({"Z": np.ones(5)}, "Z"),
    ],
)
def test_invalid_inputs_raise(kwargs, name):
    args = {
        "Z": np.random.default_rng(0).standard_normal((10, 2)),
        "lengthscale": 1.0,
        "ridge": 0.1,
    }
    args.update(kwargs)
    with pytest.raises(ValueError, match=name):
        lite_fit(**args)


def test_select_lengthscale_validates():
    Z = np.random.default_rng(0).standard_normal((20, 2))
    with pytest.raises(ValueError, match="ridge"):
        select_lengthscale(Z, ridge=-0.1)
    with pytest.raises(ValueError, match="previous"):
        select_lengthscale(Z, previous=0.0)
    with pytest.raises(ValueError, match="n_folds"):
        cross_validated_objective(Z, 1.0, 0.1, n_folds=1)


def test_lite_surrogate_matches_functional_api():
    from pymc_kameleon.core.surrogates.lite import LiteSurrogate, lite_fit, lite_value

    rng = np.random.default_rng(5)
    Z = rng.standard_normal((40, 3))
    surrogate = LiteSurrogate.fit(Z, 1.3, 0.5)
    np.testing.assert_array_equal(surrogate.alpha, lite_fit(Z, 1.3, 0.5))
    for x in rng.standard_normal((5, 3)):
        np.testing.assert_allclose(
            surrogate.gradient(x), lite_gradient(x, Z, surrogate.alpha, 1.3), rtol=1e-12
        )
        assert surrogate.value(x) == lite_value(x, Z, surrogate.alpha, 1.3)
    assert surrogate.n_basis == 40
    assert surrogate == LiteSurrogate.fit(Z, 1.3, 0.5)
    assert surrogate != LiteSurrogate.fit(Z, 1.4, 0.5)


def test_select_lengthscale_bounds_and_blocked_folds():
    from pymc_kameleon.core.surrogates.lengthscale_cv import select_lengthscale

    rng = np.random.default_rng(0)
    Z = rng.standard_normal((120, 2))
    # bounds clip every candidate: the choice lies inside them
    chosen = select_lengthscale(Z, rng=np.random.default_rng(1), bounds=(0.9, 1.1))
    assert 0.9 <= chosen <= 1.1
    # hot starts cannot drift past the upper bound however often they are repeated
    ell = 1.0
    for _ in range(6):
        ell = select_lengthscale(Z, rng=np.random.default_rng(2), previous=ell, bounds=(0.5, 3.0))
    assert 0.5 <= ell <= 3.0
    # a slowly moving chain: random folds leak neighbours into the held-out fold and favour a
    # much shorter length scale than contiguous (blocked) folds do
    walk = np.cumsum(0.05 * rng.standard_normal((200, 2)), axis=0)
    grid = np.geomspace(0.02, 2.0, 9)
    random_folds = select_lengthscale(walk, grid=grid, rng=np.random.default_rng(3))
    blocked = select_lengthscale(walk, grid=grid, rng=np.random.default_rng(3), blocked=True)
    assert blocked > random_folds
    with pytest.raises(ValueError, match="bounds"):
        select_lengthscale(Z, bounds=(2.0, 1.0))
