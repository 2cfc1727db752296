"""The black-box models: no gradient, picklable, and the log-density of their differentiable twins.

Each black-box model (likelihood in SciPy/NumPy inside an Op without ``grad``) and its twin
(likelihood in PyTensor) are compared with their compiled log-densities (sampled space, Jacobian
included) at 30 draws of the shipped reference posterior and 30 prior draws, 60 points per model.

Tolerance: ``|difference| <= 1e-6 + 1e-8 |log-density|``. The Kalman filters are the same
arithmetic (they agree to 1e-13 relative). The ODE solvers (LSODA at ``rtol=1e-11``, the Taylor
scan) each make relative errors of 1e-12 to 1e-8 in the states; the log-density's error is about
``sum(d logp / d log z) * error``, which grows with the misfit, i.e. with ``|log-density|``: near
the posterior (``|logp|`` about 100) the bound is 2e-6, and the measured differences are below
1e-8. The Lotka-Volterra prior draws are kept only where the twin's step resolves the cycles
(per-capita rates below 4 per year, a step of 1/8 year): beyond that, its fixed step is too long
(the relative error reached 6e-3 at prior draws with rates near 10), far from the posterior.
The Michaelis–Menten prior draws likewise (``K_m`` above 2 mg/L, ``k_a`` below 4 per hour, and
the concentrations above 1e-3 mg/L, where the log-normal error is about ``log C``).
"""

from __future__ import annotations

import itertools
import pickle
import time

import cloudpickle
import numpy as np
import pymc as pm
import pytensor
import pytest
from pymc.sampling.mcmc import assign_step_methods
from scipy.optimize import minimize

from pymc_kameleon._compat import ancestors
from pymc_kameleon.bench.real.blackbox import (
    LYNX_HARE_PELTS,
    NumpyLogLikelihood,
    flu_sir_loglike,
    lotka_volterra_solution,
    lynx_hare_loglike,
    nile_kalman_loglike,
)
from pymc_kameleon.bench.real.models import (
    REAL_MODELS,
    REFERENCE_ONLY_MODELS,
    get_real_model,
    reference_source,
)
from pymc_kameleon.bench.real.pk_ode import (
    PK_TIMES,
    pk_concentrations,
    pk_mm_loglike,
    simulate_pk_data,
)
from pymc_kameleon.bench.real.reference import load_reference
from pymc_kameleon.bench.real.tables import load_table

BLACK_BOX = ("lynx-hare-ode", "nile-kalman", "flu-sir", "pk-mm-ode")
N_POSTERIOR, N_PRIOR = 30, 30
ATOL, RTOL = 1e-6, 1e-8
BLACK_BOX_OPS = [
    NumpyLogLikelihood(f)
    for f in (lynx_hare_loglike, nile_kalman_loglike, flu_sir_loglike, pk_mm_loglike)
]


def _to_sampled_space(model):
    """Map a point of free-variable values (constrained) to the model's value variables."""
    values, forward = [], []
    for rv in model.free_RVs:
        value = rv.type()
        transform = model.rvs_to_transforms.get(rv)
        values.append(value)
        forward.append(value if transform is None else transform.forward(value, *rv.owner.inputs))
    fn = pytensor.function(values, forward, mode="FAST_COMPILE")  # no C compile: a few calls
    names = [model.rvs_to_values[rv].name for rv in model.free_RVs]
    return lambda point: dict(zip(names, fn(*[point[rv.name] for rv in model.free_RVs])))


def _posterior_points(name, model):
    ref = load_reference(name)
    rows = ref.draws[np.linspace(0, len(ref.draws) - 1, N_POSTERIOR).round().astype(int)]
    points = [{} for _ in rows]
    for rv in model.free_RVs:
        cols = [k for k, label in enumerate(ref.labels) if label.split("[")[0] == rv.name]
        for point, row in zip(points, rows):
            point[rv.name] = row[cols] if rv.type.ndim else row[cols[0]]  # 0-D or 1-D here
    return points


def _resolved_cycles(point, max_rate=4.0):
    theta = [point[n] for n in ("alpha", "beta", "gamma", "delta")]
    z = lotka_volterra_solution(theta, point["z0"], np.linspace(0.0, 20.0, 401))
    if z is None:
        return False
    alpha, beta, gamma, delta = theta
    return (
        max(np.abs(alpha - beta * z[:, 1]).max(), np.abs(delta * z[:, 0] - gamma).max()) < max_rate
    )


def _resolved_pk(point):
    k_a, k_m, v_m = (np.exp(point[n]) for n in ("log_ka", "log_Km", "log_Vm"))
    if not (k_a < 4.0 and k_m > 2.0):
        return False
    c = pk_concentrations(k_a, k_m, v_m)
    return c is not None and bool(np.all(c > 1e-3))


def _prior_points(name, model):
    draws = pm.draw(model.free_RVs, draws=4 * N_PRIOR, random_seed=20240611)
    points = (
        {rv.name: np.asarray(d[i]) for rv, d in zip(model.free_RVs, draws)}
        for i in range(4 * N_PRIOR)
    )
    if name == "lynx-hare-ode":  # (lazily: solving at 401 times costs up to 0.1 s a draw)
        points = (p for p in points if _resolved_cycles(p))
    if name == "pk-mm-ode":
        points = (p for p in points if _resolved_pk(p))
    chosen = list(itertools.islice(points, N_PRIOR))
    assert len(chosen) == N_PRIOR
    return chosen


@pytest.mark.parametrize("name", BLACK_BOX)
def test_the_black_box_and_its_twin_have_the_same_log_density(name):
    model, twin = get_real_model(name).build(), reference_source(name).build()
    assert [v.name for v in model.value_vars] == [v.name for v in twin.value_vars]
    to_sampled = _to_sampled_space(model)
    points = _posterior_points(name, model) + _prior_points(name, model)
    logp, twin_logp = model.compile_logp(), twin.compile_logp()
    got = np.array([[logp(x), twin_logp(x)] for x in map(to_sampled, points)])
    assert np.all(np.isfinite(got)) and len(got) == N_POSTERIOR + N_PRIOR
    diff = np.abs(got[:, 0] - got[:, 1])
    np.testing.assert_array_less(diff, ATOL + RTOL * np.abs(got[:, 0]))
    assert diff[:N_POSTERIOR].max() < 1e-7  # near the posterior, well inside the bound


def test_the_twins_give_the_references_and_are_not_suite_rows():
    for name in BLACK_BOX:
        spec, source = get_real_model(name), reference_source(name)
        assert source.name == spec.reference_model and source.name in REFERENCE_ONLY_MODELS
        assert source.name not in REAL_MODELS
        assert source.var_names == spec.var_names
        assert load_reference(name).meta["sampled_model"] == source.name
    assert reference_source("longley").name == "longley"
    assert reference_source("schools-centred").name == "schools-noncentred"


@pytest.mark.parametrize("name", BLACK_BOX)
def test_the_black_box_has_no_gradient_so_pymc_picks_no_nuts(name):
    model = get_real_model(name).build()
    with pytest.raises(NotImplementedError):
        model.compile_dlogp()
    _, selected = assign_step_methods(model)
    assert pm.NUTS not in selected
    assert sum(len(v) for v in selected.values()) == len(model.value_vars)


@pytest.mark.parametrize("name", BLACK_BOX)
def test_the_black_box_pickles_as_multiprocess_sampling_needs(name):
    model = get_real_model(name).build()
    ops = {v.owner.op for v in ancestors(model.potentials) if v.owner is not None}
    (op,) = ops & set(BLACK_BOX_OPS)
    # the Op pickles with the standard library, by reference to its module-level function
    assert pickle.loads(pickle.dumps(op)) == op
    # pm.sample(cores > 1) sends the step methods, with their compiled functions, by cloudpickle
    logp = model.compile_logp()
    point = model.initial_point()
    assert cloudpickle.loads(cloudpickle.dumps(logp))(point) == logp(point)


@pytest.mark.parametrize("name", BLACK_BOX)
def test_the_builders_are_fast(name):
    start = time.perf_counter()
    model = get_real_model(name).build()
    assert time.perf_counter() - start < 1.0
    assert np.isfinite(model.compile_logp()(model.initial_point()))


def test_the_kalman_filter_finds_the_published_nile_estimates():
    # maximum likelihood, local level model, diffuse initial level: sigma_eps^2 = 15099 and
    # sigma_eta^2 = 1469.1 (Durbin and Koopman 2012, chapter 2)
    fit = minimize(lambda p: -nile_kalman_loglike(p), [4.0, 4.0], method="Nelder-Mead",
                   options={"xatol": 1e-7, "fatol": 1e-9})  # fmt: skip
    np.testing.assert_allclose(np.exp(2.0 * fit.x), [15099.0, 1469.1], rtol=2e-3)


def test_the_pk_data_are_the_simulation_and_the_tail_is_heavy():
    # the shipped concentrations are simulate_pk_data() to the CSV's 6 decimals
    shipped = load_table("pk_mm.csv")
    np.testing.assert_array_equal(shipped["time"], PK_TIMES)
    np.testing.assert_allclose(shipped["concentration"], simulate_pk_data(), atol=5e-7)
    # the reference: a right tail in log K_m that reaches far beyond its 95 % quantile
    ref = load_reference("pk-mm-ode")
    log_km = ref.labels.index("log_Km")
    q05, q50, q95 = (ref.summary[q][log_km] for q in ("q05", "q50", "q95"))
    assert q95 - q50 > 1.5 * (q50 - q05)
    assert np.quantile(ref.draws[:, log_km], 0.995) - q95 > 1.0


def test_the_pelts_and_a_failed_solve():
    assert LYNX_HARE_PELTS.shape == (21, 2)
    assert LYNX_HARE_PELTS[:, 0].argmax() == 3 and LYNX_HARE_PELTS[:, 1].argmax() == 4  # 1903, 1904
    # a population that explodes within the 20 years: LSODA stops, the likelihood is -inf
    assert lynx_hare_loglike(np.array([50.0, 0.0, 1.0, 5.0, 10.0, 10.0, 0.3, 0.3])) == -np.inf


def test_the_flu_counts_are_poisson_where_the_dispersion_vanishes():
    """phi_inv -> 0 is the Poisson limit; the NB formula cancelled to garbage there (issue 66:
    a chain settled at a log-density of 18 630 at phi_inv ~ 1e-17, the posterior's top is -64)."""
    from scipy.stats import poisson

    from pymc_kameleon.bench.real.blackbox import FLU_BOYS, FLU_CONFINED, _sir, _solve

    beta, gamma = 1.7, 0.5
    z = _solve(_sir, np.array([FLU_BOYS - 1.0, 1.0, 0.0]), np.arange(FLU_CONFINED.size + 1.0),
               (beta, gamma))  # fmt: skip
    exact = poisson.logpmf(FLU_CONFINED, z[1:, 1]).sum()
    for phi_inv in (1e-11, 1e-15, 1e-17, 1e-20, 1e-300):
        assert flu_sir_loglike(np.array([beta, gamma, phi_inv])) == pytest.approx(exact, rel=1e-9)
    # below the limit the NB is close to Poisson and continuous across it
    near = flu_sir_loglike(np.array([beta, gamma, 1e-9]))
    assert near == pytest.approx(exact, abs=1e-4)
