"""Local-width coordinates (core/local_precision.py): scores, Fisher information, the map."""

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from pymc_kameleon.core.local_precision import (
    average_local_precision,
    finite_difference_scores,
    local_width_map,
    noise_edge,
)
from pymc_kameleon.targets.banana import banana_logp, sample_banana

B, V, D = 0.03, 100.0, 4


def banana_score(x):
    """Exact score of B(B, V) at the rows of x."""
    y = x[:, 1] - B * (x[:, 0] ** 2 - V)
    g = -x.copy()
    g[:, 0] = -x[:, 0] / V + 2 * B * x[:, 0] * y
    g[:, 1] = -y
    return g


def test_finite_difference_scores_match_the_exact_scores():
    x = sample_banana(20, D, B, V, np.random.default_rng(0))
    scores = finite_difference_scores(lambda p: banana_logp(p, B, V), x, step=1e-4)
    np.testing.assert_allclose(scores, banana_score(x), rtol=1e-6, atol=1e-6)
    cov = np.array([[2.0, 0.3], [0.3, 0.5]])
    gaussian = multivariate_normal([1.0, -1.0], cov)
    points = np.array([[0.0, 0.0], [2.0, 1.0]])
    expected = -(points - [1.0, -1.0]) @ np.linalg.inv(cov)
    scores = finite_difference_scores(gaussian.logpdf, points)
    np.testing.assert_allclose(scores, expected, rtol=1e-6)


def test_a_non_finite_neighbour_gives_a_non_finite_score_that_the_average_drops():
    def half_space(x):
        return -np.inf if x[0] < 0 else -0.5 * float(x @ x)

    scores = finite_difference_scores(half_space, np.array([[0.0, 1.0], [1.0, 1.0]]))
    assert not np.all(np.isfinite(scores[0])) and np.all(np.isfinite(scores[1]))
    np.testing.assert_allclose(average_local_precision(scores), np.outer([-1, -1], [-1, -1]))
    with pytest.raises(ValueError, match="no finite score"):
        average_local_precision(scores[:1])


def test_on_a_gaussian_the_average_precision_is_the_inverse_covariance():
    rng = np.random.default_rng(1)
    cov = np.array([[2.0, 0.3], [0.3, 0.5]])
    x = rng.multivariate_normal([0.0, 0.0], cov, size=200_000)
    precision = average_local_precision(-x @ np.linalg.inv(cov))
    np.testing.assert_allclose(precision, np.linalg.inv(cov), rtol=0.02, atol=0.02)


def whitened_banana(draws, mapping):
    """Draws and exact scores of the banana under x -> mapping x, globally whitened."""
    mapped = draws @ mapping.T
    low = np.linalg.cholesky(np.cov(mapped.T))
    scores = banana_score(draws) @ np.linalg.inv(mapping) @ low  # the chain rule, twice
    return scores


@pytest.mark.parametrize("mapped", [False, True])
def test_the_map_gives_unit_average_precision_and_is_affine_equivariant(mapped):
    rng = np.random.default_rng(2)
    draws = sample_banana(100_000, D, B, V, rng)
    q, _ = np.linalg.qr(rng.standard_normal((D, D)))
    mapping = q * np.exp(rng.uniform(np.log(1e-2), np.log(1e2), D)) if mapped else np.eye(D)
    scores = whitened_banana(draws, mapping)
    precision = average_local_precision(scores)
    # whitened globally, the banana's thin direction is about 40 times more precise
    assert np.linalg.eigvalsh(precision).max() > 20
    assert np.linalg.eigvalsh(precision).min() > 0.5
    b = local_width_map(precision)
    in_u = average_local_precision(scores @ b)  # scores in u = B^-1 z are B^T s
    np.testing.assert_allclose(in_u, np.eye(D), atol=1e-8)
    np.testing.assert_allclose(b, b.T)


def test_without_a_score_count_eigenvalues_below_the_cramer_rao_bound_are_raised_to_it():
    precision = np.diag([0.25, 4.0])
    np.testing.assert_allclose(local_width_map(precision), np.diag([1.0, 0.5]))
    # too few scores to tell (n <= d): the same, and a singular estimate stays finite
    np.testing.assert_allclose(local_width_map(precision, n_scores=2), np.diag([1.0, 0.5]))
    assert np.all(np.isfinite(local_width_map(np.diag([-1e-17, 4.0]), n_scores=1)))


def test_noise_edge_is_the_smallest_eigenvalue_of_unit_precision_scores():
    rng = np.random.default_rng(4)
    for n, d in ((64, 8), (400, 8), (200, 20)):
        smallest = [
            np.linalg.eigvalsh(average_local_precision(rng.standard_normal((n, d)))).min()
            for _ in range(200)
        ]
        # the Marchenko-Pastur edge is the large-n limit; finite n lands close to it
        assert abs(np.median(smallest) - noise_edge(n, d)) < 0.35 * noise_edge(n, d)
    assert noise_edge(8, 8) == 0.0


def test_scores_of_unit_precision_leave_the_whitening_alone_and_a_too_thin_one_is_widened():
    rng = np.random.default_rng(5)
    n, d = 200, 8
    for _ in range(20):  # noise around the bound: no direction widened past sqrt(2)
        b = local_width_map(average_local_precision(rng.standard_normal((n, d))), n)
        assert np.linalg.eigvalsh(b).max() < np.sqrt(2.0)
    # the whitening made the last direction 100 times too thin: its scores are 100 times smaller
    scores = rng.standard_normal((n, d)) * np.r_[np.ones(d - 1), 0.01]
    b = local_width_map(average_local_precision(scores), n)
    widths = np.linalg.eigvalsh(b)
    edge = noise_edge(n, d)
    assert 100 * np.sqrt(edge) * 0.8 < widths.max() < 100 * 1.2  # conservative, sqrt(edge)
    assert widths[:-1].max() < np.sqrt(2.0)


def test_local_width_coordinates_do_not_depend_on_the_parametrisation():
    rng = np.random.default_rng(3)
    draws = sample_banana(20_000, D, B, V, rng)
    q, _ = np.linalg.qr(rng.standard_normal((D, D)))
    mapping = q * np.exp(rng.uniform(np.log(1e-2), np.log(1e2), D))
    distances = []
    for m in (np.eye(D), mapping):
        mapped = draws @ m.T
        low = np.linalg.cholesky(np.cov(mapped.T))
        z = np.linalg.solve(low, (mapped - mapped.mean(axis=0)).T).T
        b = local_width_map(average_local_precision(banana_score(draws) @ np.linalg.inv(m) @ low))
        u = np.linalg.solve(b, z.T).T
        distances.append(np.linalg.norm(u[:50, None] - u[None, :50], axis=-1))
    # the same points up to a rotation: the same distances
    np.testing.assert_allclose(distances[0], distances[1], rtol=1e-6, atol=1e-8)
