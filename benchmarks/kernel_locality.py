"""How local KameleonStep's kernel term still is in d dimensions (issue 33).

``python benchmarks/kernel_locality.py [--dims 2 5 10 20 50 100] [--n 1000] [--points 50]``

On each dimension target (``gamma-gauss-{d}``, ``banana-0.03-d{d}``), whitened by the exact
covariance as the step's warm-up map would whiten it, ``--n`` exact draws play the history
subsample z and the bandwidth is the median heuristic on them, as in ``KameleonStep()``. At
``--points`` further exact draws y it reports:

- the effective share of the subsample the kernel term is built from, the mean over y of
  ``(sum w)^2 / (n sum w^2)`` with ``w_i = k(y, z_i)^2`` (the squared kernel weights are the
  weights of the gradient scatter ``M H M^T``): 1 means every history point counts the same,
  i.e. the kernel term is a global covariance estimate with no locality left;
- how far the kernel term's shape is from the global covariance (the identity after whitening):
  the Frobenius distance of ``d M H M^T / trace(M H M^T)`` from the identity, over ``sqrt(d)``.
"""

from __future__ import annotations

import argparse

import numpy as np

from pymc_kameleon.bench.registry import get_problem
from pymc_kameleon.core.bandwidth import median_heuristic
from pymc_kameleon.core.kernels import GaussianKernel
from pymc_kameleon.core.proposals.kameleon import kameleon_scatter


def whitened_draws(name: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` exact draws of the problem, whitened by the covariance of 20 000 others."""
    problem = get_problem(name)
    reference = problem.exact_draws(20_000, rng)
    chol = np.linalg.cholesky(np.cov(reference.T))
    centred = problem.exact_draws(n, rng) - reference.mean(axis=0)
    return np.linalg.solve(chol, centred.T).T


def locality(name: str, n: int, points: int, seed: int = 0) -> tuple[float, float]:
    """(weight share, distance of the normalised kernel term from the identity)."""
    rng = np.random.default_rng(seed)
    draws = whitened_draws(name, n + points, rng)
    history, at = draws[:n], draws[n:]
    bandwidth = median_heuristic(history)
    kernel = GaussianKernel(bandwidth)
    shares, distances = [], []
    for y in at:
        weights = kernel.value(y, history) ** 2
        shares.append(weights.sum() ** 2 / (n * (weights**2).sum()))
        scatter = kameleon_scatter(y, history, kernel)
        shape = scatter * (y.size / np.trace(scatter))
        distances.append(np.linalg.norm(shape - np.eye(y.size)) / np.sqrt(y.size))
    return float(np.mean(shares)), float(np.mean(distances))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", nargs="+", type=int, default=[2, 5, 10, 20, 50, 100])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--points", type=int, default=50)
    args = parser.parse_args()
    print("| target | d | weight share | kernel term's distance from the global shape |")
    print("|---|---:|---:|---:|")
    for d in args.dims:
        for name in (f"gamma-gauss-{d}", f"banana-0.03-d{d}"):
            share, distance = locality(name, args.n, args.points)
            print(f"| {name} | {d} | {share:.3f} | {distance:.2f} |", flush=True)


if __name__ == "__main__":
    main()
