"""The KMC paper's Figure 2: acceptance along KMC-finite trajectories against n = m and d.

No MCMC: for each dimension ``d`` and size ``n = m``, the finite surrogate (random Fourier
features of a rational-quadratic kernel, as in the paper) is fitted by score matching to ``n``
exact draws of the Gamma(1, 1)-eigenvalue rotated Gaussian (``gamma-gauss-{d}``). Each of 100
trials starts a leapfrog trajectory at a fresh exact draw with a standard normal momentum and
follows the surrogate's gradient; at every step the *hypothetical* acceptance
``min(1, exp(H(start) - H(now)))`` is taken with the true Hamiltonian, and the trial's score is
its mean over the trajectory. HMC (the true gradient, the same steps) is the ceiling.

Choices the paper leaves open, made here: the kernel's length scale is the median distance
between the draws, the rational-quadratic shape is 1 (each feature's inverse squared length
scale is Gamma(1, 1) around the median's), the scale-free ridge is the package's default (5),
the step size is half the stability limit of the narrowest direction
(``sqrt(smallest eigenvalue)``), and the trajectory runs for the widest direction's sd
(``ceil(sqrt(largest eigenvalue) / step)`` steps, at most 400).

A second surrogate, ``finite+gauss``, measures a possible fix: the same features fitted to the
residual of a Gaussian base density (the draws' mean and covariance), whose gradient is added.
It needs a covariance estimate, so it is run only for ``n > 2 d``.

Usage::

    python benchmarks/trajectory_acceptance.py benchmarks/results/trajectory-acceptance \
        [--dims 2 5 10 20 50 100] [--sizes 100 250 500 1000 2000] [--trials 100] [--seed 0]
    python benchmarks/trajectory_acceptance.py benchmarks/results/trajectory-acceptance --plot \
        docs/_static/trajectory_acceptance.png

Records: one JSON line per (d, n, surrogate) in ``OUT_DIR/records.jsonl`` with the mean and the
10 % / 90 % quantiles of the trials' acceptance (finished ones are skipped).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import NamedTuple

import numpy as np
from scipy.linalg import cho_solve
from scipy.spatial.distance import pdist

from pymc_kameleon.bench.dimension import gamma_eigen_covariance
from pymc_kameleon.bench.records import load_records, run_resumable
from pymc_kameleon.core.surrogates.finite import (
    FiniteScoreMatching,
    RandomFeatures,
    relative_ridge,
)

SURROGATES = ("HMC", "finite", "finite+gauss")
DEFAULT_RIDGE = 5.0
RQ_SHAPE = 1.0
MAX_STEPS = 400


def rational_quadratic_features(
    dim: int, n_features: int, lengthscale: float, rng: np.random.Generator
) -> RandomFeatures:
    """Random Fourier features of the rational-quadratic kernel (a Gamma scale mixture)."""
    precision = rng.gamma(RQ_SHAPE, 1.0 / RQ_SHAPE, size=n_features) / lengthscale**2
    omega = rng.standard_normal((n_features, dim)) * np.sqrt(precision)[:, None]
    return RandomFeatures(omega, rng.uniform(0.0, 2.0 * np.pi, size=n_features))


def fitted_gradient(draws: np.ndarray, gaussian_base: bool, rng: np.random.Generator):
    """The surrogate's gradient function fitted on ``draws`` (n = m features)."""
    n, d = draws.shape
    lengthscale = float(np.median(pdist(draws[: min(n, 1000)])))
    features = rational_quadratic_features(d, n, lengthscale, rng)
    estimator = FiniteScoreMatching(features, relative_ridge(DEFAULT_RIDGE, d, n, lengthscale))
    estimator.batch_fit(draws)
    if not gaussian_base:
        return estimator.gradient
    mean = draws.mean(axis=0)
    precision = np.linalg.inv(np.cov(draws, rowvar=False))
    # the residual's score matching adds sum_i G_i^T P (z_i - mean) to the right-hand side
    residual = (draws - mean) @ precision
    extra = np.einsum("nam,na->m", features.feature_gradients(draws), residual)
    theta = cho_solve((estimator.cholesky, True), estimator.score_sum + extra)
    estimator.theta = theta
    return lambda x: estimator.gradient(x) - (x - mean) @ precision


def trial_acceptance(x0, p0, gradient, precision, step, n_steps) -> float:
    """Mean of ``min(1, exp(-dH))`` along one leapfrog trajectory of ``gradient``."""

    def energy(x, p):
        return 0.5 * x @ precision @ x + 0.5 * p @ p

    start = energy(x0, p0)
    x, p = x0.copy(), p0 + 0.5 * step * gradient(x0)
    rates = []
    for i in range(n_steps):
        x = x + step * p
        g = gradient(x)
        half = p + 0.5 * step * g
        gap = start - energy(x, half)
        if not math.isfinite(gap):  # a diverged trajectory accepts nothing from here on
            rates.extend([0.0] * (n_steps - i))
            break
        rates.append(math.exp(min(0.0, gap)))
        if i + 1 < n_steps:
            p = p + step * g
    return float(np.mean(rates))


def run_one(d: int, n: int, surrogate: str, trials: int, seed: int) -> dict:
    """Acceptance of ``trials`` trajectories at dimension ``d`` and size ``n = m``."""
    cov = gamma_eigen_covariance(d)
    eigenvalues = np.linalg.eigvalsh(cov)
    precision = np.linalg.inv(cov)
    chol = np.linalg.cholesky(cov)
    rng = np.random.default_rng([seed, d, n])
    step = 0.5 * math.sqrt(eigenvalues[0])
    n_steps = min(MAX_STEPS, math.ceil(math.sqrt(eigenvalues[-1]) / step))
    if surrogate == "HMC":
        gradient = lambda x: -precision @ x  # noqa: E731
    else:
        draws = rng.standard_normal((n, d)) @ chol.T
        gradient = fitted_gradient(draws, surrogate == "finite+gauss", rng)
    scores = []
    for _ in range(trials):
        x0 = chol @ rng.standard_normal(d)
        p0 = rng.standard_normal(d)
        scores.append(trial_acceptance(x0, p0, gradient, precision, step, n_steps))
    return {
        "d": d, "n": n, "surrogate": surrogate, "seed": seed, "trials": trials,
        "step_size": step, "n_steps": n_steps, "mean": float(np.mean(scores)),
        "q10": float(np.quantile(scores, 0.1)), "q90": float(np.quantile(scores, 0.9)),
    }  # fmt: skip


class Cell(NamedTuple):
    """One (d, n, surrogate, seed) of the figure; its records are named by the same fields."""

    d: int
    n: int
    surrogate: str
    seed: int

    @property
    def key(self) -> tuple[int, int, str, int]:
        return (self.d, self.n, self.surrogate, self.seed)


def _summary(record: dict) -> str:
    return (
        f"d={record['d']} n=m={record['n']} {record['surrogate']}: {record['mean']:.3f} "
        f"[{record['q10']:.3f}, {record['q90']:.3f}]"
    )


def plot(records: list[dict], path: Path) -> None:
    """Mean acceptance against d, one panel per surrogate, one line per n = m."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(11, 3.6), sharey=True)
    for ax, name in zip(axes, SURROGATES, strict=True):
        rows = [r for r in records if r["surrogate"] == name]
        for n in sorted({r["n"] for r in rows}):
            line = sorted((r["d"], r["mean"]) for r in rows if r["n"] == n)
            ax.plot(*zip(*line, strict=True), marker="o", label=f"n = m = {n}")
            if name == "HMC":
                break  # HMC does not depend on n
        ax.set_xscale("log")
        ax.set_xlabel("dimension d")
        ax.set_title({"HMC": "HMC (true gradient)"}.get(name, f"KMC {name}"))
    axes[0].set_ylabel("mean acceptance along trajectories")
    axes[1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--dims", type=int, nargs="+", default=[2, 5, 10, 20, 50, 100])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 250, 500, 1000, 2000])
    parser.add_argument("--surrogates", nargs="+", choices=SURROGATES, default=list(SURROGATES))
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plot", type=Path)
    args = parser.parse_args()
    path = args.out / "records.jsonl"
    if args.plot is not None:
        plot(load_records(path), args.plot)
        return
    cells = [
        Cell(d, n, name, args.seed)
        for d in args.dims
        for name in args.surrogates
        for n in (args.sizes if name != "HMC" else args.sizes[:1])
        if not (name == "finite+gauss" and n <= 2 * d)
    ]
    run_resumable(
        cells, lambda c: run_one(c.d, c.n, c.surrogate, args.trials, c.seed), path,
        key=lambda r: (r["d"], r["n"], r["surrogate"], r["seed"]), finished=lambda r: True,
        summary=_summary, progress=lambda line: print(line, flush=True),
    )  # fmt: skip


if __name__ == "__main__":
    main()
