"""Which warnings this package causes: recorded with the call stack, then attributed.

A library warns from its own code (``stacklevel`` often lands in the library itself, as in
PyTensor's deprecations), so the file a warning names does not say who caused it. A warning is
the package's when the innermost caller outside the warning library is in ``pymc_kameleon``
(our code called the deprecated API), when the warning names a file of ``pymc_kameleon``, or
when its message names a class of ours (PyTensor's "X should implement pullback" names the Op,
and PyMC, not our code, is what differentiates it).
"""

from __future__ import annotations

import contextlib
import traceback
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pymc_kameleon
from pymc_kameleon import pseudo_marginal

__all__ = ["PackageWarning", "record_package_warnings"]

PACKAGE_DIR = str(Path(pymc_kameleon.__file__).resolve().parent)
#: classes of ours that a library's message may name
OUR_CLASSES = ("NoisyTermGuard", "EstimatorOp", *pseudo_marginal.__all__, *pymc_kameleon.__all__)


@dataclass
class PackageWarning:
    category: type
    message: str
    caller: str  # the frame blamed: "path:line"

    def __str__(self) -> str:
        return f"{self.category.__name__} caused at {self.caller}: {self.message}"


def _library(filename: str) -> str:
    """The installed top-level package a file belongs to (``pytensor``, ``pymc``, ...)."""
    parts = Path(filename).parts
    if "site-packages" in parts:
        rest = parts[parts.index("site-packages") + 1 :]
        return rest[0] if rest else filename
    return str(Path(filename).parent)


def _is_ours(filename: str) -> bool:
    return str(Path(filename).resolve()).startswith(PACKAGE_DIR)


def _blame(filename: str, message: str, stack: list) -> str | None:
    if _is_ours(filename):
        return f"{filename}"
    library = _library(filename)
    callers = [f for f in stack if "warnings.py" not in f.filename and __file__ != f.filename]
    outside = [f for f in callers if _library(f.filename) != library]
    if outside and _is_ours(outside[-1].filename):
        return f"{outside[-1].filename}:{outside[-1].lineno}"
    named = [name for name in OUR_CLASSES if f"{name} " in message or f"{name}{{" in message]
    if named:
        return f"message names {named[0]}"
    return None


@contextlib.contextmanager
def record_package_warnings(
    categories: tuple[type, ...] = (FutureWarning, DeprecationWarning),
) -> Iterator[list[PackageWarning]]:
    """Record every warning of ``categories`` that this package causes inside the block.

    Every warning is shown (``"always"``, so one raised earlier in the session still counts),
    and each is attributed from the stack at the moment it is raised. Same process only: run
    ``pm.sample`` with ``cores=1``.

    Yields
    ------
    list of PackageWarning
        Filled as the block runs.
    """
    found: list[PackageWarning] = []

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        if not issubclass(category, categories):
            return
        text = str(message)
        caller = _blame(filename, text, traceback.extract_stack())
        if caller is not None:
            found.append(PackageWarning(category, text, caller))

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = show  # restored by catch_warnings
        yield found
