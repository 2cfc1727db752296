"""One KMCStep chain on GPC-Glass with its adaptation diagnostics (step size, length scale, beta).

The runs behind the "KMC's step size collapses" paragraph of benchmarks/notes/lab-notes.md::

    python benchmarks/gpc_kmc_diagnostics.py "dict(n_history=1000)"
    python benchmarks/gpc_kmc_diagnostics.py "dict(n_history=1000, adaptation='vanishing')"
    python benchmarks/gpc_kmc_diagnostics.py "dict(n_history=1000, mass='diagonal')"
    python benchmarks/gpc_kmc_diagnostics.py "dict(n_history=1000, lengthscale=3.0)"

Same protocol as the suite's glass experiment (6000 iterations, 1000 warm-up, start at 0,
seed 1000);
scored against the shipped benchmark sample (built by ``bench_gpc_glass.py``).
"""

import os
import sys

os.environ["OPENBLAS_NUM_THREADS"] = "1"

import numpy as np
import pymc as pm

from pymc_kameleon import KMCStep
from pymc_kameleon.bench.problems import GLASS_REFERENCE as REFERENCE
from pymc_kameleon.diagnostics import min_ess, polynomial_mmd2
from pymc_kameleon.targets import glass_gpc_model

if __name__ == "__main__":
    kwargs = eval(sys.argv[1]) if len(sys.argv) > 1 else {"n_history": 1000}  # a dict literal
    tune = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    with glass_gpc_model():
        idata = pm.sample(
            tune=tune,
            draws=6000 - tune,
            chains=1,
            cores=1,
            step=KMCStep(**kwargs),
            random_seed=1000,
            progressbar=False,
            compute_convergence_checks=False,
        )
    stats = idata["sample_stats"]
    theta = np.asarray(idata["posterior"]["theta"].values)[0]
    reference = np.load(REFERENCE)["draws"]
    print(
        f"{kwargs} tune={tune}: min ESS {min_ess(idata, 'theta'):.0f}, "
        f"acceptance {float(stats['accept'].mean()):.2f}, "
        f"step size {float(stats['step_size'].mean()):.3f}, "
        f"n_steps {float(stats['n_steps'].mean()):.1f}, "
        f"surrogate scale {float(stats['surrogate_scale'].values[0, -1]):.2f}, "
        f"length scale {float(stats['lengthscale'].values[0, -1]):.1f}, "
        f"MMD^2 {polynomial_mmd2(theta[::5], reference):.3g}"
    )
