"""One real-suite model and step at several seeds, with module constants changed: which one matters.

``python benchmarks/real_model_ablation.py MODEL STEP --seeds 1 2 3 [--set MODULE:NAME=VALUE ...]
[--out FILE]`` runs the suite's task (4 chains x (3000 + 3000), ``cores=1``) of ``STEP()`` (one of
``KMCStep``, ``KameleonStep``, ``AdaptiveMetropolis``) on MODEL at each seed, after setting each
``pymc_kameleon.MODULE.NAME`` to VALUE (a Python literal, ``inf`` allowed), e.g.
``--set core.proposals.trajectory:MAX_SURROGATE_ENERGY_ERROR=inf``. It prints the suite's verdict
per seed and, from the run's sample stats, the share of kept iterations that were screened
trajectories, independence moves (and their acceptance) and draws from the wide copies; with
``--out`` each record is appended as a JSON line. The constants are read where they are used, so
this is an ablation of the code as it stands, not of an older commit.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
from pathlib import Path

import numpy as np

from pymc_kameleon._compat import posterior_dataset
from pymc_kameleon.bench.real import suite


def parse_setting(text: str) -> tuple[str, str, object]:
    """``"core.mh:NAME=1.5"`` -> ``("pymc_kameleon.core.mh", "NAME", 1.5)``."""
    target, value = text.split("=", 1)
    module, name = target.split(":")
    literal = math.inf if value == "inf" else json.loads(value)
    return f"pymc_kameleon.{module}", name, literal


def apply_settings(settings: list[str]) -> dict[str, object]:
    applied = {}
    for text in settings:
        module_name, name, value = parse_setting(text)
        module = importlib.import_module(module_name)
        if not hasattr(module, name):
            raise SystemExit(f"{module_name} has no {name}")
        setattr(module, name, value)
        applied[f"{module_name}.{name}"] = value
    return applied


def move_shares(idata) -> dict[str, float]:
    """Shares of the kept iterations by kind of move (where the step has the stats)."""
    stats = posterior_dataset(idata, "sample_stats")
    shares = {}
    if "screened" in stats:
        shares["screened"] = float(np.mean(stats["screened"].values))
    if "independence_move" in stats:
        move = stats["independence_move"].values
        accepted = stats["accepted"].values if "accepted" in stats else None
        shares["independence"] = float(np.mean(move >= 0))
        shares["wide"] = float(np.mean(move == 1))
        if accepted is not None and np.any(move >= 0):
            shares["independence_accept"] = float(np.mean(accepted[move >= 0]))
    if "defensive_weight" in stats:
        shares["defensive_weight"] = [float(w) for w in stats["defensive_weight"].values[:, -1]]
    return shares


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("step", choices=["KMCStep", "KameleonStep", "AdaptiveMetropolis"])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--set", dest="settings", action="append", default=[])
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    applied = apply_settings(args.settings)
    captured = {}
    real_sample = suite._sample

    def sample_and_keep(task, model):
        idata, evaluations = real_sample(task, model)
        captured["idata"] = idata
        return idata, evaluations

    suite._sample = sample_and_keep
    sampler = f"{args.step}()"
    for seed in args.seeds:
        task = suite.build_real_tasks("full", [args.model], [sampler], seed)[0]
        record = suite.run_real_task(task)
        record["settings"] = applied
        record["moves"] = move_shares(captured["idata"]) if "idata" in captured else {}
        print(applied, suite.one_line(record), record["moves"], flush=True)
        if args.out:
            with args.out.open("a") as handle:
                handle.write(json.dumps(record, default=str) + "\n")


if __name__ == "__main__":
    main()
