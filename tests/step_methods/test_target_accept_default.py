"""The random-walk moves' default target acceptance: 0.234, and after a Gaussian start-up the
acceptance rate of the optimal scale on a Gaussian of the dimension (0.36 at d = 2)."""

import numpy as np
import pymc as pm
import pytest

from pymc_kameleon import AdaptiveMetropolis, KameleonStep
from pymc_kameleon._compat import posterior_dataset
from pymc_kameleon.core.adaptation import optimal_rw_acceptance
from pymc_kameleon.step_methods.arguments import CLASSIC_TARGET_ACCEPT


def model(dim):
    with pm.Model() as m:
        pm.Normal("x", shape=dim)
    return m


@pytest.mark.parametrize("dim", [2, 7])
def test_adaptive_metropolis_targets_the_optimal_rate_after_a_gaussian_start(dim):
    with model(dim):
        automatic = AdaptiveMetropolis()
        classic = AdaptiveMetropolis(warmup="classic")
        chosen = AdaptiveMetropolis(target_accept=0.3)
    move = automatic.proposal.main
    assert automatic.target_accept is None and move.target_accept == CLASSIC_TARGET_ACCEPT
    automatic.begin_from_gaussian(np.zeros(dim), np.eye(dim))
    assert move.target_accept == pytest.approx(optimal_rw_acceptance(dim))
    automatic.proposal.reset()  # a new chain starts from the default again
    assert move.target_accept == CLASSIC_TARGET_ACCEPT
    assert classic.proposal.target_accept == CLASSIC_TARGET_ACCEPT
    chosen.begin_from_gaussian(np.zeros(dim), np.eye(dim))
    assert chosen.proposal.main.target_accept == 0.3  # the user's choice stays


def test_kameleon_global_move_targets_the_optimal_rate_after_a_gaussian_start():
    with model(3):
        step = KameleonStep(global_weight=0.5)
    kameleon, move = step.proposal.main.proposals
    step.begin_from_gaussian(np.zeros(3), np.eye(3))
    assert kameleon.target_accept == CLASSIC_TARGET_ACCEPT
    assert move.target_accept == pytest.approx(optimal_rw_acceptance(3))


def test_in_a_run_a_gaussian_posterior_is_sampled_at_the_optimal_rate():
    """The learned scale's acceptance after warm-up, 2-D: near 0.36 on a Gaussian.

    (Independence moves, whose acceptance is not tuned, are kept out of the rate.)
    """
    with model(2):
        idata = pm.sample(
            tune=1500, draws=1500, chains=2, cores=1,
            step=AdaptiveMetropolis(independence="warmup"), random_seed=3,
            progressbar=False, compute_convergence_checks=False,
        )  # fmt: skip
    accept = np.minimum(posterior_dataset(idata, "sample_stats")["accept"].values, 1.0).mean()
    assert accept == pytest.approx(optimal_rw_acceptance(2), abs=0.04)
