"""What the defensive wide copies of the independence t's yield, beside the t's themselves.

After warm-up each independence move draws from a map's t or, with probability
``DEFENSIVE_WEIGHT``, from its copy ``WIDE_SCALE`` times as wide. This script runs the suite's
real models (4 chains, 3000 + 3000, ``cores=1``) with each step at a given defensive weight
(default: its own) and
prints, per model and step, for each kind of draw (from the t's, from the wide copies): its share
of the kept iterations, its mean acceptance probability and its expected squared jump (ESJ: the
squared move between consecutive kept draws, 0 when rejected, in units whitened by the pooled
covariance of the kept draws, averaged over the iterations of that kind; one evaluation each),
with the run's verdict against the shipped reference, its min bulk ESS and max R-hat. Rows go to
``--out`` as JSON lines.

Usage::

    python benchmarks/defensive_tail_yield.py --steps AdaptiveMetropolis --weight 0.5 \
        --seed 1 --out defensive-0.5.jsonl
    python benchmarks/defensive_tail_yield.py --models pk-mm-ode --weight 0.1 --seeds 1 2 3 4
"""

from __future__ import annotations

import argparse
import json
import logging
import time
import warnings

import numpy as np
import pymc as pm

from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep
from pymc_kameleon.bench.real.models import REAL_MODELS, get_real_model
from pymc_kameleon.bench.real.reference import load_reference
from pymc_kameleon.bench.real.scoring import score_run
from pymc_kameleon.core.proposals import independence, kmc_moves

STEPS = {"AdaptiveMetropolis": AdaptiveMetropolis, "KameleonStep": KameleonStep, "KMCStep": KMCStep}
KINDS = {0: "narrow", 1: "wide"}


def whitened_jumps(idata, names: list[str]) -> np.ndarray:
    """Squared moves between consecutive kept draws, shape (chains, draws - 1), whitened."""
    posterior = idata.posterior
    parts = [posterior[n].values.reshape(*posterior[n].shape[:2], -1) for n in names]
    x = np.concatenate(parts, axis=-1)  # (chains, draws, d)
    flat = x.reshape(-1, x.shape[-1])
    values, vectors = np.linalg.eigh(np.cov(flat.T).reshape(x.shape[-1], x.shape[-1]))
    keep = values > 1e-12 * values.max()  # (a simplex's covariance is singular)
    whiten = vectors[:, keep] / np.sqrt(values[keep])
    steps = np.diff(x, axis=1) @ whiten
    return np.sum(steps**2, axis=-1)


def worst_sd(rows: list[dict]) -> dict:
    """The parameter whose sd is furthest from the reference's, in MCSEs."""
    worst = max(rows, key=lambda r: abs(r["z_sd"]) if np.isfinite(r["z_sd"]) else -1.0)
    return {"worst_sd": worst["label"], "sd_ratio": worst["sd_ratio"], "z_sd": worst["z_sd"]}


def run(model_name: str, step_name: str, seed: int, weight: float) -> dict:
    # (read when each chain's start-up mixes in the independence moves)
    if step_name == "KMCStep":
        kmc_moves.KMC_DEFENSIVE_WEIGHT = weight
    else:
        independence.DEFENSIVE_WEIGHT = weight
    started = time.time()
    with get_real_model(model_name).build() as model:
        idata = pm.sample(
            step=STEPS[step_name](), tune=3000, draws=3000, chains=4, cores=1,
            random_seed=seed, progressbar=False, compute_convergence_checks=False,
        )  # fmt: skip
        names = [rv.name for rv in model.free_RVs]
    score = score_run(idata, load_reference(model_name))
    kind = idata.sample_stats["independence_move"].values[:, 1:]
    accept = idata.sample_stats["accept"].values[:, 1:]
    jumps = whitened_jumps(idata, names)
    row = {
        "model": model_name, "step": step_name, "seed": seed, "weight": weight,
        "passed": bool(score.passed), "reasons": score.describe() if not score.passed else "",
        "min_ess": float(min(r["ess_bulk"] for r in score.rows)),
        "max_rhat": float(max(r["rhat"] for r in score.rows)),
        "share": float(idata.sample_stats["independence_share"].values[:, -1].mean()),
        **worst_sd(score.rows),
        "wall_s": time.time() - started,
    }  # fmt: skip
    for code, label in KINDS.items():
        made = kind == code
        row[f"{label}_share"] = float(made.mean())
        row[f"{label}_accept"] = float(accept[made].mean()) if made.any() else float("nan")
        row[f"{label}_esj"] = float(jumps[made].mean()) if made.any() else float("nan")
    return row


def describe(row: dict) -> str:
    verdict = "PASS" if row["passed"] else "FAIL " + row["reasons"]
    return (
        f"{row['model']} {row['step']} seed {row['seed']} w {row['weight']}: "
        f"narrow {row['narrow_share']:.3f} / acc {row['narrow_accept']:.3f} / "
        f"ESJ {row['narrow_esj']:.3f}; wide {row['wide_share']:.3f} / "
        f"acc {row['wide_accept']:.3f} / ESJ {row['wide_esj']:.3f}; worst sd {row['worst_sd']} "
        f"{row['sd_ratio']:.3f} (z {row['z_sd']:+.1f}); min ESS "
        f"{row['min_ess']:.0f}, R-hat {row['max_rhat']:.3f}, {row['wall_s']:.0f} s: {verdict}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=list(REAL_MODELS))
    parser.add_argument("--steps", nargs="+", choices=sorted(STEPS), default=sorted(STEPS))
    parser.add_argument("--seeds", nargs="+", type=int, default=[1])
    parser.add_argument("--weight", type=float, default=None, help="default: each step's own")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    logging.getLogger("pymc").setLevel(logging.ERROR)
    warnings.simplefilter("ignore")
    for seed in args.seeds:
        for model_name in args.models:
            for step_name in args.steps:
                own = kmc_moves.KMC_DEFENSIVE_WEIGHT if step_name == "KMCStep" else None
                weight = args.weight or own or independence.DEFENSIVE_WEIGHT
                row = run(model_name, step_name, seed, weight)
                print(describe(row), flush=True)
                if args.out:
                    with open(args.out, "a") as f:
                        f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
