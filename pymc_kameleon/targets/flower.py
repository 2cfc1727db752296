"""The "flower" F(r0, A, omega, sigma): a ring with ``omega`` petals, exact density and draws.

A target of the Kernel Adaptive Metropolis-Hastings paper (Sejdinovic et al., 2014): the
radius of ``(x1, x2)`` follows ``r0 + A cos(omega phi)`` up to Gaussian noise of scale
``sigma``; the other coordinates are independent standard normals.
"""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytensor.tensor as pt

__all__ = [
    "flower_logp",
    "flower_model",
    "flower_radial_residual",
    "sample_flower",
]


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
