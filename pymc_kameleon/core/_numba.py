"""The one place that detects Numba: ``HAVE_NUMBA`` and the ``njit`` decorator.

Numba is a dependency of PyTensor, so it is normally present; every compiled loop of the package
has a NumPy twin used when it is not. Modules with compiled loops import both names from here.
"""

from __future__ import annotations

__all__ = ["HAVE_NUMBA", "njit"]

try:  # pragma: no cover - depends on the environment
    from numba import njit

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover
    njit = None
    HAVE_NUMBA = False
