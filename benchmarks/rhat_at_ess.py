"""How small R-hat gets by chance at a given ESS: the bar R-hat <= 1.01 as an ESS.

``python benchmarks/rhat_at_ess.py [--ess 250 500 900] [--quantities 18] [--reps 100]`` draws
4 chains x 1000 of ``quantities`` independent stationary AR(1) series whose autocorrelation
gives the bulk ESS asked for (an exact sampler that mixes that well, nothing else wrong), and
prints the median over ``reps`` repetitions of the smallest bulk ESS and of the largest
rank-normalised split R-hat (ArviZ), and how often that largest R-hat is <= 1.01. The default
18 quantities are the non-centred eight schools' (mu, tau, 8 theta_z, 8 theta).
"""

from __future__ import annotations

import argparse

import numpy as np

from pymc_kameleon._compat import ess_array, rhat_array

CHAINS, DRAWS = 4, 1000


def ar1(rho: float, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Stationary unit-variance AR(1) series along the last axis."""
    noise = rng.standard_normal(shape)
    x = np.empty(shape)
    x[..., 0] = noise[..., 0]
    for t in range(1, shape[-1]):
        x[..., t] = rho * x[..., t - 1] + np.sqrt(1.0 - rho**2) * noise[..., t]
    return x


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ess", type=float, nargs="+", default=[250.0, 500.0, 900.0])
    parser.add_argument("--quantities", type=int, default=18)
    parser.add_argument("--reps", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print("| ESS asked | median min ESS | median max R-hat | P(max R-hat <= 1.01) |")
    print("|---|---|---|---|")
    for target in args.ess:
        tau = CHAINS * DRAWS / target  # an AR(1)'s integrated autocorrelation time: (1+rho)/(1-rho)
        rho = (tau - 1.0) / (tau + 1.0)
        largest, smallest = [], []
        for _ in range(args.reps):
            x = ar1(rho, (args.quantities, CHAINS, DRAWS), rng)
            largest.append(max(float(rhat_array(q)) for q in x))
            smallest.append(min(float(ess_array(q)) for q in x))
        largest = np.array(largest)
        print(
            f"| {target:.0f} | {np.median(smallest):.0f} | {np.median(largest):.3f} | "
            f"{np.mean(largest <= 1.01):.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
