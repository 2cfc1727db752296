"""The unit-free (``warmup="whitened"``) warm-up of KameleonStep, AdaptiveMetropolis and KMCStep
in PyMC: stages planned from PyMC's ``tune``, stats, exact state round trips, argument checks,
KMC's surrogate in the whitened coordinates."""

from __future__ import annotations

import copy
import pickle

import cloudpickle
import numpy as np
import pymc as pm
import pytest
from helpers.models import mv_model
from helpers.sampling import SAMPLE_KW, assert_states_equal, run_direct

from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep
from pymc_kameleon.core.proposals import (
    WARMUP_STAGES,
    KameleonProposal,
    WhitenedProposal,
)
from pymc_kameleon.core.proposals.whitened import planned_window_stops

# the stages of the warm-up proper: without the start-up unless a test turns it on
STEPS = {
    "kameleon": lambda **kw: KameleonStep(
        warmup="whitened", n_history=50, **{"start_up": False, **kw}
    ),
    "adaptive_metropolis": lambda **kw: AdaptiveMetropolis(
        warmup="whitened", **{"start_up": False, **kw}
    ),
    "kmc": lambda **kw: KMCStep(
        warmup="whitened", adapt_start=50, **{"start_up": False, "coordinates": "global", **kw}
    ),
}


def _warmup(step):
    """The WhitenedProposal of a step (KMCStep keeps it as its exploration move)."""
    return step.explore if isinstance(step, KMCStep) else step.proposal


@pytest.mark.parametrize("name", list(STEPS))
@pytest.mark.parametrize(("cores", "start_up"), [(1, False), (2, False), (2, True)])
def test_stages_follow_the_tune_pymc_was_given(name, cores, start_up):
    """Without the start-up, the per-coordinate start comes first; with it (on this Gaussian
    the start-up finds the shape) the windows begin at the first iteration."""
    tune = 700
    with mv_model():
        idata = pm.sample(
            draws=20, tune=tune, chains=2, cores=cores, step=STEPS[name](start_up=start_up),
            random_seed=3, discard_tuned_samples=False, **SAMPLE_KW,
        )  # fmt: skip
    warm = idata.warmup_sample_stats
    dim = 3
    start = 0 if start_up else min(100, tune // 4)
    stops = planned_window_stops(start, tune, max(50, 10 * dim))
    for chain in range(2):
        # the stat of iteration t is reported after learning from it: a stage that ends at
        # iteration t (exclusive) shows the next one from t - 1
        stage = warm["warmup_stage"].values[chain]
        assert (stage[: max(start - 1, 0)] == WARMUP_STAGES["start"]).all()
        assert (warm["start_up"].values[chain] == (1 if start_up else 0)).all()
        assert (stage[start - 1 : stops[-1] - 1] == WARMUP_STAGES["windows"]).all()
        assert (stage[stops[-1] - 1 :] == WARMUP_STAGES["settle"]).all()
        assert warm["n_windows"].values[chain, -1] == len(stops)
    assert (idata.sample_stats["warmup_stage"].values == WARMUP_STAGES["frozen"]).all()
    for stat in ("warmup_stage", "n_windows"):
        assert idata.sample_stats[stat].dtype == np.int64


def test_without_a_known_tune_the_windows_keep_doubling():
    with mv_model() as model:
        step = STEPS["adaptive_metropolis"]()
    step.set_rng(np.random.default_rng(0))  # called directly: no PyMC loop to read tune from
    assert step.warmup_length is None
    run_direct(step, model.initial_point(), 400)
    # start 100, then windows of 50, 100, 200 close at 150, 250 and 450
    assert step.proposal.n_windows == 2
    assert step.proposal.window_stop == 450


@pytest.mark.parametrize("name", list(STEPS))
def test_sampling_state_round_trip(name):
    model = mv_model()
    with model:
        step = STEPS[name]()
    fresh = copy.deepcopy(step)
    step.set_rng(123)
    point, _ = run_direct(step, model.initial_point(), 300)  # past the start, in a window
    assert _warmup(step).stats()["warmup_stage"] == WARMUP_STAGES["windows"]
    saved = step.sampling_state
    point_a, stats_a = step.step(copy.deepcopy(point))
    state_a = step.sampling_state
    for other in (step, fresh, cloudpickle.loads(cloudpickle.dumps(fresh))):
        other.sampling_state = pickle.loads(pickle.dumps(saved))
        point_b, stats_b = other.step(copy.deepcopy(point))
        np.testing.assert_array_equal(point_a["x"], point_b["x"])
        assert stats_a == stats_b
        assert_states_equal(other.sampling_state, state_a)


def test_kameleon_seams_reach_the_kernel_move():
    with mv_model() as model:
        step = STEPS["kameleon"]()
    step.set_rng(5)
    run_direct(step, model.initial_point(), 400)
    assert isinstance(step.proposal, WhitenedProposal)
    assert isinstance(step.kernel_proposal, KameleonProposal)
    assert step.z is step.kernel_proposal.z and step.z.shape == (50, 3)
    x = step.x_current
    cov = step.proposal_covariance(x)
    np.testing.assert_allclose(cov, cov.T)
    assert np.all(np.linalg.eigvalsh(cov) > 0)


def test_global_weight_zero_is_the_kernel_move_alone():
    with mv_model():
        step = KameleonStep(warmup="whitened", global_weight=0.0)
    assert isinstance(step.proposal.main, KameleonProposal)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"warmup": "stan"}, "warmup"),
        ({"warmup": "whitened", "global_weight": 1.0}, "global_weight"),
        ({"warmup": "whitened", "global_weight": -0.1}, "global_weight"),
    ],
)
def test_bad_warmup_arguments_are_refused(kwargs, match):
    with mv_model(), pytest.raises((ValueError, TypeError), match=match):
        KameleonStep(**kwargs)
    if "global_weight" not in kwargs:
        for step in (AdaptiveMetropolis, KMCStep):
            with mv_model(), pytest.raises(ValueError, match=match):
                step(**kwargs)


def test_kmc_learns_its_surrogate_in_the_final_whitened_coordinates():
    with mv_model() as model:
        step = STEPS["kmc"]()
    step.set_rng(11)
    run_direct(step, model.initial_point(), 1000)  # tune unknown: 1000 is assumed
    assert step.explore.stage == "settle"
    affine = step.kernel_map
    assert affine is step.explore.affine and step.surrogate is not None
    # the learned states are whitened: about standard in every direction
    z = step.history.values[: step.history.size]
    assert np.all(np.abs(np.log(z.std(axis=0))) < np.log(3.0)), z.std(axis=0)
    # the public gradient is the surrogate's, by the chain rule through the map
    x = step.x_current
    h = 1e-5 * np.abs(np.diag(affine.matrix))

    def f(y):
        return step.surrogate_scale * step.surrogate.value(affine.to_kernel(y))

    numeric = [(f(x + h[i] * e) - f(x - h[i] * e)) / (2 * h[i]) for i, e in enumerate(np.eye(3))]
    np.testing.assert_allclose(step.surrogate_gradient(x), numeric, rtol=1e-4, atol=1e-8)


def test_kmc_with_a_pilot_keeps_its_map_and_starts_with_trajectories():
    rng = np.random.default_rng(2)
    pilot = rng.normal(size=(400, 3)) * np.array([1e-3, 1.0, 1e3])
    with mv_model() as model:
        step = KMCStep(warmup="whitened", initial_history=pilot, coordinates="global")
    step.set_rng(3)
    pilot_map = step.kernel_map
    np.testing.assert_allclose(pilot_map.to_kernel(pilot).std(axis=0, ddof=1), 1.0, rtol=1e-6)
    _, stats = run_direct(step, model.initial_point(), 300)
    assert stats[0]["n_steps"] > 0  # the surrogate was fitted on the pilot before iteration 0
    assert step.kernel_map is pilot_map and step.explore.n_windows == 0
