"""The start-up on a noisy, badly scaled, correlated posterior: each default step from a far start.

A 3-D Gaussian likelihood (sds 1e-2, 1, 1e2; correlations 0.9, -0.5, -0.3; mean (0.5, -2, 300))
estimated with log-normal noise of sd 0.8 (unbiased), a flat prior, 4 chains x (2000 + 2000)
from 0, seed 5. Prints the start-up status per chain, the posterior mean error in Monte Carlo
standard errors (approximated with the min ESS), the ratio of posterior to exact sds, max R-hat
and min ESS. Usage: ``python benchmarks/noisy_start_up_check.py``.
"""

import warnings

import numpy as np
import pymc as pm

from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep, estimator_potential
from pymc_kameleon.diagnostics import max_rhat, min_ess

sds = np.array([1e-2, 1.0, 1e2])
corr = np.array([[1, 0.9, -0.5], [0.9, 1, -0.3], [-0.5, -0.3, 1.0]])
cov = corr * np.outer(sds, sds)
prec = np.linalg.inv(cov)
mean = np.array([0.5, -2.0, 300.0])


class Est:  # an unbiased, noisy likelihood estimate: exp(noise) has mean 1
    def __call__(self, theta, rng):
        d = theta - mean
        return -0.5 * float(d @ prec @ d) + 0.8 * rng.standard_normal() - 0.32


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    for cls in (AdaptiveMetropolis, KameleonStep, KMCStep):
        with pm.Model():
            x = pm.Flat("x", shape=3)
            estimator_potential("loglike", Est(), x)
            idata = pm.sample(
                tune=2000,
                draws=2000,
                chains=4,
                cores=2,
                step=cls(),
                random_seed=5,
                initvals={"x": np.zeros(3)},
                progressbar=False,
                compute_convergence_checks=False,
                discard_tuned_samples=False,
            )
        post = idata["posterior"]["x"].values.reshape(-1, 3)
        su = idata["warmup_sample_stats"]["start_up"].values[:, 0]
        print(
            cls.__name__,
            "start_up",
            su,
            "z(mean)",
            np.round((post.mean(0) - mean) / sds * np.sqrt(min_ess(idata, "x")), 2),
            "sd ratio",
            np.round(post.std(0) / sds, 2),
            "R-hat",
            round(max_rhat(idata, "x"), 3),
            "min ESS",
            round(min_ess(idata, "x")),
        )
