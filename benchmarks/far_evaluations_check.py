"""Issue 67: the default steps on black-box ODEs that are slow far out, beside DEMetropolisZ.

Each run: ``pm.sample(step=S(), chains=4, cores=1, random_seed=seed)`` at PyMC's default budget
(1000 + 1000) in a subprocess of its own with a time limit (a hang is recorded as such). Printed
per run: wall seconds, max R-hat, min bulk ESS, log-density evaluations, and where the model
was evaluated: the farthest point from the prior's centre in prior sds (on the sampler's
coordinates, log for the positive variables), and the number of evaluations more than 20
posterior sds outside the range of the chains' draws, warm-up included.

    python benchmarks/far_evaluations_check.py                       # every model, seeds 1-3
    python benchmarks/far_evaluations_check.py --models logistic --seeds 1 --limit 600
    python benchmarks/far_evaluations_check.py --samplers "KameleonStep()" --draws 2000

``--draws`` sets the kept draws per chain (the warm-up stays PyMC's 1000).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

SAMPLERS = {
    "KMCStep()": "pk.KMCStep()",
    "KameleonStep()": "pk.KameleonStep()",
    "AdaptiveMetropolis()": "pk.AdaptiveMetropolis()",
    "DEMetropolisZ()": "pm.DEMetropolisZ()",
}
#: the variables the black box takes, with their prior's centre and sd on the sampler's
#: coordinates (log for the positive ones), per model
PRIORS = {
    "logistic": {"r": (-0.693, 0.5), "K": (4.094, 0.5)},
    "theta": {"r": (-0.693, 0.5), "K": (4.094, 0.5), "theta": (0.0, 0.3)},
    "vdp": {"mu": (0.0, 0.5), "x0": (2.0, 0.5)},
}
POSITIVE = {"r", "K", "theta", "mu"}

_CHILD = r"""
import json, sys, time, warnings
import numpy as np, pymc as pm, arviz as az
import pymc_kameleon as pk
from pymc_kameleon.bench import far_out
model_name, sampler, seed, n_draws = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[6])
model, op = {"logistic": far_out.logistic_ode_model, "theta": far_out.theta_logistic_model,
             "vdp": far_out.van_der_pol_model}[model_name]()
warnings.simplefilter("ignore")
start = time.perf_counter()
with model:
    idata = pm.sample(step=eval(sampler), chains=4, cores=1, random_seed=seed, progressbar=False,
                      draws=n_draws,
                      compute_convergence_checks=False, discard_tuned_samples=False)
wall = time.perf_counter() - start
rhat = max(float(v.max()) for v in az.rhat(idata.posterior).data_vars.values())  # unrounded
ess = min(float(v.min()) for v in az.ess(idata.posterior, method="bulk").data_vars.values())
names = sys.argv[4].split(",")
positive = np.array([n in sys.argv[5].split(",") for n in names])
def coords(values):  # the sampler's coordinates: log of the positive variables
    return np.where(positive, np.log(np.abs(values) + 1e-300), values)
evaluated = coords(op.log.points[:, : len(names)])
def states(group):
    return coords(np.column_stack([np.asarray(group[n]).ravel() for n in names]))
draws, warmup = states(idata.posterior), states(idata.warmup_posterior)
print(json.dumps({"wall": wall, "draws": draws.tolist(), "warmup": warmup.tolist(),
                  "evaluated": evaluated.tolist(),
                  "rhat": rhat, "ess": ess,
                  "names": names}))
"""


def _distances(record, model_name):
    import numpy as np

    evaluated, draws = np.asarray(record["evaluated"]), np.asarray(record["draws"])
    centre, sd = np.asarray(list(PRIORS[model_name].values())).T
    prior_sds = float(np.max(np.abs(evaluated - centre) / sd))
    post_sd = draws.std(axis=0)
    visited = np.vstack([draws, np.asarray(record["warmup"])])
    low, high = visited.min(axis=0), visited.max(axis=0)
    outside = np.maximum(low - evaluated, evaluated - high) / post_sd
    return prior_sds, int(np.sum(outside.max(axis=1) > 20.0))


def run(model_name: str, sampler: str, seed: int, limit: float, draws: int = 1000) -> dict:
    """One run in a subprocess; ``status`` is ``"ok"`` or ``"hung"`` (killed at ``limit`` s)."""
    start = time.perf_counter()
    try:
        out = subprocess.run(
            [sys.executable, "-c", _CHILD, model_name, SAMPLERS[sampler], str(seed),
             ",".join(PRIORS[model_name]), ",".join(POSITIVE), str(draws)],
            capture_output=True, text=True, timeout=limit, check=True,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return {"status": "hung", "wall": time.perf_counter() - start}
    record = json.loads(out.stdout.strip().splitlines()[-1])
    prior_sds, far = _distances(record, model_name)
    return {
        "status": "ok", "wall": record["wall"], "rhat": record["rhat"], "ess": record["ess"],
        "evals": len(record["evaluated"]), "prior_sds": prior_sds, "far": far,
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=list(PRIORS))
    parser.add_argument("--samplers", nargs="+", default=list(SAMPLERS))
    parser.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3])
    parser.add_argument("--limit", type=float, default=300.0, help="seconds before a hang")
    parser.add_argument("--draws", type=int, default=1000, help="kept draws per chain")
    args = parser.parse_args()
    print(
        "| model | sampler | seed | draws | wall s | max R-hat | min ESS | evals "
        "| farthest (prior sds) | evals > 20 post. sds out |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for model_name in args.models:
        for seed in args.seeds:
            for sampler in args.samplers:
                r = run(model_name, sampler, seed, args.limit, args.draws)
                if r["status"] == "hung":
                    row = f"hung (killed at {r['wall']:.0f} s) | | | | | |"
                else:
                    row = (
                        f"{r['wall']:.1f} | {r['rhat']:.3f} | {r['ess']:.0f} | {r['evals']} "
                        f"| {r['prior_sds']:.1f} | {r['far']} |"
                    )
                print(f"| {model_name} | {sampler} | {seed} | {args.draws} | {row}", flush=True)


if __name__ == "__main__":
    main()
