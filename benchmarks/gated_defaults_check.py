"""The defaults where KameleonStep's kernel move stands down (d >= 13), on hard posteriors.

Two modes of mass 0.3 / 0.7 (``modes``, at x0 = -6 / +6 under a N(0, 10) prior) or a heavy tail
(``heavy``: s ~ InverseGamma(2, 1), y ~ N(0, sqrt(s))), each beside 12 correlated parameters on
scales 0.01-100; 4 chains x (3000 + 3000). Prints R-hat, min ESS, the ``kernel_local`` stat,
the padded parameters' sd against the truth, and the left mode's weight or the quantiles of
log s (with MCSEs) against the exact ones (issue 50).

Usage::

    python benchmarks/gated_defaults_check.py {modes,heavy} {full,pca,am} SEED
"""

from __future__ import annotations

import sys

import arviz as az
import numpy as np
import pymc as pm
import pytensor.tensor as pt
from scipy import stats

from pymc_kameleon import AdaptiveMetropolis, KameleonStep

STEPS = {
    "full": KameleonStep,
    "pca": lambda: KameleonStep(proposal="pca"),
    "am": AdaptiveMetropolis,
}
K = 12  # padded parameters


def padding() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Means, covariance and sds of the 12 correlated parameters on scales 0.01-100."""
    a = np.random.default_rng(0).normal(size=(K, K))
    corr = a @ a.T / K + 0.1 * np.eye(K)
    sd = np.sqrt(np.diag(corr))
    corr = corr / np.outer(sd, sd)
    scales = np.logspace(-2, 2, K)
    return np.linspace(-50, 50, K), corr * np.outer(scales, scales), scales


def build(kind: str) -> pm.Model:
    """The 14-D model: two modes or a heavy tail, beside the padding."""
    mean, cov, _ = padding()
    with pm.Model() as model:
        pm.MvNormal("pad", mu=mean, cov=cov)
        if kind == "modes":
            x = pm.Normal("x", 0.0, 10.0, shape=2)  # started at 0, between the modes
            left = np.log(0.3) - 0.5 * ((x[0] + 6) ** 2 + x[1] ** 2)
            right = np.log(0.7) - 0.5 * ((x[0] - 6) ** 2 + x[1] ** 2)
            pm.Potential("mix", pm.math.logsumexp(pt.stack([left, right])))
        else:
            s = pm.InverseGamma("s", 2.0, 1.0)
            pm.Normal("y", 0.0, pm.math.sqrt(s))
    return model


def main() -> None:
    kind, name, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with build(kind):
        idata = pm.sample(
            3000, tune=3000, chains=4, cores=2, step=STEPS[name](), random_seed=seed,
            progressbar=False, compute_convergence_checks=False,
        )  # fmt: skip
    post, stats_ = idata.posterior, idata.sample_stats
    rhat = float(max(v.max() for v in az.rhat(idata).data_vars.values()))
    ess = float(min(v.min() for v in az.ess(idata).data_vars.values()))
    local = stats_["kernel_local"].values[:, -1] if "kernel_local" in stats_ else "n/a"
    ratio = post["pad"].values.reshape(-1, K).std(axis=0) / padding()[2]
    out = (f"{kind} {name} seed {seed}: max R-hat {rhat:.3f}, min ESS {ess:.0f}, kernel_local "
           f"{local}, pad sd ratio {ratio.min():.2f}-{ratio.max():.2f}")  # fmt: skip
    if kind == "modes":
        left = post["x"].values[..., 0] < 0
        out += f", left mode's weight {left.mean():.3f} (truth 0.3), per chain {left.mean(1)}"
    else:
        log_s = np.log(post["s"].values)
        q = np.quantile(log_s, [0.05, 0.5, 0.95, 0.99])
        se = [float(az.mcse(log_s, method="quantile", prob=p)) for p in (0.95, 0.99)]
        exact = -np.log(stats.gamma(2.0).ppf([0.95, 0.5, 0.05, 0.01]))
        out += (f", log s quantiles 5/50/95/99% {np.round(q, 2)} (exact {np.round(exact, 2)}), "
                f"MCSE of the 95/99% {np.round(se, 3)}")  # fmt: skip
    print(out, flush=True)


if __name__ == "__main__":
    main()
