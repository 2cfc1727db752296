"""Every route a user can take on a model with a noisy term is exact or a clear error.

A noisy term (``noisy_potential``, ``estimator_potential``) is wrapped in a guard that refuses
compilation and differentiation outside this package's steps, so PyMC's samplers fail when they
are built; plain ``pm.sample()`` assigns KameleonStep to such models (and only to them); the
escape hatch ``allow_noisy_evaluation`` lets a deliberate evaluation through; a black-box
estimator is checked when the potential is built.
"""

from __future__ import annotations

import gc
import logging
import math
import pickle
import threading
import weakref

import cloudpickle
import numpy as np
import pymc as pm
import pytensor.tensor as pt
import pytest
from helpers.noisy_models import MODELS, blackbox_model, native_model, noisy_estimate
from helpers.sampling import SAMPLE_KW
from pymc.sampling.mcmc import assign_step_methods
from pymc.step_methods import STEP_METHODS
from pymc.step_methods.compound import Competence
from pytensor.compile.ops import as_op

import pymc_kameleon
from pymc_kameleon import (
    AdaptiveMetropolis,
    KameleonStep,
    KMCStep,
    NoisyTermError,
    allow_noisy_evaluation,
    estimator_potential,
    noisy_potential,
)
from pymc_kameleon._compat import register_step_method
from pymc_kameleon.pseudo_marginal import (
    _NOISY_MODELS,
    TRIAL_SEED,
    NoisyTermGuard,
    has_noisy_terms,
    in_noisy_model,
    noise_variables,
    noisy_evaluation_allowed,
    strip_noisy_guards,
)

FORMS = ["native", "blackbox"]
TINY = {"tune": 20, "draws": 10, "chains": 1, "random_seed": 1, **SAMPLE_KW}
REFUSAL = r"'loglike' is a stochastic likelihood estimate.*KameleonStep.*allow_noisy_evaluation"
NO_GRADIENT = r"'loglike' is a stochastic likelihood estimate.*no gradient.*KameleonStep"


def assigned(model, methods=None) -> dict[str, list[str]]:
    """Step class name -> names of the value variables ``pm.sample`` would give it."""
    _, selected = assign_step_methods(model, methods=methods)
    return {cls.__name__: [v.name for v in vars] for cls, vars in selected.items()}


def guards(graph) -> list:
    from pymc_kameleon._compat import ancestors

    return [v for v in ancestors([graph]) if v.owner and isinstance(v.owner.op, NoisyTermGuard)]


# -----------------------------------------------------------------------------------------------
# automatic assignment
def test_kameleon_is_registered_once_and_last():
    register_step_method(KameleonStep)  # idempotent: importing twice must not add it twice
    assert STEP_METHODS.count(KameleonStep) == 1
    assert STEP_METHODS[-1] is KameleonStep
    assert pm.STEP_METHODS is STEP_METHODS  # PyMC 5 reads the same list object


@pytest.mark.parametrize("form", FORMS)
def test_plain_sample_uses_kameleon(form, caplog):
    model = MODELS[form]()
    assert assigned(model) == {"KameleonStep": ["x"]}
    with model, caplog.at_level(logging.INFO, logger="pymc"):
        idata = pm.sample(kameleon={"n_history": 50}, **TINY)  # step kwargs by the step's name
    assert "KameleonStep: [x]" in caplog.text
    stats = idata["sample_stats"]
    assert {"bandwidth", "noise_sd", "logp_evals"} <= set(stats.data_vars)
    assert np.all(np.isfinite(idata["posterior"]["x"].values))


def test_plain_sample_with_two_processes():
    with blackbox_model():
        idata = pm.sample(tune=20, draws=10, chains=2, cores=2, random_seed=2, **SAMPLE_KW)
    assert "noise_sd" in idata["sample_stats"]
    assert idata["posterior"]["x"].shape == (2, 10, 2)


def test_competence():
    model = native_model()
    with pm.Model() as plain:
        y = pm.Normal("y")
        k = pm.Poisson("k", 2.0)
    for cls in (KameleonStep, AdaptiveMetropolis, KMCStep):
        assert cls.competence(model["x"], False) == Competence.IDEAL
        assert cls.competence(y, True) == Competence.COMPATIBLE
        assert cls.competence(y, False) == Competence.COMPATIBLE
        assert cls.competence(k, False) == Competence.INCOMPATIBLE
    assert plain not in _NOISY_MODELS


def test_ordinary_models_keep_pymcs_choices():
    """NUTS, Metropolis, Slice and the Gibbs steps are chosen exactly as without our step."""
    without = [m for m in STEP_METHODS if m is not KameleonStep]

    @as_op(itypes=[pt.dscalar], otypes=[pt.dscalar])
    def black_box(a):
        return np.asarray(-0.5 * a**2)

    with pm.Model() as model:
        a = pm.Normal("a")
        s = pm.HalfNormal("s")
        pm.Normal("v", shape=3)
        p = pm.Beta("p", 1, 1)
        pm.Poisson("k", 2.0)
        pm.Bernoulli("b", p)
        pm.Categorical("c", [0.2, 0.3, 0.5])
        pm.Normal("y", a, s, observed=[0.1, 0.2])
    with pm.Model() as no_gradient:
        u = pm.Normal("u")  # scalar without gradient: Slice
        w = pm.Normal("w", shape=2)  # vector, gradient through the second term: NUTS
        z = pm.Normal("z", shape=2)  # vector without gradient: Metropolis
        pm.Potential("bb", black_box(u) + black_box(z[0] + z[1]) - (w**2).sum())
    expected = {
        "NUTS": ["a", "s_log__", "v", "p_logodds__"],
        "Metropolis": ["k"],
        "BinaryGibbsMetropolis": ["b"],
        "CategoricalGibbsMetropolis": ["c"],
    }
    assert assigned(model) == assigned(model, without) == expected
    assert assigned(no_gradient) == assigned(no_gradient, without)
    assert assigned(no_gradient) == {"Slice": ["u"], "NUTS": ["w"], "Metropolis": ["z"]}


def test_ordinary_model_still_gets_nuts():
    with pm.Model():
        pm.Normal("x", shape=2)
        idata = pm.sample(**TINY)
    assert "diverging" in idata["sample_stats"]  # a NUTS statistic
    assert "bandwidth" not in idata["sample_stats"]


def test_registry_holds_models_weakly():
    model = native_model()
    assert model in _NOISY_MODELS
    ref = weakref.ref(model)
    del model
    gc.collect()
    assert ref() is None


def test_a_clone_on_the_context_stack_is_recognised():
    """A model that was not registered (here: unpickled) but is the context model."""
    loaded = cloudpickle.loads(cloudpickle.dumps(native_model()))
    assert loaded not in _NOISY_MODELS
    assert has_noisy_terms(loaded)
    assert not in_noisy_model(loaded["x"])  # no context: not recognised ...
    with loaded:
        assert assigned(loaded) == {"KameleonStep": ["x"]}  # ... but under `with loaded:` it is
    # without the context PyMC's choice still cannot evaluate the term
    with pytest.raises(NoisyTermError, match=REFUSAL):
        pm.Metropolis(model=loaded)


# -----------------------------------------------------------------------------------------------
# PyMC's samplers are refused when they are built
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("step", [pm.Metropolis, pm.Slice, pm.DEMetropolisZ])
def test_pymc_gradient_free_steps_fail_at_construction(form, step):
    with MODELS[form](), pytest.raises(NoisyTermError, match=REFUSAL) as info:
        step()
    assert "Apply node" not in str(info.value)  # PyTensor's debugging report is dropped
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("step", [pm.NUTS, pm.HamiltonianMC])
def test_pymc_gradient_steps_fail_at_construction(form, step):
    with MODELS[form](), pytest.raises(NotImplementedError, match=NO_GRADIENT):
        step()


@pytest.mark.parametrize("form", FORMS)
def test_sample_with_an_explicit_pymc_step_draws_nothing(form):
    model = MODELS[form]()
    with model, pytest.raises(NoisyTermError, match=REFUSAL):
        pm.sample(step=pm.Metropolis(), **TINY)


def test_model_logp_compilation_is_refused():
    model = native_model()
    with pytest.raises(NoisyTermError, match=REFUSAL):
        model.compile_logp()
    with pytest.raises(NotImplementedError, match=NO_GRADIENT):
        model.compile_dlogp()


def test_numba_backend_refuses_at_construction():
    pytest.importorskip("numba")
    with native_model(), pytest.raises(NoisyTermError, match=REFUSAL):
        pm.Metropolis(compile_kwargs={"mode": "NUMBA"})


@pytest.mark.parametrize("first", ["x", "k"])
@pytest.mark.parametrize("discrete", ["poisson", "bernoulli"])
def test_discrete_variable_is_refused_before_sampling(first, discrete):
    """Whichever step PyMC builds first, the error names the fix (marginalise)."""
    add_k = {"poisson": lambda: pm.Poisson("k", 3.0), "bernoulli": lambda: pm.Bernoulli("k", 0.3)}
    with pm.Model() as model:
        if first == "k":
            add_k[discrete]()
        x = pm.Normal("x", shape=2)
        if first == "x":
            add_k[discrete]()
        noisy_potential("loglike", -0.5 * (x**2).sum() + pm.Normal.dist() - 0.5)
    assert assigned(model)["KameleonStep"] == ["x"]
    with model, pytest.raises(ValueError, match=r"(?s)stochastic.*marginalise"):
        pm.sample(**TINY)


# -----------------------------------------------------------------------------------------------
# our steps remove the guards
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("step_cls", [KameleonStep, AdaptiveMetropolis, KMCStep])
def test_our_steps_still_sample(form, step_cls):
    with MODELS[form]():
        idata = pm.sample(step=step_cls(adapt_start=10), **TINY)
    assert np.all(np.isfinite(idata["posterior"]["x"].values))
    assert np.all(np.isfinite(idata["sample_stats"]["noise_sd"].values))


def test_our_steps_under_the_numba_backend():
    pytest.importorskip("numba")
    model = native_model()
    with model:
        step = AdaptiveMetropolis(compile_kwargs={"mode": "NUMBA"})
    step.set_rng(3)
    point = model.initial_point()
    for _ in range(5):
        point, _stats = step.step(point)
    assert np.all(np.isfinite(point["x"]))


def test_strip_keeps_the_noise_variables():
    model = native_model()
    logp = model.logp()
    stripped = strip_noisy_guards(logp)
    assert len(guards(logp)) == 1
    assert guards(stripped) == []
    assert noise_variables(stripped) == noise_variables(logp)  # the same objects
    assert strip_noisy_guards(stripped) is stripped  # nothing to do
    [again] = strip_noisy_guards([stripped])
    assert again is stripped


def test_strip_removes_nested_guards():
    with pm.Model() as model:
        x = pm.Normal("x")
        inner = noisy_potential("inner", -0.5 * x**2 + pm.Normal.dist())
        noisy_potential("outer", inner + 0.1 * pm.Normal.dist())
    assert [str(g.owner.op) for g in guards(model.logp())] == [
        "NoisyTermGuard{outer}",
        "NoisyTermGuard{inner}",  # also inside outer's input
    ]
    assert guards(strip_noisy_guards(model.logp())) == []


@pytest.mark.parametrize("form", FORMS)
def test_pickling_keeps_the_guards(form):
    model = MODELS[form]()
    loaded = cloudpickle.loads(cloudpickle.dumps(model))
    assert has_noisy_terms(loaded)
    with loaded:
        step = KameleonStep()
    again = cloudpickle.loads(cloudpickle.dumps(step))
    again.set_rng(1)
    point, _ = again.step(loaded.initial_point())
    assert np.all(np.isfinite(point["x"]))
    # a guard on its own pickles with the standard library
    op = NoisyTermGuard("loglike", "noisy_potential")
    assert pickle.loads(pickle.dumps(op)) == op


# -----------------------------------------------------------------------------------------------
# the escape hatch
def test_allow_noisy_evaluation_compiles_identities():
    model = native_model()
    assert not noisy_evaluation_allowed()
    with allow_noisy_evaluation():
        assert noisy_evaluation_allowed()
        logp = model.compile_logp()
        dlogp = model.compile_dlogp()  # a PyTensor estimate is differentiable
        step = pm.Metropolis(model=model)
    assert not noisy_evaluation_allowed()
    point = model.initial_point()
    values = [float(logp(point)) for _ in range(5)]  # compiled inside, works outside
    assert np.all(np.isfinite(values)) and len(set(values)) == 5  # fresh noise at every call
    assert np.all(np.isfinite(dlogp(point)))
    assert isinstance(step, pm.Metropolis)
    with pytest.raises(NoisyTermError):
        model.compile_logp()


def test_allow_noisy_evaluation_nests_and_resets_after_an_error():
    with allow_noisy_evaluation():
        with allow_noisy_evaluation():
            pass
        assert noisy_evaluation_allowed()
    with pytest.raises(RuntimeError), allow_noisy_evaluation():
        raise RuntimeError
    assert not noisy_evaluation_allowed()


def test_allow_noisy_evaluation_is_local_to_a_thread():
    model = native_model()
    results: dict[str, object] = {}
    inside = threading.Event()
    done = threading.Event()

    def other_thread():
        inside.wait()
        try:
            model.compile_logp()
            results["other"] = "compiled"
        except NoisyTermError:
            results["other"] = "refused"
        done.set()

    thread = threading.Thread(target=other_thread)
    thread.start()
    with allow_noisy_evaluation():  # the main thread allows; the other thread does not
        inside.set()
        done.wait(timeout=120)
        model.compile_logp()
    thread.join()
    assert results["other"] == "refused"

    def allowed_thread():
        with allow_noisy_evaluation():
            results["allowed"] = noisy_evaluation_allowed()

    thread = threading.Thread(target=allowed_thread)
    thread.start()
    thread.join()
    assert results["allowed"] is True
    assert not noisy_evaluation_allowed()


# -----------------------------------------------------------------------------------------------
# the black-box estimator is checked when the potential is built
def one_argument(theta):
    return -0.5 * float(np.sum(theta**2))


def three_arguments(rng, theta, extra):
    return -0.5 * float(np.sum(theta**2))


def swapped(rng, theta):
    return -0.5 * float(np.sum(theta**2)) + rng.standard_normal()


class WrongCall:
    def __call__(self, theta):
        return 0.0


def returns_a_vector(theta, rng):
    return np.array([0.0, 1.0])


def returns_a_string(theta, rng):
    return "0.5"


def returns_nan(theta, rng):
    return math.nan


def returns_plus_inf(theta, rng):
    return math.inf


def raises(theta, rng):
    raise KeyError("missing table")


@pytest.mark.parametrize(
    ("estimate", "error", "match"),
    [
        (one_argument, TypeError, r"'one_argument' has the signature \(theta\)"),
        (three_arguments, TypeError, r"'three_arguments' has the signature \(rng, theta, extra\)"),
        (WrongCall(), TypeError, r"'WrongCall' has the signature \(theta\)"),
        (swapped, ValueError, r"'swapped' raised TypeError: .*Generator"),
        (returns_a_vector, TypeError, r"returned array\(\[0\., 1\.\]\).*one real number"),
        (returns_a_string, TypeError, r"returned '0\.5' \(of type str\)"),
        (returns_nan, ValueError, r"returned nan.*finite number, or -inf"),
        (returns_plus_inf, ValueError, r"returned inf.*finite number, or -inf"),
        (raises, ValueError, r"raised KeyError: 'missing table'"),
    ],
    ids=lambda v: getattr(v, "__name__", None) or type(v).__name__,
)
def test_bad_estimators_fail_when_the_potential_is_built(estimate, error, match):
    with pm.Model() as model:
        x = pm.Normal("x", shape=2)
        with pytest.raises(error, match=match) as info:
            estimator_potential("loglike", estimate, x)
    message = str(info.value)
    assert "estimator_potential('loglike')" in message
    assert "estimate(theta, rng) -> float" in message
    assert model.potentials == []  # nothing was added


def test_good_estimators_pass_the_check():
    def with_default(theta, rng, scale=1.0):
        return -0.5 * scale * float(np.sum(theta**2))

    def minus_inf(theta, rng):
        return -math.inf

    class Callable:
        def __call__(self, theta, rng):
            return np.float32(0.5)

    def two_tensors(theta, rng):
        a, s = theta
        return float(-0.5 * np.sum(a**2) - s)

    with pm.Model() as model:
        x = pm.Normal("x", shape=2)
        s = pm.HalfNormal("s")
        estimator_potential("a", with_default, x)
        estimator_potential("b", minus_inf, x)
        estimator_potential("c", Callable(), x)
        estimator_potential("d", two_tensors, [x, s])
        estimator_potential("e", lambda theta, rng: np.array([0.25]), x * 2)  # size-1 array
    assert len(model.potentials) == 5


def test_trial_call_is_one_call_at_the_initial_point_with_its_own_generator():
    seen = []

    def estimate(theta, rng):
        seen.append((np.array(theta, copy=True), rng.random()))
        return noisy_estimate(theta, rng)

    global_state = np.random.get_state()[1].copy()
    with pm.Model() as model:
        x = pm.Normal("x", 1.5, 1.0, shape=2)
        estimator_potential("loglike", estimate, x)
    assert len(seen) == 1
    np.testing.assert_array_equal(seen[0][0], model.initial_point()["x"])
    assert seen[0][1] == np.random.default_rng(TRIAL_SEED).random()
    np.testing.assert_array_equal(np.random.get_state()[1], global_state)
    # the same check gives the same trial, whatever the seeds used elsewhere
    pm.sample(step=KameleonStep(model=model), model=model, **TINY)
    with pm.Model():
        y = pm.Normal("x", 1.5, 1.0, shape=2)
        estimator_potential("loglike", estimate, y)
    assert seen[-1][1] == seen[0][1]


def test_sampling_stays_reproducible_after_the_check():
    runs = []
    for _ in range(2):
        with blackbox_model():
            idata = pm.sample(**TINY)
        runs.append(idata["posterior"]["x"].values)
    np.testing.assert_array_equal(*runs)


def test_package_exports():
    assert pymc_kameleon.allow_noisy_evaluation is allow_noisy_evaluation
    assert pymc_kameleon.NoisyTermError is NoisyTermError
