"""KameleonSMC as a pm.sample_smc kernel: stats and dtypes, seeds, cores, Potentials, bad input,
and the pipeline from its particles to a step's ``initial_history``."""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytest

from pymc_kameleon import (
    KameleonSMC,
    KameleonStep,
    KMCStep,
    estimator_potential,
    initial_history_from_smc,
)
from pymc_kameleon.smc import final_log_marginal_likelihood, stage_stat

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def small_model() -> pm.Model:
    with pm.Model() as model:
        x = pm.Normal("x", 0.0, 3.0, shape=2)
        sigma = pm.HalfNormal("sigma", 2.0)
        pm.Normal("y", x.sum(), sigma, observed=np.array([0.5, 1.5, 1.0]))
    return model


def run(model, seed=3, chains=2, cores=1, draws=150, **kernel_kwargs):
    with model:
        return pm.sample_smc(
            draws=draws, kernel=KameleonSMC, chains=chains, cores=cores, random_seed=seed,
            progressbar=False, compute_convergence_checks=False, **kernel_kwargs,
        )  # fmt: skip


@pytest.fixture(scope="module")
def idata():
    return run(small_model())


def test_every_declared_stat_is_reported_per_stage_with_sensible_values(idata):
    names = set(KameleonSMC.stats_dtypes_shapes)
    assert names <= set(idata["sample_stats"].data_vars)
    for chain in range(2):
        beta = stage_stat(idata, "beta")[chain]
        assert np.all(np.diff(beta) > 0) and beta[-1] == 1.0
        n_stages = beta.size
        for name in names:
            values = stage_stat(idata, name)[chain]
            assert values.size == n_stages, name
        steps = stage_stat(idata, "n_steps")[chain]
        assert np.all(steps >= 1) and np.all(steps <= 30) and np.all(steps == np.round(steps))
        np.testing.assert_array_equal(stage_stat(idata, "logp_evals")[chain], 150 * steps)
        accept = stage_stat(idata, "accept_rate")[chain]
        assert np.all((accept > 0.0) & (accept <= 1.0))
        assert np.all(stage_stat(idata, "scaling")[chain] > 0.0)
        assert np.all(stage_stat(idata, "bandwidth")[chain] > 0.0)
        log_z = stage_stat(idata, "log_marginal_likelihood")[chain]
        assert np.all(np.isnan(log_z[:-1])) and np.isfinite(log_z[-1])
    assert final_log_marginal_likelihood(idata).shape == (2,)
    assert idata["sample_stats"].attrs["gamma"] == 0.2
    assert idata["sample_stats"].attrs["max_correlation"] == 0.1
    assert idata["sample_stats"].attrs["max_steps"] == 30  # max(30, 5 d), d = 3


def raw_values(idata, name):
    values = []
    for item in np.ravel(np.asarray(idata["sample_stats"][name].values, dtype=object)):
        values.extend(item if isinstance(item, list) else [item])
    return values


def test_stat_dtypes_are_the_declared_ones(idata):
    for name, (dtype, _) in KameleonSMC.stats_dtypes_shapes.items():
        kind = np.dtype(dtype).kind
        for value in raw_values(idata, name):
            assert np.asarray(value).dtype.kind == kind, (name, value)


def test_a_seed_reproduces_a_run_and_cores_do_not_change_it(idata):
    again = run(small_model(), cores=2)
    np.testing.assert_array_equal(idata["posterior"]["x"].values, again["posterior"]["x"].values)
    np.testing.assert_array_equal(stage_stat(idata, "n_steps")[1], stage_stat(again, "n_steps")[1])
    other = run(small_model(), seed=4)
    assert not np.array_equal(idata["posterior"]["x"].values, other["posterior"]["x"].values)


def test_a_model_with_a_potential_and_a_black_box_estimate():
    """A stochastic likelihood estimate (estimator_potential) compiles, pickles to workers and
    keeps its noise per chain; PyMC's own kernels refuse the model."""

    def estimate(theta, rng):
        return -0.5 * float(np.sum((theta - 1.0) ** 2)) + 0.3 * rng.standard_normal() - 0.045

    with pm.Model() as model:
        theta = pm.Normal("theta", 0.0, 2.0, shape=2)
        estimator_potential("loglike", estimate, theta)
        pm.Potential("shift", -0.1 * theta.sum())
    idata = run(model, cores=2, draws=100)
    assert np.all(np.isfinite(idata["posterior"]["theta"].values))
    assert np.all(np.isfinite(final_log_marginal_likelihood(idata)))
    with model, pytest.raises(Exception, match="stochastic likelihood estimate"):
        pm.sample_smc(draws=50, chains=1, progressbar=False)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"gamma": -1.0}, "gamma"),
        ({"n_basis": 1}, "n_basis"),
        ({"global_weight": 1.0}, "global_weight"),
        ({"target_accept": 0.0}, "target_accept"),
        ({"max_correlation": 1.5}, "max_correlation"),
        ({"max_steps": 0}, "max_steps"),
    ],
)
def test_bad_arguments_name_the_argument(kwargs, match):
    with small_model(), pytest.raises(ValueError, match=match):
        pm.sample_smc(draws=20, kernel=KameleonSMC, chains=1, progressbar=False, **kwargs)


def test_a_prior_far_wider_than_the_posterior_gets_an_error_that_names_it():
    """Resampling keeps a handful of particles; PyMC's IMH fails there with a LinAlgError."""
    with pm.Model():
        x = pm.Normal("x", 0.0, 1e6, shape=3)
        pm.Normal("y", x, 1e-3, observed=[1.0, 2.0, 3.0])
        with pytest.raises(ValueError, match=r"distinct particles.*prior"):
            pm.sample_smc(draws=100, kernel=KameleonSMC, chains=1, cores=1, progressbar=False,
                          random_seed=1, compute_convergence_checks=False)  # fmt: skip


def test_initial_particles_pymc_could_not_draw_are_named_with_the_cause():
    """An ordered transform on an unordered prior: PyMC copies the initval into every particle."""
    from pymc.distributions.transforms import ordered

    with pm.Model():
        mu = pm.Normal("mu", 0.0, 5.0, shape=2, transform=ordered, initval=[-1.0, 1.0])
        sigma = pm.HalfNormal("sigma", 1.0)
        pm.Normal("y", mu.sum(), sigma, observed=[0.3, 0.5])
        with pytest.raises(ValueError, match=r"mu_ordered__\[0\].*could not draw.*ordered"):
            pm.sample_smc(draws=50, kernel=KameleonSMC, chains=1, cores=1, progressbar=False,
                          random_seed=1, compute_convergence_checks=False)  # fmt: skip


def test_initial_history_from_smc_is_in_the_steps_sampling_space(idata):
    history = initial_history_from_smc(idata, model=small_model())
    x = idata["posterior"]["x"].values.reshape(-1, 2)
    sigma = idata["posterior"]["sigma"].values.reshape(-1)
    assert history.shape == (300, 3)
    # model.initial_point() order: x, then sigma on its log scale
    np.testing.assert_allclose(history, np.column_stack([x, np.log(sigma)]))


def test_initial_history_from_smc_follows_the_given_variables(idata):
    model = small_model()
    history = initial_history_from_smc(idata, vars=[model["sigma"], model["x"]], model=model)
    np.testing.assert_allclose(history[:, 0], np.log(idata["posterior"]["sigma"].values).ravel())


def test_initial_history_from_smc_feeds_both_steps(idata):
    model = small_model()
    history = initial_history_from_smc(idata, model=model)
    for step_class in (KameleonStep, KMCStep):
        with model:
            step = step_class(initial_history=history)
            out = pm.sample(
                step=step, tune=50, draws=50, chains=1, random_seed=1, progressbar=False,
                compute_convergence_checks=False,
            )  # fmt: skip
        assert np.all(np.isfinite(out["posterior"]["x"].values))


def test_initial_history_from_smc_names_a_missing_variable(idata):
    with pm.Model() as other:
        pm.Normal("z", 0.0, 1.0)
    with pytest.raises(ValueError, match=r"no draws of \['z'\]"):
        initial_history_from_smc(idata, model=other)
