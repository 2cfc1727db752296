"""Command line: build references, run the suite, redraw its report.

Usage::

    python -m pymc_kameleon.bench real-references [--models NAME ...]
    python -m pymc_kameleon.bench real-references-is --models NAME ... [--draws N] [--save]
    python -m pymc_kameleon.bench real [--models ...] [--samplers ...] [--size full|ci]
                                       [--jobs N] [--out DIR]
    python -m pymc_kameleon.bench real-report DIR
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from pymc_kameleon.bench.real.models import REAL_MODELS

__all__ = ["main"]


def _log(start: float, line: str) -> None:
    print(f"[{time.perf_counter() - start:6.0f} s] {line}", file=sys.stderr, flush=True)


def references_main(argv: Sequence[str]) -> int:
    """Build and save the references of the chosen models (``real-references``).

    Parameters
    ----------
    argv : sequence of str

    Returns
    -------
    int
        0 if every reference met R-hat <= 1.01 with no divergences, 1 otherwise.
    """
    from pymc_kameleon.bench.real.reference import NutsSettings, build_reference, save_reference

    parser = argparse.ArgumentParser(prog="python -m pymc_kameleon.bench real-references")
    parser.add_argument("--models", nargs="+", choices=list(REAL_MODELS), default=list(REAL_MODELS))
    parser.add_argument("--draws", type=int, default=NutsSettings.draws)
    parser.add_argument("--tune", type=int, default=NutsSettings.tune)
    parser.add_argument("--out", type=Path, help="directory (default: the shipped references)")
    args = parser.parse_args(argv)
    settings = NutsSettings(draws=args.draws, tune=args.tune)
    start, status = time.perf_counter(), 0
    for name in args.models:
        ref = build_reference(name, settings)
        save_reference(ref, *([args.out] if args.out else []))
        m = ref.meta
        ok = m["max_rhat"] <= 1.01 and m["divergences"] == 0
        status |= not ok
        _log(
            start,
            f"{name}: {m['seconds']:.0f} s, min ESS bulk {m['min_ess_bulk']:.0f} / tail "
            f"{m['min_ess_tail']:.0f}, max R-hat {m['max_rhat']:.4f}, "
            f"{m['divergences']} divergences{'' if ok else '  <-- CHECK'}",
        )
    return status


def _comparison_lines(old, new) -> list[str]:
    """Per scalar: the shipped reference's mean and sd against the new one's, in combined MCSEs."""
    lines = []
    for j, label in enumerate(old.labels):
        o, n = old.summary, new.summary
        z_mean = (o["mean"][j] - n["mean"][j]) / np.hypot(o["mcse_mean"][j], n["mcse_mean"][j])
        z_sd = (o["sd"][j] - n["sd"][j]) / np.hypot(o["mcse_sd"][j], n["mcse_sd"][j])
        lines.append(
            f"  {label}: mean {o['mean'][j]:.5g} vs {n['mean'][j]:.5g} (z {z_mean:+.1f}), "
            f"sd {o['sd'][j]:.5g} vs {n['sd'][j]:.5g} (ratio {o['sd'][j] / n['sd'][j]:.3f}, "
            f"z {z_sd:+.1f})"
        )
    return lines


def importance_main(argv: Sequence[str]) -> int:
    """Importance-sampling references, beside the shipped ones (``real-references-is``).

    Parameters
    ----------
    argv : sequence of str

    Returns
    -------
    int
        0 if every Pareto k-hat is below 0.5 (reliable), 1 otherwise (nothing saved for it).
    """
    from pymc_kameleon.bench.real.importance import ImportanceSettings, importance_reference
    from pymc_kameleon.bench.real.reference import load_reference, save_reference

    parser = argparse.ArgumentParser(prog="python -m pymc_kameleon.bench real-references-is")
    parser.add_argument("--models", nargs="+", choices=list(REAL_MODELS), required=True)
    parser.add_argument("--draws", type=int, default=ImportanceSettings.n_draws)
    parser.add_argument("--seed", type=int, default=ImportanceSettings.seed)
    parser.add_argument("--save", action="store_true", help="replace the shipped reference")
    args = parser.parse_args(argv)
    settings = ImportanceSettings(n_draws=args.draws, seed=args.seed)
    start, status = time.perf_counter(), 0
    for name in args.models:
        shipped = load_reference(name)
        new, diag = importance_reference(name, shipped, settings)
        reliable = diag["pareto_k"] < 0.5
        status |= not reliable
        _log(
            start,
            f"{name}: {diag['seconds']:.0f} s, importance ESS {diag['ess']:.0f} of "
            f"{settings.n_draws}, Pareto k {diag['pareto_k']:.2f}"
            f"{'' if reliable else '  <-- unreliable, not saved'}",
        )
        print(f"{name}: shipped vs importance sampling")
        print("\n".join(_comparison_lines(shipped, new)))
        if args.save and reliable:
            new.meta["replaced"] = shipped.meta.get("replaced", shipped.meta)  # the NUTS run's
            save_reference(new)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch ``real``, ``real-references`` and ``real-report``.

    Parameters
    ----------
    argv : sequence of str, optional
        Starting with the sub-command; defaults to ``sys.argv[1:]``.

    Returns
    -------
    int
        Exit status.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in ("real", "real-references", "real-references-is", "real-report"):
        print(__doc__, file=sys.stderr)
        return 2
    command, rest = argv[0], argv[1:]
    if command == "real-references":
        return references_main(rest)
    if command == "real-references-is":
        return importance_main(rest)
    from pymc_kameleon.bench.real.suite import report_main, suite_main

    full = shlex.join(["python", "-m", "pymc_kameleon.bench", *argv])
    return suite_main(rest, full) if command == "real" else report_main(rest, full)
