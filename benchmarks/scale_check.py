"""Default steps on a correlated Gaussian whose scales are 0.01, 1 and 100 (issue 15's problem).

``python benchmarks/scale_check.py``: 2 chains x (1500 + 1500) per step, seed 3; prints each
step's posterior sd over the exact sd and the smallest bulk ESS.
"""

import time

import numpy as np
import pymc as pm

from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep
from pymc_kameleon.diagnostics import min_ess, posterior_array

SD = np.array([0.01, 1.0, 100.0])
CORRELATION = np.array([[1.0, 0.9, 0.5], [0.9, 1.0, 0.7], [0.5, 0.7, 1.0]])

if __name__ == "__main__":
    cov = CORRELATION * np.outer(SD, SD)
    for name, make in [("KMCStep", KMCStep),
                       ("KMCStep(whitened)", lambda: KMCStep(warmup="whitened")),
                       ("KameleonStep", KameleonStep),
                       ("KameleonStep(whitened)", lambda: KameleonStep(warmup="whitened")),
                       ("AdaptiveMetropolis", AdaptiveMetropolis),
                       ("pm.Metropolis", pm.Metropolis)]:  # fmt: skip
        with pm.Model():
            pm.MvNormal("x", mu=np.zeros(3), cov=cov)
            start = time.time()
            idata = pm.sample(tune=1500, draws=1500, chains=2, cores=2, step=make(),
                              random_seed=3, progressbar=False,
                              compute_convergence_checks=False)  # fmt: skip
        x = posterior_array(idata, "x").reshape(-1, 3)
        ess = int(min_ess(idata, "x"))
        print(f"{name}: sd ratio {np.round(x.std(0) / SD, 2)}, min ESS {ess}, "
              f"{time.time() - start:.0f} s")  # fmt: skip
