"""The package uses no API that PyTensor or PyMC deprecate, on either major version.

``pyproject.toml`` ignores FutureWarning for the whole suite (PyMC and ArviZ raise their own),
so these tests turn them into errors themselves. The guard's refusal of NUTS is differentiation
raising NotImplementedError: on PyTensor 3 an Op that implements ``L_op`` instead of
``pullback`` gets a FutureWarning saying it will stop being called, after which NUTS would no
longer be refused.
"""

from __future__ import annotations

import warnings

import numpy as np
import pymc as pm
import pytest
from helpers.noisy_models import MODELS
from helpers.package_warnings import record_package_warnings
from helpers.sampling import SAMPLE_KW
from scipy.special import logsumexp
from scipy.stats import norm

from pymc_kameleon import (
    AdaptiveMetropolis,
    KameleonSMC,
    KameleonStep,
    KMCStep,
    NoisyTermError,
    allow_noisy_evaluation,
    estimator_potential,
    pseudo_marginal,
)
from pymc_kameleon._compat import OP_HAS_PULLBACK
from pymc_kameleon.pseudo_marginal import NoisyTermGuard

FORMS = ["native", "blackbox"]
REFUSAL = r"'loglike' is a stochastic likelihood estimate.*KameleonStep"
NO_GRADIENT = r"'loglike' is a stochastic likelihood estimate.*no gradient.*KameleonStep"
SMALL = {"tune": 60, "draws": 30, "chains": 1, "cores": 1, "random_seed": 1, **SAMPLE_KW}


# -----------------------------------------------------------------------------------------------
# the guard refuses PyMC's samplers without a FutureWarning on the way
@pytest.mark.filterwarnings("error::FutureWarning")
@pytest.mark.filterwarnings("error::DeprecationWarning:pymc_kameleon")
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("step", [pm.NUTS, pm.HamiltonianMC])
def test_gradient_steps_are_refused_with_future_warnings_as_errors(form, step):
    with MODELS[form](), pytest.raises(NotImplementedError, match=NO_GRADIENT):
        step()


@pytest.mark.filterwarnings("error::FutureWarning")
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("step", [pm.Metropolis, pm.Slice])
def test_gradient_free_steps_are_refused_with_future_warnings_as_errors(form, step):
    with MODELS[form](), pytest.raises(NoisyTermError, match=REFUSAL):
        step()


@pytest.mark.filterwarnings("error::FutureWarning")
@pytest.mark.parametrize("form", FORMS)
def test_compile_logp_and_dlogp_are_refused_with_future_warnings_as_errors(form):
    model = MODELS[form]()
    with pytest.raises(NoisyTermError, match=REFUSAL):
        model.compile_logp()
    with pytest.raises(NotImplementedError, match=NO_GRADIENT):
        model.compile_dlogp()


@pytest.mark.filterwarnings("error::FutureWarning")
def test_allowed_gradient_of_a_native_term_is_the_identitys():
    """Inside the escape hatch the guard differentiates as an identity (through ``pullback``)."""
    model = MODELS["native"]()
    with allow_noisy_evaluation():
        dlogp = model.compile_dlogp()
    x = np.array([0.3, -0.2])
    # prior N(0, 1) and likelihood N(x, 1) at Y_OBS; the noise does not depend on x
    expected = -x + (np.array([1.0, -0.5]) - x)
    np.testing.assert_allclose(dlogp({"x": x}), expected)


@pytest.mark.filterwarnings("error::FutureWarning")
def test_plain_sample_still_picks_kameleon_with_future_warnings_as_errors():
    with MODELS["blackbox"]():
        idata = pm.sample(**SMALL)
    assert "bandwidth" in idata["sample_stats"]  # KameleonStep's statistic, not NUTS's


# -----------------------------------------------------------------------------------------------
# ordinary use raises no FutureWarning or DeprecationWarning of ours
def readme_estimate(mu, rng):
    """The README's importance-sampling estimate of p(y=0.7 | mu), latent z ~ N(0, 1)."""
    z = rng.standard_normal(64)
    return float(logsumexp(norm.logpdf(0.7, loc=float(mu) + z)) - np.log(64))


def assert_none(found) -> None:
    assert not found, "warnings caused by pymc_kameleon:\n" + "\n".join(map(str, found))


def test_readme_estimator_model_with_plain_sample():
    with record_package_warnings() as found, pm.Model():
        mu = pm.Normal("mu", 0, 3)
        estimator_potential("loglike", readme_estimate, mu)
        pm.sample(**SMALL)
    assert_none(found)


@pytest.mark.parametrize("form", FORMS)
def test_noisy_models_with_each_step(form):
    with record_package_warnings() as found:
        model = MODELS[form]()
        for step_cls in (KameleonStep, AdaptiveMetropolis, KMCStep):
            with model:
                pm.sample(step=step_cls(), **SMALL)
    assert_none(found)


@pytest.mark.parametrize("step_cls", [KameleonStep, AdaptiveMetropolis, KMCStep])
def test_each_step_on_a_small_model(step_cls):
    with record_package_warnings() as found, pm.Model():
        pm.Normal("x", 0, 1, shape=2)
        pm.HalfNormal("s")
        pm.sample(step=step_cls(), **SMALL)
    assert_none(found)


def test_kameleon_smc():
    with record_package_warnings() as found:
        with pm.Model():
            x = pm.Normal("x", 0, 1, shape=2)
            pm.Normal("y", x.sum(), 1, observed=0.3)
            pm.sample_smc(
                draws=100,
                kernel=KameleonSMC,
                chains=1,
                cores=1,
                random_seed=1,
                progressbar=False,
                compute_convergence_checks=False,
            )
        with MODELS["blackbox"]():
            pm.sample_smc(
                draws=100,
                kernel=KameleonSMC,
                chains=1,
                cores=1,
                random_seed=1,
                progressbar=False,
                compute_convergence_checks=False,
            )
    assert_none(found)


# -----------------------------------------------------------------------------------------------
# negative controls: the old code (L_op, a RandomVariable called bare) is caught on PyTensor 3
ONLY_PYTENSOR_3 = pytest.mark.skipif(
    not OP_HAS_PULLBACK, reason="PyTensor 2 deprecates neither L_op nor a bare RandomVariable"
)


@ONLY_PYTENSOR_3
def test_a_guard_with_l_op_only_is_caught(monkeypatch):
    def l_op(self, inputs, outputs, output_grads):
        raise NotImplementedError(self.gradient_message())

    monkeypatch.delattr(NoisyTermGuard, "pullback")
    monkeypatch.setattr(NoisyTermGuard, "L_op", l_op, raising=False)
    model = MODELS["native"]()
    with record_package_warnings() as found, model, pytest.raises(NotImplementedError):
        pm.NUTS()
    assert [w.category for w in found] == [FutureWarning]
    assert "NoisyTermGuard" in found[0].message
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        with model, pytest.raises(FutureWarning, match="pullback"):
            pm.NUTS()  # what the tests above would see


@ONLY_PYTENSOR_3
def test_a_bare_random_variable_call_is_caught(monkeypatch):
    monkeypatch.setattr(pseudo_marginal, "random_draw", lambda op, *a, **k: op(*a, **k))
    with record_package_warnings() as found:
        MODELS["blackbox"]()
    assert {w.category for w in found} == {DeprecationWarning}
    assert all("pseudo_marginal.py" in w.caller for w in found)
