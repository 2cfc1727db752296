"""Integration of our step methods with PyMC's sampling machinery.

These are our own conformance checks for PyMC's step-method contract: exact ``sampling_state``
round trips, declared stat dtypes, warm-up bookkeeping, freezing of adaptation, no leakage of tuned
state between chains, RV-to-value-variable assignment, compound sampling with NUTS, parallel and
``spawn`` sampling, reproducibility, competence, the one-logp-per-iteration budget, and rejection
of proposals whose log-density is NaN or -inf.
"""

from __future__ import annotations

import copy
import math
import pickle
from pathlib import Path

import cloudpickle
import numpy as np
import pymc as pm
import pytensor.tensor as pt
import pytest
from helpers.models import coupled_model, exact_posterior_mean_b, mv_model
from helpers.sampling import (
    SAMPLE_KW,
    CountingLogp,
    assert_states_equal,
    posterior_array,
    run_direct,
)
from pymc.backends.base import MultiTrace
from pymc.stats.convergence import SamplerWarning
from pymc.step_methods.compound import Competence
from pymc.step_methods.state import equal_dataclass_values

from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep
from pymc_kameleon._compat import EMIT_TUNE_STAT, posterior_dataset, result_groups
from pymc_kameleon.core.adaptation import optimal_rw_scale, robbins_monro_update
from pymc_kameleon.step_methods.adaptive_metropolis import AdaptiveMetropolisState
from pymc_kameleon.step_methods.kameleon import KameleonState

STEP_CLASSES = [KameleonStep, AdaptiveMetropolis]
STEP_IDS = ["kameleon", "adaptive_metropolis"]
ADAPT_START = 50
TARGET_ACCEPT = 0.234


def make_step(step_cls, vars=None, **kwargs):
    """A step with small budgets (n_history=50, adapt_start=50) unless overridden."""
    defaults = {"adapt_start": ADAPT_START}
    if step_cls is KameleonStep:
        defaults["n_history"] = 50
    # the contract checks below read the published algorithms' state (Haario's running moments,
    # the Kameleon subsample in the model's units); test_whitened_warmup.py checks the same
    # contract for the default warm-up
    defaults["warmup"] = "classic"
    defaults.update(kwargs)
    return step_cls(vars, **defaults)


def untuned_first_scaling(step_cls, accept0: float, dim: int, **kwargs) -> float:
    """The ``scaling`` stat of a chain's very first iteration, computed from first principles.

    KameleonStep does not learn nu^2 before it has a history subsample, so the first value is the
    initial nu^2 (1.0 by default). AdaptiveMetropolis with ``scale="learn"`` makes one
    Robbins-Monro update from ``2.38**2 / d`` with the first acceptance probability.
    """
    if step_cls is KameleonStep:
        return float(kwargs.get("nu2", 1.0) or 1.0)
    log_s0 = math.log(optimal_rw_scale(dim))
    return math.exp(robbins_monro_update(log_s0, accept0, TARGET_ACCEPT, 0))


# -----------------------------------------------------------------------------------------------
# 1. sampling_state round trip, transplant, pickling
@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=STEP_IDS)
def test_sampling_state_round_trip(step_cls):
    model = mv_model()
    with model:
        step = make_step(step_cls)
    fresh_clone = copy.deepcopy(step)
    pickled_step = cloudpickle.loads(cloudpickle.dumps(step))

    step.set_rng(123)
    point, _ = run_direct(step, model.initial_point(), 300)
    assert step.iteration == 300
    if step_cls is KameleonStep:
        assert step.z is not None and step.z.shape[0] == 50
        assert step.history.n_seen == 300
    else:
        assert step.moments.count == 300

    orig = step.sampling_state
    expected_cls = KameleonState if step_cls is KameleonStep else AdaptiveMetropolisState
    assert isinstance(orig, expected_cls)
    start = copy.deepcopy(point)

    point_a, stats_a = step.step(copy.deepcopy(start))
    state_a = step.sampling_state
    assert not equal_dataclass_values(orig, state_a), "the state must advance"

    # restoring the saved state reproduces the iteration bit for bit
    step.sampling_state = orig
    assert_states_equal(step.sampling_state, orig)
    point_b, stats_b = step.step(copy.deepcopy(start))
    assert np.array_equal(point_a["x"], point_b["x"])
    assert stats_a == stats_b
    assert_states_equal(step.sampling_state, state_a)

    # the saved state is plain picklable data and survives a round trip
    orig_loaded = pickle.loads(pickle.dumps(orig))
    assert_states_equal(orig_loaded, orig)

    # transplant into a deepcopy and into a cloudpickled copy made before sampling
    for other in (fresh_clone, pickled_step):
        other.sampling_state = orig_loaded
        point_c, stats_c = other.step(copy.deepcopy(start))
        assert np.array_equal(point_a["x"], point_c["x"])
        assert stats_c == stats_a
        assert_states_equal(other.sampling_state, state_a)

    # the step itself stays cloudpickle-able after sampling, state included
    reloaded = cloudpickle.loads(cloudpickle.dumps(step))
    assert_states_equal(reloaded.sampling_state, step.sampling_state)


# -----------------------------------------------------------------------------------------------
# One shared run per step class (2 chains, 2 cores, warm-up kept) for tests 2, 3, 4, 10, 12.
TUNE, DRAWS = 300, 200


@pytest.fixture(scope="module", params=STEP_CLASSES, ids=STEP_IDS)
def sampled(request):
    step_cls = request.param
    model = mv_model()
    with model:
        step = make_step(step_cls)
        idata = pm.sample(
            tune=TUNE,
            draws=DRAWS,
            chains=2,
            cores=2,
            step=step,
            random_seed=11,
            discard_tuned_samples=False,
            **SAMPLE_KW,
        )
    return step_cls, idata


def test_stat_dtypes(sampled):
    step_cls, idata = sampled
    declared = step_cls.stats_dtypes_shapes
    expected_names = {
        "accept",
        "accepted",
        "scaling",
        "model_logp",
        "logp_evals",
        "start_up",
        "invalid_proposal",
        "warning",
    }
    if step_cls is KameleonStep:
        expected_names |= {"bandwidth", "n_history"}
    # AdaptiveMetropolis declares n_history per instance (its whitened warm-up has none)
    assert "n_history" in idata["sample_stats"]
    if EMIT_TUNE_STAT:  # older PyMC releases need it and drop it from the InferenceData
        expected_names.add("tune")
    assert set(declared) == expected_names
    assert declared["accepted"][0] is np.float64
    assert declared["logp_evals"][0] is np.int64
    assert np.dtype(declared["invalid_proposal"][0]) == np.dtype(bool)
    assert declared["warning"] == (SamplerWarning, None)  # as NUTS declares it
    for group in ("sample_stats", "warmup_sample_stats"):
        stats = idata[group]
        assert "model_logp" not in stats
        assert "warning" not in stats  # PyMC drops it unless keep_warning_stat=True
        for name, (dtype, shape) in declared.items():
            if name in ("tune", "warning"):
                continue
            key = "lp" if name == "model_logp" else name
            assert key in stats, f"{key} missing from {group}"
            assert stats[key].dtype == np.dtype(dtype), (name, stats[key].dtype, dtype)
            assert stats[key].dims == ("chain", "draw")
            assert shape == []


def test_warmup_and_posterior_draw_counts(sampled):
    _, idata = sampled
    assert idata.warmup_posterior.draw.size == TUNE
    assert idata.posterior.draw.size == DRAWS
    assert idata.warmup_sample_stats.draw.size == TUNE
    assert idata.sample_stats.draw.size == DRAWS
    assert idata.posterior.chain.size == 2


def test_scaling_tunes_then_freezes(sampled):
    step_cls, idata = sampled
    warm = idata.warmup_sample_stats["scaling"].values
    post = idata.sample_stats["scaling"].values
    updated = (
        idata.warmup_sample_stats["n_history"].values > 0
        if step_cls is KameleonStep
        else np.ones_like(warm, dtype=bool)
    )
    for c in range(2):
        assert np.unique(warm[c]).size > 1, "scaling must change during warm-up"
        assert np.all(post[c] == post[c, 0]), "scaling must be frozen after warm-up"
        assert np.all(np.isfinite(post[c])) and post[c, 0] > 0
        # stop_tuning freezes the scale at the warm-up iterate average of log(scale), with
        # weight k for the k-th scale update; KameleonStep restarts the average whenever the
        # bandwidth changes (nu^2 is rescaled then), so only updates since the last change count
        log_iterates = np.log(warm[c][updated[c]])
        weights = np.arange(1, log_iterates.size + 1)
        if step_cls is KameleonStep:
            bw = idata.warmup_sample_stats["bandwidth"].values[c][updated[c]]
            changes = np.flatnonzero(bw[1:] != bw[:-1]) + 1
            start = changes[-1] if changes.size else 0
            log_iterates, weights = log_iterates[start:], weights[start:]
        expected = math.exp(np.sum(weights * log_iterates) / np.sum(weights))
        assert math.isclose(post[c, 0], expected, rel_tol=1e-9), (post[c, 0], expected)
    if step_cls is KameleonStep:
        bw = idata.sample_stats["bandwidth"].values
        assert np.all(bw == bw[:, :1])
        assert np.all(idata.sample_stats["n_history"].values == 50)
    else:
        # the running covariance stops counting after warm-up
        assert np.all(idata.sample_stats["n_history"].values == TUNE)


@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=STEP_IDS)
def test_vanishing_adaptation_continues_after_warmup(step_cls):
    model = mv_model()
    with model:
        step = make_step(step_cls, adaptation="vanishing")
        idata = pm.sample(
            tune=200, draws=200, chains=1, cores=1, step=step, random_seed=3, **SAMPLE_KW
        )
    post = idata.sample_stats["scaling"].values[0]
    assert np.unique(post).size > 1, "vanishing adaptation must keep learning the scale"
    if step_cls is AdaptiveMetropolis:
        assert idata.sample_stats["n_history"].values[0, -1] == 400


def test_return_inferencedata_groups(sampled):
    _, idata = sampled
    assert {"posterior", "sample_stats"} <= set(result_groups(idata))
    assert idata.posterior["x"].shape == (2, DRAWS, 3)
    for name in ("accept", "accepted", "scaling", "lp", "logp_evals", "invalid_proposal"):
        assert name in idata.sample_stats
    acc = idata.sample_stats["accept"].values
    assert np.all((acc >= 0) & (acc <= 1))
    assert set(np.unique(idata.sample_stats["accepted"].values)) <= {0.0, 1.0}


def test_logp_evals_stat_is_one_per_iteration(sampled):
    _, idata = sampled
    warm = idata.warmup_sample_stats["logp_evals"].values
    post = idata.sample_stats["logp_evals"].values
    assert np.all(warm[:, 0] == 2), "the first iteration also evaluates the starting point"
    assert np.all(warm[:, 1:] == 1)
    assert np.all(post == 1)


# -----------------------------------------------------------------------------------------------
# 5. no leak between sequential chains; 6. reuse of a step object for a second run
def assert_untuned_start(step_cls, idata, dim=3):
    warm = idata.warmup_sample_stats
    for c in range(idata.posterior.chain.size):
        accept0 = float(warm["accept"].values[c, 0])
        expected = untuned_first_scaling(step_cls, accept0, dim)
        assert math.isclose(float(warm["scaling"].values[c, 0]), expected, rel_tol=1e-12), c
        n_hist0 = int(warm["n_history"].values[c, 0])
        assert n_hist0 == (0 if step_cls is KameleonStep else 1), c
        assert int(warm["logp_evals"].values[c, 0]) == 2, c


@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=STEP_IDS)
def test_no_tuning_leak_between_sequential_chains(step_cls):
    model = mv_model()
    with model:
        step = make_step(step_cls)
        # leave tuned state in the step first: pm.sample snapshots the step's state before the
        # first chain and restores it before each chain, so each chain start must reset it
        step.set_rng(0)
        run_direct(step, model.initial_point(), 120)
        assert step.proposal.scale.updates > 0
        idata = pm.sample(
            tune=150,
            draws=50,
            chains=3,
            cores=1,
            step=step,
            random_seed=5,
            discard_tuned_samples=False,
            **SAMPLE_KW,
        )
    assert_untuned_start(step_cls, idata)
    # and every chain did tune (so a leak would have been visible)
    warm_scaling = idata.warmup_sample_stats["scaling"].values
    assert all(np.unique(warm_scaling[c]).size > 1 for c in range(3))


@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=STEP_IDS)
def test_reused_step_starts_fresh(step_cls):
    model = mv_model()
    with model:
        step = make_step(step_cls)
        pm.sample(tune=150, draws=50, chains=1, cores=1, step=step, random_seed=1, **SAMPLE_KW)
        # the parent's step object now holds a tuned state
        assert step.iteration > 0
        idata = pm.sample(
            tune=100,
            draws=20,
            chains=2,
            cores=2,
            step=step,
            random_seed=2,
            discard_tuned_samples=False,
            **SAMPLE_KW,
        )
    assert_untuned_start(step_cls, idata)


# -----------------------------------------------------------------------------------------------
# 7. RV -> value-variable assignment
@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=STEP_IDS)
def test_rv_to_value_var_assignment(step_cls):
    with pm.Model() as model:
        sigma = pm.HalfNormal("sigma")
        mu = pm.Normal("mu")
        step_sigma = make_step(step_cls, [sigma])
        step_both = make_step(step_cls, [sigma, mu])
    assert step_sigma.vars == [model.rvs_to_values[sigma]]
    assert step_sigma.vars[0].name == "sigma_log__"
    assert set(step_both.vars) == {model.rvs_to_values[sigma], model.rvs_to_values[mu]}
    assert step_both.dim == 2

    with model:
        step_mu = make_step(step_cls, [mu])
        idata = pm.sample(
            tune=100, draws=100, chains=1, cores=1, step=step_mu, random_seed=1, **SAMPLE_KW
        )
    stats = idata.sample_stats
    assert "step_size" in stats, "NUTS must have been auto-assigned to sigma"
    assert "scaling" in stats and "logp_evals" in stats
    assert np.all(idata.posterior["sigma"].values > 0)


# -----------------------------------------------------------------------------------------------
# 8. compound sampling with NUTS and the cached-logp invariant
@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=STEP_IDS)
def test_compound_with_nuts(step_cls):
    model = coupled_model()
    with model:
        step = make_step(step_cls, [model["a"]])
        idata = pm.sample(
            tune=500, draws=500, chains=2, cores=2, step=[step], random_seed=7, **SAMPLE_KW
        )
    assert "step_size" in idata.sample_stats and "scaling" in idata.sample_stats
    b_mean = float(idata.posterior["b"].mean())
    assert abs(b_mean - exact_posterior_mean_b()) < 0.4, b_mean
    # NUTS moves b between our iterations, so our step re-evaluates its current logp
    evals = idata.sample_stats["logp_evals"].values
    assert np.all((evals == 1) | (evals == 2))
    assert np.mean(evals == 2) > 0.5


@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=STEP_IDS)
def test_cached_logp_refreshed_when_other_vars_change(step_cls):
    model = coupled_model()
    with model:
        step = make_step(step_cls, [model["a"]])
    model_logp = model.compile_logp()
    step.set_rng(0)

    point = model.initial_point()
    point, stats = step.step(point)
    assert stats[0]["logp_evals"] == 2
    point, stats = step.step(point)
    assert stats[0]["logp_evals"] == 1
    assert math.isclose(step.logp_current, float(model_logp(point)), rel_tol=1e-10)

    point = dict(point)
    point["b"] = np.asarray(1.7)
    point, stats = step.step(point)
    assert stats[0]["logp_evals"] == 2
    assert float(point["b"]) == 1.7
    assert math.isclose(step.logp_current, float(model_logp(point)), rel_tol=1e-10)
    assert math.isclose(stats[0]["model_logp"], step.logp_current)

    point, stats = step.step(point)
    assert stats[0]["logp_evals"] == 1
    assert math.isclose(step.logp_current, float(model_logp(point)), rel_tol=1e-10)


# -----------------------------------------------------------------------------------------------
# 9. parallel sampling, spawn, reproducibility
@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=STEP_IDS)
def test_parallel_chains_and_reproducibility(step_cls):
    model = mv_model()
    with model:
        step = make_step(step_cls)
        kw = {"tune": 100, "draws": 50, "chains": 4, "cores": 2, "step": step, **SAMPLE_KW}
        run1 = pm.sample(random_seed=21, **kw)
        run2 = pm.sample(random_seed=21, **kw)
        run3 = pm.sample(random_seed=22, **kw)
    x1, x2, x3 = (posterior_array(r) for r in (run1, run2, run3))
    assert x1.shape == (4, 50, 3)
    assert np.array_equal(x1, x2)
    assert np.array_equal(run1.sample_stats["scaling"].values, run2.sample_stats["scaling"].values)
    assert not np.array_equal(x1, x3)
    # different chains of one run are different chains
    assert all(not np.array_equal(x1[i], x1[j]) for i in range(4) for j in range(i + 1, 4))


def test_spawn_context_matches_fork():
    # one compound run covers both classes (a spawned worker costs a fresh interpreter)
    with pm.Model():
        a = pm.Normal("a", 0.0, 1.0, shape=2)
        b = pm.Normal("b", 1.0, 2.0, shape=2)
        steps = [make_step(KameleonStep, [a]), make_step(AdaptiveMetropolis, [b])]
        kw = {"tune": 60, "draws": 20, "chains": 2, "cores": 2, "step": steps, "random_seed": 9}
        spawned = pm.sample(mp_ctx="spawn", **kw, **SAMPLE_KW)
        forked = pm.sample(mp_ctx="fork", **kw, **SAMPLE_KW)
    for name in ("a", "b"):
        drawn = posterior_dataset(spawned, "posterior")[name].values
        assert drawn.shape == (2, 20, 2)
        assert np.array_equal(drawn, posterior_dataset(forked, "posterior")[name].values)


# -----------------------------------------------------------------------------------------------
# 10. MultiTrace output
@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=STEP_IDS)
def test_multitrace_output(step_cls):
    model = mv_model()
    with model:
        step = make_step(step_cls)
        trace = pm.sample(
            tune=60,
            draws=40,
            chains=2,
            cores=1,
            step=step,
            random_seed=4,
            return_inferencedata=False,
            **SAMPLE_KW,
        )
    assert isinstance(trace, MultiTrace)
    assert trace.nchains == 2 and len(trace) == 40
    accept = trace.get_sampler_stats("accept", combine=False)
    assert len(accept) == 2 and all(a.shape == (40,) for a in accept)
    assert trace.get_sampler_stats("logp_evals").dtype == np.int64
    assert trace.get_sampler_stats("invalid_proposal").dtype == np.dtype(bool)
    assert trace["x"].shape == (80, 3)


# -----------------------------------------------------------------------------------------------
# 11. competence
@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=STEP_IDS)
def test_competence(step_cls):
    with pm.Model():
        cont = [
            pm.Normal("n"),
            pm.HalfNormal("h"),
            pm.MvNormal("mv", mu=np.zeros(2), cov=np.eye(2)),
        ]
        disc = [pm.Poisson("p", 3.0), pm.Bernoulli("b", 0.5)]
    for rv in cont:
        assert step_cls.competence(rv, True) == Competence.COMPATIBLE
        assert step_cls.competence(rv, False) == Competence.COMPATIBLE
    for rv in disc:
        assert step_cls.competence(rv, False) == Competence.INCOMPATIBLE


@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=STEP_IDS)
@pytest.mark.parametrize("dist", ["poisson", "bernoulli"])
def test_explicit_discrete_var_raises(step_cls, dist):
    with pm.Model() as model:
        pm.Normal("mu")
        if dist == "poisson":
            k = pm.Poisson("k_count", 3.0)
        else:
            k = pm.Bernoulli("k_count", 0.5)
        with pytest.raises(ValueError, match="k_count"):
            make_step(step_cls, [k])
        with pytest.raises(ValueError, match="k_count"):
            make_step(step_cls, [model["mu"], k])


# -----------------------------------------------------------------------------------------------
# 12. exactly one logp evaluation per iteration, counted for real
@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=STEP_IDS)
def test_logp_calls_counted(step_cls):
    model = mv_model()
    with model:
        step = make_step(step_cls)
    counter = CountingLogp(step.density.compiled)
    step.density.compiled = counter
    step.set_rng(8)
    point = model.initial_point()
    n = 250
    per_iteration = []
    for _ in range(n):
        before = counter.calls
        point, stats = step.step(point)
        per_iteration.append(counter.calls - before)
        assert stats[0]["logp_evals"] == per_iteration[-1]
    assert per_iteration[0] == 2
    assert per_iteration[1:] == [1] * (n - 1)
    assert counter.calls == n + 1


# -----------------------------------------------------------------------------------------------
# 13. NaN / -inf proposals are rejected and counted
@pytest.mark.parametrize("step_cls", STEP_CLASSES, ids=STEP_IDS)
@pytest.mark.parametrize("bad_value", [-np.inf, np.nan], ids=["neg_inf", "nan"])
def test_invalid_proposals_rejected(step_cls, bad_value):
    with pm.Model() as model:
        x = pm.Normal("x", 0.0, 1.0, shape=2)
        pm.Potential("wall", pt.switch(pt.gt(x[0], 1.0), bad_value, 0.0))
        step = make_step(step_cls, gamma=0.5)
    step.set_rng(17)
    point = model.initial_point()
    xs, all_stats = [], []
    for _ in range(400):
        point, stats = step.step(point)
        xs.append(np.array(point["x"], copy=True))
        all_stats.append(stats[0])
    xs = np.asarray(xs)
    assert np.all(xs[:, 0] <= 1.0), "a point in the invalid region was accepted"
    invalid = np.array([s["invalid_proposal"] for s in all_stats])
    accepted = np.array([s["accepted"] for s in all_stats])
    accept = np.array([s["accept"] for s in all_stats])
    lp = np.array([s["model_logp"] for s in all_stats])
    assert invalid.dtype == bool
    assert invalid.sum() > 0, "the test should provoke invalid proposals"
    assert np.all(accepted[invalid] == 0.0)
    assert np.all(accept[invalid] == 0.0)
    assert accepted[~invalid].sum() > 0
    assert np.all(np.isfinite(lp))
    assert np.all(np.isfinite(accept))
    assert step.health.n_invalid == int(invalid.sum())


README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.mark.parametrize(
    "sampler_options", [{"target_accept": 0.8}, {"nuts": {"target_accept": 0.8}}]
)
def test_sampler_options_go_to_the_step_as_the_readme_says(sampler_options):
    """PyMC refuses NUTS options next to ``step=``; the README says where they go instead."""
    readme = " ".join(README.read_text().split())
    assert "Invalid key found in step_kwargs" in readme
    assert "pm.sample(step=KMCStep(target_accept=0.8))" in readme
    with pm.Model():
        pm.Normal("x", 0.0, 1.0)
        with pytest.raises(ValueError, match="Invalid key found in step_kwargs"):
            pm.sample(
                step=KMCStep(), tune=5, draws=5, chains=1, progressbar=False, **sampler_options
            )
        for step_cls, value in ((KameleonStep, 0.3), (AdaptiveMetropolis, 0.3), (KMCStep, 0.8)):
            assert step_cls(target_accept=value).target_accept == value
