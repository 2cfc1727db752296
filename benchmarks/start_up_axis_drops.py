"""The start-up's axis test on the real models and on curved targets.

``python benchmarks/start_up_axis_drops.py [--distance 3]``: for each real-suite model (from its
initial point) and for Haario's bananas, Neal's funnel, Student t targets, the flower and two
separated Gaussians, climbs to a mode (no budget) and prints the status and, where the curvature
is positive definite, the smallest, largest and median mean drop of the log-density at
``distance`` sds along the principal axes (a Gaussian's is ``distance**2 / 2``; the start-up
trusts a Gaussian whose drops are all within a factor 2 of that at 3 sds).
"""

from __future__ import annotations

import argparse
import math

import numpy as np
from pymc.blocking import DictToArrayBijection, RaveledVars

from pymc_kameleon.bench.real.models import REAL_MODELS
from pymc_kameleon.core.mode_start import axis_drops, find_mode_and_curvature


def report(name, log_density, start, distance):
    result = find_mode_and_curvature(log_density, start)
    if result.covariance is None:
        print(f"| {name} | {result.status} | | | |")
        return
    drops = axis_drops(log_density, result.mode, result.log_density, result.covariance, distance)
    mean = drops.reshape(-1, 2).mean(axis=1)
    print(
        f"| {name} | {result.status} | {mean.min():.3g} | {mean.max():.3g} | "
        f"{np.median(mean):.3g} |"
    )


def banana(b, v=100.0):
    def log_density(x):
        y = x.copy()
        y[1] = x[1] + b * (x[0] ** 2 - v)
        return -0.5 * (y[0] ** 2 / v + float(np.sum(y[1:] ** 2)))

    return log_density


def funnel(x):
    v = x[0]
    return -(v**2) / 18 - 0.5 * float(np.sum(x[1:] ** 2)) * math.exp(-v) - 0.5 * (x.size - 1) * v


def student(nu):
    return lambda x: -0.5 * (nu + x.size) * math.log1p(float(x @ x) / nu)


def flower(x, r0=10.0, amplitude=6.0, petals=6):
    r, theta = math.hypot(x[0], x[1]), math.atan2(x[1], x[0])
    return -0.5 * (r - r0 - amplitude * math.cos(petals * theta)) ** 2


def two_gaussians(x):
    return float(np.logaddexp(-0.5 * np.sum((x - 3) ** 2), -0.5 * np.sum((x + 3) ** 2)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--distance", type=float, default=3.0)
    args = parser.parse_args()
    print("| target | status | smallest drop | largest drop | median drop |")
    print("|---|---|---|---|---|")
    for name, real_model in REAL_MODELS.items():
        model = real_model.build()
        point = model.initial_point()
        start = DictToArrayBijection.map({v.name: point[v.name] for v in model.value_vars})
        compiled = model.compile_logp(jacobian=True)

        def log_density(x, info=start.point_map_info, compiled=compiled):
            return float(compiled(DictToArrayBijection.rmap(RaveledVars(x, info))))

        report(name, log_density, start.data, args.distance)
    for b in (0.01, 0.03, 0.1):
        report(f"banana B({b}, 100), d = 8", banana(b), np.full(8, 0.1), args.distance)
    report("funnel, d = 5", funnel, np.ones(5), args.distance)
    report("Student t, 3 dof, d = 4", student(3.0), np.ones(4), args.distance)
    report("Student t, 10 dof, d = 4", student(10.0), np.ones(4), args.distance)
    report("flower", flower, np.array([10.0, 0.5]), args.distance)
    report("two Gaussians at ±3", two_gaussians, np.array([0.5, 0.2]), args.distance)


if __name__ == "__main__":
    main()
