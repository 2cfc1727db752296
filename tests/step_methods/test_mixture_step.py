"""AdaptiveMHStep over a MixtureProposal: PyMC's step contract (state round trip, pickling).

The mixture's density is checked against a brute-force density in
``tests/core/test_mixture_proposal.py`` and its posterior in the statistical cases
(``gaussian-mixture-kameleon-am``).
"""

from __future__ import annotations

import copy
import pickle
from dataclasses import fields

import cloudpickle
import numpy as np
import pymc as pm
from pymc.step_methods.state import equal_dataclass_values

from pymc_kameleon.core.proposals import (
    AdaptiveCovarianceProposal,
    KameleonProposal,
    MixtureProposal,
)
from pymc_kameleon.step_methods.adaptive_mh import AdaptiveMHStep


def make_mixture(dim: int) -> MixtureProposal:
    kameleon = KameleonProposal(dim, n_history=50, adapt_start=30, capacity=250)
    return MixtureProposal([(kameleon, 0.7), (AdaptiveCovarianceProposal(dim, min_states=30), 0.3)])


def model() -> pm.Model:
    with pm.Model() as m:
        pm.MvNormal("x", mu=np.array([0.5, -1.0, 0.0]), cov=np.diag([1.0, 2.0, 0.5]))
    return m


def assert_states_equal(s1, s2) -> None:
    assert type(s1) is type(s2)
    for f in fields(s1):
        v1, v2 = getattr(s1, f.name), getattr(s2, f.name)
        assert equal_dataclass_values(v1, v2), f"state field {f.name!r} differs"


def test_sampling_state_round_trip_with_a_mixture():
    with model() as m:
        step = AdaptiveMHStep(proposal=make_mixture)
    fresh = copy.deepcopy(step)
    step.set_rng(7)
    point = m.initial_point()
    for _ in range(120):
        point, _ = step.step(point)
    assert step.proposal.proposals[0].z is not None  # the kernel move uses the history
    saved = step.sampling_state
    point_a, stats_a = step.step(copy.deepcopy(point))
    step.sampling_state = saved
    point_b, stats_b = step.step(copy.deepcopy(point))
    assert np.array_equal(point_a["x"], point_b["x"]) and stats_a == stats_b
    fresh.sampling_state = pickle.loads(pickle.dumps(saved))
    point_c, stats_c = fresh.step(copy.deepcopy(point))
    assert np.array_equal(point_a["x"], point_c["x"]) and stats_c == stats_a
    reloaded = cloudpickle.loads(cloudpickle.dumps(step))
    assert_states_equal(reloaded.sampling_state, step.sampling_state)


def test_pm_sample_with_a_mixture_reports_component_stats():
    with model():
        idata = pm.sample(
            tune=200,
            draws=100,
            chains=2,
            cores=1,
            step=AdaptiveMHStep(proposal=make_mixture),
            random_seed=3,
            progressbar=False,
            compute_convergence_checks=False,
        )
    stats = idata.sample_stats
    assert set(np.unique(stats["component"].values)) == {0, 1}
    assert np.all(stats["move0_bandwidth"].values > 0)
    np.testing.assert_array_equal(stats["scaling"].values, stats["move0_scaling"].values)


def test_log_density_seam_is_the_model_log_density():
    with model() as m:
        step = AdaptiveMHStep(proposal=make_mixture)
    x = np.array([0.1, 0.2, -0.3])
    expected = float(m.compile_logp()({"x": x}))
    assert step.log_density(x) == np.float64(expected)
