import sys
import warnings

import arviz as az
import numpy as np
import pymc as pm

from pymc_kameleon import AdaptiveMetropolis, KMCStep
from pymc_kameleon.bench.real.models import REAL_MODELS
from pymc_kameleon.bench.real.reference import load_reference

seed = int(sys.argv[1])
draws = int(sys.argv[2])
cls = {"kmc": KMCStep, "am": AdaptiveMetropolis}[sys.argv[3]]
ref = load_reference("nile-arma11")
model = REAL_MODELS["nile-arma11"].build()
with model, warnings.catch_warnings():
    warnings.simplefilter("ignore")
    idata = pm.sample(
        step=cls(),
        tune=3000,
        draws=draws,
        chains=4,
        cores=1,
        random_seed=seed,
        progressbar=False,
        compute_convergence_checks=False,
    )
s = az.summary(idata, var_names=["c", "phi", "theta", "sigma"])
print(s[["mean", "sd", "ess_bulk", "r_hat"]])
print("sd ratio", (s["sd"].values / np.array(ref.summary["sd"])).round(3))
for ch in range(4):
    phi = idata.posterior["phi"].values[ch]
    print(
        "chain",
        ch,
        "phi>0.93 share",
        np.mean(phi > 0.93).round(4),
        "sd c",
        idata.posterior["c"].values[ch].std().round(1),
    )
print("ref phi>0.93 ~0.107")
