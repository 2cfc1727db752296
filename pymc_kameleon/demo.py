"""Demo: KameleonStep against PyMC's Metropolis on Haario's 2-D banana B(0.03, 100).

Run it with::

    python -m pymc_kameleon.demo [--out kameleon_demo.png] [--draws 30000] [--tune 4000]

It samples the banana with both step methods, prints a table of efficiency and accuracy
metrics, says in words which sampler wins on what and whether each run meets the README's rule
for trusting a run (R-hat < 1.01 and bulk ESS > 400), and saves a scatter plot of (x1, x2) over
contours of the exact density. Before it starts it prints how long it should take
(:func:`estimate_seconds`): with the defaults, 4 chains of 4000 warm-up and 30 000 draw
iterations per sampler on 2 processes, about 50 s on two idle cores; busy cores make it slower.

Why this target and budget. A first impression must be one the README's rule would trust. The
demo used to sample the 8-D banana at 4 x (5000 + 5000): KameleonStep's run there had R-hat
1.03-1.11 and a bulk ESS of 53-87, which that rule rejects, so its "x times the ESS per
evaluation" headline compared numbers nobody should read. The 2-D banana of the README's quick
start bends as much and converges at a budget a demo can afford: at 4 x (4000 + 30 000),
KameleonStep's default run met the rule at seeds 1, 2, 3 and the default 2014 (R-hat
1.003-1.010, bulk ESS 665-1254), with 2.3-6.1 times the ESS per log-density evaluation of
``pm.Metropolis``. Per second of wall time it had 0.7-1.9 times Metropolis's ESS: Metropolis is
cheaper per iteration and won on ESS per second at seeds 2 and 3 (benchmarks/notes/lab-notes.md,
"The demo"). At 4 x (4000 + 12 000) KameleonStep fell short of the rule at seeds 1, 2 and 3 (bulk
ESS 210-351).

Both samplers get the same number of iterations; PyMC's ``Metropolis`` updates the vector one
coordinate at a time, so it spends d = 2 log-density evaluations per iteration, which the
"ESS / 1k evals" column accounts for. "ESS / s" divides by the wall time of the ``pm.sample``
call, compilation and worker start included. The "chi2 q error" column is the KAMH paper's
accuracy score (:func:`pymc_kameleon.diagnostics.chi2_quantile_error`, 0 is exact).
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pymc as pm
from scipy import stats

from pymc_kameleon import KameleonStep
from pymc_kameleon.diagnostics import (
    chi2_quantile_error,
    count_logp_evals,
    max_rhat,
    mean_acceptance,
    min_ess,
    posterior_array,
)
from pymc_kameleon.targets import banana_logp, banana_model, banana_to_gaussian

__all__ = [
    "DemoResult",
    "estimate_seconds",
    "format_table",
    "main",
    "plot_samples",
    "run_sampler",
    "summarise",
]

D, B, V = 2, 0.03, 100.0
VAR_NAME = "x"
HPD_LEVELS = (0.5, 0.9, 0.99, 0.999)
DEFAULT_TUNE, DEFAULT_DRAWS, DEFAULT_CHAINS, DEFAULT_CORES = 4000, 30000, 4, 2
#: the README's rule for trusting a run
TRUST_RHAT, TRUST_ESS = 1.01, 400

# Wall-time model of the whole command, calibrated on a 2-core machine (see estimate_seconds).
# The fixed cost is an idle run's wall time less its two pm.sample calls; the per-iteration
# costs are those calls' wall times (compilation and worker start included) per iteration of
# one process, from four runs of the defaults (seeds 1, 2, 3, 2014) on nearly idle cores.
_SETUP_SECONDS = 4.5
_SECONDS_PER_ITERATION = {"KameleonStep": 407e-6, "pm.Metropolis": 259e-6}


@dataclass
class DemoResult:
    """Samples and metrics of one sampler.

    Attributes
    ----------
    label : str
        Name shown in the table and the plot.
    samples : numpy.ndarray
        Posterior draws of shape ``(chain, draw, d)``.
    metrics : dict of str to float
        Values printed in the table.
    """

    label: str
    samples: np.ndarray
    metrics: dict[str, float]


def estimate_seconds(
    tune: int = DEFAULT_TUNE,
    draws: int = DEFAULT_DRAWS,
    chains: int = DEFAULT_CHAINS,
    cores: int = DEFAULT_CORES,
) -> float:
    """Expected wall time of the demo command, in seconds, on an otherwise idle machine.

    A linear model calibrated on the 2-core machine of BENCHMARKS.md with its cores (nearly)
    idle: a fixed cost (importing PyMC, the metrics, the plot) plus, per sampler, a cost per
    iteration of the busiest process, which runs ``ceil(chains / cores)`` chains of
    ``tune + draws`` iterations one after another. Busy cores make the run slower.

    Parameters
    ----------
    tune, draws, chains, cores : int
        The demo's budget, as on its command line.

    Returns
    -------
    float
        Estimated seconds.
    """
    per_process = math.ceil(chains / max(1, min(cores, chains))) * (tune + draws)
    return _SETUP_SECONDS + per_process * sum(_SECONDS_PER_ITERATION.values())


def run_sampler(
    model: pm.Model,
    make_step: Callable[[], Any],
    *,
    tune: int,
    draws: int,
    chains: int,
    cores: int,
    seed: int,
) -> tuple[Any, float]:
    """Sample `model` with the step returned by `make_step`.

    Parameters
    ----------
    model : pymc.Model
        Model to sample.
    make_step : callable
        Builds the step method; called inside the model context.
    tune, draws, chains, cores, seed : int
        Passed to :func:`pymc.sample`.

    Returns
    -------
    idata : arviz.InferenceData or xarray.DataTree
        Sampling output.
    seconds : float
        Wall time of the call, including compilation.
    """
    start = time.perf_counter()
    with model:
        idata = pm.sample(
            step=make_step(),
            tune=tune,
            draws=draws,
            chains=chains,
            cores=cores,
            random_seed=seed,
            progressbar=False,
            compute_convergence_checks=False,
        )
    return idata, time.perf_counter() - start


def summarise(label: str, idata: Any, step_kind: str, seconds: float) -> DemoResult:
    """Compute the table metrics of one run.

    Parameters
    ----------
    label : str
        Sampler name.
    idata : arviz.InferenceData, xarray.DataTree or dict of xarray.Dataset
        Sampling output.
    step_kind : str
        Step name for the logp-evaluation fallback of
        :func:`pymc_kameleon.diagnostics.count_logp_evals`.
    seconds : float
        Wall time of the run.

    Returns
    -------
    DemoResult
        Samples and metrics.
    """
    samples = posterior_array(idata, VAR_NAME)
    evals = count_logp_evals(idata, step_kind, D)
    ess = min_ess(idata, VAR_NAME, method="bulk")
    metrics = {
        "logp evals": float(evals),
        "min bulk ESS": ess,
        "ESS / 1k evals": 1000.0 * ess / evals,
        "ESS / s": ess / seconds,
        "chi2 q error": chi2_quantile_error(banana_to_gaussian(samples, b=B, v=V)),
        "acceptance": mean_acceptance(idata),
        "max R-hat": max_rhat(idata, VAR_NAME),
        "wall s": seconds,
    }
    return DemoResult(label, samples, metrics)


_FORMATS = {
    "logp evals": "{:.0f}",
    "min bulk ESS": "{:.0f}",
    "ESS / 1k evals": "{:.2f}",
    "ESS / s": "{:.1f}",
    "chi2 q error": "{:.3f}",
    "acceptance": "{:.2f}",
    "max R-hat": "{:.3f}",
    "wall s": "{:.1f}",
}


def format_table(results: Sequence[DemoResult]) -> str:
    """Render the metrics as a plain-text table.

    Parameters
    ----------
    results : sequence of DemoResult
        One entry per sampler.

    Returns
    -------
    str
        The table, one row per sampler.
    """
    header = ["sampler", *_FORMATS, "trusted"]
    rows = [
        [r.label, *(fmt.format(r.metrics[k]) for k, fmt in _FORMATS.items()), _trusted(r)]
        for r in results
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.rjust(w) for cell, w in zip(row, widths)) for row in [header, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _trusted(result: DemoResult) -> str:
    """ "yes" if the run meets the README's rule (R-hat < 1.01 and bulk ESS > 400)."""
    ok = result.metrics["max R-hat"] < TRUST_RHAT and result.metrics["min bulk ESS"] > TRUST_ESS
    return "yes" if ok else "no"


def verdict(results: Sequence[DemoResult]) -> list[str]:
    """The comparison in words: the ratios, which runs to trust, and where each sampler wins.

    Parameters
    ----------
    results : sequence of DemoResult
        KameleonStep's result, then pm.Metropolis's.

    Returns
    -------
    list of str
        Lines to print.
    """
    ours, theirs = results[0], results[1]
    lines = []
    for key, what in (
        ("ESS / 1k evals", "per 1000 log-density evaluations"),
        ("ESS / s", "per second"),
    ):
        if theirs.metrics[key] > 0:
            lines.append(
                f"{ours.label}: {ours.metrics[key] / theirs.metrics[key]:.1f}x the ESS {what} "
                f"of {theirs.label}."
            )
    untrusted = [r.label for r in results if _trusted(r) == "no"]
    if untrusted:
        lines.append(
            f"Not to be trusted by the README's rule (R-hat < {TRUST_RHAT}, bulk ESS > "
            f"{TRUST_ESS}): {', '.join(untrusted)}; run longer before reading its numbers."
        )
    lower_is_better = {"chi2 q error", "wall s", "max R-hat"}

    def shown(result: DemoResult, key: str) -> float:  # as printed: a tie in the table is a tie
        return float(_FORMATS[key].format(result.metrics[key]))

    for winner, loser in ((ours, theirs), (theirs, ours)):
        wins = [
            key
            for key in ("ESS / 1k evals", "ESS / s", "chi2 q error", "max R-hat", "wall s")
            if (shown(winner, key) < shown(loser, key)) == (key in lower_is_better)
            and shown(winner, key) != shown(loser, key)
        ]
        lines.append(f"{winner.label} is better on: {', '.join(wins) or 'nothing here'}.")
    return lines


def _density_grid(
    x1_lim: tuple[float, float], x2_lim: tuple[float, float], n: int = 300
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact log density of (x1, x2) on a grid; that marginal is the 2-D banana."""
    x1, x2 = np.meshgrid(np.linspace(*x1_lim, n), np.linspace(*x2_lim, n))
    logp = banana_logp(np.stack([x1, x2], axis=-1), b=B, v=V)
    return x1, x2, logp


def plot_samples(
    results: Sequence[DemoResult], out: str, max_points: int = 3000, seed: int = 0
) -> Any:
    """Save (x1, x2) scatter plots of each sampler over the exact banana contours.

    Parameters
    ----------
    results : sequence of DemoResult
        One panel per sampler.
    out : str
        Output path of the PNG file.
    max_points : int, default 3000
        Draws shown per panel, picked at random from the pooled chains.
    seed : int, default 0
        Seed for picking the shown draws.

    Returns
    -------
    matplotlib.figure.Figure
        The figure saved.

    Raises
    ------
    ImportError
        If matplotlib is not installed.
    """
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as err:
        raise ImportError(
            "the demo plot needs matplotlib; install it with "
            "`pip install matplotlib` or `pip install pymc-kameleon[examples]`"
        ) from err

    # x1 ~ N(0, V) to 3.5 sd; x2 given x1 is B (x1^2 - V) + N(0, 1).
    x1_max = 3.5 * np.sqrt(V)
    x2_lim = (-B * V - 5.0, B * (x1_max**2 - V) + 5.0)
    x1, x2, logp = _density_grid((-x1_max, x1_max), x2_lim)
    # (x1, x2) is the 2-D banana, so its HPD regions are {chi2_2 statistic of T(x) < quantile}.
    levels = np.sort(logp.max() - 0.5 * stats.chi2.ppf(HPD_LEVELS, df=2))
    rng = np.random.default_rng(seed)
    fig = Figure(figsize=(5.0 * len(results), 4.5), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, len(results), sharex=True, sharey=True, squeeze=False)[0]
    for ax, result in zip(axes, results):
        pooled = result.samples.reshape(-1, result.samples.shape[-1])
        shown = pooled[rng.choice(len(pooled), min(max_points, len(pooled)), replace=False)]
        ax.contourf(x1, x2, logp, levels=[*levels, logp.max()], cmap="Greys", alpha=0.6)
        ax.contour(x1, x2, logp, levels=levels, colors="0.3", linewidths=0.6, linestyles="solid")
        ax.scatter(shown[:, 0], shown[:, 1], s=2, alpha=0.35, color="tab:red", linewidths=0)
        ess, per_k = result.metrics["min bulk ESS"], result.metrics["ESS / 1k evals"]
        ax.set_title(f"{result.label}: min bulk ESS {ess:.0f}, {per_k:.2f} per 1k logp evals")
        ax.set_xlabel("x1")
    axes[0].set_ylabel("x2")
    dim = results[0].samples.shape[-1]
    fig.suptitle(f"{dim}-D banana B({B}, {V:g}); contours: exact 50/90/99/99.9% HPD regions")
    fig.savefig(out, dpi=110)
    return fig


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m pymc_kameleon.demo",
        description=f"KameleonStep vs pm.Metropolis on the {D}-D banana B({B}, {V:g}).",
    )
    parser.add_argument("--out", default="kameleon_demo.png", help="PNG output path")
    parser.add_argument("--draws", type=int, default=DEFAULT_DRAWS, help="draws per chain")
    parser.add_argument(
        "--tune", type=int, default=DEFAULT_TUNE, help="tuning iterations per chain"
    )
    parser.add_argument("--chains", type=int, default=DEFAULT_CHAINS)
    parser.add_argument("--cores", type=int, default=DEFAULT_CORES)
    parser.add_argument("--seed", type=int, default=2014)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> list[DemoResult]:
    """Run the demo from the command line.

    Parameters
    ----------
    argv : sequence of str, optional
        Command-line arguments; ``sys.argv[1:]`` when omitted.

    Returns
    -------
    list of DemoResult
        Results for KameleonStep and pm.Metropolis.
    """
    args = _parse_args(argv)
    seconds = estimate_seconds(args.tune, args.draws, args.chains, args.cores)
    print(
        f"KameleonStep vs pm.Metropolis on the {D}-D banana B({B}, {V:g}), "
        f"{args.chains} chains x ({args.tune} tune + {args.draws} draws) each, "
        f"{args.cores} processes.\n"
        f"This takes about {_round_seconds(seconds)} s on 2 cores if they are idle, longer if "
        "they are busy.",
        flush=True,
    )
    model = banana_model(d=D, b=B, v=V, name=VAR_NAME)
    samplers = [
        ("KameleonStep", KameleonStep, "kameleon"),
        ("pm.Metropolis", pm.Metropolis, "metropolis"),
    ]
    run_kwargs = dict(
        tune=args.tune, draws=args.draws, chains=args.chains, cores=args.cores, seed=args.seed
    )
    results = []
    for label, make_step, kind in samplers:
        print(f"Sampling with {label} ({args.chains} chains x {args.tune}+{args.draws}) ...")
        idata, seconds = run_sampler(model, make_step, **run_kwargs)
        results.append(summarise(label, idata, kind, seconds))
    print()
    print(format_table(results))
    print(f"(pm.Metropolis updates one coordinate at a time: {D} logp evaluations per iteration;")
    print(" its acceptance is the fraction of accepted coordinate updates;")
    print(" chi2 q error is the accuracy (0 is exact); trusted: R-hat < 1.01 and ESS > 400.)")
    print()
    print("\n".join(verdict(results)))
    plot_samples(results, args.out, seed=args.seed)
    print(f"\nPlot written to {args.out}")
    return results


def _round_seconds(seconds: float) -> int:
    """Round an estimate to 5 s (10 s above a minute): it is only an estimate."""
    step = 5 if seconds < 60 else 10
    return max(step, int(step * round(seconds / step)))


if __name__ == "__main__":
    main()
