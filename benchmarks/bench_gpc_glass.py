"""GP classification on UCI Glass (pseudo-marginal): KMC, KAMH, AM and a random walk.

Protocol (the same for every sampler): one chain of 6000 iterations, of which the first
``--tune`` (default 1000) are warm-up and discarded, started at theta = 0; several seeds. Metrics:
minimum bulk ESS over the 9 coordinates, acceptance rate, noise sd of log p_hat, and the
unbiased MMD^2 with the cubic polynomial kernel (1 + <a, b>)^3 between the (thinned) kept draws
and a long benchmark sample, as in the KMC paper. Runs are spread over ``--jobs`` processes, one
core each; every likelihood estimate uses 100 importance samples and single-threaded BLAS.

The benchmark sample comes from 4 long AdaptiveMetropolis chains (``--reference``; about 15 min
on 2 cores) and is cached in ``pymc_kameleon/bench/data/glass_reference.npz`` (shipped with the package).

Usage::

    python benchmarks/bench_gpc_glass.py --reference          # once
    python benchmarks/bench_gpc_glass.py --seeds 3 --jobs 2   # the table
"""

from __future__ import annotations

import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"
os.environ["OMP_NUM_THREADS"] = "1"
os.environ["MKL_NUM_THREADS"] = "1"

import argparse
import datetime
import platform
import sys
import time
from multiprocessing import get_context
from pathlib import Path

import arviz as az
import numpy as np
import pymc as pm

try:
    import pymc_kameleon  # noqa: F401
except ModuleNotFoundError as err:  # a source checkout that is not installed
    if err.name != "pymc_kameleon":
        raise
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep
from pymc_kameleon.core.adaptation import optimal_rw_scale
from pymc_kameleon.diagnostics import polynomial_mmd2
from pymc_kameleon.targets import glass_gpc_model

RESULTS = Path(__file__).resolve().parent / "results"
REFERENCE = Path(__file__).resolve().parents[1] / "pymc_kameleon" / "bench" / "data" / "glass_reference.npz"
ITERATIONS = 6000
MMD_POINTS = 1000

SAMPLERS = {
    "KMC (lite)": lambda: KMCStep(n_history=1000),
    "KAMH (KameleonStep)": lambda: KameleonStep(),
    "AM-LS (AdaptiveMetropolis)": lambda: AdaptiveMetropolis(),
    # isotropic random walk, scale 2.38 / sqrt(d) (never adapts: adapt_start beyond the run)
    "RW (isotropic, 2.38/sqrt(d))": lambda: AdaptiveMetropolis(scale="fixed", adapt_start=10**9),
}


def build_reference(tune: int, draws: int, thin: int, seed: int) -> None:
    """Long AdaptiveMetropolis chains; save the thinned, pooled draws."""
    start = time.perf_counter()
    with glass_gpc_model():
        idata = pm.sample(
            tune=tune,
            draws=draws,
            chains=4,
            cores=2,
            step=AdaptiveMetropolis(),
            random_seed=seed,
            progressbar=False,
            compute_convergence_checks=False,
        )
    theta = np.asarray(idata["posterior"]["theta"].values)
    ess = float(az.ess(idata)["theta"].min())
    rhat = float(az.rhat(idata)["theta"].max())
    pooled = theta[:, ::thin].reshape(-1, theta.shape[-1])
    RESULTS.mkdir(exist_ok=True)
    np.savez_compressed(
        REFERENCE,
        draws=pooled,
        min_ess=ess,
        max_rhat=rhat,
        settings=np.array([tune, draws, thin, seed]),
    )
    print(
        f"reference: {pooled.shape[0]} draws (4 chains x {draws}, thin {thin}), min ESS {ess:.0f}, "
        f"max R-hat {rhat:.4f}, {time.perf_counter() - start:.0f} s; wrote {REFERENCE}",
        file=sys.stderr,
    )


def run_one(job: tuple[str, int, int]) -> dict:
    """One chain of ITERATIONS iterations for one sampler and seed."""
    name, seed, tune = job
    start = time.perf_counter()
    with glass_gpc_model():
        idata = pm.sample(
            tune=tune,
            draws=ITERATIONS - tune,
            chains=1,
            cores=1,
            step=SAMPLERS[name](),
            random_seed=seed,
            progressbar=False,
            compute_convergence_checks=False,
        )
    seconds = time.perf_counter() - start
    theta = np.asarray(idata["posterior"]["theta"].values)[0]
    stats = idata["sample_stats"]
    reference = np.load(REFERENCE)["draws"]
    thin = max(1, theta.shape[0] // MMD_POINTS)
    return {
        "sampler": name,
        "seed": seed,
        "min_ess": float(az.ess(idata)["theta"].min()),
        "accept": float(stats["accept"].mean()),
        "noise_sd": float(stats["noise_sd"].values[0, -1]),
        "mmd2": polynomial_mmd2(theta[::thin], reference),
        "mean_error": float(np.linalg.norm(theta.mean(0) - reference.mean(0))),
        "seconds": seconds,
    }


def _median_range(values: list[float], fmt: str) -> str:
    values = np.asarray(values, dtype=float)
    return f"{np.median(values):{fmt}} [{values.min():{fmt}}, {values.max():{fmt}}]"


def table(results: list[dict], seeds: list[int], tune: int) -> str:
    ref = np.load(REFERENCE)
    lines = [
        f"GPC on Glass, {ITERATIONS} iterations per chain ({tune} warm-up, discarded), start at 0, "
        f"one chain per seed, seeds {seeds}; median [min, max] over seeds. MMD^2: unbiased, kernel "
        f"(1 + <a, b>)^3, {MMD_POINTS} thinned draws vs {ref['draws'].shape[0]} benchmark draws "
        f"(4 long AdaptiveMetropolis chains, min ESS {float(ref['min_ess']):.0f}, max R-hat "
        f"{float(ref['max_rhat']):.3f}). ||mean - benchmark mean|| in theta units.",
        "",
        "| sampler | min ESS | acceptance | MMD^2 | mean error | noise sd | seconds |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in SAMPLERS:
        rows = [r for r in results if r["sampler"] == name]
        if not rows:
            continue
        lines.append(
            f"| {name} | {_median_range([r['min_ess'] for r in rows], '.0f')} "
            f"| {_median_range([r['accept'] for r in rows], '.2f')} "
            f"| {_median_range([r['mmd2'] for r in rows], '.3g')} "
            f"| {_median_range([r['mean_error'] for r in rows], '.3f')} "
            f"| {_median_range([r['noise_sd'] for r in rows], '.2f')} "
            f"| {_median_range([r['seconds'] for r in rows], '.0f')} |"
        )
    lines.append("")
    lines.append(
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, PyMC {pm.__version__}; {datetime.date.today()}. "
        f"RW proposal sd {np.sqrt(optimal_rw_scale(9)):.2f}."
    )
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reference", action="store_true", help="(re)build the benchmark sample")
    parser.add_argument("--reference-draws", type=int, default=25_000)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--tune", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--samplers", nargs="*", default=list(SAMPLERS))
    parser.add_argument("--out", type=Path, default=RESULTS / "gpc_glass.md")
    args = parser.parse_args(argv)
    if args.reference or not REFERENCE.exists():
        build_reference(tune=5000, draws=args.reference_draws, thin=25, seed=20261121)
    seeds = [1000 + i for i in range(args.seeds)]
    jobs = [(name, seed, args.tune) for name in args.samplers for seed in seeds]
    with get_context("fork").Pool(args.jobs) as pool:
        results = []
        for result in pool.imap_unordered(run_one, jobs):
            print(
                f"{result['sampler']} seed {result['seed']}: min ESS {result['min_ess']:.0f}, "
                f"accept {result['accept']:.2f}, MMD^2 {result['mmd2']:.3g}, "
                f"{result['seconds']:.0f} s",
                file=sys.stderr,
                flush=True,
            )
            results.append(result)
    text = table(results, seeds, args.tune)
    print(text)
    args.out.parent.mkdir(exist_ok=True)
    args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
