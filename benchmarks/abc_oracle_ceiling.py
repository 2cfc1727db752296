"""The ceiling of KMCStep on the ABC experiment: 1000 draws of the ABC posterior as its history.

The ABC posterior at epsilon = 0.55, 10 simulations per estimate, 4 chains x (1000 + 5000) from
theta_true, seeds 0-2; the history is 1000 draws of the NUTS reference on the tractable ABC
posterior (build it first: ``python benchmarks/abc_check.py --build-reference``). Prints min ESS,
ESS per 1000 simulations (warm-up included, as in ``abc_check.py``) and max R-hat.
Usage: ``python benchmarks/abc_oracle_ceiling.py``.
"""

import warnings
from pathlib import Path

import numpy as np
import pymc as pm

from pymc_kameleon import KMCStep
from pymc_kameleon.diagnostics import count_logp_evals, max_rhat, min_ess
from pymc_kameleon.targets.abc_skew_normal import ABC_THETA_TRUE
from pymc_kameleon.targets.pseudo_marginal_models import abc_skew_normal_model

REFERENCE = Path(__file__).resolve().parent / "results" / "abc_reference.npz"


def main() -> None:
    warnings.simplefilter("ignore")
    ref = np.load(REFERENCE)["abc"]
    for seed in (0, 1, 2):
        hist = ref[np.random.default_rng([seed, 11]).choice(len(ref), 1000, replace=False)]
        with abc_skew_normal_model():
            idata = pm.sample(
                tune=1000,
                draws=5000,
                chains=4,
                cores=1,
                random_seed=seed,
                step=KMCStep(initial_history=hist, n_history=1000),
                initvals=[{"theta": np.asarray(ABC_THETA_TRUE, float)}] * 4,
                progressbar=False,
                compute_convergence_checks=False,
                discard_tuned_samples=False,
            )
        evals = sum(
            count_logp_evals(idata, "KMC", 10, group=g)
            for g in ("warmup_sample_stats", "sample_stats")
        )
        ess = min_ess(idata, "theta")
        print(
            f"seed {seed}: min ESS {ess:.0f}, ESS/1k sims {1000 * ess / (10 * evals):.2f}, "
            f"R-hat {max_rhat(idata, 'theta'):.3f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
