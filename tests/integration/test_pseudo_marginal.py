"""Pseudo-marginal mechanics: both Potential forms, stored noise, guards, NaN, reproducibility."""

from __future__ import annotations

import copy
import math

import numpy as np
import pymc as pm
import pytensor.tensor as pt
import pytest
from helpers.noisy_models import (
    MODELS,
    NOISE_SD,
    Y_OBS,
    blackbox_model,
    exact_loglike,
    native_model,
    noisy_estimate,
)
from helpers.sampling import SAMPLE_KW, assert_states_equal, run_direct
from pymc.step_methods.compound import BlockedStep

from pymc_kameleon import (
    AdaptiveMetropolis,
    KameleonStep,
    KMCStep,
    estimator_potential,
    noisy_potential,
)
from pymc_kameleon.diagnostics import mcse_zscores
from pymc_kameleon.pseudo_marginal import EstimatorOp, noise_variables
from pymc_kameleon.step_methods.base import NOISE_CHECK_REPEATS

STEP_CLASSES = [KameleonStep, AdaptiveMetropolis, KMCStep]
STEP_IDS = ["kameleon", "am", "kmc"]


def make_step(step_cls, *args, **kwargs):
    """A step that starts adapting early (short test chains)."""
    kwargs.setdefault("adapt_start", 50)
    return step_cls(*args, **kwargs)


class CountingEstimator:
    """Picklable estimator that counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, theta, rng):
        self.calls += 1
        return noisy_estimate(theta, rng)


# -----------------------------------------------------------------------------------------------
# the two forms
def test_noise_variables_are_found_in_a_stable_order():
    """Two noise sources, found in the same order from two separately built graphs."""
    with pm.Model() as model:
        x = pm.Normal("x")
        z = pm.Normal.dist(0.0, 1.0, shape=3)
        g = pm.Gamma.dist(2.0, 2.0)
        noisy_potential("loglike", -(x**2) + z.sum() * g)

    def op_names(graph):
        return [type(v.owner.op).__name__ for v in noise_variables(graph)]

    first = op_names(model.logp())
    assert sorted(first) == ["GammaRV", "NormalRV"]
    assert all(op_names(model.logp()) == first for _ in range(3))


def test_noisy_potential_refuses_a_deterministic_graph():
    with pm.Model():
        x = pm.Normal("x")
        with pytest.raises(ValueError, match=r"no random variables.*pm\.Potential"):
            noisy_potential("loglike", -(x**2))


def test_estimator_op_calls_estimate_with_a_seeded_generator():
    seen = []

    def estimate(theta, rng):
        seen.append((np.array(theta), rng.integers(1000)))
        return float(theta.sum())

    op = EstimatorOp(estimate, 1)
    out = op(pt.constant(7, dtype="int64"), pt.constant([1.0, 2.0])).eval()
    assert out == 3.0
    assert seen[0][1] == np.random.default_rng(7).integers(1000)


def test_estimator_op_multiple_parameters_get_a_tuple():
    def estimate(theta, rng):
        a, b = theta
        return float(a * b)

    op = EstimatorOp(estimate, 2)
    assert op(pt.constant(1, dtype="int64"), pt.constant(3.0), pt.constant(4.0)).eval() == 12.0


@pytest.mark.parametrize("bad", [[1.0, 2.0], "x", None, 1 + 2j])
def test_estimator_must_return_one_real_number(bad):
    op = EstimatorOp(lambda theta, rng: bad, 1)
    with pytest.raises(TypeError, match="one real number"):
        op(pt.constant(1, dtype="int64"), pt.constant(0.0)).eval()


def test_estimator_must_be_callable():
    with pm.Model():
        x = pm.Normal("x")
        with pytest.raises(TypeError, match="callable"):
            estimator_potential("loglike", 3.0, x)


def test_estimator_potential_has_no_gradient():
    model = blackbox_model()
    with pytest.raises(NotImplementedError, match=r"no gradient.*KameleonStep"):
        model.compile_dlogp()


# -----------------------------------------------------------------------------------------------
# the state holds the noise; the current estimate is never re-drawn
@pytest.mark.parametrize("form", ["native", "blackbox"])
@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=STEP_IDS)
def test_current_estimate_is_kept_while_the_chain_stays(step_cls, form):
    model = MODELS[form]()
    with model:
        step = make_step(step_cls, noise_check_interval=0)
    assert step.is_pseudo_marginal
    step.set_rng(5)
    point = model.initial_point()
    xs, lps = [], []
    for _ in range(400):
        point, stats = step.step(point)
        xs.append(point["x"].copy())
        lps.append(stats[0]["model_logp"])
        assert stats[0]["logp_evals"] <= 1 or len(xs) == 1
    xs, lps = np.array(xs), np.array(lps)
    stayed = np.all(xs[1:] == xs[:-1], axis=1)
    assert stayed.sum() > 20
    # a rejected proposal keeps the stored estimate exactly: no re-estimation of the current state
    assert np.array_equal(lps[1:][stayed], lps[:-1][stayed])
    # a moved chain carries the estimate it was accepted with, which is not the exact likelihood
    prior = -0.5 * np.sum(xs**2, axis=1) - math.log(2 * math.pi)
    exact = prior + np.array([exact_loglike(x) for x in xs])
    assert np.std(lps - exact) > 0.3


@pytest.mark.parametrize("start_up", [False, True])
def test_one_estimate_per_iteration_and_counted_checks(start_up):
    estimator = CountingEstimator()
    model = blackbox_model(estimator)
    with model:
        step = make_step(KameleonStep, noise_check_interval=50, start_up=start_up)
    step.set_rng(1)
    estimator.calls = 0
    _, stats = run_direct(step, model.initial_point(), 200)
    total = sum(s["logp_evals"] for s in stats)
    # one proposal per iteration, one initial estimate, NOISE_CHECK_REPEATS at 0, 50, 100, 150
    later = sum(s["logp_evals"] for s in stats[1:])
    assert later == 199 + 3 * NOISE_CHECK_REPEATS
    first = 1 + 1 + NOISE_CHECK_REPEATS
    if start_up:  # the climb's estimates (noise held fixed) are counted at the first iteration
        assert stats[0]["start_up"] > 0 and stats[0]["logp_evals"] > first
    else:
        assert stats[0]["logp_evals"] == first
    assert estimator.calls == total


def test_noise_sd_stat_measures_the_estimator():
    with native_model():
        idata = pm.sample(
            tune=500,
            draws=100,
            chains=2,
            cores=1,
            step=KameleonStep(),
            random_seed=3,
            discard_tuned_samples=False,
            **SAMPLE_KW,
        )
    noise_sd = idata["sample_stats"]["noise_sd"].values[:, -1]
    # 6 checks x 3 degrees of freedom per chain: relative error about 1 / sqrt(36)
    assert np.all(np.abs(noise_sd / NOISE_SD - 1) < 0.45), noise_sd
    # measured from the very first iteration on (warm-up draws are kept in this run)
    assert np.all(np.isfinite(idata["warmup_sample_stats"]["noise_sd"].values))


def test_no_noise_stat_for_deterministic_models():
    with pm.Model():
        pm.Normal("x", shape=2)
        step = KameleonStep()
    assert not step.is_pseudo_marginal
    assert "noise_sd" not in step.stats_dtypes_shapes
    assert "noise_sd" not in KameleonStep.stats_dtypes_shapes


def test_large_noise_warns_at_the_end_of_warmup():
    with pm.Model():
        x = pm.Normal("x", shape=2)
        z = pm.Normal.dist(0.0, 1.0)
        noisy_potential("loglike", -0.5 * (x**2).sum() + 5.0 * z - 12.5)
        with pytest.warns(UserWarning, match="standard deviation of the log-likelihood estimate"):
            pm.sample(tune=300, draws=10, chains=1, step=KameleonStep(), random_seed=1, **SAMPLE_KW)


# -----------------------------------------------------------------------------------------------
# other steps' variables change: recompute with the stored noise
@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=STEP_IDS)
def test_shared_change_recomputes_with_stored_noise(step_cls):
    model = native_model(extra_y=True)
    with model:
        step = make_step(step_cls, [model["x"]], noise_free_other_steps=True)
    step.set_rng(2)
    point, _ = run_direct(step, model.initial_point(), 30)
    x, noise, logp_before = (
        step.x_current.copy(),
        copy.deepcopy(step.noise_current),
        step.logp_current,
    )
    y_old = np.asarray(point["y"])
    y_new = y_old + np.array([0.7, -1.3])
    for shared in step.shared.values():
        shared.set_value(y_new)
    assert step.refresh_current(x) == 1
    assert all(np.array_equal(a, b) for a, b in zip(step.noise_current, noise, strict=True))

    # the change equals the exact change of the deterministic y term: the noise did not move
    def y_term(y):
        return float(np.sum(-0.5 * (y - x) ** 2))

    expected = logp_before + y_term(y_new) - y_term(y_old)
    assert math.isclose(step.logp_current, expected, rel_tol=0, abs_tol=1e-10)
    assert step.refresh_current(x) == 0  # nothing changed since


# -----------------------------------------------------------------------------------------------
# guards
def test_noisy_term_on_a_foreign_variable_is_refused():
    model = native_model(extra_y=True, noise_on_y=True)
    with model, pytest.raises(ValueError, match=r"'loglike' depends on \['y'\]"):
        KameleonStep([model["x"]], noise_free_other_steps=True)


@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=STEP_IDS)
def test_other_steps_are_refused_by_default(step_cls):
    model = native_model(extra_y=True)
    with model, pytest.raises(ValueError, match="noise_free_other_steps=True"):
        step_cls([model["x"]])


def test_pm_sample_with_nuts_for_the_rest_fails_before_sampling():
    model = native_model(extra_y=True)
    with model, pytest.raises(ValueError, match=r"variables \['y'\] would be sampled by another"):
        pm.sample(step=[KameleonStep([model["x"]])], draws=10, tune=10, chains=1, **SAMPLE_KW)


def test_discrete_variable_with_noise_is_refused():
    with pm.Model() as model:
        x = pm.Normal("x", shape=2)
        pm.Poisson("k", 3.0)
        z = pm.Normal.dist()
        noisy_potential("loglike", -0.5 * (x**2).sum() + z - 0.5)
    with model, pytest.raises(ValueError, match=r"\['k'\].*marginalise discrete"):
        KameleonStep()


def test_whole_model_with_one_step_is_fine():
    model = native_model(extra_y=True, noise_on_y=True)
    with model:
        step = KameleonStep()
    assert step.is_pseudo_marginal


# -----------------------------------------------------------------------------------------------
# NaN / inf estimates
class SometimesBroken:
    """An estimator that returns NaN, +inf or -inf for some draws (picklable)."""

    def __call__(self, theta, rng):
        u = rng.random()
        if u < 0.1:
            return math.nan
        if u < 0.15:
            return math.inf
        if u < 0.2:
            return -math.inf
        return noisy_estimate(theta, rng)


@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=STEP_IDS)
def test_nan_and_inf_estimates_are_rejected_and_counted(step_cls):
    model = blackbox_model(SometimesBroken())
    with model:
        step = make_step(step_cls, noise_check_interval=0)
    step.set_rng(4)
    point = model.initial_point()
    # a finite start
    while True:
        point, _ = step.step(point)
        if math.isfinite(step.logp_current):
            break
    _, all_stats = run_direct(step, point, 400)
    lps = np.array([s["model_logp"] for s in all_stats])
    assert np.all(np.isfinite(lps))
    assert step.health.n_invalid > 20


# -----------------------------------------------------------------------------------------------
# reproducibility and state round trip
@pytest.mark.parametrize("form", ["native", "blackbox"])
def test_reproducible_under_random_seed_with_two_processes(form):
    runs = []
    for seed in (7, 7, 8):
        with MODELS[form]():
            idata = pm.sample(
                tune=200,
                draws=200,
                chains=2,
                cores=2,
                step=KameleonStep(),
                random_seed=seed,
                **SAMPLE_KW,
            )
        runs.append(np.asarray(idata["posterior"]["x"].values))
    assert np.array_equal(runs[0], runs[1])
    assert not np.array_equal(runs[0], runs[2])


@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=STEP_IDS)
def test_sampling_state_round_trip_includes_the_noise(step_cls):
    model = native_model()
    with model:
        step = make_step(step_cls)
    step.set_rng(9)
    point, _ = run_direct(step, model.initial_point(), 120)
    saved = step.sampling_state
    assert saved.current.noise is not None
    a = run_direct(step, copy.deepcopy(point), 20)
    state_a = step.sampling_state
    step.sampling_state = saved
    b = run_direct(step, copy.deepcopy(point), 20)
    assert np.array_equal(a[0]["x"], b[0]["x"])
    assert a[1] == b[1]
    assert_states_equal(step.sampling_state, state_a)


# -----------------------------------------------------------------------------------------------
# a compound step that is valid: an exact Gibbs update of y that never evaluates the noisy term
class ExactGibbsY(BlockedStep):
    """Draws ``y | x ~ N(x, 1)`` exactly (the conditional of :func:`native_model`)."""

    stats_dtypes_shapes = {}  # noqa: RUF012

    def __init__(self, vars, model=None, blocked=True, rng=None):
        self.vars = vars
        self.rng = np.random.default_rng(rng)

    def step(self, point):
        new = dict(point)
        new["y"] = self.rng.normal(point["x"], 1.0)
        return new, []


@pytest.mark.statistical
def test_compound_with_a_noise_free_gibbs_step_is_exact():
    """x | data ~ N(y_obs/2, 1/2) and y ~ N(y_obs/2, 3/2): within 4 MCSE."""
    model = native_model(extra_y=True)
    with model:
        steps = [
            KameleonStep([model["x"]], noise_free_other_steps=True),
            ExactGibbsY([model.rvs_to_values[model["y"]]]),
        ]
        idata = pm.sample(
            tune=1000, draws=4000, chains=4, cores=1, step=steps, random_seed=12, **SAMPLE_KW
        )
    for name, var in (("x", 0.5), ("y", 1.5)):
        z = mcse_zscores(idata["posterior"][name].values, mean=Y_OBS / 2, variance=np.full(2, var))
        assert z.max_abs < 4.0, f"{name}: {z.describe()}"
