"""KameleonSMC refuses three bad inputs before any sampling work, naming the problem and the fix.

* an improper prior (``pm.Flat``, ``pm.HalfFlat``, also under a transform or inside another
  distribution): SMC starts from prior draws (before: PyTensor's "Cannot sample from flat
  variable" dump, after compiling);
* fewer particles than ``2 (d + 1)`` (before: an error blaming ``transform=ordered``);
* an instance passed as ``kernel=`` (before: "'KameleonSMC' object is not callable").

The first two are checked in the constructor before PyMC's base kernel compiles anything: the
``no_compiling`` fixture replaces that base constructor with one that fails the test.
"""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytest
from pymc.distributions.transforms import ordered
from pymc.smc.kernels import IMH, SMC_KERNEL

from pymc_kameleon import KameleonSMC
from pymc_kameleon.smc._input_checks import improper_priors, min_draws

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

SMC = {"chains": 1, "cores": 1, "progressbar": False, "compute_convergence_checks": False}


class ReachedBaseKernel(Exception):
    """Raised instead of PyMC's base constructor: every check before it passed."""


@pytest.fixture
def no_compiling(monkeypatch):
    def base_init(self, *args, **kwargs):
        raise ReachedBaseKernel

    monkeypatch.setattr(SMC_KERNEL, "__init__", base_init)


def gaussian(dim: int) -> pm.Model:
    with pm.Model() as model:
        x = pm.Normal("x", 0.0, 1.0, shape=dim)
        pm.Normal("y", x.sum(), 1.0, observed=[0.1])
    return model


# ---------------------------------------------------------------------------------------------
# 1. improper priors


def flat_models() -> dict[str, tuple[pm.Model, dict[str, str]]]:
    """Models with improper priors, and the variables (and distributions) the error must name."""
    models = {}
    with pm.Model() as m:
        mu = pm.Flat("mu", shape=2)
        sigma = pm.HalfFlat("sigma")
        pm.Normal("y", mu.sum(), sigma, observed=[0.1, 0.4, 0.2])
    models["Flat and HalfFlat"] = (m, {"mu": "pm.Flat", "sigma": "pm.HalfFlat"})
    with pm.Model() as m:
        mu = pm.Flat("mu", shape=2, transform=ordered, initval=[-1.0, 1.0])
        pm.Normal("y", mu.sum(), 1.0, observed=[0.1])
    models["Flat with ordered transform and initval"] = (m, {"mu": "pm.Flat"})
    with pm.Model() as m:
        mu = pm.Flat("mu", initval=0.5)  # PyMC would copy the initval into every particle
        pm.Normal("y", mu, 1.0, observed=[0.1])
    models["Flat with initval"] = (m, {"mu": "pm.Flat"})
    with pm.Model() as m:
        c = pm.Truncated("c", pm.Flat.dist(), lower=0.0, upper=1.0)
        pm.Normal("y", c, 1.0, observed=[0.1])
    models["Truncated Flat"] = (m, {"c": "pm.Flat"})
    with pm.Model() as m:
        e = pm.CustomDist("e", dist=lambda size: pm.math.exp(pm.Flat.dist(size=size)))
        pm.Normal("y", e, 1.0, observed=[0.1])
    models["CustomDist on a Flat"] = (m, {"e": "pm.Flat"})
    with pm.Model() as m:
        w = pm.Mixture("w", w=[0.5, 0.5], comp_dists=[pm.HalfFlat.dist(), pm.HalfNormal.dist()])
        pm.Normal("y", 0.0, w, observed=[0.1])
    models["Mixture with a HalfFlat component"] = (m, {"w": "pm.HalfFlat"})
    return models


FLAT_MODELS = flat_models()


@pytest.mark.parametrize("case", list(FLAT_MODELS))
def test_improper_priors_are_found_and_named(case):
    model, expected = FLAT_MODELS[case]
    assert {name: kinds[0] for name, kinds in improper_priors(model).items()} == expected


def test_a_proper_variable_with_flat_parameters_is_not_named():
    with pm.Model() as model:
        mu = pm.Flat("mu")
        pm.Normal("z", mu, 1.0)  # drawn given mu: only mu's prior is improper
        pm.Normal("n", 0.0, 1.0, shape=3)
    assert improper_priors(model) == {"mu": ["pm.Flat"]}
    assert improper_priors(gaussian(3)) == {}


@pytest.mark.parametrize("case", list(FLAT_MODELS))
def test_an_improper_prior_fails_before_compiling_with_the_variable_and_the_fix(case, no_compiling):
    model, expected = FLAT_MODELS[case]
    with model, pytest.raises(ValueError) as info:
        pm.sample_smc(draws=100, kernel=KameleonSMC, **SMC)
    message = str(info.value)
    for name, kind in expected.items():
        assert f"{name!r} ({kind})" in message
    assert "improper prior" in message
    assert "SMC starts from draws of the prior" in message
    assert "KameleonStep" in message
    if "pm.Flat" in expected.values():
        assert "Replace pm.Flat with a wide pm.Normal" in message
    if "pm.HalfFlat" in expected.values():
        assert "pm.HalfFlat with pm.HalfNormal" in message


def test_the_flat_prior_error_is_raised_in_the_calling_process_with_cores():
    """Not a ParallelSamplingError from a worker: the check runs before the kernel is sent."""
    model, _ = FLAT_MODELS["Flat and HalfFlat"]
    with model, pytest.raises(ValueError, match=r"'mu' \(pm\.Flat\), 'sigma' \(pm\.HalfFlat\)"):
        pm.sample_smc(draws=100, kernel=KameleonSMC, chains=2, cores=2, progressbar=False)


def test_pymc_imh_kernel_still_fails_on_a_flat_prior_unchanged():
    """Only KameleonSMC checks: PyMC's own kernels keep PyTensor's error."""
    with pm.Model():
        pm.Flat("mu")
        with pytest.raises(NotImplementedError, match="Cannot sample from flat variable"):
            pm.sample_smc(draws=20, kernel=IMH, **SMC)


# ---------------------------------------------------------------------------------------------
# 2. too few particles


@pytest.mark.parametrize(("draws", "dim"), [(10, 20), (1, 20), (21, 20), (1, 1), (3, 1)])
def test_too_few_particles_fail_before_compiling_naming_draws_d_and_the_fix(
    draws, dim, no_compiling
):
    minimum = 2 * (dim + 1)
    with gaussian(dim), pytest.raises(ValueError) as info:
        pm.sample_smc(draws=draws, kernel=KameleonSMC, **SMC)
    message = str(info.value)
    assert message.startswith(f"`draws` must be an integer >= {minimum}, got {draws}.")
    assert f"d = {dim} coordinate" in message
    assert f"2 (d + 1) = {minimum} particles" in message
    assert "covariance" in message and "10 d" in message
    assert f"pm.sample_smc(draws={max(10 * dim, 100)}, kernel=KameleonSMC)" in message
    assert "ordered" not in message


def test_the_minimum_is_two_d_plus_one_and_is_enough_to_pass_the_check(no_compiling):
    assert [min_draws(d) for d in (1, 2, 20)] == [4, 6, 42]
    model = gaussian(4)  # d = 4: at least 10 particles
    with pytest.raises(ValueError, match=r">= 10, got 9"):
        KameleonSMC(draws=9, model=model)
    with pytest.raises(ValueError, match=r">= 10, got 9"):
        KameleonSMC(9, model=model)  # draws by position, as SMC_KERNEL takes it
    with pytest.raises(ReachedBaseKernel):
        KameleonSMC(draws=10, model=model)


def test_d_counts_raveled_transformed_coordinates(no_compiling):
    with pm.Model() as model:
        pm.Dirichlet("p", a=np.ones(4))  # 3 coordinates after the simplex transform
        pm.HalfNormal("s", 1.0, shape=(2, 2))  # 4
    with pytest.raises(ValueError, match=r"got 15\..* d = 7 coordinates"):
        KameleonSMC(draws=15, model=model)


@pytest.mark.parametrize(
    ("with_sigma", "match"),
    [
        (False, r"only 1 distinct particles for 2 coordinates.*could not draw.*ordered"),
        (True, r"mu_ordered__\[0\].*could not draw.*ordered"),
    ],
    ids=["copies only", "copied coordinate"],
)
def test_the_ordered_transform_diagnosis_remains_for_enough_particles(with_sigma, match):
    """With enough particles, initial particles PyMC could not draw still get that cause."""
    with pm.Model():
        mu = pm.Normal("mu", 0.0, 5.0, shape=2, transform=ordered, initval=[-1.0, 1.0])
        sigma = pm.HalfNormal("sigma", 1.0) if with_sigma else 1.0
        pm.Normal("y", mu.sum(), sigma, observed=[0.3, 0.5])
        with pytest.raises(ValueError, match=match):
            pm.sample_smc(draws=20, kernel=KameleonSMC, random_seed=1, **SMC)


# ---------------------------------------------------------------------------------------------
# 3. an instance instead of the class


def test_an_instance_as_kernel_says_to_pass_the_class_with_an_example():
    with gaussian(2):
        with pytest.raises(TypeError) as info:
            pm.sample_smc(draws=100, kernel=KameleonSMC(), **SMC)
    message = str(info.value)
    assert "not callable" not in message
    assert "pass KameleonSMC, not an instance" in message
    assert "pm.sample_smc(kernel=KameleonSMC, max_steps=50)" in message
    assert "gamma, n_basis, global_weight, target_accept, max_correlation, max_steps" in message


def test_an_instance_with_options_gets_them_back_as_keywords(monkeypatch):
    monkeypatch.setattr(SMC_KERNEL, "__init__", lambda self, *args, **kwargs: None)
    with gaussian(2):
        kernel = KameleonSMC(draws=500, gamma=0.3, max_steps=40)
        with pytest.raises(TypeError, match="not an instance") as info:
            pm.sample_smc(draws=100, kernel=kernel, **SMC)
    assert "pm.sample_smc(kernel=KameleonSMC, draws=500, gamma=0.3, max_steps=40)" in str(
        info.value
    )


def test_an_instance_built_outside_a_model_says_to_pass_the_class():
    model = gaussian(2)
    with pytest.raises(TypeError, match=r"needs a model.*pass the class, not an instance"):
        pm.sample_smc(draws=100, kernel=KameleonSMC(gamma=0.3), model=model, **SMC)


def test_a_misspelt_option_lists_the_kernels_options(no_compiling):
    with gaussian(2), pytest.raises(TypeError, match=r"'gama'.*options are gamma, n_basis"):
        pm.sample_smc(draws=100, kernel=KameleonSMC, gama=0.3, **SMC)
