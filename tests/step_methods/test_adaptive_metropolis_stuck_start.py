"""AdaptiveMetropolis must not adopt the zero covariance of a chain that has not moved yet.

Regression: when the first ``adapt_start`` proposals were all rejected (about 1 run in 200 on the
5-D Gaussian of the statistical tests), the running covariance was exactly zero, the proposal
became ``x + 0`` and the chain never moved again while reporting acceptance 1.0.
"""

from __future__ import annotations

import numpy as np
import pymc as pm

from pymc_kameleon import AdaptiveMetropolis
from pymc_kameleon.core.proposals import Transition


def test_covariance_waits_until_the_chain_has_moved():
    with pm.Model() as model:
        pm.Normal("x", 0.0, 1.0, shape=3)
    proposal = AdaptiveMetropolis(model=model, adapt_start=10, warmup="classic").proposal
    rng = np.random.default_rng(0)
    stuck = np.zeros(3)
    for t in range(50):  # what the step learns from a chain that rejected everything
        proposal.learn(Transition(stuck, 0.0, t, True), rng)
    assert not proposal.covariance_in_use()
    np.testing.assert_array_equal(proposal.learned_covariance(stuck), np.eye(3))
    for i in range(4):
        proposal.learn(Transition(stuck + i + 1.0, 1.0, 50 + i, True), rng)
    assert proposal.covariance_in_use()
