"""KMCStep: PyMC conformance, adaptation life cycle, divergences and bad input.

The statistical accuracy tests are in ``test_kmc_statistical.py``; the conformance checks here
mirror those of ``test_pymc_integration.py`` for the KAMH and AM steps.
"""

from __future__ import annotations

import copy
import math
import pickle

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

from pymc_kameleon import KMCStep
from pymc_kameleon._compat import EMIT_TUNE_STAT
from pymc_kameleon.core.history import ChainHistory
from pymc_kameleon.core.surrogates import FiniteScoreMatching, LiteSurrogate, Surrogate
from pymc_kameleon.core.surrogates.lite import REPEATED_BASIS_LIMIT
from pymc_kameleon.step_methods.kmc import KMCState

ESTIMATORS = ["lite", "finite", "auto"]
ADAPT_START = 50


def make_kmc(vars=None, **kwargs) -> KMCStep:
    """A KMC step with small budgets unless overridden.

    The mechanics tested here are those of one chain learning alone with the lite surrogate in
    the whitened coordinates; the defaults (pooled, local coordinates) are tested in
    ``test_pooled_warmup.py`` and ``test_kmc_local_coordinates.py``.
    """
    defaults = {
        "estimator": "lite",
        "coordinates": "global",
        "pool_warmup": False,
        "adapt_start": ADAPT_START,
        "n_history": 60,
        "n_features": 40,
        "n_steps_range": (5, 15),
    }
    defaults.update(kwargs)
    return KMCStep(vars, **defaults)


# -----------------------------------------------------------------------------------------------
# state round trip
@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_sampling_state_round_trip(estimator):
    model = mv_model()
    with model:
        step = make_kmc(estimator=estimator)
    fresh_clone = copy.deepcopy(step)
    step.set_rng(123)
    point, _ = run_direct(step, model.initial_point(), 250)
    assert step.surrogate is not None
    expected = FiniteScoreMatching if estimator != "lite" else LiteSurrogate
    if estimator == "auto":  # 2 * n_features = 80 learned states: switched to finite by now
        assert step.learner.active_estimator == "finite"
    assert isinstance(step.surrogate, expected)
    orig = step.sampling_state
    assert isinstance(orig, KMCState)
    start = copy.deepcopy(point)
    point_a, stats_a = step.step(copy.deepcopy(start))
    state_a = step.sampling_state
    assert not equal_dataclass_values(orig, state_a)

    step.sampling_state = orig
    point_b, stats_b = step.step(copy.deepcopy(start))
    assert np.array_equal(point_a["x"], point_b["x"])
    assert stats_a == stats_b
    assert_states_equal(step.sampling_state, state_a)

    orig_loaded = pickle.loads(pickle.dumps(orig))
    fresh_clone.sampling_state = orig_loaded
    point_c, stats_c = fresh_clone.step(copy.deepcopy(start))
    assert np.array_equal(point_a["x"], point_c["x"])
    assert stats_c == stats_a
    reloaded = cloudpickle.loads(cloudpickle.dumps(step))
    assert_states_equal(reloaded.sampling_state, step.sampling_state)


# -----------------------------------------------------------------------------------------------
# one shared run per estimator: 2 chains on 2 cores, warm-up kept
TUNE, DRAWS = 300, 200
EXPECTED_STATS = {
    "accept": np.float64,
    "accepted": np.float64,
    "step_size": np.float64,
    "n_steps": np.int64,
    "energy": np.float64,
    "energy_error": np.float64,
    "diverging": bool,
    "screened": bool,
    "model_logp": np.float64,
    "logp_evals": np.int64,
    "start_up": np.int64,
    "surrogate_grad_evals": np.int64,
    "lengthscale": np.float64,
    "n_basis": np.int64,
    "surrogate_scale": np.float64,
}


@pytest.fixture(scope="module", params=["lite", "finite"])
def sampled(request):
    model = mv_model()
    with model:
        # the frozen kernel (the defaults keep adapting: test_vanishing_default_after_warmup)
        step = make_kmc(estimator=request.param, adaptation="tune", independence="warmup")
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
    return request.param, idata


def test_stat_names_and_dtypes(sampled):
    _, idata = sampled
    declared = KMCStep.stats_dtypes_shapes
    expected = dict(EXPECTED_STATS, **({"tune": bool} if EMIT_TUNE_STAT else {}))
    assert set(declared) == set(expected) | {"warning"}
    assert declared["warning"] == (SamplerWarning, None)  # as NUTS declares it
    for name, dtype in expected.items():
        assert np.dtype(declared[name][0]) == np.dtype(dtype), name
    for group in ("sample_stats", "warmup_sample_stats"):
        stats = idata[group]
        assert "warning" not in stats  # PyMC drops it unless keep_warning_stat=True
        for name, dtype in EXPECTED_STATS.items():
            key = "lp" if name == "model_logp" else name
            assert stats[key].dtype == np.dtype(dtype), (group, name)
            assert stats[key].dims == ("chain", "draw")
    assert idata.warmup_posterior.draw.size == TUNE
    assert idata.posterior.draw.size == DRAWS


def test_adaptation_during_warmup_then_frozen(sampled):
    estimator, idata = sampled
    warm, post = idata.warmup_sample_stats, idata.sample_stats
    for c in range(2):
        # before the first fit: no surrogate, random-walk moves (n_steps 0)
        assert warm["n_basis"].values[c, 0] == 0
        assert math.isnan(warm["lengthscale"].values[c, 0])
        assert np.all(warm["n_steps"].values[c, : ADAPT_START - 1] == 0)
        # the surrogate was fitted and refitted during warm-up
        fitted = warm["n_basis"].values[c] > 0
        assert fitted.any()
        assert np.unique(warm["lengthscale"].values[c][fitted]).size >= 1
        # afterwards everything is frozen, and every move is a trajectory
        for name in ("lengthscale", "n_basis", "surrogate_scale"):
            values = post[name].values[c]
            assert np.all(values == values[0]), name
        assert np.all(post["n_steps"].values[c] >= 5) and np.all(post["n_steps"].values[c] <= 15)
        assert np.all(post["surrogate_grad_evals"].values[c] >= post["n_steps"].values[c])
        expected_basis = 60 if estimator == "lite" else 40
        assert post["n_basis"].values[c, 0] == expected_basis
        # the step-size range is frozen: all post-warm-up step sizes lie in one fixed range
        eps = post["step_size"].values[c]
        assert eps.max() / eps.min() <= 0.3 / 0.05 + 1e-9
        assert np.all(np.isfinite(post["energy"].values[c]))
        assert np.all(post["logp_evals"].values[c] <= 1)


def test_accept_and_accepted_consistent(sampled):
    _, idata = sampled
    stats = idata.sample_stats
    acc = stats["accept"].values
    assert np.all((acc >= 0) & (acc <= 1))
    assert set(np.unique(stats["accepted"].values)) <= {0.0, 1.0}
    div = stats["diverging"].values
    assert np.all(stats["accepted"].values[div] == 0.0)
    # a finite energy error e gives accept = min(1, exp(-e))
    err = stats["energy_error"].values
    finite = np.isfinite(err) & ~div
    np.testing.assert_allclose(acc[finite], np.minimum(1.0, np.exp(-err[finite])), rtol=1e-10)


@pytest.mark.parametrize("estimator", ["lite", "finite"])
def test_vanishing_adaptation_keeps_learning(estimator):
    model = mv_model()
    with model:
        step = make_kmc(estimator=estimator, adaptation="vanishing")
    step.set_rng(3)
    step.tune = True
    point, _ = run_direct(step, model.initial_point(), 200)
    step.stop_tuning()
    learned = step.learner.n_learned
    run_direct(step, point, 400)
    assert step.learner.n_learned > learned
    assert step.history.n_seen == step.learner.n_learned


def test_vanishing_default_after_warmup():
    # the default: the history takes every kept state, the surrogate and the independence
    # moves' followed t are refreshed with a vanishing probability, the rest stays fixed
    model = mv_model()
    with model:
        step = make_kmc()
    step.set_rng(2)
    step.tune = True
    point, _ = run_direct(step, model.initial_point(), 300)
    step.stop_tuning()
    mixing = step.explore.independence
    share, scale, seen = mixing.frozen_weight, step.step_scale.current, step.history.n_seen
    lengthscale, first = step.lengthscale, step.surrogate
    _, stats = run_direct(step, point, 400)
    assert step.history.n_seen == seen + 400
    assert step.surrogate is not first  # refitted (about 2 (sqrt(700) - sqrt(300)) = 18 times)
    assert mixing.kept.count == 400 and mixing.proposal.followed is not None
    assert step.lengthscale == lengthscale and step.step_scale.current == scale
    assert mixing.frozen_weight == share > 0.0
    n_steps = np.array([s["n_steps"] for s in stats])
    assert np.any(n_steps == 0) and np.any(n_steps > 0)  # both kinds of move after warm-up


def test_exploration_after_warmup_only_while_the_surrogate_adapts():
    # the default share is 0.1 while the surrogate keeps adapting after warm-up, else 0
    with mv_model() as model:
        assert make_kmc().explore_after_warmup == 0.1
        assert make_kmc(adaptation="tune").explore_after_warmup == 0.0
        dim = sum(np.size(v) for v in model.initial_point().values())
        history = np.random.default_rng(0).normal(size=(50, dim))
        assert make_kmc(initial_history=history).explore_after_warmup == 0.0
        assert make_kmc(adaptation="tune", explore_after_warmup=0.3).explore_after_warmup == 0.3


def test_exploration_moves_after_warmup_are_the_frozen_random_walk():
    # with a share of 1 every kept move is a move of the exploration random walk, which no
    # longer changes; the surrogate still learns from the kept states
    model = mv_model()
    with model:
        step = make_kmc(independence="off", explore_after_warmup=1.0)
    step.set_rng(4)
    step.tune = True
    point, _ = run_direct(step, model.initial_point(), 300)
    step.stop_tuning()
    walk = step.explore
    frozen = (walk.affine, walk.main.scale.current, walk.stage)
    seen = step.history.n_seen
    _, stats = run_direct(step, point, 200)
    assert all(s["n_steps"] == 0 for s in stats)
    assert 0.0 < np.mean([s["accepted"] for s in stats]) < 1.0
    assert (walk.affine, walk.main.scale.current, walk.stage) == frozen
    assert step.history.n_seen == seen + 200


def test_no_leak_between_sequential_chains_and_reuse():
    model = mv_model()
    with model:
        step = make_kmc()
        step.set_rng(0)
        run_direct(step, model.initial_point(), 150)
        assert step.surrogate is not None
        idata = pm.sample(
            tune=60,
            draws=20,
            chains=3,
            cores=1,
            step=step,
            random_seed=5,
            discard_tuned_samples=False,
            **SAMPLE_KW,
        )
        again = pm.sample(
            tune=60,
            draws=20,
            chains=2,
            cores=2,
            step=step,
            random_seed=6,
            discard_tuned_samples=False,
            **SAMPLE_KW,
        )
    for run in (idata, again):
        warm = run.warmup_sample_stats
        assert np.all(warm["n_basis"].values[:, 0] == 0)
        assert np.all(np.isnan(warm["lengthscale"].values[:, 0]))
        # (tune=60 leaves the start-up too few evaluations for one curvature: it does not run)
        assert np.all(warm["logp_evals"].values[:, 0] == 2)
        assert np.all(warm["start_up"].values == 0)


def test_rv_to_value_var_assignment():
    with pm.Model() as model:
        sigma = pm.HalfNormal("sigma")
        mu = pm.Normal("mu")
        step_sigma = make_kmc([sigma])
        step_both = make_kmc([sigma, mu])
    assert step_sigma.vars == [model.rvs_to_values[sigma]]
    assert set(step_both.vars) == {model.rvs_to_values[sigma], model.rvs_to_values[mu]}
    assert step_both.dim == 2


def test_compound_with_nuts():
    model = coupled_model()
    with model:
        step = make_kmc([model["a"]])
        idata = pm.sample(
            tune=500, draws=500, chains=2, cores=2, step=[step], random_seed=7, **SAMPLE_KW
        )
    assert "step_size" in idata.sample_stats and "surrogate_grad_evals" in idata.sample_stats
    assert abs(float(idata.posterior["b"].mean()) - exact_posterior_mean_b()) < 0.4
    evals = idata.sample_stats["logp_evals"].values
    assert np.mean(evals == 2) > 0.5, "NUTS moves b, so the cached logp must be recomputed"


def test_cached_logp_refreshed_when_other_vars_change():
    model = coupled_model()
    with model:
        step = make_kmc([model["a"]], start_up=False)  # (its evaluations counted elsewhere)
    model_logp = model.compile_logp()
    step.set_rng(0)
    point, stats = step.step(model.initial_point())
    assert stats[0]["logp_evals"] == 2
    point, stats = step.step(point)
    assert stats[0]["logp_evals"] == 1
    point = dict(point)
    point["b"] = np.asarray(1.7)
    point, stats = step.step(point)
    assert stats[0]["logp_evals"] == 2
    assert math.isclose(step.logp_current, float(model_logp(point)), rel_tol=1e-10)


# a spawned worker costs a fresh interpreter: spawn for one estimator, fork for the other
@pytest.mark.parametrize("estimator, context", [("lite", "spawn"), ("finite", "fork")])
def test_parallel_reproducible_and_spawn(estimator, context):
    model = mv_model()
    with model:
        step = make_kmc(estimator=estimator)
        kw = {"tune": 80, "draws": 30, "chains": 2, "cores": 2, "step": step, **SAMPLE_KW}
        run1 = pm.sample(random_seed=21, **kw)
        run2 = pm.sample(random_seed=21, mp_ctx=context, **kw)
        run3 = pm.sample(random_seed=22, **kw)
    x1, x2, x3 = (posterior_array(r) for r in (run1, run2, run3))
    assert np.array_equal(x1, x2)
    assert not np.array_equal(x1, x3)
    assert not np.array_equal(x1[0], x1[1])


def test_multitrace_output():
    model = mv_model()
    with model:
        trace = pm.sample(
            tune=60,
            draws=40,
            chains=2,
            cores=1,
            step=make_kmc(),
            random_seed=4,
            return_inferencedata=False,
            **SAMPLE_KW,
        )
    assert isinstance(trace, MultiTrace)
    assert trace.get_sampler_stats("diverging").dtype == np.dtype(bool)
    assert trace.get_sampler_stats("n_steps").dtype == np.int64


def test_competence_and_discrete_vars():
    with pm.Model() as model:
        n = pm.Normal("n")
        k = pm.Poisson("k_count", 3.0)
    assert KMCStep.competence(n, True) == Competence.COMPATIBLE
    assert KMCStep.competence(k, False) == Competence.INCOMPATIBLE
    with model, pytest.raises(ValueError, match="k_count"):
        make_kmc([k])


@pytest.mark.parametrize("estimator", ["lite", "finite"])
@pytest.mark.parametrize("start_up", [False, True])
def test_one_logp_evaluation_per_iteration(estimator, start_up):
    """One per iteration; the first also evaluates the start, and the start-up's climb."""
    model = mv_model()
    with model:
        step = make_kmc(estimator=estimator, start_up=start_up)
    counter = CountingLogp(step.density.compiled)
    step.density.compiled = counter
    step.set_rng(8)
    point = model.initial_point()
    per_iteration, screened = [], []
    for _ in range(200):
        before = counter.calls
        point, stats = step.step(point)
        per_iteration.append(counter.calls - before)
        screened.append(bool(stats[0]["screened"]))
        assert stats[0]["logp_evals"] == per_iteration[-1]
    # one each, but none for a trajectory screened unevaluated (and only for it)
    assert per_iteration[1:] == [0 if s else 1 for s in screened[1:]]
    assert per_iteration[0] == 2 if not start_up else per_iteration[0] > 2 + 3 * 3


# -----------------------------------------------------------------------------------------------
# divergences and invalid end points
@pytest.mark.parametrize("bad_value", [-np.inf, np.nan], ids=["neg_inf", "nan"])
def test_invalid_end_points_rejected_and_flagged(bad_value):
    with pm.Model() as model:
        x = pm.Normal("x", 0.0, 1.0, shape=2)
        pm.Potential("wall", pt.switch(pt.gt(x[0], 1.0), bad_value, 0.0))
        step = make_kmc(step_size_range=(0.2, 0.4))
    step.set_rng(17)
    point = model.initial_point()
    xs, all_stats = [], []
    for _ in range(400):
        point, stats = step.step(point)
        xs.append(np.array(point["x"], copy=True))
        all_stats.append(stats[0])
    xs = np.asarray(xs)
    assert np.all(xs[:, 0] <= 1.0), "a point in the invalid region was accepted"
    div = np.array([s["diverging"] for s in all_stats])
    accepted = np.array([s["accepted"] for s in all_stats])
    assert div.sum() > 0, "the test should provoke invalid end points"
    assert np.all(accepted[div] == 0.0)
    assert np.all(np.isfinite([s["model_logp"] for s in all_stats]))
    assert step.n_divergent == int(div.sum())


class _NaNSurrogate(Surrogate):
    """A surrogate whose gradient is NaN: every trajectory is non-finite (generic leapfrog)."""

    n_basis = 1

    @classmethod
    def from_history(cls, history, rng, *, lengthscale, n_basis, ridge):
        return cls()

    def gradient(self, x):
        return np.full_like(x, np.nan)

    def value(self, x):
        return math.nan


def test_non_finite_trajectory_is_diverging_and_never_evaluated():
    model = mv_model()
    with model:
        step = make_kmc(adaptation="tune")  # the NaN surrogate must stay in place
    counter = CountingLogp(step.density.compiled)
    step.density.compiled = counter
    step.set_rng(1)
    step.stop_tuning()  # no adaptation, no warm-up random-walk moves
    step.surrogate = _NaNSurrogate()
    point = model.initial_point()
    start = np.array(point["x"], copy=True)
    for i in range(20):
        point, stats = step.step(point)
        assert stats[0]["diverging"] is True
        assert stats[0]["accepted"] == 0.0 and stats[0]["accept"] == 0.0
        assert stats[0]["logp_evals"] == (1 if i == 0 else 0)
    assert np.array_equal(point["x"], start)
    assert counter.calls == 1, "a non-finite trajectory must not cost a target evaluation"


@pytest.mark.parametrize(
    ("divergent", "lengthscale_now", "expected_scale"),
    [
        ([], 2.0, 4.0),  # nothing diverged: the learned scale stays
        ([(2.0, 2.0)], 2.0, 4.0),  # the largest step (0.3 x 4 = 1.2) is below 0.9 x 2.0
        ([(1.0, 2.0), (1.5, 2.0)], 2.0, 3.0),  # 1.2 lowered to 0.9 x 1.0
        ([(1.2, 4.0)], 2.0, 4.0 / 2.0),  # counted at the halved length scale: 0.54, capped at 2x
        ([(1.2, 1.0)], 2.0, 3.6),  # a wider kernel now: the step that diverged counts as is
    ],
)
def test_end_of_warmup_keeps_the_largest_step_below_the_divergent_ones(
    divergent, lengthscale_now, expected_scale
):
    with mv_model():
        step = make_kmc(step_size_range=(0.05, 0.3))
    moves = step.proposal
    moves.step_scale.restart(log_scale=math.log(4.0))
    moves.learner.lengthscale = lengthscale_now
    moves.divergent_steps = list(divergent)
    moves.end_warmup()
    assert moves.step_scale.current == pytest.approx(expected_scale)


def test_learning_the_step_afresh_forgets_the_divergent_steps():
    with mv_model():
        step = make_kmc()
    moves = step.proposal
    moves.divergent_steps = [(0.5, 1.0)]
    moves._learn_step_afresh()
    assert moves.divergent_steps == [] and moves.step_scale.updates == 0


# -----------------------------------------------------------------------------------------------
# bad input
@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"estimator": "exact"}, "estimator"),
        ({"n_steps_range": (20, 10)}, "n_steps_range"),
        ({"n_steps_range": (0, 10)}, "n_steps_range"),
        ({"n_steps_range": (2.5, 10)}, "n_steps_range"),
        ({"step_size_range": (0.0, 0.1)}, "step_size_range"),
        ({"step_size_range": (-0.1, 0.1)}, "step_size_range"),
        ({"step_size_range": (0.3, 0.1)}, "step_size_range"),
        ({"step_size_range": (0.1, float("inf"))}, "step_size_range"),
        ({"n_features": 0}, "n_features"),
        ({"n_features": 2.5}, "n_features"),
        ({"regularisation": -1.0}, "regularisation"),
        ({"regularisation": float("nan")}, "regularisation"),
        ({"regularisation": 0.0, "estimator": "finite"}, "regularisation"),
        ({"lengthscale": -1.0}, "lengthscale"),
        ({"lengthscale": "median"}, "lengthscale"),
        ({"target_accept": 1.0}, "target_accept"),
        ({"mass": "dense"}, "mass"),
        ({"n_history": 5}, "n_history"),
        ({"adapt_start": 0}, "adapt_start"),
        ({"refit_growth": 1.0}, "refit_growth"),
        ({"warmup_explore": 1.5}, "warmup_explore"),
        ({"explore_after_warmup": -0.1}, "explore_after_warmup"),
        ({"explore_after_warmup": 1.5}, "explore_after_warmup"),
        ({"history_capacity": 10}, "history_capacity"),
        ({"adaptation": "sometimes"}, "adaptation"),
    ],
)
def test_bad_arguments_raise_clear_errors(kwargs, match):
    with mv_model(), pytest.raises(ValueError, match=match):
        make_kmc(**kwargs)


def test_fixed_lengthscale_and_diagonal_mass_run():
    model = mv_model()
    with model:
        step = make_kmc(lengthscale=1.5, mass="diagonal", estimator="auto")
    step.set_rng(2)
    run_direct(step, model.initial_point(), 200)
    assert step.lengthscale == 1.5
    assert step.inv_mass_diag is not None and step.inv_mass_diag.shape == (3,)
    assert np.all(step.inv_mass_diag > 0)


def test_basis_is_capped_at_the_stored_states():
    """``n_history`` far above the warm-up (5000 from 300 states) must not cost 5000 points,
    nor grow with the kept draws after warm-up (issue 46: 3300 points after 3000 draws)."""
    with pm.Model():
        pm.Normal("x", 0.0, 1.0, shape=2)
        step = KMCStep(n_history=5000, estimator="lite")
        with pytest.warns(UserWarning, match=r"n_history=5000\): warm-up stores at most 300"):
            result = pm.sample(
                tune=300,
                draws=700,
                chains=1,
                step=step,
                random_seed=1,
                progressbar=False,
                compute_convergence_checks=False,
            )
    n_basis = result.sample_stats["n_basis"].values
    assert 0 < n_basis.max() <= REPEATED_BASIS_LIMIT
    assert step.history.size > REPEATED_BASIS_LIMIT  # (the kept draws entered the history)


def test_from_history_draws_at_most_the_stored_states_beyond_the_default_size():
    rng = np.random.default_rng(0)
    fit = LiteSurrogate.from_history
    history = ChainHistory(dim=2, capacity=5000)
    history.extend(rng.normal(size=(40, 2)), 0)
    # up to the default size, draws may repeat states (as the defaults were tuned with)
    assert fit(history, rng, lengthscale=1.0, n_basis=10, ridge=1e-3).n_basis == 10
    assert fit(history, rng, lengthscale=1.0, n_basis=500, ridge=1e-3).n_basis == 500
    # beyond it, never more than the stored states (or the default size)
    assert fit(history, rng, lengthscale=1.0, n_basis=5000, ridge=1e-3).n_basis == 500
    history.extend(rng.normal(size=(1160, 2)), 1)
    assert fit(history, rng, lengthscale=1.0, n_basis=5000, ridge=1e-3).n_basis == 1200


def test_frozen_noise_makes_the_estimate_a_deterministic_function():
    """The start-up climbs ``x -> estimate(x, u)`` with one noise draw ``u`` held fixed."""
    from helpers.noisy_models import blackbox_model

    with blackbox_model():
        step = KMCStep()
    x = np.array([0.3, -0.2])
    frozen = step.log_density_with_frozen_noise(x, np.random.default_rng(0))
    assert frozen(x) == frozen(x)  # the same noise at every call
    other = step.log_density_with_frozen_noise(x, np.random.default_rng(1))
    assert other(x) != frozen(x)  # another draw of the noise
    fresh = {step.log_density(x) for _ in range(5)}
    assert len(fresh) == 5  # the chain's own estimates stay random
