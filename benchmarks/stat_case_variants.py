"""One statistical-tier case at consecutive seeds, with another step or a changed constant.

``tests/statistical/seed_sweep.py`` sweeps the cases as the tests run them; this script asks
what a case gives when its step is swapped or a module constant is set otherwise, so a choice of
default can be compared on the very model, budget and truth the test uses::

    python benchmarks/stat_case_variants.py banana-mapped-kmc --seeds 24 --out OUT.jsonl
    python benchmarks/stat_case_variants.py banana-mapped-kmc --seeds 24 --out OUT.jsonl \\
        --set pymc_kameleon.core.proposals.kmc_moves:KMC_DEFENSIVE_WEIGHT=0.5
    python benchmarks/stat_case_variants.py banana-mapped-kmc --seeds 24 --out OUT.jsonl \\
        --step "pk.AdaptiveMetropolis(independence='warmup')"
    python benchmarks/stat_case_variants.py --summary OUT.jsonl [MORE.jsonl ...]

Each run (the case's seed plus the offset) appends one JSON line: the offset, the z-scores and
their ESS, max |z| and the seconds taken. ``--summary`` prints per file the runs, the failures
(max |z| >= 4, the tier's tolerance) and the mean z of each summary across seeds (a bias or a
missed region shows there; its standard error is about ``1/sqrt(runs)``).
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
Z_TOL = 4.0


def set_constant(spec: str) -> None:
    """``module:NAME=value`` (value a Python literal): set a module constant for this run."""
    target, value = spec.split("=", 1)
    module, name = target.rsplit(":", 1)
    setattr(importlib.import_module(module), name, json.loads(value))


def kept_defensive_weights(idata) -> list[float] | None:
    """Each chain's wide-copy weight over its kept draws (None where the step has no such stat)."""
    from pymc_kameleon import _compat

    if "sample_stats" not in _compat.result_groups(idata):
        return None
    stats = _compat.posterior_dataset(idata, "sample_stats")
    if "defensive_weight" not in stats:
        return None
    return np.nanmax(np.asarray(stats["defensive_weight"].values), axis=1).tolist()


def run(args) -> None:
    sys.path.insert(0, str(ROOT / "tests" / "statistical"))
    import stat_cases

    import pymc_kameleon as pk

    for spec in args.set:
        set_constant(spec)
    case = stat_cases.CASES[args.case]
    if args.step:
        case = dataclasses.replace(case, step=lambda: eval(args.step, {"pk": pk}))
    with open(args.out, "a") as out:
        for offset in range(args.first, args.first + args.seeds):
            start = time.perf_counter()
            idata = stat_cases.sample(case, case.seed + offset)
            z = stat_cases.zscores(case, idata)
            seconds = round(time.perf_counter() - start, 1)
            record = {"case": args.case, "step": args.step, "set": args.set, "offset": offset,
                      "labels": list(z.labels), "z": z.values.tolist(), "ess": z.ess.tolist(),
                      "max_abs": z.max_abs, "seconds": seconds,
                      "defensive_weight": kept_defensive_weights(idata)}  # fmt: skip
            out.write(json.dumps(record) + "\n")
            out.flush()
            print(f"offset {offset:3d}  max|z| {z.max_abs:6.2f}", flush=True)


def summary(paths: list[str]) -> None:
    for path in paths:
        records = [json.loads(line) for line in Path(path).read_text().splitlines()]
        z = np.array([r["z"] for r in records])
        worst = np.array([r["max_abs"] for r in records])
        means = ", ".join(f"{label} {m:+.2f}" for label, m in zip(records[0]["labels"], z.mean(0)))
        print(f"{path}: {len(records)} runs, {int((worst >= Z_TOL).sum())} with max |z| >= "
              f"{Z_TOL:g} (largest {worst.max():.2f}); mean z: {means}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("case", nargs="?")
    parser.add_argument("--seeds", type=int, default=24)
    parser.add_argument("--first", type=int, default=0, help="first seed offset")
    parser.add_argument("--step", help="a step expression (pk is pymc_kameleon)")
    parser.add_argument("--set", action="append", default=[], help="module:NAME=value")
    parser.add_argument("--out")
    parser.add_argument("--summary", nargs="+")
    args = parser.parse_args()
    if args.summary:
        summary(args.summary)
    else:
        run(args)


if __name__ == "__main__":
    main()
