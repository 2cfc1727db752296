"""Tests for :mod:`pymc_kameleon.core.kernels`."""

from __future__ import annotations

import math
import pickle
import re
from collections.abc import Callable

import numpy as np
import pytest

from pymc_kameleon.core.kernels import (
    KERNELS,
    GaussianKernel,
    Kernel,
    LinearKernel,
    Matern32Kernel,
    Matern52Kernel,
    make_kernel,
)

N, D = 7, 3
BANDWIDTH = 1.3


def _gaussian_ref(x: np.ndarray, z: np.ndarray, h: float) -> float:
    """Evaluate the Gaussian kernel for one pair (reference)."""
    return math.exp(-float(np.sum((x - z) ** 2)) / (2.0 * h**2))


def _matern32_ref(x: np.ndarray, z: np.ndarray, h: float) -> float:
    """Evaluate the Matern 3/2 kernel for one pair (reference)."""
    r = math.sqrt(float(np.sum((x - z) ** 2)))
    return (1.0 + math.sqrt(3.0) * r / h) * math.exp(-math.sqrt(3.0) * r / h)


def _matern52_ref(x: np.ndarray, z: np.ndarray, h: float) -> float:
    """Evaluate the Matern 5/2 kernel for one pair (reference)."""
    r = math.sqrt(float(np.sum((x - z) ** 2)))
    s = math.sqrt(5.0) * r / h
    return (1.0 + s + 5.0 * r**2 / (3.0 * h**2)) * math.exp(-s)


def _linear_ref(x: np.ndarray, z: np.ndarray, h: float) -> float:
    """Evaluate the linear kernel for one pair (reference)."""
    return float(sum(a * b for a, b in zip(x, z, strict=True)))


REFERENCES: dict[str, Callable[[np.ndarray, np.ndarray, float], float]] = {
    "gaussian": _gaussian_ref,
    "matern32": _matern32_ref,
    "matern52": _matern52_ref,
    "linear": _linear_ref,
}
ALL_KERNELS = [
    GaussianKernel(BANDWIDTH),
    Matern32Kernel(BANDWIDTH),
    Matern52Kernel(BANDWIDTH),
    LinearKernel(),
]
BANDWIDTH_CLASSES = [GaussianKernel, Matern32Kernel, Matern52Kernel]


def _history() -> np.ndarray:
    """Return a random history matrix of shape ``(N, D)``."""
    return np.random.default_rng(42).normal(size=(N, D))


def _points() -> dict[str, np.ndarray]:
    """Return evaluation points: generic, on a history row (r = 0), and far away."""
    Z = _history()
    rng = np.random.default_rng(7)
    return {
        "random": rng.normal(size=D),
        "on_row": Z[2].copy(),
        "far": np.full(D, 4.0 * BANDWIDTH),
    }


def _fd_grad(kernel: Kernel, x: np.ndarray, Z: np.ndarray, step: float = 1e-6) -> np.ndarray:
    """Central finite-difference gradient of ``kernel.value`` w.r.t. ``x``."""
    out = np.empty(Z.shape)
    for j in range(x.size):
        e = np.zeros_like(x)
        e[j] = step
        out[:, j] = (kernel.value(x + e, Z) - kernel.value(x - e, Z)) / (2.0 * step)
    return out


@pytest.mark.parametrize("kernel", ALL_KERNELS, ids=lambda k: k.name)
@pytest.mark.parametrize("where", ["random", "on_row", "far"])
def test_value_matches_loop(kernel: Kernel, where: str) -> None:
    """Vectorised values agree with a direct per-row formula."""
    Z = _history()
    x = _points()[where]
    ref = REFERENCES[kernel.name]
    expected = np.array([ref(x, z, BANDWIDTH) for z in Z])
    got = kernel.value(x, Z)
    assert got.shape == (N,)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("kernel", ALL_KERNELS, ids=lambda k: k.name)
@pytest.mark.parametrize("where", ["random", "on_row", "far"])
def test_grad_matches_finite_differences(kernel: Kernel, where: str) -> None:
    """Closed-form gradients agree with central finite differences."""
    Z = _history()
    x = _points()[where]
    got = kernel.grad(x, Z)
    assert got.shape == (N, D)
    assert np.all(np.isfinite(got))
    expected = _fd_grad(kernel, x, Z)
    # Absolute tolerance relative to the gradient scale, so tiny far-field values still count.
    atol = 1e-7 * float(np.abs(expected).max())
    assert atol > 0.0
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=atol)


@pytest.mark.parametrize("kernel", ALL_KERNELS, ids=lambda k: k.name)
def test_grad_does_not_alias_inputs(kernel: Kernel) -> None:
    """Mutating the returned gradient leaves the inputs untouched."""
    Z = _history()
    Z_before = Z.copy()
    x = _points()["random"]
    g = kernel.grad(x, Z)
    g[...] = 123.0
    np.testing.assert_array_equal(Z, Z_before)


@pytest.mark.parametrize("cls", BANDWIDTH_CLASSES, ids=lambda c: c.name)
def test_value_one_and_grad_zero_at_coincident_point(cls: type[Kernel]) -> None:
    """At r = 0 the kernel equals 1 and its gradient vanishes."""
    kernel = cls(BANDWIDTH)  # type: ignore[call-arg]
    Z = _history()
    x = Z[4].copy()
    assert kernel.value(x, Z)[4] == pytest.approx(1.0, abs=1e-15)
    np.testing.assert_array_equal(kernel.grad(x, Z)[4], np.zeros(D))


@pytest.mark.parametrize("cls", BANDWIDTH_CLASSES, ids=lambda c: c.name)
def test_grad_continuous_at_zero_distance(cls: type[Kernel]) -> None:
    """The gradient tends to zero as x approaches a history point."""
    kernel = cls(BANDWIDTH)  # type: ignore[call-arg]
    z = np.array([[0.3, -0.2, 0.5]])
    direction = np.array([1.0, 2.0, -2.0]) / 3.0
    norms = [np.linalg.norm(kernel.grad(z[0] + eps * direction, z)) for eps in (1e-2, 1e-4, 1e-6)]
    assert norms[0] > norms[1] > norms[2]
    assert norms[2] < 1e-5


def test_linear_grad_is_history() -> None:
    """The linear kernel's gradient rows are the history rows."""
    Z = _history()
    np.testing.assert_array_equal(LinearKernel().grad(np.ones(D), Z), Z)


def test_gaussian_bandwidth_is_length_scale() -> None:
    """At distance sigma the Gaussian kernel equals exp(-1/2)."""
    sigma = 2.5
    Z = np.array([[sigma, 0.0]])
    assert GaussianKernel(sigma).value(np.zeros(2), Z)[0] == pytest.approx(math.exp(-0.5))


def test_registry_and_make_kernel() -> None:
    """The registry holds the four kernels and ``make_kernel`` builds them."""
    assert set(KERNELS) == {"gaussian", "matern32", "matern52", "linear"}
    for name, cls in KERNELS.items():
        kernel = make_kernel(name, 2.0)
        assert isinstance(kernel, cls)
        assert kernel.name == name
        if cls.has_bandwidth:
            assert kernel.bandwidth == 2.0  # type: ignore[attr-defined]


@pytest.mark.parametrize("cls", BANDWIDTH_CLASSES, ids=lambda c: c.name)
def test_make_kernel_placeholder_and_with_bandwidth(cls: type[Kernel]) -> None:
    """``bandwidth=None`` gives a placeholder of 1.0 that can be replaced."""
    kernel = make_kernel(cls.name)
    assert kernel.bandwidth == 1.0  # type: ignore[attr-defined]
    updated = kernel.with_bandwidth(3.0)
    assert type(updated) is cls
    assert updated.bandwidth == 3.0  # type: ignore[attr-defined]
    assert kernel.bandwidth == 1.0  # type: ignore[attr-defined]


def test_linear_ignores_bandwidth() -> None:
    """The linear kernel ignores any bandwidth."""
    kernel = make_kernel("linear", bandwidth=-5.0)
    assert kernel == LinearKernel()
    assert not kernel.has_bandwidth
    assert kernel.with_bandwidth(2.0) is kernel


def test_bandwidth_stored_as_python_float() -> None:
    """NumPy scalars are converted so equality and hashing are stable."""
    kernel = GaussianKernel(np.float64(2.0))  # type: ignore[arg-type]
    assert type(kernel.bandwidth) is float
    assert kernel == GaussianKernel(2.0)
    assert hash(kernel) == hash(GaussianKernel(2.0))


BAD_BANDWIDTHS = [0.0, -1.0, float("nan"), float("inf"), "wide", True]


@pytest.mark.parametrize("cls", BANDWIDTH_CLASSES, ids=lambda c: c.name)
@pytest.mark.parametrize("bad", BAD_BANDWIDTHS, ids=repr)
def test_bad_bandwidth_rejected(cls: type[Kernel], bad: object) -> None:
    """Constructor, ``make_kernel`` and ``with_bandwidth`` reject bad values."""
    pattern = rf"bandwidth.*finite number > 0.*{re.escape(repr(bad))}"
    with pytest.raises(ValueError, match=pattern):
        cls(bad)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match=pattern):
        make_kernel(cls.name, bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=pattern):
        make_kernel(cls.name).with_bandwidth(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["rbf", "Gaussian", "", None])
def test_unknown_kernel_name(name: object) -> None:
    """Unknown names raise and list every allowed name."""
    with pytest.raises(ValueError, match="unknown kernel") as info:
        make_kernel(name)  # type: ignore[arg-type]
    for allowed in ("gaussian", "matern32", "matern52", "linear"):
        assert allowed in str(info.value)


@pytest.mark.parametrize("kernel", ALL_KERNELS, ids=lambda k: k.name)
def test_hashable_and_picklable(kernel: Kernel) -> None:
    """Kernels are immutable, hashable and survive a pickle round trip."""
    clone = pickle.loads(pickle.dumps(kernel))
    assert clone == kernel
    assert hash(clone) == hash(kernel)
    assert len({kernel, clone}) == 1
    if kernel.has_bandwidth:
        with pytest.raises(AttributeError):
            kernel.bandwidth = 2.0  # type: ignore[misc]


def test_kernels_differ_by_class_and_bandwidth() -> None:
    """Equality distinguishes families and bandwidths."""
    assert GaussianKernel(1.0) != Matern32Kernel(1.0)
    assert GaussianKernel(1.0) != GaussianKernel(2.0)
