"""The python blocks of README.md and docs/, and running one as a user's script would run.

:func:`run_as_script` runs a block at its own budget and records, for every ``pm.sample`` call,
the result, the wall time and the warnings a user would have seen: every message of PyMC's
convergence logger (its R-hat, ESS and divergence warnings and the steps' notices, PyMC's
``SamplerWarning``; the R-hat one is logged at INFO), every record of any logger at WARNING or
above, and every Python warning the interpreter's default filters show for a script.
"""

from __future__ import annotations

import contextlib
import logging
import re
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import arviz as az
import numpy as np
import pymc as pm

from pymc_kameleon._compat import posterior_dataset

__all__ = [
    "PAGES",
    "ROOT",
    "Run",
    "block_containing",
    "python_blocks",
    "run_as_script",
    "shown_warnings",
]

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
PAGES = [p for p in PAGES if "_build" not in p.parts and "gallery" not in p.parts]
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
TRUST_RULE = "r_hat < 1.01 and ess_bulk > 400"
#: where PyMC logs its SamplerWarnings, at the level each names (R-hat's is INFO)
PYMC_WARNINGS_LOGGER = "pymc.stats.convergence"


def is_warning(record: logging.LogRecord) -> bool:
    """A record a user reads as a warning: one of PyMC's SamplerWarnings, or WARNING and above."""
    return record.levelno >= logging.WARNING or record.name == PYMC_WARNINGS_LOGGER


def python_blocks(page: Path) -> list[str]:
    """The page's python blocks, each padded with blank lines so tracebacks show page lines."""
    text = page.read_text()
    return [
        "\n" * text.count("\n", 0, match.start(1)) + match.group(1)
        for match in PYTHON_BLOCK.finditer(text)
    ]


def block_containing(page: Path, text: str) -> str:
    """The one python block of ``page`` that contains ``text``."""
    (block,) = [b for b in python_blocks(page) if text in b]
    return block


@contextlib.contextmanager
def shown_warnings() -> Iterator[list[warnings.WarningMessage]]:
    """Record the Python warnings a script would show: the interpreter's default filters
    (DeprecationWarning only from ``__main__``), not pytest's."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.resetwarnings()
        warnings.simplefilter("default")
        for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning,
                         ResourceWarning):  # fmt: skip
            warnings.filterwarnings("ignore", category=category)
        warnings.filterwarnings("default", category=DeprecationWarning, module="__main__")
        yield caught


@dataclass
class Run:
    """One ``pm.sample`` call of a block."""

    step: object
    result: object
    seconds: float
    logged: list[str] = field(default_factory=list)  # warnings logged, "logger: message"
    warned: list[str] = field(default_factory=list)  # Python warnings a script shows

    @property
    def summary(self):
        return az.summary(self.result, kind="diagnostics", round_to="none")

    @property
    def trusted(self) -> bool:
        """The README's trust rule: every r_hat below 1.01 and every bulk ESS above 400."""
        summary = self.summary
        return bool((summary["r_hat"] < 1.01).all() and (summary["ess_bulk"] > 400).all())

    @property
    def divergences(self) -> int:
        stats = posterior_dataset(self.result, "sample_stats")
        return int(np.sum(stats["diverging"].values)) if "diverging" in stats else 0

    def describe(self) -> str:
        """The measured figures, one line."""
        summary = self.summary
        name = type(self.step).__name__ if self.step is not None else "auto"
        if isinstance(self.step, list | tuple):
            name = "+".join(type(s).__name__ for s in self.step) + "+auto"
        return (
            f"{name}: max r_hat {summary['r_hat'].max():.4f}, min ess_bulk "
            f"{summary['ess_bulk'].min():.0f} ({summary['ess_bulk'].idxmin()}), divergences "
            f"{self.divergences}, {self.seconds:.1f} s, warnings {len(self.logged + self.warned)}"
        )


def run_as_script(page: Path, block: str, monkeypatch, caplog, replace=None) -> list[Run]:
    """Run ``block`` of ``page`` as a script (in ``__main__``) and return its ``pm.sample`` runs.

    ``replace`` maps text of the block to what it is replaced with (each must occur). Every
    ``pm.sample`` call gets ``progressbar=False`` and, unless it asks for more, ``cores=1``: the
    same draws as with any ``cores`` (PyMC's default on 2 cores), with every warning raised in
    this process. The caller changes to a scratch folder first if the block writes files.
    """
    for old, new in (replace or {}).items():
        assert old in block, old
        block = block.replace(old, new)
    runs: list[Run] = []
    real_sample = pm.sample

    def recording(*args, **kwargs):
        kwargs.setdefault("progressbar", False)
        kwargs.setdefault("cores", 1)
        first = len(caplog.records)
        with shown_warnings() as caught:
            start = time.perf_counter()
            result = real_sample(*args, **kwargs)
            seconds = time.perf_counter() - start
        logged = [f"{r.name}: {r.getMessage()}" for r in caplog.records[first:] if is_warning(r)]
        warned = [f"{w.category.__name__}: {w.message}" for w in caught]
        runs.append(Run(kwargs.get("step"), result, seconds, logged, warned))
        return result

    monkeypatch.setattr(pm, "sample", recording)
    caplog.set_level(logging.INFO)
    caplog.set_level(logging.INFO, logger="pymc")
    exec(compile(block, str(page), "exec"), {"__name__": "__main__"})
    return runs
