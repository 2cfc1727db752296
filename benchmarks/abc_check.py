"""The KMC paper's ABC experiment (Figure 4, middle and right): samplers at equal simulations.

Target: the ABC posterior of the 10-D skew-normal location at ``epsilon = 0.55`` with 10
simulated data sets per likelihood estimate (``abc_skew_normal_model()``), prior N(0, 25 I).

Usage::

    # once: long NUTS runs on the tractable ABC (eps = 0.55) and exact (eps = 0) posteriors
    python benchmarks/abc_check.py --build-reference [--reference PATH]
    # the comparison
    python benchmarks/abc_check.py OUT_DIR TAG [--samplers KMC Kameleon AM RW SMC]
        [--init true zero] [--chains 4] [--tune 1000] [--draws 5000] [--seeds 0 1 2]
        [--smc-draws N] [--reference PATH]

``PATH`` defaults to ``benchmarks/results/abc_reference.npz`` (not committed).

Samplers: ``KMC`` = ``KMCStep()``, ``Kameleon`` = ``KameleonStep()``, ``AM`` =
``AdaptiveMetropolis()`` (this package's defaults); ``RW`` = ``AdaptiveMetropolis(scale="fixed",
adapt_start=10**9, warmup="classic")``, an isotropic random walk of scale 2.38 / sqrt(d) that
never adapts; ``SMC`` = ``pm.sample_smc`` (IMH kernel) on a ``pm.Simulator`` model with the
Gaussian distance, whose every simulator call is counted. MCMC chains start at ``theta_true``
(``--init true``, as in the paper) and/or at 0 (``--init zero``); SMC starts from the prior
(recorded as init ``prior``, run once per seed). All runs use ``cores=1``. SMC gets as many
particles per run as spend, by two pilot runs' simulations per particle, the MCMC budget of
``10 * (tune + draws)`` simulations per chain (``--smc-draws`` fixes the count instead).

Scores per run, one JSON line each in ``OUT_DIR/TAG.jsonl`` (tasks already there are skipped):
simulations (MCMC: 10 x the ``logp_evals`` stat over warm-up and draws, noise checks included;
SMC: the counted calls), min bulk ESS over the 10 coordinates, ESS per 1000 simulations, max
R-hat, acceptance, seconds, and the theta_1 quantile error ``max_q |F_ref(q-quantile) - q|``
(q = 0.1, ..., 0.9) against the ABC (``q_error_abc``) and exact (``q_error_exact``) reference,
plus the theta_1 autocorrelation up to lag 200 (MCMC only; pooled over chains). For SMC the ESS
of the particles is ArviZ's number for draws that are not a chain: read it with care.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pymc as pm

from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep
from pymc_kameleon._compat import posterior_dataset
from pymc_kameleon.bench.records import load_records, run_resumable
from pymc_kameleon.diagnostics import (
    DEFAULT_QUANTILES,
    count_logp_evals,
    max_rhat,
    mean_acceptance,
    min_ess,
    posterior_array,
)
from pymc_kameleon.targets.abc_skew_normal import (
    ABC_DIMENSION,
    ABC_EPSILON,
    ABC_N_SIMULATIONS,
    ABC_PRIOR_VARIANCE,
    ABC_THETA_TRUE,
    observed_summary,
    simulate_summaries,
)
from pymc_kameleon.targets.abc_tractable_model import abc_tractable_model
from pymc_kameleon.targets.pseudo_marginal_models import abc_skew_normal_model

SAMPLERS = ("KMC", "Kameleon", "AM", "RW", "SMC")
INITS = {"true": np.asarray(ABC_THETA_TRUE, dtype=float), "zero": np.zeros(ABC_DIMENSION)}
DEFAULT_REFERENCE = Path("benchmarks/results/abc_reference.npz")
MAX_LAG = 200
REFERENCE_SEED = 20_150_601
PILOT_SEED, PILOT_PARTICLES = 777, 200


# --------------------------------------------------------------------------- samplers


def make_step(name: str):
    """A fresh step object for one of the MCMC samplers."""
    if name == "RW":
        return AdaptiveMetropolis(scale="fixed", adapt_start=10**9, warmup="classic")
    return {"KMC": KMCStep, "Kameleon": KameleonStep, "AM": AdaptiveMetropolis}[name]()


def run_mcmc(name: str, seed: int, init: str, args) -> tuple[object, int, float]:
    """One pm.sample run on the pseudo-marginal model: (result, simulations, seconds)."""
    with abc_skew_normal_model(n_simulations=args.simulations, epsilon=ABC_EPSILON):
        start = time.perf_counter()
        idata = pm.sample(
            draws=args.draws, tune=args.tune, chains=args.chains, cores=1, random_seed=seed,
            step=make_step(name), initvals=[{"theta": INITS[init]}] * args.chains,
            progressbar=False, compute_convergence_checks=False, discard_tuned_samples=False,
        )  # fmt: skip
        seconds = time.perf_counter() - start
    evals = sum(
        count_logp_evals(idata, name, ABC_DIMENSION, group=group)
        for group in ("warmup_sample_stats", "sample_stats")
    )
    return idata, args.simulations * evals, seconds


class CountingSimulator:
    """``pm.Simulator``'s ``fn(rng, theta, size)``: one summary per call, every one counted.

    PyMC calls it with ``size=()`` for one summary (and with a leading batch size when it
    draws several); the count is the number of summaries returned. With ``cores=1`` the SMC
    runs in this process, so the counter sees every call.
    """

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, rng, theta, size=None):
        theta = np.asarray(theta, dtype=float)
        batch = theta.shape[:-1] if size is None else tuple(size)
        rows = np.broadcast_to(theta, batch + theta.shape[-1:]).reshape(-1, theta.shape[-1])
        self.count += len(rows)
        sims = [simulate_summaries(row, 1, rng)[0] for row in rows]
        return np.reshape(sims, batch + theta.shape[-1:])


def smc_model(simulator: CountingSimulator) -> pm.Model:
    """Prior N(0, 25 I) and a Gaussian-distance Simulator at epsilon = 0.55."""
    with pm.Model() as model:
        theta = pm.Normal("theta", 0.0, np.sqrt(ABC_PRIOR_VARIANCE), shape=ABC_DIMENSION)
        pm.Simulator(
            "s", simulator, theta, epsilon=ABC_EPSILON, distance="gaussian",
            sum_stat="identity", signature="(n)->(n)", observed=observed_summary(),
        )  # fmt: skip
    return model


def run_smc(seed: int, chains: int, particles: int) -> tuple[object, int, float]:
    """One pm.sample_smc run (``chains`` independent SMC runs): (result, simulations, seconds)."""
    simulator = CountingSimulator()
    with smc_model(simulator):
        start = time.perf_counter()
        idata = pm.sample_smc(
            draws=particles, chains=chains, cores=1, random_seed=seed, progressbar=False,
            compute_convergence_checks=False,
        )  # fmt: skip
        seconds = time.perf_counter() - start
    return idata, simulator.count, seconds


def smc_particles(args) -> int:
    """Particles per SMC run that spend the MCMC budget per chain, from two pilot runs.

    Simulations per particle grow with the number of particles (52 at 200, 69 at 1000 in a
    trial), so a second pilot at the first estimate corrects it.
    """
    if args.smc_draws is not None:
        return args.smc_draws
    budget = args.simulations * (args.tune + args.draws)
    particles = PILOT_PARTICLES
    for _ in range(2):
        _, sims, _ = run_smc(PILOT_SEED, 1, particles)
        per_particle = sims / particles
        particles = max(2 * ABC_DIMENSION, round(budget / per_particle))
        print(f"SMC pilot: {per_particle:.1f} simulations per particle -> {particles} particles")
    return particles


# --------------------------------------------------------------------------- scores


def max_reference_cdf_error(theta1: np.ndarray, reference: np.ndarray) -> float:
    """``max_q |F_ref(q-quantile of theta1) - q|`` over q = 0.1, ..., 0.9 (reference sorted).

    The reference's empirical CDF at the draws' quantiles, its worst level: not the bench
    suite's ``quantile_error`` (the mean over levels of the draws' fraction below the exact
    quantiles).
    """
    estimates = np.quantile(theta1, DEFAULT_QUANTILES)
    cdf = np.searchsorted(reference, estimates) / reference.size
    return float(np.max(np.abs(cdf - DEFAULT_QUANTILES)))


def autocorrelation(x: np.ndarray, max_lag: int = MAX_LAG) -> list[float]:
    """Autocorrelation of ``x`` (chain, draw) at lags 0..max_lag, pooled over chains."""
    x = x - x.mean(axis=1, keepdims=True)
    n = x.shape[1]
    spectrum = np.fft.rfft(x, 2 * n)
    acov = np.fft.irfft(spectrum * np.conj(spectrum))[:, : min(max_lag + 1, n)].sum(axis=0)
    return [round(float(a), 5) for a in acov / acov[0]]


def smc_acceptance(idata) -> float:
    """Mean of SMC's per-stage ``accept_rate`` over stages and runs.

    Runs that took different numbers of stages give one list per run (an object array).
    """
    values = np.ravel(posterior_dataset(idata, "sample_stats")["accept_rate"].values)
    rates = np.concatenate([np.ravel(np.asarray(v, dtype=float)) for v in values])
    return float(np.nanmean(rates))


def scores(idata, sims: int, seconds: float, reference: dict, mcmc: bool) -> dict:
    """The record's scores for one run."""
    theta = posterior_array(idata, "theta")
    ess = min_ess(idata, "theta")
    acceptance = mean_acceptance(idata) if mcmc else smc_acceptance(idata)
    return {
        "simulations": int(sims), "min_ess": ess, "ess_per_1000_sims": 1000.0 * ess / sims,
        "max_rhat": max_rhat(idata, "theta"), "acceptance": acceptance, "seconds": seconds,
        "q_error_abc": max_reference_cdf_error(theta[..., 0].ravel(), reference["abc"]),
        "q_error_exact": max_reference_cdf_error(theta[..., 0].ravel(), reference["exact"]),
        "acf_theta1": autocorrelation(theta[..., 0]) if mcmc else None,
    }  # fmt: skip


# --------------------------------------------------------------------------- reference


def nuts_reference(epsilon: float, args) -> tuple[np.ndarray, dict]:
    """Long NUTS run on the tractable model: (draws of theta, diagnostics)."""
    with abc_tractable_model(epsilon):
        idata = pm.sample(
            draws=args.ref_draws, tune=args.ref_tune, chains=args.ref_chains, cores=1,
            random_seed=REFERENCE_SEED, target_accept=0.95, progressbar=False,
            compute_convergence_checks=False,
        )  # fmt: skip
    stats = posterior_dataset(idata, "sample_stats")
    info = {
        "min_ess": min_ess(idata, "theta"), "max_rhat": max_rhat(idata, "theta"),
        "divergences": int(np.sum(stats["diverging"].values)),
    }  # fmt: skip
    return posterior_array(idata, "theta").reshape(-1, ABC_DIMENSION), info


def build_reference(args) -> None:
    """Write the ABC (eps = 0.55) and exact (eps = 0) reference draws to ``args.reference``."""
    arrays, infos = {}, {}
    for key, epsilon in (("abc", ABC_EPSILON), ("exact", 0.0)):
        arrays[key], infos[key] = nuts_reference(epsilon, args)
        print(f"reference {key} (epsilon={epsilon}): {infos[key]}")
    args.reference.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.reference, **arrays, info=json.dumps(infos))
    print(f"wrote {args.reference}")


def load_reference(path: Path) -> dict:
    """Sorted theta_1 reference draws by key ("abc", "exact")."""
    if not path.exists():
        raise SystemExit(
            f"no reference at {path}: build it first with "
            f"`python benchmarks/abc_check.py --build-reference --reference {path}`"
        )
    with np.load(path) as data:
        return {key: np.sort(data[key][:, 0]) for key in ("abc", "exact")}


# --------------------------------------------------------------------------- driver


class AbcTask(NamedTuple):
    """One run: a sampler, a seed and a start; ``key`` names its record."""

    name: str
    seed: int
    init: str
    key: str


def tasks(args) -> list[AbcTask]:
    """Every requested run; SMC once per seed, from the prior."""
    out = []
    for seed in args.seeds:
        for name in args.samplers:
            inits = ["prior"] if name == "SMC" else args.init
            out.extend(
                AbcTask(name, seed, init, task_key(name, seed, init, args)) for init in inits
            )
    return out


def task_key(name: str, seed: int, init: str, args) -> str:
    key = f"{name}|{seed}|{init}|{args.chains}|{args.tune}|{args.draws}"
    # (the paper's 10 simulations per estimate keep the keys of the first records)
    return key if args.simulations == ABC_N_SIMULATIONS else f"{key}|{args.simulations}"


def run_task(task: AbcTask, args, reference: dict, particles) -> dict:
    """Run one task and return its record."""
    name, seed, init = task.name, task.seed, task.init
    if name == "SMC":
        idata, sims, seconds = run_smc(seed, args.chains, particles())
        extra = {"particles": particles()}
    else:
        idata, sims, seconds = run_mcmc(name, seed, init, args)
        extra = {}
    record = {"key": task.key, "sampler": name, "seed": seed}
    record.update(init=init, chains=args.chains, tune=args.tune, draws=args.draws, **extra)
    record["simulations_per_estimate"] = args.simulations
    record.update(scores(idata, sims, seconds, reference, mcmc=name != "SMC"))
    return record


def summary(record: dict) -> str:
    """One line of a finished run."""
    return (
        f"{record['sampler']} seed {record['seed']} init {record['init']}: ESS "
        f"{record['min_ess']:.0f}, {record['simulations']} simulations, {record['seconds']:.1f} s"
    )


def markdown_table(records: list[dict]) -> str:
    """Means over seeds (R-hat: max) per sampler and init."""
    head = "| sampler | init | runs | simulations | min ESS | ESS/1k sims | max R-hat | accept |"
    head += " seconds | q-err ABC | q-err exact |"
    lines = [head, "|" + "---|" * 11]
    groups: dict[tuple[str, str], list[dict]] = {}
    for rec in records:
        groups.setdefault((rec["sampler"], rec["init"]), []).append(rec)
    for (name, init), recs in groups.items():

        def mean(field: str, recs=recs) -> float:
            return float(np.mean([r[field] for r in recs]))

        lines.append(
            f"| {name} | {init} | {len(recs)} | {mean('simulations'):.0f} | {mean('min_ess'):.0f}"
            f" | {mean('ess_per_1000_sims'):.2f} | {max(r['max_rhat'] for r in recs):.3f}"
            f" | {mean('acceptance'):.3f} | {mean('seconds'):.1f} | {mean('q_error_abc'):.3f}"
            f" | {mean('q_error_exact'):.3f} |"
        )
    return "\n".join(lines)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out_dir", type=Path, nargs="?", default=Path("benchmarks/results/abc"))
    parser.add_argument("tag", nargs="?", default="abc")
    parser.add_argument("--samplers", nargs="+", choices=SAMPLERS, default=list(SAMPLERS))
    parser.add_argument("--init", nargs="+", choices=tuple(INITS), default=["true"])
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--tune", type=int, default=1000)
    parser.add_argument("--draws", type=int, default=5000)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument(
        "--simulations", type=int, default=ABC_N_SIMULATIONS,
        help="simulated data sets per likelihood estimate (MCMC); SMC gets the same total",
    )  # fmt: skip
    parser.add_argument("--smc-draws", type=int, default=None, help="particles per SMC run")
    parser.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE)
    parser.add_argument("--build-reference", action="store_true")
    parser.add_argument("--ref-chains", type=int, default=4)
    parser.add_argument("--ref-tune", type=int, default=1000)
    parser.add_argument("--ref-draws", type=int, default=10_000)
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    if args.build_reference:
        build_reference(args)
        return
    reference = load_reference(args.reference)
    path = args.out_dir / f"{args.tag}.jsonl"
    cache: list[int] = []

    def particles() -> int:  # the pilot runs at most once, and only if SMC still has to run
        if not cache:
            cache.append(smc_particles(args))
        return cache[0]

    def run(task: AbcTask) -> dict:
        return run_task(task, args, reference, particles)

    run_resumable(
        tasks(args), run, path, finished=lambda record: True, summary=summary, progress=print
    )
    budget = (args.chains, args.tune, args.draws)
    print(
        markdown_table(
            [r for r in load_records(path) if (r["chains"], r["tune"], r["draws"]) == budget]
        )
    )


if __name__ == "__main__":
    main()
