"""How often an independence move is accepted at the last SMC stage, by proposal family.

Usage: ``python benchmarks/smc_independence_acceptance.py OUT_DIR [--pairs 4000] [--repeats 3]
[--dim 8]``.

PyMC's IMH kernel proposes from one Gaussian fitted to the population. Its per-evaluation
advantage over local moves in ``benchmarks/smc_check.py`` comes from how fast such moves
decorrelate a stage, which is set by their acceptance rate. This script asks whether a proposal
fitted to the same population with more structure (a mixture of Gaussians from k-means clusters)
is accepted more often, so that a kernel could beat IMH per evaluation. The population is
``n`` exact draws of the target (the final stage of a run, one half of the particles when a
kernel is built on the other half), in ``--dim`` dimensions: the benchmark's 8, or 2, where the
curved coordinates are all there is. The acceptance rate of an independence sampler at
stationarity, ``E min(1, w(y) / w(x))`` with ``w = pi / q``, ``x ~ pi`` and ``y ~ q``, is
estimated from ``--pairs`` pairs, averaged over ``--repeats`` populations.

Families: ``gaussian`` (IMH's), ``kmeans-whitened-k`` (k-means on the population in the
coordinates that whiten it, which is unit-free; each cluster's covariance shrunk toward the
whole population's with one pseudo-observation), ``kmeans-fobi-k`` (the same whitened points,
clustered along their directions of fourth-order non-Gaussianity: the eigenvectors of
``E[|u|^2 u u^T]``, each scaled by how far its eigenvalue is from ``d + 2``, its value for every
direction of a Gaussian; unit-free too) and ``kmeans-raw-k`` (the same in the target's
own coordinates, which is not unit-free: the targets' curved coordinates have the largest
scales, so the clusters follow the curve only by that accident of units).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from scipy.cluster.vq import kmeans2
from scipy.linalg import cholesky, solve_triangular
from scipy.special import logsumexp

from pymc_kameleon.targets import banana_logp, flower_logp, sample_banana, sample_flower

TARGETS = {  # log-density; exact draws (n, dim, rng)
    "banana-0.03": (
        lambda x: banana_logp(x, b=0.03),
        lambda n, d, g: sample_banana(n, d, 0.03, rng=g),
    ),
    "banana-0.1": (
        lambda x: banana_logp(x, b=0.1),
        lambda n, d, g: sample_banana(n, d, 0.1, rng=g),
    ),
    "flower": (flower_logp, lambda n, d, g: sample_flower(n, d, rng=g)),
}
FAMILIES = ("gaussian", "kmeans-whitened-4", "kmeans-whitened-8", "kmeans-whitened-16",
            "kmeans-fobi-8", "kmeans-fobi-16",
            "kmeans-raw-4", "kmeans-raw-8", "kmeans-raw-16")  # fmt: skip
POPULATIONS = (250, 500, 1000)


def fobi_coordinates(u: np.ndarray) -> np.ndarray:
    """Whitened points on the eigenvectors of ``E[|u|^2 u u^T]``, scaled by ``|lambda - (d+2)|``.

    Every direction of a Gaussian has the eigenvalue ``d + 2`` (FOBI, Cardoso 1989), so the
    scaling shrinks the Gaussian directions and k-means splits along the non-Gaussian ones.
    """
    fourth = (u * np.sum(u**2, axis=1, keepdims=True)).T @ u / u.shape[0]
    eigenvalues, eigenvectors = np.linalg.eigh(fourth)
    return (u @ eigenvectors) * np.abs(eigenvalues - (u.shape[1] + 2))


def fit_mixture(population: np.ndarray, family: str, rng: np.random.Generator) -> list[tuple]:
    """(weight, mean, Cholesky factor) per component, in the target's coordinates."""
    mean = population.mean(axis=0)
    factor = cholesky(np.cov(population.T), lower=True)
    if family == "gaussian":
        return [(1.0, mean, factor)]
    whitened = family.startswith("kmeans-whitened")
    k = int(family.rsplit("-", 1)[1])
    u = solve_triangular(factor, (population - mean).T, lower=True).T
    if family.startswith("kmeans-fobi"):
        coords = fobi_coordinates(u)
    else:
        coords = u if whitened else population
    _, labels = kmeans2(coords, k, seed=rng, minit="++")
    dim = population.shape[1]
    components = []
    for j in range(k):
        members = u[labels == j]
        if members.shape[0] < 2:
            continue
        scatter = np.cov(members.T, bias=True) * members.shape[0]
        shrunk = (scatter + np.eye(dim)) / (members.shape[0] + 1)  # one pseudo-point at cov I
        components.append((members.shape[0] / u.shape[0], mean + factor @ members.mean(axis=0),
                           factor @ cholesky(shrunk, lower=True)))  # fmt: skip
    return components


def mixture_logpdf(components: list[tuple], y: np.ndarray) -> np.ndarray:
    terms = []
    for weight, mean, factor in components:
        z = solve_triangular(factor, (y - mean).T, lower=True)
        log_det = np.log(np.diag(factor)).sum()
        terms.append(np.log(weight) - 0.5 * (z**2).sum(axis=0) - log_det)
    return logsumexp(terms, axis=0)


def mixture_draws(components: list[tuple], n: int, rng: np.random.Generator) -> np.ndarray:
    weights = np.array([c[0] for c in components])
    picks = rng.choice(len(components), n, p=weights / weights.sum())
    noise = rng.standard_normal((n, components[0][1].size))
    return np.stack([components[i][1] + components[i][2] @ e for i, e in zip(picks, noise)])


def acceptance(
    target: str, family: str, n: int, dim: int, pairs: int, rng: np.random.Generator
) -> float:
    logp, draw = TARGETS[target]
    components = fit_mixture(draw(n, dim, rng), family, rng)
    x, y = draw(pairs, dim, rng), mixture_draws(components, pairs, rng)
    log_w = logp(y) - mixture_logpdf(components, y) - logp(x) + mixture_logpdf(components, x)
    return float(np.minimum(1.0, np.exp(np.minimum(log_w, 0.0))).mean())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--pairs", type=int, default=4000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dim", type=int, default=8)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    rows = []
    for target in TARGETS:
        for n in POPULATIONS:
            rates = {f: np.mean([acceptance(target, f, n, args.dim, args.pairs, rng)
                                 for _ in range(args.repeats)]) for f in FAMILIES}  # fmt: skip
            rows.append({"target": target, "dim": args.dim, "population": n, **rates})
            print(f"| {target} | {n} | " + " | ".join(f"{rates[f]:.3f}" for f in FAMILIES) + " |",
                  flush=True)  # fmt: skip
    with open(args.out / "results.jsonl", "w") as out:
        out.writelines(json.dumps(row) + "\n" for row in rows)


if __name__ == "__main__":
    main()
