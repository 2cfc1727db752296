"""Tests for :mod:`pymc_kameleon.targets.gp_classification`."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from numpy.polynomial.hermite_e import hermegauss
from scipy import stats
from scipy.spatial.distance import cdist

from pymc_kameleon.targets.glass import load_glass_gpc
from pymc_kameleon.targets.gp_classification import (
    GPCLogLikelihoodEstimator,
    LaplaceConvergenceError,
    ard_gaussian_kernel,
    gpc_log_prior,
    importance_sampling_log_marginal,
    importance_sampling_log_weights,
    laplace_approximation,
    logistic_log_likelihood,
    make_gpc_log_likelihood_estimator,
)

# Monte Carlo comparisons pass when |estimate - reference| <= N_SE * (combined standard error).
N_SE = 4.0


def _glass_subset(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A random subset of ``n`` rows of the whitened Glass data with both labels present."""
    X, y = load_glass_gpc()
    idx = np.random.default_rng(seed).choice(X.shape[0], size=n, replace=False)
    assert set(np.unique(y[idx]).tolist()) == {-1, 1}
    return X[idx], y[idx]


def _eight_point_problem() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Eight 2-D inputs uniform on [-2, 2]^2 (seed 20240601), one flipped label.

    ``y = sign(x_1 + x_2 / 2)`` with the first label flipped; ``theta = (0.5, -0.5)``.
    """
    rng = np.random.default_rng(20240601)
    X = rng.uniform(-2.0, 2.0, size=(8, 2))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0.0, 1, -1)
    y[0] = -y[0]
    return X, y, np.array([0.5, -0.5])


# High-precision value of p(y | theta) for the eight-point problem (jitter 1e-3), computed
# once offline with code independent of the estimator under test: plain Monte Carlo from the
# GP prior, f = chol(K) z with z ~ N(0, I), p(y | theta) = E[p(y | f)], two runs of 10^8 draws
# in chunks of 10^5 (seeds 12 and 99: 0.0044782852 and 0.0044778775, each with standard error
# 6.6e-7), averaged. Cross-checks (not used by the test): 10^7 draws of the Laplace-proposal
# estimator gave 0.0044772148 (SE 1.4e-7); scipy.stats importance sampling from
# N(mode, 1.5 Sigma) gave 0.0044771179 (SE 1.0e-6) and from a Student-t (df 5) centred at the
# mode 0.0044754192 (SE 7.8e-7), all 10^7 draws.
EIGHT_POINT_REFERENCE = 0.004478081320102006
EIGHT_POINT_REFERENCE_SE = 4.6825270677948514e-07


# --------------------------------------------------------------------------- kernel


def test_kernel_matches_double_loop() -> None:
    """Each entry is exp(-1/2 sum_d (x_d - x'_d)^2 / exp(theta_d)), plus jitter on the diagonal."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 3))
    theta = np.array([0.3, -1.0, 2.0])
    jitter = 1e-3
    K = ard_gaussian_kernel(X, theta, jitter)
    ref = np.empty((6, 6))
    for i in range(6):
        for j in range(6):
            sq = sum((X[i, d] - X[j, d]) ** 2 / math.exp(theta[d]) for d in range(3))
            ref[i, j] = math.exp(-0.5 * sq) + (jitter if i == j else 0.0)
    np.testing.assert_allclose(K, ref, rtol=1e-13, atol=1e-15)


def test_kernel_matches_scipy_distance() -> None:
    """The kernel equals exp(-cdist(X / l, X / l, 'sqeuclidean') / 2) with l = exp(theta / 2)."""
    X, _ = _glass_subset(30, seed=1)
    theta = np.linspace(-1.0, 1.5, X.shape[1])
    ell = np.exp(theta / 2.0)
    ref = np.exp(-0.5 * cdist(X / ell, X / ell, "sqeuclidean"))
    K = ard_gaussian_kernel(X, theta, jitter=0.0)
    np.testing.assert_allclose(K, ref, rtol=1e-12, atol=1e-15)
    assert np.array_equal(K, K.T)
    np.testing.assert_array_equal(np.diag(ard_gaussian_kernel(X, theta, 0.25)), 1.25)


def test_kernel_extreme_length_scales_have_no_nan() -> None:
    """Tiny length scales give the identity (1 for duplicated rows); huge ones all ones."""
    X = np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 2.0]])
    K_small = ard_gaussian_kernel(X, np.array([-3000.0, 0.0]), jitter=0.0)
    np.testing.assert_array_equal(K_small, [[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    K_large = ard_gaussian_kernel(X, np.array([3000.0, 3000.0]), jitter=0.0)
    np.testing.assert_array_equal(K_large, np.ones((3, 3)))


@pytest.mark.parametrize(
    ("X", "theta", "jitter", "match"),
    [
        (np.ones(3), np.zeros(1), 0.0, "2-D"),
        (np.array([[np.nan, 1.0]]), np.zeros(2), 0.0, "finite"),
        (np.ones((3, 2)), np.zeros(3), 0.0, r"shape \(2,\)"),
        (np.ones((3, 2)), np.array([0.0, np.nan]), 0.0, "log_lengthscales_sq must be finite"),
        (np.ones((3, 2)), np.zeros(2), -1e-3, "jitter"),
        (np.ones((3, 2)), np.zeros(2), math.inf, "jitter"),
    ],
)
def test_kernel_bad_input(X: np.ndarray, theta: np.ndarray, jitter: float, match: str) -> None:
    """Bad kernel arguments raise ValueError naming the argument."""
    with pytest.raises(ValueError, match=match):
        ard_gaussian_kernel(X, theta, jitter)


# --------------------------------------------------------------------------- Laplace


def test_logistic_log_likelihood_is_stable() -> None:
    """log sigma(y f) is exact for moderate f and finite for huge |f|."""
    y = np.array([1.0, -1.0, 1.0, -1.0])
    f = np.array([0.3, 0.3, -800.0, -800.0])
    value = logistic_log_likelihood(f, y)
    expected = math.log(1 / (1 + math.exp(-0.3))) + math.log(1 / (1 + math.exp(0.3))) - 800.0
    np.testing.assert_allclose(value, expected, rtol=1e-14)


def test_laplace_mode_is_fixed_point() -> None:
    """f_hat = K grad log p(y | f_hat) to 1e-8 on 40 Glass rows."""
    X, y = _glass_subset(40, seed=2)
    K = ard_gaussian_kernel(X, np.full(X.shape[1], 0.5))
    la = laplace_approximation(K, y)
    assert la.converged
    assert la.n_iter < 20
    grad = y / (1.0 + np.exp(y * la.mode))  # y sigma(-y f)
    np.testing.assert_allclose(la.mode, K @ grad, rtol=0, atol=1e-8)
    np.testing.assert_allclose(la.alpha, grad, rtol=0, atol=1e-8)
    np.testing.assert_allclose(la.W, 1.0 / (2.0 + 2.0 * np.cosh(la.mode)), rtol=1e-12)


def test_laplace_covariance_is_inverse_of_precision() -> None:
    """cov = (K^{-1} + W)^{-1}, checked against a direct inverse on a small problem."""
    X, y, theta = _eight_point_problem()
    K = ard_gaussian_kernel(X, theta, jitter=0.1)
    la = laplace_approximation(K, y)
    direct = np.linalg.inv(np.linalg.inv(K) + np.diag(la.W))
    np.testing.assert_allclose(la.cov, direct, rtol=1e-9, atol=1e-12)
    B = np.eye(8) + np.sqrt(la.W)[:, None] * K * np.sqrt(la.W)[None, :]
    np.testing.assert_allclose(la.chol_B @ la.chol_B.T, B, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("theta_scale", [0.0, 1.0, 2.0])
def test_laplace_log_marginal_matches_sklearn(theta_scale: float) -> None:
    """Laplace log marginal likelihood equals scikit-learn's to 1e-6 on the full Glass data.

    scikit-learn's RBF kernel takes length scales l_d = exp(theta_d / 2) and has no jitter, so
    the ridge is matched exactly with a WhiteKernel of noise level equal to the jitter; labels
    are passed as 0/1.
    """
    pytest.importorskip("sklearn")
    from sklearn.gaussian_process import GaussianProcessClassifier
    from sklearn.gaussian_process.kernels import RBF, WhiteKernel

    X, y = load_glass_gpc()
    theta = theta_scale * np.random.default_rng(3).normal(size=X.shape[1])
    jitter = 1e-3
    ours = laplace_approximation(ard_gaussian_kernel(X, theta, jitter), y)
    kernel = RBF(np.exp(theta / 2.0), length_scale_bounds="fixed") + WhiteKernel(
        jitter, noise_level_bounds="fixed"
    )
    gpc = GaussianProcessClassifier(kernel=kernel, optimizer=None).fit(X, (y + 1) // 2)
    np.testing.assert_allclose(
        ours.log_marginal_likelihood, gpc.log_marginal_likelihood(), rtol=0, atol=1e-6
    )


def test_laplace_flags_and_raises_on_nonconvergence() -> None:
    """One Newton iteration is not enough: converged is False, or an error when asked."""
    X, y = _glass_subset(40, seed=4)
    K = ard_gaussian_kernel(X, np.zeros(X.shape[1]))
    la = laplace_approximation(K, y, max_iter=1)
    assert not la.converged
    assert la.n_iter == 1
    with pytest.raises(LaplaceConvergenceError, match="max_iter"):
        laplace_approximation(K, y, max_iter=1, raise_on_failure=True)


@pytest.mark.parametrize(
    ("K", "y", "match"),
    [
        (np.eye(3)[:2], np.ones(2), "square"),
        (np.full((2, 2), np.nan), np.ones(2), "finite"),
        (np.eye(2), np.array([0, 1]), "2 \\* y - 1"),
        (np.eye(2), np.ones(3), r"shape \(2,\)"),
        (np.eye(2), np.array(["a", "b"]), "-1 and \\+1"),
    ],
)
def test_laplace_bad_input(K: np.ndarray, y: np.ndarray, match: str) -> None:
    """Bad Laplace arguments raise ValueError naming the argument and the fix."""
    with pytest.raises(ValueError, match=match):
        laplace_approximation(K, y)


# --------------------------------------------------------------------------- estimator


def _estimates_from_weights(log_w: np.ndarray, m: int) -> np.ndarray:
    """Split i.i.d. log-weights into estimates p_hat of size ``m`` each (likelihood scale)."""
    return np.exp(log_w.reshape(-1, m)).mean(axis=1)


def test_estimator_is_unbiased_against_quadrature_two_points() -> None:
    """Two latent values: mean of p_hat (size 100) matches a 2-D Gauss-Hermite value.

    The reference integrates sigma(f_1) sigma(-f_2) N(f; 0, K) with an 80 x 80 product rule
    (equal to 160 x 160 to 1e-15): p(y | theta) = 0.211870288225424. The test passes when
    the mean of 2,000 independent estimates is within 4 Monte Carlo standard errors.
    """
    X = np.array([[0.0], [0.5]])
    y = np.array([1, -1])
    theta = np.array([0.0])
    K = ard_gaussian_kernel(X, theta)
    nodes, weights = hermegauss(80)
    Z = np.stack(np.meshgrid(nodes, nodes, indexing="ij"), axis=-1).reshape(-1, 2)
    W = np.outer(weights, weights).ravel() / (2.0 * math.pi)
    exact = float(np.sum(W * np.exp(logistic_log_likelihood(Z @ np.linalg.cholesky(K).T, y))))
    np.testing.assert_allclose(exact, 0.211870288225424, rtol=1e-12)

    m, n_estimates = 100, 2000
    log_w = importance_sampling_log_weights(theta, X, y, m * n_estimates, np.random.default_rng(5))
    p_hat = _estimates_from_weights(log_w, m)
    mcse = p_hat.std(ddof=1) / math.sqrt(n_estimates)
    assert abs(p_hat.mean() - exact) <= N_SE * mcse


def test_estimator_is_unbiased_eight_points() -> None:
    """Eight latent values: mean of 2,000 estimates p_hat (size 100) matches the reference.

    Reference: 2 x 10^8-draw prior Monte Carlo (see EIGHT_POINT_REFERENCE). Tolerance: 4 combined
    standard errors sqrt(MCSE^2 + SE_ref^2). Also checks the Jensen gap
    log(mean p_hat) - mean(log p_hat) > 0 and that the Laplace value is within 0.1 nats.
    """
    X, y, theta = _eight_point_problem()
    m, n_estimates = 100, 2000
    log_w = importance_sampling_log_weights(theta, X, y, m * n_estimates, np.random.default_rng(6))
    p_hat = _estimates_from_weights(log_w, m)
    mcse = p_hat.std(ddof=1) / math.sqrt(n_estimates)
    combined = math.hypot(mcse, EIGHT_POINT_REFERENCE_SE)
    assert abs(p_hat.mean() - EIGHT_POINT_REFERENCE) <= N_SE * combined

    jensen_gap = math.log(p_hat.mean()) - float(np.mean(np.log(p_hat)))
    assert 0.0 < jensen_gap < 0.01
    laplace = laplace_approximation(ard_gaussian_kernel(X, theta), y).log_marginal_likelihood
    assert abs(math.log(EIGHT_POINT_REFERENCE) - laplace) < 0.1


def test_log_marginal_is_log_mean_of_weights() -> None:
    """The log estimate is log-mean-exp of the log-weights drawn from the same stream."""
    X, y = _glass_subset(30, seed=7)
    theta = np.zeros(X.shape[1])
    log_w = importance_sampling_log_weights(theta, X, y, 100, np.random.default_rng(8))
    value = importance_sampling_log_marginal(theta, X, y, 100, np.random.default_rng(8))
    assert log_w.shape == (100,)
    assert np.all(np.isfinite(log_w))
    np.testing.assert_allclose(value, np.log(np.mean(np.exp(log_w))), rtol=1e-12)


def test_full_glass_estimate_is_near_laplace() -> None:
    """On all 214 Glass rows the log estimate is finite and within 1 nat of Laplace."""
    X, y = load_glass_gpc()
    theta = np.zeros(X.shape[1])
    estimate = make_gpc_log_likelihood_estimator(X, y)
    value = estimate(theta, np.random.default_rng(9))
    laplace = laplace_approximation(ard_gaussian_kernel(X, theta), y).log_marginal_likelihood
    assert math.isfinite(value)
    assert abs(value - laplace) < 1.0


def test_estimator_reproducible_and_picklable() -> None:
    """Same seed gives the same value, another seed another; pickling keeps behaviour."""
    X, y = _glass_subset(30, seed=10)
    theta = np.full(X.shape[1], 0.2)
    estimate = make_gpc_log_likelihood_estimator(X, y, n_importance=50)
    assert isinstance(estimate, GPCLogLikelihoodEstimator)
    assert estimate.ndim == X.shape[1]
    a = estimate(theta, np.random.default_rng(11))
    b = estimate(theta, np.random.default_rng(11))
    c = estimate(theta, np.random.default_rng(12))
    assert a == b
    assert a != c
    clone = pickle.loads(pickle.dumps(estimate))
    assert clone(theta, np.random.default_rng(11)) == a
    direct = importance_sampling_log_marginal(theta, X, y, 50, np.random.default_rng(11))
    assert direct == a
    with pytest.raises(ValueError, match="read-only"):
        estimate.X[0, 0] = 1.0


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_theta_gives_minus_inf(bad: float) -> None:
    """A non-finite theta is outside the prior's support: the estimate is -inf, not NaN."""
    X, y = _glass_subset(30, seed=13)
    theta = np.zeros(X.shape[1])
    theta[2] = bad
    estimate = make_gpc_log_likelihood_estimator(X, y)
    assert estimate(theta, np.random.default_rng(0)) == -math.inf
    assert gpc_log_prior(theta) == -math.inf


def test_non_positive_definite_kernel_gives_minus_inf() -> None:
    """Duplicated inputs without jitter make K singular: -inf, and all log-weights -inf."""
    X = np.array([[0.0, 1.0], [0.0, 1.0], [2.0, 0.0]])
    y = np.array([1, 1, -1])
    theta = np.zeros(2)
    value = importance_sampling_log_marginal(theta, X, y, 10, np.random.default_rng(0), jitter=0.0)
    assert value == -math.inf
    log_w = importance_sampling_log_weights(theta, X, y, 10, np.random.default_rng(0), jitter=0.0)
    assert np.all(log_w == -np.inf)
    # The default jitter repairs it.
    assert math.isfinite(
        importance_sampling_log_marginal(theta, X, y, 10, np.random.default_rng(0))
    )


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"theta": np.zeros(3)}, r"theta must have shape \(2,\)"),
        ({"theta": np.zeros((2, 1))}, r"theta must have shape \(2,\)"),
        ({"y": np.array([1, 0, 1, -1])}, "2 \\* y - 1"),
        ({"y": np.ones(3)}, r"y must have shape \(4,\)"),
        ({"n_importance": 0}, "n_importance"),
        ({"n_importance": 2.5}, "n_importance"),
        ({"rng": 0}, "numpy.random.Generator"),
        ({"rng": None}, "numpy.random.Generator"),
        ({"jitter": -1.0}, "jitter"),
        ({"X": np.ones(4)}, "X must be"),
    ],
)
def test_estimator_bad_input(kwargs: dict, match: str) -> None:
    """Wrong shapes, labels, counts or rng raise ValueError naming the argument."""
    args = {
        "theta": np.zeros(2),
        "X": np.arange(8.0).reshape(4, 2),
        "y": np.array([1, -1, 1, -1]),
        "n_importance": 10,
        "rng": np.random.default_rng(0),
        "jitter": 1e-3,
    }
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        importance_sampling_log_marginal(**args)


def test_factory_bad_input() -> None:
    """The factory validates the data once, up front."""
    with pytest.raises(ValueError, match="2 \\* y - 1"):
        make_gpc_log_likelihood_estimator(np.ones((3, 2)), np.array([0, 1, 1]))
    with pytest.raises(ValueError, match="n_importance"):
        make_gpc_log_likelihood_estimator(np.ones((3, 2)), np.array([1, -1, 1]), n_importance=0)


def test_log_prior_is_normal_variance_five() -> None:
    """log prior = sum of log N(theta_d; 0, 5)."""
    theta = np.array([0.0, 1.0, -2.5, 4.0])
    expected = stats.norm(0.0, math.sqrt(5.0)).logpdf(theta).sum()
    np.testing.assert_allclose(gpc_log_prior(theta), expected, rtol=1e-14)
    with pytest.raises(ValueError, match="1-D"):
        gpc_log_prior(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="variance"):
        gpc_log_prior(np.zeros(2), variance=0.0)
