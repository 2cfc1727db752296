"""``find_mode_and_curvature`` on each real-suite model, from the model's initial point.

Prints, per model, the sampled dimension, the status (``gaussian`` when a positive definite
curvature was found at a converged mode), the log-density evaluations spent, and the
log-density (sampled space, Jacobian included) at the start and at the point found.

Usage::

    python benchmarks/mode_start_real_models.py [--newton-steps 8]
"""

from __future__ import annotations

import argparse
import time

from pymc.blocking import DictToArrayBijection, RaveledVars

from pymc_kameleon.bench.real.models import REAL_MODELS
from pymc_kameleon.core.mode_start import find_mode_and_curvature


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--newton-steps", type=int, default=20)
    parser.add_argument("--budget", type=int, default=None)
    args = parser.parse_args()
    print("| model | d | status | evaluations | log-density at start | at the point found |")
    print("|---|---|---|---|---|---|")
    for name, real_model in REAL_MODELS.items():
        model = real_model.build()
        point = model.initial_point()
        start = DictToArrayBijection.map({v.name: point[v.name] for v in model.value_vars})
        compiled = model.compile_logp(jacobian=True)

        def log_density(x, info=start.point_map_info, compiled=compiled):
            return float(compiled(DictToArrayBijection.rmap(RaveledVars(x, info))))

        began = time.perf_counter()
        result = find_mode_and_curvature(
            log_density, start.data, max_newton_steps=args.newton_steps, max_evals=args.budget
        )
        print(
            f"| {name} | {start.data.size} | {result.status} | {result.n_evals} | "
            f"{log_density(start.data):.6g} | {result.log_density:.6g} |",
            f"<!-- {time.perf_counter() - began:.1f} s -->",
            flush=True,
        )


if __name__ == "__main__":
    main()
