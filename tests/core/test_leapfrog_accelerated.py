"""The compiled whole-trajectory leapfrog equals the NumPy leapfrog on the surrogate gradients."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pymc_kameleon.core.hamiltonian import leapfrog
from pymc_kameleon.core.surrogates import _compiled as acc
from pymc_kameleon.core.surrogates.finite import FiniteScoreMatching
from pymc_kameleon.core.surrogates.lite import LiteSurrogate

D = 4
TOL = 1e-12
GRAD_SCALE = 0.7


@pytest.fixture(scope="module")
def lite():
    z = np.random.default_rng(0).normal(size=(120, D))
    return LiteSurrogate.fit(z, 1.2, 1.0)


@pytest.fixture(scope="module")
def finite():
    rng = np.random.default_rng(1)
    estimator = FiniteScoreMatching.create(D, 150, 1.2, 0.05, rng)
    return estimator.batch_fit(rng.normal(size=(300, D)))


def _lite_args(s: LiteSurrogate) -> tuple:
    return s.basis, s.alpha, s.lengthscale


def _finite_args(s: FiniteScoreMatching) -> tuple:
    return s.features.omega, s.features.offset, s.theta


def _cases(lite, finite):
    """(fast function, numpy twin, surrogate arguments, surrogate) for both surrogates."""
    return [
        (acc.lite_leapfrog, acc.lite_leapfrog_numpy, _lite_args(lite), lite),
        (acc.finite_leapfrog, acc.finite_leapfrog_numpy, _finite_args(finite), finite),
    ]


def _assert_same(a, b, tol=TOL):
    assert a.finite == b.finite
    assert a.n_grad_evals == b.n_grad_evals
    scale = max(1.0, float(np.max(np.abs(b.q[np.isfinite(b.q)]), initial=0.0)))
    np.testing.assert_allclose(a.q, b.q, rtol=0, atol=tol * scale)
    np.testing.assert_allclose(a.p, b.p, rtol=0, atol=tol * scale * 10)


@pytest.mark.parametrize("kind", ["lite", "finite"])
@pytest.mark.parametrize("mass", ["identity", "diagonal"])
@pytest.mark.parametrize("n_steps", [1, 7, 50])
def test_matches_generic_leapfrog_with_surrogate_gradient(lite, finite, kind, mass, n_steps):
    fast, _, args, surrogate = _cases(lite, finite)[kind == "finite"]
    rng = np.random.default_rng(n_steps)
    q0, p0 = 0.5 * rng.normal(size=D), rng.normal(size=D)
    inv_mass = None if mass == "identity" else rng.uniform(0.3, 2.0, size=D)

    def grad(x):
        return GRAD_SCALE * surrogate.gradient(x)

    expected = leapfrog(q0, p0, grad, 0.15, n_steps, inv_mass)
    got = fast(q0, p0, *args, GRAD_SCALE, 0.15, n_steps, inv_mass)
    assert got.finite and got.n_grad_evals == n_steps + 1
    _assert_same(got, expected)
    # the inputs are not modified
    assert np.array_equal(q0, 0.5 * np.random.default_rng(n_steps).normal(size=D))


@pytest.mark.parametrize("kind", ["lite", "finite"])
def test_numpy_fallback_matches_surrogate_gradient(lite, finite, kind):
    _, numpy_twin, args, surrogate = _cases(lite, finite)[kind == "finite"]
    rng = np.random.default_rng(5)
    q0, p0 = rng.normal(size=D), rng.normal(size=D)
    inv_mass = rng.uniform(0.3, 2.0, size=D)

    def grad(x):
        return GRAD_SCALE * surrogate.gradient(x)

    expected = leapfrog(q0, p0, grad, 0.1, 20, inv_mass)
    got = numpy_twin(q0, p0, *args, GRAD_SCALE, 0.1, 20, inv_mass)
    _assert_same(got, expected, tol=1e-14)


@pytest.mark.parametrize("fallback", [False, True], ids=["compiled", "numpy"])
@pytest.mark.parametrize("kind", ["lite", "finite"])
def test_float32_input_and_zero_scale(lite, finite, kind, fallback):
    fast, numpy_twin, args, _ = _cases(lite, finite)[kind == "finite"]
    fn = numpy_twin if fallback else fast
    q0 = np.ones(D, dtype=np.float32)
    p0 = np.full(D, 0.5)
    result = fn(q0, p0, *args, 0.0, 0.2, 10)  # zero gradient: straight line
    assert result.q.dtype == np.float64 and result.finite
    np.testing.assert_allclose(result.q, 1.0 + 10 * 0.2 * 0.5, rtol=1e-14)
    np.testing.assert_array_equal(result.p, p0)


# ---------------------------------------------------------------------------------------------
# early stop at the first non-finite value, as the generic leapfrog
@pytest.mark.parametrize("fallback", [False, True], ids=["compiled", "numpy"])
@pytest.mark.parametrize("kind", ["lite", "finite"])
def test_non_finite_start_stops_after_one_gradient(lite, finite, kind, fallback):
    fast, numpy_twin, args, _ = _cases(lite, finite)[kind == "finite"]
    fn = numpy_twin if fallback else fast
    q0 = np.zeros(D)
    p0 = np.array([np.nan, 0.0, 0.0, 0.0])
    result = fn(q0, p0, *args, 1.0, 0.1, 10)
    assert not result.finite and result.n_grad_evals == 1
    assert np.isnan(result.p[0])


@pytest.mark.parametrize("fallback", [False, True], ids=["compiled", "numpy"])
@pytest.mark.parametrize("kind", ["lite", "finite"])
def test_overflowing_position_stops_early(lite, finite, kind, fallback):
    fast, numpy_twin, args, surrogate = _cases(lite, finite)[kind == "finite"]
    fn = numpy_twin if fallback else fast
    q0 = np.zeros(D)
    p0 = np.full(D, 1e300)
    with np.errstate(over="ignore"):
        result = fn(q0, p0, *args, 1.0, 1e10, 10)
    expected = leapfrog(q0, p0, lambda x: surrogate.gradient(x), 1e10, 10)
    assert not result.finite and result.n_grad_evals == 1
    assert np.all(np.isinf(result.q))
    _assert_same(result, expected)


@pytest.mark.parametrize("kind", ["lite", "finite"])
def test_non_finite_gradient_stops_where_generic_leapfrog_stops(lite, finite, kind):
    """An infinite gradient scale: the first gradient is non-finite wherever it is non-zero."""
    fast, numpy_twin, args, surrogate = _cases(lite, finite)[kind == "finite"]
    q0, p0 = np.full(D, 0.3), np.full(D, 0.2)
    with np.errstate(invalid="ignore"):
        expected = leapfrog(q0, p0, lambda x: math.inf * surrogate.gradient(x), 0.1, 10)
        got = fast(q0, p0, *args, math.inf, 0.1, 10)
        twin = numpy_twin(q0, p0, *args, math.inf, 0.1, 10)
    assert not expected.finite and expected.n_grad_evals == 1
    for result in (got, twin):
        assert not result.finite and result.n_grad_evals == expected.n_grad_evals
        np.testing.assert_array_equal(result.q, expected.q)
        np.testing.assert_array_equal(result.p, expected.p)


def test_far_away_lite_gradient_is_zero_and_finite(lite):
    """The lite gradient underflows to exactly zero far from the basis: a straight line."""
    q0, p0 = np.full(D, 1e3), np.ones(D)
    result = acc.lite_leapfrog(q0, p0, *_lite_args(lite), 1.0, 0.5, 4)
    assert result.finite
    np.testing.assert_array_equal(result.p, p0)
    np.testing.assert_allclose(result.q, q0 + 2.0)


def test_numba_flag_is_boolean():
    assert isinstance(acc.HAVE_NUMBA, bool)
    assert set(acc.__all__) >= {"lite_leapfrog", "finite_leapfrog", "HAVE_NUMBA"}
