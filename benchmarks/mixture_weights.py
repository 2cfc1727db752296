"""Mixture weights at the defaults: does any step return a converged-looking wrong answer?

``python benchmarks/mixture_weights.py [--mixtures two-0.3 three widths] [--forms mixture
potential] [--steps KameleonStep AdaptiveMetropolis KMCStep] [--seeds 0 1 2] [--tune 3000]
[--draws 6000] [--rule laplace|highest] [--jobs 2]`` samples each mixture of
:data:`pymc_kameleon.targets.MIXTURES` (issue 46: weights known exactly) with each step at its
defaults, 4 chains, and records per run the fraction of draws in each component against its
weight in MCSEs, every chain's fraction, the largest R-hat, and how many chains warned of
separate modes. A run passes when every weight is within 4 MCSEs with R-hat at most 1.01;
it is *loud* when it does not but R-hat is above 1.05 and a chain's warning names the modes;
anything else is a converged-looking wrong answer (FAIL).

``--rule highest`` is the negative control: the start-up as it was before issue 46, every
chain started at the highest mode found with independence moves about it alone.

Records go to ``benchmarks/results/mixture-weights/<rule>.jsonl`` (resumable: a re-run does
only what is missing); the table is printed at the end.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pymc as pm

from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep
from pymc_kameleon._compat import posterior_dataset, rhat_array
from pymc_kameleon.bench.records import run_resumable
from pymc_kameleon.targets import MIXTURES, weight_zscores

STEPS = {"KameleonStep": KameleonStep, "AdaptiveMetropolis": AdaptiveMetropolis, "KMCStep": KMCStep}
FORMS = {"mixture": None, "potential": 10.0}  # the prior sd of the potential form
OUT = Path(__file__).parent / "results" / "mixture-weights"


@dataclass(frozen=True)
class Task:
    mixture: str
    form: str
    step: str
    seed: int
    tune: int
    draws: int
    rule: str

    @property
    def key(self) -> str:
        return f"{self.mixture}/{self.form}/{self.step}/{self.seed}/{self.tune}+{self.draws}"


def highest_mode_rule() -> None:
    """Patch the start-up back to the rule before issue 46 (the negative control)."""
    from pymc_kameleon.core import start_up

    start_up.draw_mode = lambda shares, rng: 0  # the highest mode (modes are highest first)
    start_up.StartUp.anchors = lambda self: [
        (self.modes[0].mode, self.modes[0].covariance, 1.0)
    ] if self.modes else []  # fmt: skip


def warned_chains(idata) -> int:
    """How many chains' start-up warned of separate modes (the ``warning`` stat)."""
    stats = posterior_dataset(idata, "warmup_sample_stats")
    return sum(
        any("separate modes" in str(getattr(w, "message", "")) for w in chain.ravel())
        for chain in stats["warning"].values
    )


def run(task: Task) -> dict[str, Any]:
    """Sample one mixture with one step at one seed; the record."""
    if task.rule == "highest":
        highest_mode_rule()
    mixture = MIXTURES[task.mixture]
    began = time.process_time()
    with mixture.model(prior_sd=FORMS[task.form]):
        idata = pm.sample(
            tune=task.tune, draws=task.draws, chains=4, cores=1, random_seed=task.seed,
            step=STEPS[task.step](), progressbar=False, compute_convergence_checks=False,
            discard_tuned_samples=False, keep_warning_stat=True,
        )  # fmt: skip
    draws = np.asarray(posterior_dataset(idata, "posterior")["x"].values)
    z = weight_zscores(mixture, draws)
    rhat = float(np.max(rhat_array(draws)))
    which = mixture.components(draws)
    warned = warned_chains(idata)
    passed = bool(np.isfinite(z.max_abs) and z.max_abs <= 4.0 and rhat <= 1.01)
    verdict = "pass" if passed else ("loud" if rhat > 1.05 and warned else "FAIL")
    return {
        "key": task.key, **vars(task), "verdict": verdict, "max_abs_z": z.max_abs,
        "z": z.values.tolist(), "rhat": rhat, "warned_chains": warned,
        "fractions": [float(np.mean(which == k)) for k in range(len(mixture.weights))],
        "chain_fractions": [
            [float(np.mean(which[c] == k)) for k in range(len(mixture.weights))]
            for c in range(which.shape[0])
        ],
        "cpu_seconds": time.process_time() - began,
    }  # fmt: skip


def summary(record: dict) -> str:
    """One table row."""
    fractions = ", ".join(f"{f:.3f}" for f in record["fractions"])
    return (
        f"| {record['mixture']} | {record['form']} | {record['step']} | {record['seed']} | "
        f"{fractions} | {record['max_abs_z']:.2f} | {record['rhat']:.3f} | "
        f"{record['warned_chains']} | {record['verdict']} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mixtures", nargs="+", default=list(MIXTURES), choices=list(MIXTURES))
    parser.add_argument("--forms", nargs="+", default=list(FORMS), choices=list(FORMS))
    parser.add_argument("--steps", nargs="+", default=list(STEPS), choices=list(STEPS))
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--tune", type=int, default=3000)
    parser.add_argument("--draws", type=int, default=6000)
    parser.add_argument("--rule", choices=["laplace", "highest"], default="laplace")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    tasks = [
        Task(m, f, s, seed, args.tune, args.draws, args.rule)
        for m in args.mixtures for f in args.forms for s in args.steps for seed in args.seeds
    ]  # fmt: skip
    header = (
        "| mixture | form | step | seed | fraction per component | max abs z | max R-hat | "
        "chains warned | verdict |\n|---|---|---|---|---|---|---|---|---|"
    )
    print(header, flush=True)
    records = run_resumable(
        tasks, run, OUT / f"{args.rule}.jsonl", finished=lambda r: "verdict" in r,
        summary=summary, jobs=args.jobs, progress=lambda line: print(line, flush=True),
    )  # fmt: skip
    print("\n" + header)
    for record in sorted(records, key=lambda r: r["key"]):
        print(summary(record))


if __name__ == "__main__":
    main()
