"""AdaptiveMetropolis must not adopt the zero covariance of a chain that has not moved yet.

Regression: when the first ``adapt_start`` proposals were all rejected (about 1 run in 200 on the
5-D Gaussian of the statistical tests), the running covariance was exactly zero, the proposal
became ``x + 0`` and the chain never moved again while reporting acceptance 1.0.
"""

from __future__ import annotations

import numpy as np
import pymc as pm

from pymc_kameleon import AdaptiveMetropolis


def test_covariance_waits_until_the_chain_has_moved():
    with pm.Model() as model:
        pm.Normal("x", 0.0, 1.0, shape=3)
    step = AdaptiveMetropolis(model=model, adapt_start=10)
    stuck = np.zeros(3)
    for _ in range(50):  # what the step learns from a chain that rejected everything
        step._learn(stuck, 0.0)
    assert not step._covariance_in_use()
    np.testing.assert_array_equal(step._scatter(stuck), np.eye(3))
    for i in range(4):
        step._learn(stuck + i + 1.0, 1.0)
    assert step._covariance_in_use()
