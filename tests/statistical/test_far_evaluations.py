"""No model evaluation far from where the chains have been (issue 67).

The logistic-growth ODE of :mod:`pymc_kameleon.bench.far_out` (a solve takes milliseconds near
the posterior, seconds to minutes for ``r`` in the thousands) with an Op that records every
point it is asked about, sampled by each default step at PyMC's default budget (4 chains,
1000 + 1000, ``cores=1``). Every evaluation must lie within ``WIDTHS`` posterior sds (of the
kept draws, per coordinate of ``(log r, log K)``) of the box spanned by the chains' draws,
warm-up included, and the prior's central 99.9 % interval (where the start-up's screened prior
draws come from).

Why 40: the independence moves give no candidate beyond 20 whitened units of their maps
(:data:`~pymc_kameleon.core.proposals.independence.INDEPENDENCE_BOUND`), which in a
coordinate is at most 20 sqrt(d) = 28 marginal sds here (d = 2 of the ODE's inputs, the
whitening map's units being the warm-up's sds); KMC's unstable trajectories are screened
before the model is asked (their ends were 80-850 whitened units out); the random walks move
2.38 / sqrt(d) sds; the start-up's climbs move at most 10 conditional sds at first
(:data:`~pymc_kameleon.core.mode_start.TRUST_RADIUS`) and grow only after a move that rose as
predicted. Measured at seeds 1 and 2, every step: at most 3.2 posterior sds out. Before
issue 67 KMCStep hung in the solver (r = 9.9e6). The negative control, KMCStep with the screen,
the bound and the trust region lifted, must exceed ``WIDTHS`` (measured 233 and 186 sds, the Op
returning NaN above ``MAX_RATE``).
"""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytest

from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep
from pymc_kameleon.bench.far_out import logistic_ode_model
from pymc_kameleon.core import mode_start
from pymc_kameleon.core.proposals import trajectory, whitened

pytestmark = pytest.mark.statistical

WIDTHS = 40.0
#: the Op returns NaN unsolved above this growth rate (solves take 0.1 s from r = 100 and grow
#: to minutes): a step that goes far out fails the test instead of hanging it
MAX_RATE = 50.0
STEPS = {"KMCStep": KMCStep, "KameleonStep": KameleonStep, "AdaptiveMetropolis": AdaptiveMetropolis}
#: prior centre and sd of (log r, log K); the central 99.9 % interval is +-3.29 sds
PRIOR = (np.array([np.log(0.5), np.log(60.0)]), np.array([0.5, 0.5]))


def farthest_evaluation(make_step, seed: int) -> float:
    """How many posterior sds the farthest evaluation lies outside the region (0 inside)."""
    model, op = logistic_ode_model(max_rate=MAX_RATE)
    with model:
        idata = pm.sample(
            step=make_step(), chains=4, cores=1, random_seed=seed, progressbar=False,
            compute_convergence_checks=False, discard_tuned_samples=False,
        )  # fmt: skip
    evaluated = np.log(op.log.points[:, :2])

    def states(group):
        return np.log(np.column_stack([group[n].values.ravel() for n in ("r", "K")]))

    draws, warmup = states(idata.posterior), states(idata.warmup_posterior)
    centre, sd = PRIOR
    low = np.minimum(np.vstack([draws, warmup]).min(axis=0), centre - 3.29 * sd)
    high = np.maximum(np.vstack([draws, warmup]).max(axis=0), centre + 3.29 * sd)
    outside = np.maximum(low - evaluated, evaluated - high) / draws.std(axis=0)
    return float(max(outside.max(), 0.0))


@pytest.mark.parametrize("name", list(STEPS))
def test_no_evaluation_far_from_the_chains(name, seed_offset):
    assert farthest_evaluation(STEPS[name], 1 + seed_offset) < WIDTHS


def test_negative_control_the_steps_before_issue_67_go_far(monkeypatch, seed_offset):
    """KMCStep without the trajectory screen, the independence bound and the trust region."""
    monkeypatch.setattr(trajectory, "MAX_SURROGATE_ENERGY_ERROR", np.inf)
    monkeypatch.setattr(whitened, "INDEPENDENCE_BOUND", np.inf)
    monkeypatch.setattr(mode_start, "TRUST_RADIUS", np.inf)
    assert farthest_evaluation(KMCStep, 1 + seed_offset) > WIDTHS
