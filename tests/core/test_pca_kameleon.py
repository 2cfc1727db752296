"""PCA-Kameleon's mathematics against SciPy, finite differences and sampling frequencies."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from pymc_kameleon.core.kernels import GaussianKernel
from pymc_kameleon.core.proposals.pca_kameleon import (
    direction_vectors,
    draw_rank_one_mixture,
    principal_directions,
    rank_one_mixture_logpdf,
)

RNG = np.random.default_rng(3)
HISTORY = RNG.normal(size=(30, 4)) * [1.0, 2.0, 0.5, 1.0]
KERNEL = GaussianKernel(bandwidth=1.5)


def test_principal_directions_are_the_centred_gram_matrix_eigenvectors():
    vectors, values = principal_directions(HISTORY, KERNEL, 5)
    gram = np.array([[KERNEL.value(a, b[None])[0] for b in HISTORY] for a in HISTORY])
    h = np.eye(30) - 1.0 / 30
    centred = h @ gram @ h
    assert np.allclose(centred @ vectors, vectors * values, atol=1e-10)
    assert np.all(np.diff(values) <= 0) and np.allclose(vectors.T @ vectors, np.eye(5))
    assert np.allclose(vectors.sum(axis=0), 0.0, atol=1e-10)  # orthogonal to the constant


def test_directions_are_gradients_of_the_kernel_expansion():
    vectors, _ = principal_directions(HISTORY, KERNEL, 3)
    y = RNG.normal(size=4)
    got = direction_vectors(y, HISTORY, KERNEL, vectors)
    coefficients = vectors - vectors.mean(axis=0)  # H a_j

    def expansion(point):
        return 2.0 * KERNEL.value(point, HISTORY) @ coefficients

    step = 1e-6
    numeric = np.array(
        [(expansion(y + step * e) - expansion(y - step * e)) / (2 * step) for e in np.eye(4)]
    )
    assert np.allclose(got, numeric, rtol=1e-6, atol=1e-8)


def mixture_parts(m: int = 3, d: int = 4):
    directions = RNG.normal(size=(d, m))
    weights = RNG.dirichlet(np.ones(m))
    scales = RNG.uniform(0.5, 2.0, size=m)
    return directions, weights, scales


def test_logpdf_matches_scipy_mixture():
    directions, weights, scales = mixture_parts()
    center, gamma = RNG.normal(size=4), 0.3
    for _ in range(5):
        x = center + RNG.normal(size=4)
        expected = np.log(
            sum(
                w * multivariate_normal(center, gamma**2 * np.eye(4) + s**2 * np.outer(b, b)).pdf(x)
                for w, s, b in zip(weights, scales, directions.T)
            )
        )
        got = rank_one_mixture_logpdf(x, center, directions, np.log(weights), gamma, scales)
        assert got == pytest.approx(expected, rel=1e-10, abs=1e-10)


def test_draws_have_the_mixture_component_frequencies_and_covariance():
    directions, weights, scales = mixture_parts(m=2, d=3)
    center, gamma = np.zeros(3), 0.4
    rng = np.random.default_rng(11)
    n = 40_000
    draws, components = zip(
        *(draw_rank_one_mixture(center, directions, weights, gamma, scales, rng) for _ in range(n))
    )
    draws, components = np.array(draws), np.array(components)
    frequency = np.bincount(components, minlength=2) / n
    assert np.all(np.abs(frequency - weights) < 4 * np.sqrt(weights * (1 - weights) / n))
    covariance = gamma**2 * np.eye(3) + sum(
        w * s**2 * np.outer(b, b) for w, s, b in zip(weights, scales, directions.T)
    )
    standard_error = np.sqrt(
        (covariance**2 + np.outer(np.diag(covariance), np.diag(covariance))) / n
    )
    assert np.all(np.abs(np.cov(draws.T) - covariance) < 5 * standard_error)


def test_too_many_components_is_refused():
    with pytest.raises(ValueError, match="n_components must be between 1 and n - 1"):
        principal_directions(HISTORY, KERNEL, 30)
