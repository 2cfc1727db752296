"""Every compiled (Numba) function agrees with its NumPy twin."""

from __future__ import annotations

import numpy as np
import pytest

from pymc_kameleon.core import accelerated
from pymc_kameleon.core import proposals as prop
from pymc_kameleon.core.history import ChainHistory
from pymc_kameleon.core.kernels import GaussianKernel
from pymc_kameleon.core.linalg import LAPACK_MIN_DIM

pytestmark = pytest.mark.skipif(not accelerated.HAVE_NUMBA, reason="numba is not installed")


@pytest.mark.parametrize(("n", "d"), [(2, 1), (50, 4), (1000, 8)])
def test_gradient_scatter_matches_numpy(monkeypatch, n, d):
    rng = np.random.default_rng(n + d)
    z = rng.normal(size=(n, d)) * 2.0
    y = rng.normal(size=d)
    kernel = GaussianKernel(1.3)
    fast = prop.kameleon_scatter(y, z, kernel)
    monkeypatch.setattr(accelerated, "HAVE_NUMBA", False)
    slow = prop.kameleon_scatter(y, z, kernel)
    scale = np.abs(slow).max()
    np.testing.assert_allclose(fast, slow, rtol=1e-10, atol=1e-13 * scale)
    np.testing.assert_allclose(fast, fast.T, rtol=1e-12, atol=1e-14 * scale)


@pytest.mark.parametrize("d", [1, 3, 8])
def test_scaled_cholesky_matches_numpy(d):
    rng = np.random.default_rng(d)
    a = rng.normal(size=(3 * d, d))
    scatter = a.T @ a
    fast, ok_fast = accelerated.scaled_cholesky(scatter, 0.7, 0.04)
    slow, ok_slow = prop.scaled_cholesky_numpy(scatter, 0.7, 0.04)
    assert ok_fast and ok_slow
    np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(fast @ fast.T, 0.7 * scatter + 0.04 * np.eye(d), rtol=1e-12)


@pytest.mark.parametrize(
    "bad",
    [
        np.array([[1.0, 0.0], [0.0, -5.0]]),  # not positive definite
        np.array([[1.0, 0.0], [np.nan, 1.0]]),  # NaN in the lower triangle
        np.array([[np.inf, 0.0], [0.0, 1.0]]),  # infinite diagonal
    ],
)
def test_scaled_cholesky_reports_failure_like_numpy(bad):
    _, ok_fast = accelerated.scaled_cholesky(bad, 1.0, 0.0)
    _, ok_slow = prop.scaled_cholesky_numpy(bad, 1.0, 0.0)
    assert not ok_fast
    assert not ok_slow


def test_proposal_cholesky_falls_back_to_jitter():
    """A singular covariance fails the plain factorisation and gets jitter instead."""
    scatter = np.ones((3, 3))
    chol = prop.proposal_cholesky(scatter, 2.0, 0.0)
    np.testing.assert_allclose(chol @ chol.T, 2.0 * scatter, atol=1e-6)


def test_proposal_cholesky_raises_on_non_finite():
    with pytest.raises(np.linalg.LinAlgError):
        prop.proposal_cholesky(np.full((2, 2), np.nan), 1.0, 0.1)


@pytest.mark.parametrize("d", [LAPACK_MIN_DIM - 1, LAPACK_MIN_DIM, 100])
def test_proposal_cholesky_on_both_sides_of_the_lapack_switch(d):
    """Both paths give the factor of gamma2 I + scale * S, reading the lower triangle only."""
    rng = np.random.default_rng(d)
    a = rng.normal(size=(2 * d, d))
    scatter = a.T @ a
    garbage_upper = scatter + np.triu(rng.normal(size=(d, d)), k=1)
    chol = prop.proposal_cholesky(garbage_upper, 0.7, 0.04)
    expected = np.linalg.cholesky(0.7 * scatter + 0.04 * np.eye(d))
    np.testing.assert_allclose(chol, expected, rtol=1e-9, atol=1e-12)
    singular = np.ones((d, d))  # rank one: plain factorisation fails, jitter rescues it
    chol = prop.proposal_cholesky(singular, 2.0, 0.0)
    np.testing.assert_allclose(chol @ chol.T, 2.0 * singular, atol=1e-5)
    with pytest.raises(np.linalg.LinAlgError):
        prop.proposal_cholesky(np.full((d, d), np.nan), 1.0, 0.1)


def _filled_history(seed: int) -> ChainHistory:
    rng = np.random.default_rng(seed)
    history = ChainHistory(3, 40)
    for t in range(150):  # beyond capacity: the reservoir scrambles the iteration order
        history.record(rng.normal(size=3), t, rng)
    return history


@pytest.mark.parametrize("since", [0, 30, 120, 149, 10_000])
def test_subsample_with_replacement_matches_numpy(monkeypatch, since):
    """Same uniforms in, same rows out: the compiled path keeps the random stream."""
    history = _filled_history(5)
    fast_rng, slow_rng = np.random.default_rng(9), np.random.default_rng(9)
    fast = history.subsample(25, fast_rng, since=since, replace=True)
    monkeypatch.setattr(accelerated, "HAVE_NUMBA", False)
    slow = history.subsample(25, slow_rng, since=since, replace=True)
    np.testing.assert_array_equal(fast, slow)
    assert fast_rng.random() == slow_rng.random()


def test_eligible_indices_matches_flatnonzero():
    history = _filled_history(6)
    for since in (0, 50, 149, 150):
        got = accelerated.eligible_indices(history.iterations, history.size, since)
        want = np.flatnonzero(history.iterations[: history.size] >= since)
        np.testing.assert_array_equal(got, want)


def test_subsample_with_replacement_keeps_states_of_negative_iterations(monkeypatch):
    """States recorded before iteration 0 (KMCStep's initial_history) stay eligible by default,
    in the compiled path as in the NumPy one (regression: the compiled path dropped them)."""
    history = ChainHistory(2, 10)
    for t in range(-5, 0):
        history.record(np.full(2, float(t)), t, np.random.default_rng(0))
    fast = history.subsample(8, np.random.default_rng(3), replace=True)
    monkeypatch.setattr(accelerated, "HAVE_NUMBA", False)
    slow = history.subsample(8, np.random.default_rng(3), replace=True)
    assert fast.shape == (8, 2)
    np.testing.assert_array_equal(fast, slow)


_SCATTER_SCRIPT = """
import numpy as np
from pymc_kameleon.core import accelerated
rng = np.random.default_rng(0)
x, history = rng.normal(size=5), rng.normal(size=(300, 5))
if {callee_first}:
    accelerated.gaussian_centered_gradients(x, history, 0.3)
print(accelerated.gaussian_gradient_scatter(x, history, 0.3).tobytes().hex())
"""


def test_gradient_scatter_does_not_depend_on_compile_order(tmp_path):
    # with fast-math flags, the bits of the scatter depended on whether its callee had been
    # compiled first in the process (a seeded chain then changed with the test order)
    import os
    import subprocess
    import sys

    outputs = []
    for callee_first in (False, True):
        env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / f"cache-{callee_first}")}
        script = _SCATTER_SCRIPT.format(callee_first=callee_first)
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        )
        outputs.append(done.stdout.strip())
    assert outputs[0] == outputs[1]
