"""Benchmark targets with known ground truth.

The main target is the "banana" B(b, v) of Haario et al. (1999), as used in the Kernel Adaptive
Metropolis-Hastings paper (Sejdinovic et al., 2014). Let X ~ N(0, diag(v, 1, ..., 1)) in d
dimensions. The banana variable Y equals X except in its second coordinate,
``Y_2 = X_2 + b (X_1^2 - v)``. The map

    T(y)_1 = y_1 / sqrt(v),    T(y)_2 = y_2 - b (y_1^2 - v),    T(y)_k = y_k  (k > 2)

sends Y to N(0, I_d) and has the constant Jacobian determinant ``1 / sqrt(v)``, so
``log pi(y) = log N(T(y); 0, I_d) - log(v) / 2``. The mean of Y is exactly zero.

The two pseudo-marginal targets of the papers are here too: GP classification on UCI Glass
(:func:`glass_gpc_model`) and ABC with a skew-normal simulator (:func:`abc_skew_normal_model`).

Every banana function here has a NumPy version; :func:`banana_model` writes the same density as a
PyMC model whose only free variable is a flat vector, so the sampler starts at zero as in the
papers.
"""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytensor.tensor as pt

__all__ = [
    "abc_skew_normal_model",
    "banana_logp",
    "banana_model",
    "banana_to_gaussian",
    "flower_logp",
    "flower_model",
    "flower_radial_residual",
    "gaussian_model",
    "glass_gpc_model",
    "sample_banana",
    "sample_flower",
]

_LOG_2PI = float(np.log(2.0 * np.pi))


def _check_banana_args(d: int, v: float) -> None:
    if d < 2:
        raise ValueError(f"the banana needs at least 2 dimensions, got d={d}")
    if v <= 0:
        raise ValueError(f"the variance v must be positive, got v={v}")


def _log_normaliser(d: int, v: float) -> float:
    """Log of the banana's normalising factor: N(0, I_d) constant plus the Jacobian."""
    return -0.5 * d * _LOG_2PI - 0.5 * float(np.log(v))


def banana_to_gaussian(x: np.ndarray, b: float = 0.1, v: float = 100.0) -> np.ndarray:
    """Map banana-distributed points to standard normal coordinates.

    Parameters
    ----------
    x : numpy.ndarray
        Points of shape ``(..., d)`` with ``d >= 2``.
    b : float, default 0.1
        Twist (curvature) of the banana.
    v : float, default 100.0
        Variance of the first coordinate.

    Returns
    -------
    numpy.ndarray
        Array of the same shape as `x`; it is N(0, I_d) distributed if `x` is B(b, v).
    """
    x = np.asarray(x, dtype=float)
    _check_banana_args(x.shape[-1], v)
    z = x.copy()
    z[..., 0] = x[..., 0] / np.sqrt(v)
    z[..., 1] = x[..., 1] - b * (x[..., 0] ** 2 - v)
    return z


def banana_logp(x: np.ndarray, b: float = 0.1, v: float = 100.0) -> np.ndarray | float:
    """Normalised log density of the banana B(b, v).

    Parameters
    ----------
    x : numpy.ndarray
        One point of shape ``(d,)`` or a batch of shape ``(N, d)``; ``d >= 2``.
    b : float, default 0.1
        Twist (curvature) of the banana.
    v : float, default 100.0
        Variance of the first coordinate.

    Returns
    -------
    float or numpy.ndarray
        A float for a single point, otherwise an array of shape ``(N,)``.
    """
    z = banana_to_gaussian(x, b=b, v=v)
    logp = -0.5 * np.sum(z**2, axis=-1) + _log_normaliser(z.shape[-1], v)
    return float(logp) if np.ndim(logp) == 0 else logp


def sample_banana(
    n: int,
    d: int = 8,
    b: float = 0.1,
    v: float = 100.0,
    rng: int | np.random.Generator | None = None,
) -> np.ndarray:
    """Draw exact i.i.d. samples from the banana B(b, v).

    Parameters
    ----------
    n : int
        Number of samples.
    d : int, default 8
        Dimension, at least 2.
    b : float, default 0.1
        Twist (curvature) of the banana.
    v : float, default 100.0
        Variance of the first coordinate.
    rng : int, numpy.random.Generator or None, default None
        Seed or generator passed to :func:`numpy.random.default_rng`.

    Returns
    -------
    numpy.ndarray
        Samples of shape ``(n, d)``.
    """
    _check_banana_args(d, v)
    rng = np.random.default_rng(rng)
    y = rng.standard_normal((n, d))
    y[:, 0] *= np.sqrt(v)
    y[:, 1] += b * (y[:, 0] ** 2 - v)
    return y


def _banana_logp_pt(x: pt.TensorVariable, d: int, b: float, v: float) -> pt.TensorVariable:
    """Pytensor twin of :func:`banana_logp` for a vector `x` of length `d`."""
    z1 = x[0] / np.sqrt(v)
    z2 = x[1] - b * (x[0] ** 2 - v)
    sq_norm = z1**2 + z2**2 + pt.sum(x[2:] ** 2)
    return -0.5 * sq_norm + _log_normaliser(d, v)


def banana_model(d: int = 8, b: float = 0.1, v: float = 100.0, name: str = "x") -> pm.Model:
    """Build a PyMC model whose posterior is the banana B(b, v).

    The model has one free variable, ``pm.Flat(name, shape=d)``, and a ``pm.Potential`` holding
    the normalised banana log density, so ``model.initial_point()`` is the origin.

    Parameters
    ----------
    d : int, default 8
        Dimension, at least 2.
    b : float, default 0.1
        Twist (curvature) of the banana.
    v : float, default 100.0
        Variance of the first coordinate.
    name : str, default "x"
        Name of the vector variable.

    Returns
    -------
    pymc.Model
        The model; its log density equals :func:`banana_logp`.
    """
    _check_banana_args(d, v)
    with pm.Model() as model:
        x = pm.Flat(name, shape=d)
        pm.Potential(f"{name}_banana_logp", _banana_logp_pt(x, d, b, v))
    return model


def _check_flower_args(d: int, r0: float, amplitude: float, sigma: float) -> None:
    if d < 2:
        raise ValueError(f"the flower needs at least 2 dimensions, got d={d}")
    if not (sigma > 0 and r0 > amplitude >= 0):
        raise ValueError(
            "the flower needs sigma > 0 and r0 > amplitude >= 0 (so that every petal has a "
            f"positive radius), got r0={r0}, amplitude={amplitude}, sigma={sigma}"
        )


def flower_radial_residual(
    x: np.ndarray, r0: float = 10.0, amplitude: float = 6.0, frequency: float = 6.0
) -> np.ndarray:
    """Radial residual ``r - r0 - A cos(omega phi)``, ``(r, phi)`` the polar form of (x1, x2).

    Parameters
    ----------
    x : numpy.ndarray
        Points of shape ``(..., d)``, ``d >= 2``.
    r0, amplitude, frequency : float
        Mean radius, petal amplitude ``A`` and number of petals ``omega``.

    Returns
    -------
    numpy.ndarray
        Shape ``x.shape[:-1]``.
    """
    x = np.asarray(x, dtype=float)
    radius = np.hypot(x[..., 0], x[..., 1])
    angle = np.arctan2(x[..., 1], x[..., 0])
    return radius - r0 - amplitude * np.cos(frequency * angle)


def flower_logp(
    x: np.ndarray,
    r0: float = 10.0,
    amplitude: float = 6.0,
    frequency: float = 6.0,
    sigma: float = 1.0,
) -> np.ndarray | float:
    """Unnormalised log density of the flower F(r0, A, omega, sigma).

    Convention (the KAMH paper's intent; its authors' code used the norm of the whole vector):
    the radius is that of ``(x1, x2)`` only, the numerator is squared, and the other coordinates
    are independent standard normals,

        ``log pi(x) = -(r - r0 - A cos(omega phi))^2 / (2 sigma^2) - |x_{3:d}|^2 / 2 + const``.

    By the ``omega``-fold rotational symmetry the mean is exactly zero for integer ``omega >= 2``.

    Parameters
    ----------
    x : numpy.ndarray
        One point ``(d,)`` or a batch ``(N, d)``, ``d >= 2``.
    r0, amplitude, frequency, sigma : float
        The flower's parameters (defaults: F(10, 6, 6, 1)).

    Returns
    -------
    float or numpy.ndarray
    """
    x = np.asarray(x, dtype=float)
    _check_flower_args(x.shape[-1], r0, amplitude, sigma)
    residual = flower_radial_residual(x, r0, amplitude, frequency)
    logp = -0.5 * (residual / sigma) ** 2 - 0.5 * np.sum(x[..., 2:] ** 2, axis=-1)
    return float(logp) if np.ndim(logp) == 0 else logp


def sample_flower(
    n: int,
    d: int = 8,
    r0: float = 10.0,
    amplitude: float = 6.0,
    frequency: float = 6.0,
    sigma: float = 1.0,
    rng: int | np.random.Generator | None = None,
) -> np.ndarray:
    """Exact i.i.d. draws from the flower of :func:`flower_logp`, by rejection sampling.

    In polar coordinates the (x1, x2) density is ``r N(r; mu(phi), sigma^2)`` on ``r > 0`` with
    ``mu(phi) = r0 + A cos(omega phi)``. Proposals are ``phi ~ U(-pi, pi)`` and
    ``r ~ N(mu(phi), sigma^2)``, accepted with probability ``r / r_max`` for
    ``0 < r < r_max = r0 + A + 9 sigma`` (the mass beyond ``r_max`` is below 1e-18).

    Parameters
    ----------
    n : int
        Number of draws.
    d : int, default 8
        Dimension, at least 2.
    r0, amplitude, frequency, sigma : float
        The flower's parameters.
    rng : int, numpy.random.Generator or None
        Seed or generator.

    Returns
    -------
    numpy.ndarray
        Shape ``(n, d)``.
    """
    _check_flower_args(d, r0, amplitude, sigma)
    rng = np.random.default_rng(rng)
    r_max = r0 + amplitude + 9.0 * sigma
    radii, angles = [], []
    missing = n
    while missing > 0:
        batch = 2 * missing + 100
        phi = rng.uniform(-np.pi, np.pi, batch)
        r = r0 + amplitude * np.cos(frequency * phi) + sigma * rng.standard_normal(batch)
        keep = (r > 0) & (r < r_max) & (rng.uniform(0.0, r_max, batch) < r)
        radii.append(r[keep][:missing])
        angles.append(phi[keep][:missing])
        missing -= radii[-1].size
    r, phi = np.concatenate(radii), np.concatenate(angles)
    out = rng.standard_normal((n, d))
    out[:, 0], out[:, 1] = r * np.cos(phi), r * np.sin(phi)
    return out


def flower_model(
    d: int = 8,
    r0: float = 10.0,
    amplitude: float = 6.0,
    frequency: float = 6.0,
    sigma: float = 1.0,
    name: str = "x",
) -> pm.Model:
    """PyMC model whose posterior is the flower of :func:`flower_logp`.

    One free variable ``pm.Flat(name, shape=d)`` and a ``pm.Potential``; the initial point is
    the origin, where the density is finite (the angle of the origin is taken as 0).

    Parameters
    ----------
    d : int, default 8
        Dimension, at least 2.
    r0, amplitude, frequency, sigma : float
        The flower's parameters (defaults: F(10, 6, 6, 1)).
    name : str, default "x"
        Name of the vector variable.

    Returns
    -------
    pymc.Model
    """
    _check_flower_args(d, r0, amplitude, sigma)
    with pm.Model() as model:
        x = pm.Flat(name, shape=d)
        radius = pt.sqrt(x[0] ** 2 + x[1] ** 2)
        angle = pt.arctan2(x[1], x[0])
        residual = radius - r0 - amplitude * pt.cos(frequency * angle)
        pm.Potential(
            f"{name}_flower_logp",
            -0.5 * (residual / sigma) ** 2 - 0.5 * pt.sum(x[2:] ** 2),
        )
    return model


def gaussian_model(cov: np.ndarray, name: str = "x") -> pm.Model:
    """Build a PyMC model whose posterior is N(0, cov), for sanity checks.

    Parameters
    ----------
    cov : numpy.ndarray
        Symmetric positive definite covariance matrix of shape ``(d, d)``.
    name : str, default "x"
        Name of the vector variable.

    Returns
    -------
    pymc.Model
        A model with the single variable ``pm.MvNormal(name, mu=0, cov=cov)``.
    """
    cov = np.asarray(cov, dtype=float)
    if cov.ndim != 2 or cov.shape[0] != cov.shape[1]:
        raise ValueError(f"cov must be a square matrix, got shape {cov.shape}")
    with pm.Model() as model:
        pm.MvNormal(name, mu=np.zeros(cov.shape[0]), cov=cov)
    return model


def glass_gpc_model(n_importance: int = 100, name: str = "theta") -> pm.Model:
    """GP classification on UCI Glass with an importance-sampling likelihood estimate.

    The experiment of both papers: 9 ARD log squared length scales ``theta`` of a Gaussian
    kernel on the whitened Glass features, labels window (163) vs non-window (51) glass, prior
    ``N(0, 5 I)``, and ``log p_hat(y | theta)`` by importance sampling from the Laplace
    approximation (:mod:`pymc_kameleon.core.gp_classification`), wrapped with
    :func:`pymc_kameleon.estimator_potential`. Sample it with this package's steps only.

    Parameters
    ----------
    n_importance : int, default 100
        Importance samples per likelihood estimate (fewer: cheaper but noisier).
    name : str, default "theta"
        Name of the free variable (shape ``(9,)``).

    Returns
    -------
    pymc.Model
    """
    from pymc_kameleon.core.gp_classification import (
        GPC_PRIOR_VARIANCE,
        make_gpc_log_likelihood_estimator,
    )
    from pymc_kameleon.datasets import load_glass_gpc
    from pymc_kameleon.pseudo_marginal import estimator_potential

    X, y = load_glass_gpc()
    estimate = make_gpc_log_likelihood_estimator(X, y, n_importance=n_importance)
    with pm.Model() as model:
        theta = pm.Normal(name, 0.0, np.sqrt(GPC_PRIOR_VARIANCE), shape=X.shape[1])
        estimator_potential("loglike", estimate, theta)
    return model


def abc_skew_normal_model(
    n_simulations: int = 10, epsilon: float = 0.55, name: str = "theta"
) -> pm.Model:
    """ABC posterior of the 10-D skew-normal location, as an exact pseudo-marginal target.

    Prior ``N(0, 25 I)``; the likelihood of the observed summary (the mean of 10 skew-normal
    draws at ``theta_true = 10 * 1``) is estimated by averaging a normalised Gaussian ABC kernel
    of bandwidth ``epsilon`` over ``n_simulations`` fresh simulations
    (:mod:`pymc_kameleon.core.abc`). The samplers of this package keep the current state's
    estimate, so the chain targets the ABC posterior exactly.

    Parameters
    ----------
    n_simulations : int, default 10
        Simulated data sets per likelihood estimate.
    epsilon : float, default 0.55
        ABC kernel bandwidth.
    name : str, default "theta"
        Name of the free variable (shape ``(10,)``).

    Returns
    -------
    pymc.Model
    """
    from pymc_kameleon.core.abc import (
        ABC_DIMENSION,
        ABC_PRIOR_VARIANCE,
        make_abc_log_likelihood_estimator,
    )
    from pymc_kameleon.pseudo_marginal import estimator_potential

    estimate = make_abc_log_likelihood_estimator(n_simulations=n_simulations, epsilon=epsilon)
    with pm.Model() as model:
        theta = pm.Normal(name, 0.0, np.sqrt(ABC_PRIOR_VARIANCE), shape=ABC_DIMENSION)
        estimator_potential("loglike", estimate, theta)
    return model
