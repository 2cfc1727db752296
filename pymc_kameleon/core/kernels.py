"""Positive-definite kernels for the kernel-adaptive (Kameleon) proposal.

Every kernel provides its value and its gradient with respect to the *first*
argument, vectorised over a history matrix ``Z`` of shape ``(n, d)``:

* ``kernel.value(x, Z)`` returns the vector ``k(x, z_i)`` of shape ``(n,)``;
* ``kernel.grad(x, Z)`` returns the matrix of shape ``(n, d)`` whose row ``i``
  is the gradient ``∇_x k(x, z_i)``.

Conventions
-----------
Throughout, ``r = ||x - z||`` is the Euclidean distance and the ``bandwidth``
attribute is a **length scale** (same units as ``x``):

* Gaussian: ``k = exp(-r**2 / (2 * sigma**2))`` with ``sigma = bandwidth``.
  This is *not* the ``exp(-r**2 / sigma)`` or ``exp(-gamma * r**2)``
  parametrisations used by some papers and codes.
* Matern 3/2: ``k = (1 + sqrt(3) r / l) exp(-sqrt(3) r / l)``, ``l = bandwidth``.
* Matern 5/2: ``k = (1 + sqrt(5) r / l + 5 r**2 / (3 l**2)) exp(-sqrt(5) r / l)``.
* Linear: ``k = x . z`` (no bandwidth).

All gradients are evaluated in closed form as a scalar weight times
``(z - x)``, so they are smooth at ``r = 0`` and never divide by ``r``.

:func:`pymc_kameleon.core.bandwidth.median_heuristic` turns a sample (typically the MCMC
history) into a data-driven length scale.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from pymc_kameleon.core.checks import check_positive

__all__ = [
    "KERNELS",
    "GaussianKernel",
    "Kernel",
    "LinearKernel",
    "Matern32Kernel",
    "Matern52Kernel",
    "make_kernel",
]

_SQRT3 = math.sqrt(3.0)
_SQRT5 = math.sqrt(5.0)
_PLACEHOLDER_BANDWIDTH = 1.0


def _diff_and_sq_dist(x: np.ndarray, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``Z - x`` (as float) and the squared Euclidean norms of its rows.

    Parameters
    ----------
    x : numpy.ndarray
        Point of shape ``(d,)``.
    Z : numpy.ndarray
        History of shape ``(n, d)``.

    Returns
    -------
    diff : numpy.ndarray
        Freshly allocated array ``Z - x`` of shape ``(n, d)``, dtype float64.
    sq_dist : numpy.ndarray
        Squared distances ``||z_i - x||**2`` of shape ``(n,)``.
    """
    diff = np.subtract(Z, x, dtype=np.float64)
    sq_dist = np.einsum("ij,ij->i", diff, diff)
    return diff, sq_dist


def _sq_dist(x: np.ndarray, Z: np.ndarray) -> np.ndarray:
    """Return the squared Euclidean distances between ``x`` and each row of ``Z``.

    Parameters
    ----------
    x : numpy.ndarray
        Point of shape ``(d,)``.
    Z : numpy.ndarray
        History of shape ``(n, d)``.

    Returns
    -------
    numpy.ndarray
        Squared distances of shape ``(n,)``.
    """
    return _diff_and_sq_dist(x, Z)[1]


class Kernel(ABC):
    """Abstract positive-definite kernel ``k(x, z)``.

    Concrete kernels are frozen dataclasses, hence immutable, hashable and
    picklable.

    Attributes
    ----------
    name : str
        Registry name of the kernel (class attribute).
    has_bandwidth : bool
        Whether the kernel has a ``bandwidth`` length scale (class attribute).
    """

    name: ClassVar[str]
    has_bandwidth: ClassVar[bool]

    @abstractmethod
    def value(self, x: np.ndarray, Z: np.ndarray) -> np.ndarray:
        """Evaluate ``k(x, z_i)`` for every row ``z_i`` of ``Z``.

        Parameters
        ----------
        x : numpy.ndarray
            Point of shape ``(d,)``.
        Z : numpy.ndarray
            History of shape ``(n, d)``.

        Returns
        -------
        numpy.ndarray
            Kernel values of shape ``(n,)``.
        """

    @abstractmethod
    def grad(self, x: np.ndarray, Z: np.ndarray) -> np.ndarray:
        """Evaluate ``∇_x k(x, z_i)`` for every row ``z_i`` of ``Z``.

        Parameters
        ----------
        x : numpy.ndarray
            Point of shape ``(d,)``.
        Z : numpy.ndarray
            History of shape ``(n, d)``.

        Returns
        -------
        numpy.ndarray
            Gradients of shape ``(n, d)``; row ``i`` is the gradient of
            ``k(., z_i)`` at ``x``. The array is newly allocated.
        """

    @abstractmethod
    def with_bandwidth(self, bandwidth: float) -> Kernel:
        """Return a kernel of the same family with another bandwidth.

        Parameters
        ----------
        bandwidth : float
            New length scale, a finite float > 0.

        Returns
        -------
        Kernel
            The new kernel (kernels without a bandwidth return ``self``).
        """


class _BandwidthKernel(Kernel):
    """Shared validation and ``with_bandwidth`` for length-scale kernels."""

    has_bandwidth: ClassVar[bool] = True
    bandwidth: float

    def __post_init__(self) -> None:
        """Validate the bandwidth and store it as a Python ``float``."""
        object.__setattr__(self, "bandwidth", check_positive("bandwidth", self.bandwidth))

    def with_bandwidth(self, bandwidth: float) -> Kernel:
        """Return a copy of this kernel with a new bandwidth.

        Parameters
        ----------
        bandwidth : float
            New length scale, a finite float > 0.

        Returns
        -------
        Kernel
            A new kernel of the same class.

        Raises
        ------
        ValueError
            If ``bandwidth`` is not a finite float > 0.
        """
        return replace(self, bandwidth=bandwidth)  # type: ignore[type-var]


@dataclass(frozen=True)
class GaussianKernel(_BandwidthKernel):
    """Gaussian (squared-exponential) kernel.

    ``k(x, z) = exp(-||x - z||**2 / (2 * sigma**2))`` and
    ``∇_x k = k * (z - x) / sigma**2``.

    Parameters
    ----------
    bandwidth : float
        Length scale ``sigma`` (finite, > 0).
    """

    name: ClassVar[str] = "gaussian"
    bandwidth: float

    def value(self, x: np.ndarray, Z: np.ndarray) -> np.ndarray:
        sq = _sq_dist(x, Z)
        sq *= -0.5 / (self.bandwidth * self.bandwidth)
        return np.exp(sq, out=sq)

    def grad(self, x: np.ndarray, Z: np.ndarray) -> np.ndarray:
        inv_s2 = 1.0 / (self.bandwidth * self.bandwidth)
        diff, weight = _diff_and_sq_dist(x, Z)
        weight *= -0.5 * inv_s2
        np.exp(weight, out=weight)
        weight *= inv_s2
        diff *= weight[:, None]
        return diff


@dataclass(frozen=True)
class Matern32Kernel(_BandwidthKernel):
    """Matern kernel with smoothness 3/2.

    ``k(x, z) = (1 + s) exp(-s)`` with ``s = sqrt(3) ||x - z|| / l`` and
    ``∇_x k = (3 / l**2) exp(-s) (z - x)``.

    Parameters
    ----------
    bandwidth : float
        Length scale ``l`` (finite, > 0).
    """

    name: ClassVar[str] = "matern32"
    bandwidth: float

    def value(self, x: np.ndarray, Z: np.ndarray) -> np.ndarray:
        s = np.sqrt(_sq_dist(x, Z))
        s *= _SQRT3 / self.bandwidth
        return (1.0 + s) * np.exp(-s)

    def grad(self, x: np.ndarray, Z: np.ndarray) -> np.ndarray:
        diff, weight = _diff_and_sq_dist(x, Z)
        np.sqrt(weight, out=weight)
        weight *= -_SQRT3 / self.bandwidth
        np.exp(weight, out=weight)
        weight *= 3.0 / (self.bandwidth * self.bandwidth)
        diff *= weight[:, None]
        return diff


@dataclass(frozen=True)
class Matern52Kernel(_BandwidthKernel):
    """Matern kernel with smoothness 5/2.

    ``k(x, z) = (1 + s + s**2 / 3) exp(-s)`` with ``s = sqrt(5) ||x - z|| / l``
    (note ``s**2 / 3 = 5 r**2 / (3 l**2)``) and
    ``∇_x k = (5 / (3 l**2)) (1 + s) exp(-s) (z - x)``.

    Parameters
    ----------
    bandwidth : float
        Length scale ``l`` (finite, > 0).
    """

    name: ClassVar[str] = "matern52"
    bandwidth: float

    def value(self, x: np.ndarray, Z: np.ndarray) -> np.ndarray:
        s = np.sqrt(_sq_dist(x, Z))
        s *= _SQRT5 / self.bandwidth
        return (1.0 + s + s * s / 3.0) * np.exp(-s)

    def grad(self, x: np.ndarray, Z: np.ndarray) -> np.ndarray:
        diff, s = _diff_and_sq_dist(x, Z)
        np.sqrt(s, out=s)
        s *= _SQRT5 / self.bandwidth
        weight = (1.0 + s) * np.exp(-s)
        weight *= 5.0 / (3.0 * self.bandwidth * self.bandwidth)
        diff *= weight[:, None]
        return diff


@dataclass(frozen=True)
class LinearKernel(Kernel):
    """Linear kernel ``k(x, z) = x . z`` with ``∇_x k = z``."""

    name: ClassVar[str] = "linear"
    has_bandwidth: ClassVar[bool] = False

    def value(self, x: np.ndarray, Z: np.ndarray) -> np.ndarray:
        return np.asarray(Z, dtype=np.float64) @ np.asarray(x, dtype=np.float64)

    def grad(self, x: np.ndarray, Z: np.ndarray) -> np.ndarray:
        return np.array(Z, dtype=np.float64, copy=True)

    def with_bandwidth(self, bandwidth: float) -> Kernel:
        """Return ``self``: the linear kernel has no bandwidth.

        Parameters
        ----------
        bandwidth : float
            Ignored.

        Returns
        -------
        Kernel
            This kernel, unchanged.
        """
        return self


KERNELS: dict[str, type[Kernel]] = {
    cls.name: cls for cls in (GaussianKernel, Matern32Kernel, Matern52Kernel, LinearKernel)
}


def make_kernel(name: str, bandwidth: float | None = None) -> Kernel:
    """Build a kernel from its registry name.

    Parameters
    ----------
    name : str
        One of ``"gaussian"``, ``"matern32"``, ``"matern52"``, ``"linear"``.
    bandwidth : float or None, optional
        Length scale for kernels that have one. ``None`` gives a placeholder
        bandwidth of 1.0, to be replaced later via ``Kernel.with_bandwidth``.
        Ignored by the linear kernel.

    Returns
    -------
    Kernel
        The kernel instance.

    Raises
    ------
    ValueError
        If ``name`` is unknown or ``bandwidth`` is not a finite float > 0.
    """
    cls = KERNELS.get(name) if isinstance(name, str) else None
    if cls is None:
        allowed = ", ".join(repr(key) for key in KERNELS)
        raise ValueError(f"unknown kernel name {name!r}; allowed names are {allowed}")
    if not cls.has_bandwidth:
        return cls()
    if bandwidth is None:
        bandwidth = _PLACEHOLDER_BANDWIDTH
    return cls(bandwidth=check_positive("bandwidth", bandwidth))  # type: ignore[call-arg]
