"""Tests for :mod:`pymc_kameleon.core.proposals`."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from pymc_kameleon.core.kernels import (
    GaussianKernel,
    LinearKernel,
    Matern32Kernel,
    Matern52Kernel,
)
from pymc_kameleon.core.proposals import (
    cholesky_with_jitter,
    gaussian_log_pdf,
    gaussian_log_pdf_of_noise,
    kameleon_covariance,
    kameleon_gradient_matrix,
    kameleon_scatter,
    kernel_term_trace,
    random_walk_trace,
    scale_for_trace,
)

# ---------------------------------------------------------------------------------------------
# Helpers (independent reference implementations)
# ---------------------------------------------------------------------------------------------


def _random_spd(d: int, rng: np.random.Generator) -> np.ndarray:
    """A random, well-conditioned symmetric positive-definite matrix."""
    a = rng.normal(size=(d, d))
    return a @ a.T + d * np.eye(d)


def _ref_grad(kernel, x: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Gradient of k(., z) at x, written from the documented kernel formulas."""
    diff = z - x
    r = math.sqrt(float(diff @ diff))
    if isinstance(kernel, GaussianKernel):
        s2 = kernel.bandwidth**2
        return math.exp(-(r**2) / (2.0 * s2)) * diff / s2
    if isinstance(kernel, Matern32Kernel):
        ell = kernel.bandwidth
        return 3.0 / ell**2 * math.exp(-math.sqrt(3.0) * r / ell) * diff
    if isinstance(kernel, Matern52Kernel):
        ell = kernel.bandwidth
        s = math.sqrt(5.0) * r / ell
        return 5.0 / (3.0 * ell**2) * (1.0 + s) * math.exp(-s) * diff
    if isinstance(kernel, LinearKernel):
        return z.copy()
    raise AssertionError(f"no reference gradient for {kernel!r}")


def _ref_m(kernel, y: np.ndarray, Z: np.ndarray) -> np.ndarray:
    """The paper's d x n matrix M: column i is 2 * grad_x k(y, z_i)."""
    return np.column_stack([2.0 * _ref_grad(kernel, y, z) for z in Z])


def _centering(n: int) -> np.ndarray:
    """The full n x n centering matrix H = I - 1 1^T / n."""
    return np.eye(n) - np.ones((n, n)) / n


def _paper_cov(kernel, y, Z, gamma2, nu2) -> np.ndarray:
    """gamma2 I + nu2 M H M^T, built literally."""
    m = _ref_m(kernel, y, Z)
    h = _centering(Z.shape[0])
    return gamma2 * np.eye(y.shape[0]) + nu2 * m @ h @ m.T


KERNELS = [
    pytest.param(GaussianKernel(1.3), id="gaussian"),
    pytest.param(Matern32Kernel(0.9), id="matern32"),
    pytest.param(Matern52Kernel(1.7), id="matern52"),
]

# ---------------------------------------------------------------------------------------------
# Gaussian log-densities
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("d", [1, 3, 8])
def test_gaussian_log_pdf_matches_scipy(d):
    rng = np.random.default_rng(100 + d)
    for _ in range(5):
        cov = _random_spd(d, rng)
        mean = rng.normal(size=d)
        chol = np.linalg.cholesky(cov)
        for _ in range(4):
            x = mean + 2.0 * rng.normal(size=d)
            expected = multivariate_normal(mean, cov).logpdf(x)
            assert gaussian_log_pdf(x, mean, chol) == pytest.approx(expected, rel=1e-10, abs=1e-10)


@pytest.mark.parametrize("d", [1, 3, 8])
def test_gaussian_log_pdf_of_noise_matches_scipy(d):
    rng = np.random.default_rng(200 + d)
    for _ in range(5):
        cov = _random_spd(d, rng)
        mean = rng.normal(size=d)
        chol = np.linalg.cholesky(cov)
        noise = rng.normal(size=d)
        x = mean + chol @ noise
        expected = multivariate_normal(mean, cov).logpdf(x)
        got = gaussian_log_pdf_of_noise(noise, chol)
        assert got == pytest.approx(expected, rel=1e-10, abs=1e-10)
        assert got == pytest.approx(gaussian_log_pdf(x, mean, chol), rel=1e-10, abs=1e-10)


# ---------------------------------------------------------------------------------------------
# cholesky_with_jitter
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("d", [1, 3, 8])
def test_cholesky_exact_on_spd(d):
    rng = np.random.default_rng(300 + d)
    cov = _random_spd(d, rng)
    chol = cholesky_with_jitter(cov)
    np.testing.assert_allclose(chol, np.linalg.cholesky(cov), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(chol @ chol.T, cov, rtol=1e-12, atol=1e-12)
    assert np.array_equal(chol, np.tril(chol))


@pytest.mark.parametrize(("d", "rank"), [(3, 1), (5, 2), (8, 3)])
def test_cholesky_singular_psd_gets_small_jitter(d, rank):
    rng = np.random.default_rng(400 + d)
    a = rng.normal(size=(d, rank))
    cov = a @ a.T  # rank-deficient PSD
    scale = float(np.mean(np.diag(cov)))
    chol = cholesky_with_jitter(cov)
    assert np.all(np.isfinite(chol))
    assert np.array_equal(chol, np.tril(chol))
    assert np.all(np.diag(chol) > 0)
    residual = chol @ chol.T - cov
    # What was added is a small multiple of the identity.
    assert np.max(np.abs(residual)) <= 1e-6 * scale
    off_diag = residual - np.diag(np.diag(residual))
    assert np.max(np.abs(off_diag)) <= 1e-12 * scale
    assert np.all(np.diag(residual) > -1e-12 * scale)


def test_cholesky_matrix_with_exact_zero_pivot():
    cov = np.ones((3, 3))  # rank one; LAPACK meets an exact zero pivot
    chol = cholesky_with_jitter(cov)
    residual = chol @ chol.T - cov
    assert np.max(np.abs(residual)) <= 1e-6
    np.testing.assert_allclose(residual, residual[0, 0] * np.eye(3), atol=1e-14)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_cholesky_rejects_non_finite(bad):
    cov = np.eye(3)
    cov[1, 1] = bad
    with pytest.raises(np.linalg.LinAlgError):
        cholesky_with_jitter(cov)


@pytest.mark.parametrize(
    "cov",
    [
        np.diag([1.0, 1.0, -1.0]),
        np.array([[1.0, 2.0], [2.0, 1.0]]),  # eigenvalues 3 and -1
        -np.eye(4),
    ],
    ids=["diag", "offdiag", "negdef"],
)
def test_cholesky_rejects_indefinite(cov):
    with pytest.raises(np.linalg.LinAlgError):
        cholesky_with_jitter(cov)


# ---------------------------------------------------------------------------------------------
# Kameleon covariance: closed form
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("d", [1, 3, 5])
def test_kameleon_covariance_equals_paper_formula(kernel, d):
    rng = np.random.default_rng(500 + d)
    Z = rng.normal(size=(25, d))
    y = rng.normal(size=d)
    gamma2, nu2 = 0.2**2, 1.7
    Z_before = Z.copy()
    got = kameleon_covariance(y, Z, kernel, gamma2, nu2)
    expected = _paper_cov(kernel, y, Z, gamma2, nu2)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(Z, Z_before)  # history is not modified
    np.testing.assert_allclose(got, got.T, rtol=0, atol=1e-14)
    assert np.min(np.linalg.eigvalsh(got)) >= gamma2 * (1 - 1e-10)


@pytest.mark.parametrize("kernel", KERNELS)
def test_kameleon_gradient_matrix_is_transposed_m(kernel):
    rng = np.random.default_rng(7)
    Z = rng.normal(size=(10, 4))
    y = rng.normal(size=4)
    got = kameleon_gradient_matrix(y, Z, kernel)
    np.testing.assert_allclose(got, _ref_m(kernel, y, Z).T, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("kernel", KERNELS)
def test_kameleon_covariance_monte_carlo_two_stage(kernel):
    """Sample the paper's construction x* = y + M H beta + xi and compare moments."""
    rng = np.random.default_rng(1)
    d, n, n_draws = 3, 20, 200_000
    Z = rng.normal(size=(n, d)) * np.array([1.0, 0.5, 2.0])
    y = np.array([0.3, -0.2, 0.5])
    gamma2, nu2 = 0.3, 2.0
    m = _ref_m(kernel, y, Z)
    mh = m @ _centering(n)
    beta = rng.normal(scale=math.sqrt(nu2), size=(n_draws, n))
    xi = rng.normal(scale=math.sqrt(gamma2), size=(n_draws, d))
    x_star = y + beta @ mh.T + xi

    sigma = kameleon_covariance(y, Z, kernel, gamma2, nu2)
    sample_cov = np.cov(x_star, rowvar=False)
    diag = np.diag(sigma)
    mcse_cov = np.sqrt((np.outer(diag, diag) + sigma**2) / n_draws)
    assert np.all(np.abs(sample_cov - sigma) <= 5.0 * mcse_cov), (sample_cov, sigma)

    mcse_mean = np.sqrt(diag / n_draws)
    assert np.all(np.abs(x_star.mean(axis=0) - y) <= 5.0 * mcse_mean)


# ---------------------------------------------------------------------------------------------
# Linear kernel: adaptive Metropolis (Haario et al.) covariance
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("d", [1, 2, 6])
def test_linear_kernel_reduces_to_adaptive_metropolis(d):
    rng = np.random.default_rng(600 + d)
    n = 40
    Z = rng.normal(size=(n, d)) @ rng.normal(size=(d, d)) + 3.0
    gamma2, nu2 = 0.05, 0.7
    h = _centering(n)
    expected = gamma2 * np.eye(d) + 4.0 * nu2 * Z.T @ h @ Z
    expected_cov = gamma2 * np.eye(d) + 4.0 * nu2 * (n - 1) * np.atleast_2d(np.cov(Z.T))
    np.testing.assert_allclose(expected, expected_cov, rtol=1e-10)

    results = [
        kameleon_covariance(rng.normal(scale=10.0, size=d), Z, LinearKernel(), gamma2, nu2)
        for _ in range(5)
    ]
    for got in results:
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
        np.testing.assert_array_equal(got, results[0])  # no dependence on y at all


# ---------------------------------------------------------------------------------------------
# Degenerate histories
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kernel", [*KERNELS, pytest.param(LinearKernel(), id="linear")])
@pytest.mark.parametrize("n_rows", [None, 0, 1])
def test_short_history_gives_isotropic_random_walk(kernel, n_rows):
    d, gamma2 = 4, 0.37
    y = np.arange(d, dtype=float)
    history = None if n_rows is None else np.ones((n_rows, d))
    got = kameleon_covariance(y, history, kernel, gamma2, nu2=5.0)
    np.testing.assert_array_equal(got, gamma2 * np.eye(d))


def test_numba_and_numpy_paths_agree(monkeypatch):
    """The compiled Gaussian-kernel and triangular-solve loops equal the NumPy fallbacks."""
    from pymc_kameleon.core import accelerated
    from pymc_kameleon.core import proposals as prop
    from pymc_kameleon.core.kernels import GaussianKernel

    if not accelerated.HAVE_NUMBA:
        pytest.skip("numba is not installed")
    rng = np.random.default_rng(12)
    z = rng.normal(size=(50, 4)) * 2.0
    y = rng.normal(size=4)
    kernel = GaussianKernel(1.7)
    cov_fast = prop.kameleon_covariance(y, z, kernel, 0.04, 0.3)
    chol = np.linalg.cholesky(cov_fast)
    x = rng.normal(size=4)
    lp_fast = prop.gaussian_log_pdf(x, y, chol)
    monkeypatch.setattr(accelerated, "HAVE_NUMBA", False)
    cov_slow = prop.kameleon_covariance(y, z, kernel, 0.04, 0.3)
    lp_slow = prop.gaussian_log_pdf(x, y, chol)
    np.testing.assert_allclose(cov_fast, cov_slow, rtol=1e-12, atol=1e-14)
    assert lp_fast == pytest.approx(lp_slow, rel=1e-12)


def test_kernel_term_trace_is_the_trace_of_the_scatter():
    rng = np.random.default_rng(11)
    y, z = rng.normal(size=3), rng.normal(size=(40, 3))
    kernel = GaussianKernel(1.3)
    expected = float(np.trace(kameleon_scatter(y, z, kernel)))
    assert kernel_term_trace(y, z, kernel) == pytest.approx(expected, rel=1e-12)


def test_scale_for_trace_gives_the_kernel_term_that_trace():
    rng = np.random.default_rng(12)
    y, z = rng.normal(size=3), rng.normal(size=(40, 3))
    kernel = GaussianKernel(1.3)
    target = random_walk_trace(z)
    assert target == pytest.approx(2.38**2 / 3 * np.trace(np.cov(z.T)), rel=1e-12)
    nu2 = scale_for_trace(y, z, kernel, target)
    cov = kameleon_covariance(y, z, kernel, gamma2=0.0, nu2=nu2)
    assert np.trace(cov) == pytest.approx(target, rel=1e-10)


def test_scale_for_trace_is_none_where_the_kernel_term_vanishes():
    z = np.random.default_rng(13).normal(size=(40, 3))
    far = np.full(3, 1e3)  # Gaussian kernel gradients underflow to exactly zero
    assert scale_for_trace(far, z, GaussianKernel(1.0), 1.0) is None
    assert scale_for_trace(z[0], z, GaussianKernel(1.0), 0.0) is None
