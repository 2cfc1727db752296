"""Where a KameleonSMC run's wall time goes: inside the pool calls and outside, per pool kind."""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # benchmarks/: smc_pool_scaling
import smc_pool_scaling as s

from pymc_kameleon.core import evaluation_pool as ep

inside = [0.0, 0]
orig = ep.PointEvaluator.__call__


def timed(self, points):
    t = time.perf_counter()
    try:
        return orig(self, points)
    finally:
        inside[0] += time.perf_counter() - t
        inside[1] += 1


ep.PointEvaluator.__call__ = timed

if __name__ == "__main__":
    which = sys.argv[1:] or ["serial", "ProcessPoolExecutor", "dask LocalCluster"]
    kinds = dict(s.pools(2))
    s.run("ode", None, 100, 5, 1)
    for name in which:
        inside[:] = [0.0, 0]
        if name == "serial":
            r = s.run("ode", None, 100, 5, 1)
        else:
            with kinds[name]() as pool:
                s.warm_up(pool, 2)
                r = s.run("ode", pool, 100, 5, 1)
        seconds = r["seconds"]
        print(f"{name:22s} wall {seconds:6.2f}  in pool calls {inside[0]:6.2f} ({inside[1]} calls)"
              f"  outside {seconds - inside[0]:6.2f}", flush=True)  # fmt: skip
