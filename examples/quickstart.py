"""Quick start: sample the 8-D banana B(0.1, 100) with KameleonStep and look at the result.

Run with ``python examples/quickstart.py`` (needs the ``examples`` extra for the plot).
"""

import arviz as az
import pymc as pm

from pymc_kameleon import KameleonStep
from pymc_kameleon.targets import banana_model

if __name__ == "__main__":
    with banana_model(d=8, b=0.1, v=100.0):
        idata = pm.sample(tune=40_000, draws=20_000, chains=4, step=KameleonStep(), random_seed=1)
    print(az.summary(idata, kind="diagnostics"))
    print("acceptance:", float(idata["sample_stats"]["accept"].mean()))
    az.plot_pair(idata, var_names=["x"], coords={"x_dim_0": [0, 1]}, kind="scatter")
    import matplotlib.pyplot as plt

    plt.savefig("quickstart_banana.png", dpi=100)
    print("wrote quickstart_banana.png")
