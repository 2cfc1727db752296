"""The oracle ceiling of KameleonStep against AdaptiveMetropolis on the padded banana (issue 50).

Issue 33's dimension protocol (4 chains x (max(1000, 200 d) + as many draws), seeded N(0, I)
starts) on ``banana-0.03-d{d}``, with every step handed 1000 exact draws as its initial history
(``n_oracle``; ``n_history=1000``), so that what is left is the kernel's mixing, not its warm-up.
If ``KameleonStep()`` trails ``AdaptiveMetropolis()`` in ESS per evaluation even then, no warm-up
can put it ahead at that d. Records: ``benchmarks/results/dimension/oracle.jsonl``.

Usage::

    python benchmarks/padded_banana_ceiling.py [--dims 5 10] [--seeds 0 1 2] [--jobs 1]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from pymc_kameleon.bench.runner import Task, load_records, run_tasks

OUT = Path(__file__).resolve().parent / "results" / "dimension" / "oracle.jsonl"
SAMPLERS = ("KAMH-LS", "KAMH-PCA", "AM-LS")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, nargs="+", default=[5, 10])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    budget = {d: max(1000, 200 * d) for d in args.dims}
    tasks = [
        Task("oracle", f"banana-0.03-d{d}", sampler, seed, 4, budget[d], budget[d],
             n_oracle=1000, extra={"warmup": "whitened"})
        for d in args.dims for sampler in SAMPLERS for seed in args.seeds
    ]  # fmt: skip
    run_tasks(tasks, OUT, jobs=args.jobs, progress=print)
    records = [r for r in load_records(OUT) if r.get("status") == "ok"]
    print("| target | sampler | ESS / 1000 evals (median; per seed) | max R-hat (median) |")
    print("|---|---|---|---:|")
    for d in args.dims:
        for sampler in SAMPLERS:
            runs = [
                r for r in records
                if r["problem"] == f"banana-0.03-d{d}" and r["sampler"] == sampler
                and r["seed"] in args.seeds
            ]  # fmt: skip
            if runs:
                ess = [r["ess_per_1k_evals"] for r in runs]
                per_seed = ", ".join(f"{e:.2f}" for e in ess)
                rhat = np.median([r["max_rhat"] for r in runs])
                print(f"| banana-0.03-d{d} | {sampler} | {np.median(ess):.2f} ({per_seed}) "
                      f"| {rhat:.3f} |")  # fmt: skip


if __name__ == "__main__":
    main()
