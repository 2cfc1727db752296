"""Time one PointEvaluator call of 50 oscillator solves on a 2-worker Dask LocalCluster, with
Dask's worker profiler on (``default``) or off (``noprof``); prints each worker's share."""

import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # benchmarks/: smc_pool_scaling


def solve_and_say_where(x):
    import smc_pool_scaling

    smc_pool_scaling.oscillator(x)
    return float(os.getpid())


def main() -> None:
    import dask
    from dask.distributed import Client, LocalCluster

    from pymc_kameleon.core.evaluation_pool import PointEvaluator

    kind = sys.argv[1] if len(sys.argv) > 1 else "default"
    config = {"distributed.worker.profile.enabled": False} if kind == "noprof" else {}
    points = np.column_stack([np.linspace(0.25, 0.35, 50), np.full(50, 1.4)])
    start = time.perf_counter()
    PointEvaluator(solve_and_say_where)(points)
    serial = time.perf_counter() - start
    print("serial 50", serial)
    with dask.config.set(config):
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None)
        with cluster, Client(cluster) as client:
            evaluate = PointEvaluator(solve_and_say_where, client)
            evaluate(points)
            for _ in range(8):
                start = time.perf_counter()
                pids = evaluate(points)
                wall = time.perf_counter() - start
                shares = [int((pids == p).sum()) for p in sorted(set(pids.tolist()))]
                print(kind, f"wall {wall:.3f} ratio {wall / serial:.2f} shares {shares}")


if __name__ == "__main__":
    main()
