"""KMCStep(coordinates="local"): scores taken in warm-up, counted, and the surrogate's map."""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytest
from helpers.sampling import SAMPLE_KW

from pymc_kameleon import KMCStep
from pymc_kameleon._compat import posterior_dataset
from pymc_kameleon.core.proposals.kmc_moves import SCORE_INTERVAL_PER_DIM
from pymc_kameleon.targets.banana import banana_model, sample_banana

D = 3


def test_an_unknown_choice_is_refused_with_the_choices():
    with pm.Model():
        pm.Normal("x", shape=2)
        with pytest.raises(ValueError, match=r"coordinates.*'global'.*'local'"):
            KMCStep(coordinates="fisher")


def sample(tune=400, **options):
    """``(step, idata)`` of one chain of ``KMCStep(**options)`` on a 3-D banana."""
    with banana_model(D, 0.1, 4.0):
        step = KMCStep(**options)
        idata = pm.sample(
            tune=tune, draws=50, chains=1, cores=1, step=step, random_seed=3,
            discard_tuned_samples=False, **SAMPLE_KW,
        )  # fmt: skip
    return step, idata


def test_scores_are_taken_in_warm_up_and_counted_in_logp_evals():
    step, idata = sample(coordinates="local")
    scores = step.proposal.local_scores
    assert len(scores.scores) >= 5
    assert all(t % (SCORE_INTERVAL_PER_DIM * D) == 0 for t in scores.iterations)
    evals = posterior_dataset(idata, "warmup_sample_stats")["logp_evals"].values[0]
    # a scoring iteration spends d evaluations besides its move's
    assert all(evals[t] >= D for t in scores.iterations)
    # the surrogate lives in the whitening map made local, not in the whitening map itself
    assert step.coordinates.affine is not step.explore.affine
    whitened_to_kernel = np.linalg.solve(step.explore.affine.matrix, step.coordinates.affine.matrix)
    singular = np.linalg.svd(whitened_to_kernel, compute_uv=False)
    # narrower in some direction (by design it may also widen one the warm-up left too thin)
    assert singular.min() < 1.0 - 1e-6
    kept = posterior_dataset(idata, "sample_stats")["logp_evals"].values
    assert kept.max() <= 1  # no scores after warm-up


def test_global_coordinates_take_no_scores():
    step, _ = sample(tune=200, coordinates="global")
    assert step.proposal.local_scores is None
    assert step.coordinates.affine is step.explore.affine


def test_with_a_pilot_the_scores_are_taken_at_its_states_once():
    pilot = sample_banana(300, D, 0.1, 4.0, np.random.default_rng(0))
    step, idata = sample(tune=200, coordinates="local", initial_history=pilot)
    first = int(posterior_dataset(idata, "warmup_sample_stats")["logp_evals"].values[0, 0])
    count = len(step.proposal.local_scores.scores)
    assert count == max(2 * D, 200 // (SCORE_INTERVAL_PER_DIM * D))
    assert first >= count * (D + 1)  # each pilot state's value and its d differences
    assert step.coordinates.affine is not step.explore.affine


def test_the_same_draws_with_one_and_two_cores():
    runs = []
    for cores in (1, 2):
        with banana_model(D, 0.1, 4.0):
            idata = pm.sample(
                tune=200, draws=30, chains=2, cores=cores, step=KMCStep(coordinates="local"),
                random_seed=5, **SAMPLE_KW,
            )  # fmt: skip
        runs.append(posterior_dataset(idata, "posterior")["x"].values)
    np.testing.assert_array_equal(runs[0], runs[1])
