"""The "banana" B(b, v) of Haario et al. (1999), with its exact density and exact draws.

It is the main target of the Kernel Adaptive Metropolis-Hastings paper (Sejdinovic et al., 2014).
Let X ~ N(0, diag(v, 1, ..., 1)) in d dimensions. The banana variable Y equals X except in its
second coordinate, ``Y_2 = X_2 + b (X_1^2 - v)``. The map

    T(y)_1 = y_1 / sqrt(v),    T(y)_2 = y_2 - b (y_1^2 - v),    T(y)_k = y_k  (k > 2)

sends Y to N(0, I_d) and has the constant Jacobian determinant ``1 / sqrt(v)``, so
``log pi(y) = log N(T(y); 0, I_d) - log(v) / 2``. The mean of Y is exactly zero.

Every banana function here has a NumPy version; :func:`banana_model` writes the same density as a
PyMC model whose only free variable is a flat vector, so the sampler starts at zero as in the
papers.
"""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytensor.tensor as pt

__all__ = [
    "banana_logp",
    "banana_model",
    "banana_to_gaussian",
    "sample_banana",
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
