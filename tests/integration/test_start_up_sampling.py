"""The start-up inside ``pm.sample``: where it runs, what it costs, what it tells the user.

Issue 30: a chain started far out in a narrow direction of a strongly correlated posterior
never found the bulk during warm-up. Each chain first climbs to a mode (a stochastic likelihood
estimate with its noise held fixed); where the Gaussian there fits, it starts from an
overdispersed draw of it and the warm-up from its covariance.
"""

from __future__ import annotations

import logging

import numpy as np
import pymc as pm
import pytest
from helpers.models import mv_model
from helpers.noisy_models import MODELS, Y_OBS
from helpers.sampling import SAMPLE_KW, CountingLogp, posterior_array

from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep
from pymc_kameleon._compat import posterior_dataset
from pymc_kameleon.core.proposals.independence import independence_share
from pymc_kameleon.core.start_up import START_UP_STATUSES

STEPS = {
    "kameleon": lambda **kw: KameleonStep(n_history=50, **kw),
    "adaptive_metropolis": lambda **kw: AdaptiveMetropolis(**kw),
    "kmc": lambda **kw: KMCStep(adapt_start=50, n_steps_range=(5, 15), **kw),
}
SDS = np.array([1e-3, 1.0, 1e3])
CORR = np.array([[1.0, 0.9, -0.5], [0.9, 1.0, -0.3], [-0.5, -0.3, 1.0]])
MEAN = np.array([1.0, -2.0, 3e3])


def scaled_model() -> pm.Model:
    with pm.Model() as model:
        pm.MvNormal("x", MEAN, CORR * np.outer(SDS, SDS))
    return model


def sample(make_step, model, tune=400, draws=50, chains=2, cores=1, seed=3, far=True):
    """``pm.sample`` with the step ``make_step()``, every chain started at 0 if ``far``."""
    initvals = {"x": np.zeros(3)} if far else None
    with model:
        return pm.sample(
            tune=tune, draws=draws, chains=chains, cores=cores, step=make_step(),
            random_seed=seed, discard_tuned_samples=False, initvals=initvals, **SAMPLE_KW,
        )  # fmt: skip


@pytest.mark.parametrize("name", list(STEPS))
def test_a_far_start_on_a_badly_scaled_gaussian_starts_from_its_gaussian(name):
    """Started at 0 (hundreds of sds out in x[2], log-density -4.5e6 from the mode)."""
    idata = sample(STEPS[name], scaled_model())
    warm = posterior_dataset(idata, "warmup_sample_stats")
    assert (warm["start_up"].values == START_UP_STATUSES["gaussian"]).all()
    first = warm["model_logp"].values[:, 0] if "model_logp" in warm else warm["lp"].values[:, 0]
    assert np.all(first > -20.0)  # at the first iteration the chain is in the bulk
    evals = warm["logp_evals"].values
    assert np.all(evals[:, 0] <= 400 // 2 + 2)  # the climbs, the start and the proposal
    # one per iteration; KMCStep's local-width scores take d = 3 more every 4 d iterations
    # (and none for a trajectory screened unevaluated)
    allowed = [1, 1 + 3] if name == "kmc" else [1]
    if name == "kmc":
        screened = warm["screened"].values[:, 1:]
        assert np.all(np.isin(evals[:, 1:][~screened], allowed))
        assert np.all(evals[:, 1:][screened] == 0)
    else:
        assert np.all(np.isin(evals[:, 1:], allowed))


def test_every_evaluation_of_the_start_up_is_counted():
    model = scaled_model()
    with model:
        step = STEPS["adaptive_metropolis"]()
    counter = CountingLogp(step.density.compiled)
    step.density.compiled = counter
    step.set_rng(np.random.default_rng(0))
    point = {"x": np.zeros(3)}
    point, stats = step.step(point)
    assert stats[0]["logp_evals"] == counter.calls > 20
    assert stats[0]["start_up"] == START_UP_STATUSES["gaussian"]


@pytest.mark.parametrize("name", ["adaptive_metropolis", "kmc"])
def test_reproducible_and_the_same_with_one_and_two_cores(name):
    model = scaled_model()
    runs = [sample(STEPS[name], model, tune=300, draws=30, cores=c) for c in (1, 2, 2)]
    other = sample(STEPS[name], model, tune=300, draws=30, seed=4)
    draws = [posterior_array(r) for r in runs]
    assert np.array_equal(draws[0], draws[1]) and np.array_equal(draws[1], draws[2])
    assert not np.array_equal(draws[0], posterior_array(other))


@pytest.mark.parametrize("name", list(STEPS))
def test_turned_off_the_chain_starts_at_the_initial_point(name):
    idata = sample(lambda: STEPS[name](start_up=False), mv_model(), tune=200, draws=10)
    warm = posterior_dataset(idata, "warmup_sample_stats")
    assert (warm["start_up"].values == START_UP_STATUSES["off"]).all()
    assert (warm["logp_evals"].values[:, 0] == 2).all()


def test_the_classic_warm_up_and_tune_0_do_not_run_it():
    classic = sample(lambda: KameleonStep(warmup="classic"), mv_model(), tune=200, draws=10)
    warm = posterior_dataset(classic, "warmup_sample_stats")
    assert (warm["start_up"].values == 0).all()
    no_tune = sample(AdaptiveMetropolis, mv_model(), tune=0, draws=20)
    assert (posterior_dataset(no_tune, "sample_stats")["start_up"].values == 0).all()


@pytest.mark.parametrize("model", ["native", "blackbox"])
@pytest.mark.parametrize("name", ["adaptive_metropolis", "kmc"])
def test_a_stochastic_likelihood_estimate_is_climbed_with_its_noise_held(name, model):
    """Common random numbers make the estimate climbable: a far start reaches the bulk at once."""
    far = {"x": np.array([40.0, -40.0])}  # the posterior is N(Y_OBS / 2, I / 2)
    with MODELS[model]():
        idata = pm.sample(
            tune=200, draws=10, chains=2, step=STEPS[name](), random_seed=4,
            discard_tuned_samples=False, initvals=far, **SAMPLE_KW,
        )  # fmt: skip
    warm = posterior_dataset(idata, "warmup_sample_stats")
    assert (warm["start_up"].values == START_UP_STATUSES["gaussian"]).all()
    first = np.asarray(posterior_dataset(idata, "warmup_posterior")["x"].values)[:, 0]
    assert np.all(np.linalg.norm(first - Y_OBS / 2, axis=-1) < 5.0)


def test_a_banana_falls_back_quietly(caplog):
    with pm.Model() as model:
        x0 = pm.Normal("x0", 0.0, 10.0)
        pm.Normal("x1", -0.1 * (x0**2 - 100.0), 1.0)
    with caplog.at_level(logging.WARNING, logger="pymc"), model:
        idata = pm.sample(
            tune=400, draws=20, chains=1, step=AdaptiveMetropolis(), random_seed=1,
            discard_tuned_samples=False, **SAMPLE_KW,
        )  # fmt: skip
    warm = posterior_dataset(idata, "warmup_sample_stats")
    assert (warm["start_up"].values == START_UP_STATUSES["not_gaussian"]).all()
    assert not [r for r in caplog.records if "start-up" in r.getMessage()]


def start_up_facts(idata, caplog) -> list[str]:
    """The start-up's facts in the warning stat; none of them logged at WARNING or above."""
    assert not [r for r in caplog.records if "start-up" in r.getMessage()]  # a fact, not advice
    warm = posterior_dataset(idata, "warmup_sample_stats")["warning"].values.ravel()
    facts = [w for w in warm if w is not None and w != 0 and "start-up" in w.message]
    assert all(w.level == "debug" and w.message.kind == "start_up_fallback" for w in facts)
    return [str(w.message) for w in facts]


def test_a_flat_direction_falls_back_with_a_fact_that_names_it(caplog):
    with pm.Model() as model:
        pm.Normal("x", 0.0, 1.0)
        pm.Flat("unused")  # nothing depends on it: flat in every direction of it
    with caplog.at_level(logging.WARNING, logger="pymc"), model:
        idata = pm.sample(
            tune=400, draws=20, chains=1, step=AdaptiveMetropolis(), random_seed=1,
            discard_tuned_samples=False, keep_warning_stat=True, **SAMPLE_KW,
        )  # fmt: skip
    warm = posterior_dataset(idata, "warmup_sample_stats")
    assert (warm["start_up"].values == START_UP_STATUSES["no_curvature"]).all()
    messages = start_up_facts(idata, caplog)
    assert len(messages) == 1
    assert "no_curvature" in messages[0] and "start_up=False" in messages[0]


def test_a_budget_too_small_for_the_climb_says_how_to_raise_it(caplog):
    rho = 0.99995
    cov = np.array([[1.0, rho], [rho, 1.0]]) * np.outer([9e5, 2.0], [9e5, 2.0])
    with pm.Model() as model:
        pm.MvNormal("x", np.array([-3.4e6, 1.5]), cov)
    with caplog.at_level(logging.WARNING, logger="pymc"), model:
        idata = pm.sample(
            tune=400, draws=20, chains=1, step=AdaptiveMetropolis(start_up=25), random_seed=1,
            discard_tuned_samples=False, initvals={"x": np.zeros(2)}, keep_warning_stat=True,
            **SAMPLE_KW,
        )  # fmt: skip
    warm = posterior_dataset(idata, "warmup_sample_stats")
    assert (warm["start_up"].values == START_UP_STATUSES["out_of_budget"]).all()
    assert warm["logp_evals"].values[0, 0] <= 25 + 2
    messages = start_up_facts(idata, caplog)
    assert len(messages) == 1 and "all 25 log-density evaluations" in messages[0]


@pytest.mark.parametrize("name", list(STEPS))
def test_a_fallback_at_a_curved_mode_still_mixes_in_independence_moves(name):
    """A banana's mode is no Gaussian's, but its curvature is positive definite: warm-up tries
    independence moves from the t there (mixed with the windows' t), and the share fixed at the
    end of warm-up is the one their acceptance rate earned."""
    with pm.Model() as model:
        x0 = pm.Normal("x0", 0.0, 10.0)
        pm.Normal("x1", -0.1 * (x0**2 - 100.0), 1.0, shape=3)
    with model:
        step = STEPS[name]()
        idata = pm.sample(
            tune=600, draws=50, chains=1, step=step, random_seed=5, discard_tuned_samples=False,
            **SAMPLE_KW,
        )  # fmt: skip
    warm = posterior_dataset(idata, "warmup_sample_stats")
    assert (warm["start_up"].values == START_UP_STATUSES["not_gaussian"]).all()
    proposal = getattr(step, "explore", None) or step.proposal
    mixing = proposal.independence
    assert mixing is not None and mixing.tries >= 20
    rate = (mixing.accepted + 0.5) / (mixing.tries + 1.0)
    assert mixing.frozen_weight == pytest.approx(independence_share(rate, mixing.max_weight))


@pytest.mark.parametrize("name", list(STEPS))
def test_a_fallback_leaves_the_chain_draw_for_draw_unchanged(name):
    """On a curved target the start-up falls back: the chain is the one without it (the climb
    draws no random numbers), so the curved targets' results change only by its evaluations.

    (Without independence moves: by default a fallback at a mode with a positive definite
    curvature still mixes them into warm-up, see the next test.)
    """
    with pm.Model() as model:
        x0 = pm.Normal("x0", 0.0, 10.0)
        pm.Normal("x1", -0.1 * (x0**2 - 100.0), 1.0, shape=3)
    runs = []
    for start_up in (True, False):
        with model:
            runs.append(
                pm.sample(
                    tune=300,
                    draws=50,
                    chains=1,
                    step=STEPS[name](start_up=start_up, independence="off"),
                    random_seed=5,
                    discard_tuned_samples=False,
                    **SAMPLE_KW,
                )
            )
    on, off = (posterior_dataset(r, "posterior") for r in runs)
    warm = [posterior_dataset(r, "warmup_sample_stats") for r in runs]
    assert (warm[0]["start_up"].values == START_UP_STATUSES["not_gaussian"]).all()
    for var in ("x0", "x1"):
        assert np.array_equal(on[var].values, off[var].values)
    extra = warm[0]["logp_evals"].values[0, 0] - warm[1]["logp_evals"].values[0, 0]
    assert (
        extra > 0
        and (warm[0]["logp_evals"].values[0, 1:] == warm[1]["logp_evals"].values[0, 1:]).all()
    )


def _kernel_and_global_weights(make_step, model, point):
    with model:
        step = make_step()
    step.set_rng(np.random.default_rng(0))
    step.step(point)
    weights = step.proposal.main.weights.copy()
    step.set_rng(np.random.default_rng(1))  # a new chain starts with the initial weights
    return weights, step.proposal.main.weights.copy()


def test_kameleon_moves_weight_to_the_global_move_after_a_gaussian_start_up():
    weights, next_chain = _kernel_and_global_weights(
        lambda: KameleonStep(n_history=50), scaled_model(), {"x": np.zeros(3)}
    )
    np.testing.assert_allclose(weights, [0.2, 0.8])
    np.testing.assert_allclose(next_chain, [0.5, 0.5])
    fixed, _ = _kernel_and_global_weights(
        lambda: KameleonStep(n_history=50, global_weight=0.3), scaled_model(), {"x": np.zeros(3)}
    )
    np.testing.assert_allclose(fixed, [0.7, 0.3])
    with pm.Model() as banana:
        x0 = pm.Normal("x0", 0.0, 10.0)
        pm.Normal("x1", -0.1 * (x0**2 - 100.0), 1.0, shape=3)
    curved, _ = _kernel_and_global_weights(
        lambda: KameleonStep(n_history=50), banana, banana.initial_point()
    )
    np.testing.assert_allclose(curved, [0.5, 0.5])
