"""Tests for :mod:`pymc_kameleon.plots`: proposal ellipses and KMC trajectories.

The drawn artists are checked against quantities computed independently from the core modules
(the Kameleon covariance, the leapfrog path) and against the step's own sampling mechanism
(empirical coverage of the drawn ellipses by proposals drawn as ``astep`` draws them).
"""

from __future__ import annotations

import math
import sys
from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pymc as pm
import pytensor.tensor as pt
import pytest
import xarray as xr
from matplotlib.path import Path
from pytensor.compile.ops import as_op
from scipy.stats import chi2

from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep, noisy_potential
from pymc_kameleon.core.hamiltonian import kinetic_energy, leapfrog, leapfrog_path, sample_momentum
from pymc_kameleon.core.kernels import GaussianKernel
from pymc_kameleon.core.proposals import kameleon_covariance
from pymc_kameleon.plots import (
    KMCTrajectories,
    kmc_trajectories,
    plot_proposals,
    plot_trajectories,
    proposal_covariance,
    proposal_ellipse,
)
from pymc_kameleon.plots.proposals import _idata_view
from pymc_kameleon.plots.trajectories import _finite_difference_gradient, _true_gradient
from pymc_kameleon.targets import banana_logp, banana_model, gaussian_model

SAMPLE_KW = {
    "chains": 1,
    "cores": 1,
    "random_seed": 1,
    "progressbar": False,
    "compute_convergence_checks": False,
}
GRID = 30  # background grid points per axis: enough to exercise the code, cheap
N_COVERAGE = 4000
LEVEL = 0.95
COVERAGE_BAND = 3.0 * math.sqrt(LEVEL * (1.0 - LEVEL) / N_COVERAGE)
GAUSS_COV = np.array([[1.0, 0.8], [0.8, 2.0]])
GAUSS_PREC = np.linalg.inv(GAUSS_COV)


def gauss_logp(q: np.ndarray) -> float:
    """Log-density of N(0, GAUSS_COV) up to a constant."""
    return -0.5 * float(q @ GAUSS_PREC @ q)


def gauss_grad(q: np.ndarray) -> np.ndarray:
    """Analytic gradient of :func:`gauss_logp`."""
    return -GAUSS_PREC @ q


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def banana2():
    """A KameleonStep run on the 2-D banana with cores=1, and its InferenceData."""
    with banana_model(d=2, b=0.1, v=100.0):  # the classic proposal: its covariance in closed form
        step = KameleonStep(warmup="classic", n_history=200)
        idata = pm.sample(tune=600, draws=50, step=step, **SAMPLE_KW)
    return step, idata


@pytest.fixture(scope="module")
def banana8():
    with banana_model(d=8, b=0.1, v=100.0):
        step = KameleonStep(warmup="classic", n_history=200)
        pm.sample(tune=500, draws=10, step=step, **SAMPLE_KW)
    return step


@pytest.fixture(scope="module")
def am_step():
    with banana_model(d=2, b=0.1, v=100.0):
        step = AdaptiveMetropolis(gamma=0.1, warmup="classic")
        pm.sample(tune=400, draws=10, step=step, **SAMPLE_KW)
    return step


@pytest.fixture(scope="module")
def kmc_step():
    with gaussian_model(GAUSS_COV):
        # the classic coordinates: the paths are then leapfrog paths in the model's units
        step = KMCStep(warmup="classic", n_history=100, n_steps_range=(5, 15))
        pm.sample(tune=300, draws=20, step=step, **SAMPLE_KW)
    assert step.surrogate is not None
    return step


def line_by_gid(ax, gid: str):
    lines = [line for line in ax.lines if line.get_gid() == gid]
    assert len(lines) == 1, f"expected one line with gid {gid!r}, found {len(lines)}"
    return lines[0]


def quadratic_form(points: np.ndarray, mean: np.ndarray, cov: np.ndarray) -> np.ndarray:
    diff = points - mean
    return np.einsum("ij,jk,ik->i", diff, np.linalg.inv(cov), diff)


def coverage(curve: np.ndarray, draws: np.ndarray) -> float:
    """Fraction of 2-D points inside the closed polygon ``curve``."""
    return float(np.mean(Path(curve).contains_points(draws)))


def step_proposals(step, x: np.ndarray, n: int, seed: int) -> np.ndarray:
    """Proposals drawn as ``astep`` draws them: ``x + L @ noise`` with the step's own factor."""
    chol = step.proposal.cholesky(x)
    noise = np.random.default_rng(seed).standard_normal((n, step.dim))
    return x + noise @ chol.T


# -----------------------------------------------------------------------------------------------
# proposal_ellipse
@pytest.mark.parametrize("level", [0.5, 0.95])
def test_ellipse_points_lie_on_the_chi2_quantile(level):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 2))
    cov = a @ a.T + 0.1 * np.eye(2)
    mean = rng.standard_normal(2)
    curve = proposal_ellipse(mean, cov, level=level, n_points=123)
    assert curve.shape == (123, 2)
    np.testing.assert_allclose(curve[0], curve[-1], atol=1e-12)  # closed
    form = quadratic_form(curve, mean, cov)
    np.testing.assert_allclose(form, chi2.ppf(level, 2), rtol=0, atol=1e-10)


@pytest.mark.parametrize(
    ("mean", "cov", "kwargs", "match"),
    [
        (np.zeros(3), np.eye(2), {}, "shape"),
        (np.zeros(2), np.eye(3), {}, "shape"),
        (np.zeros(2), np.array([[1.0, 2.0], [2.0, 1.0]]), {}, "positive definite"),
        (np.zeros(2), np.array([[1.0, 0.5], [0.0, 1.0]]), {}, "symmetric"),
        (np.zeros(2), np.eye(2), {"level": 1.0}, "level"),
        (np.zeros(2), np.eye(2), {"level": 0.0}, "level"),
        (np.zeros(2), np.eye(2), {"n_points": 2}, "n_points"),
        (np.array([np.nan, 0.0]), np.eye(2), {}, "finite"),
    ],
)
def test_ellipse_rejects_bad_input(mean, cov, kwargs, match):
    with pytest.raises(ValueError, match=match):
        proposal_ellipse(mean, cov, **kwargs)


# -----------------------------------------------------------------------------------------------
# proposal_covariance and plot_proposals on a run KameleonStep
def test_proposal_covariance_is_what_the_step_draws_from(banana2):
    step, _ = banana2
    for x in step.z[::50]:
        cov = proposal_covariance(step, x)
        expected = kameleon_covariance(x, step.z, step.kernel, step.gamma**2, step.scaling)
        np.testing.assert_allclose(cov, expected, rtol=1e-12, atol=1e-12)
        chol = step.proposal.cholesky(x)
        np.testing.assert_allclose(chol @ chol.T, cov, rtol=1e-10)


def test_drawn_ellipses_are_the_kameleon_proposals(banana2):
    step, _ = banana2
    ax = plot_proposals(step, rng=0, grid_size=GRID)
    q95 = chi2.ppf(LEVEL, 2)
    for i in range(4):
        state = line_by_gid(ax, f"state-{i}").get_xydata()[0]
        assert any(np.array_equal(state, row) for row in step.z)  # default states are rows of z
        cov = kameleon_covariance(state, step.z, step.kernel, step.gamma**2, step.scaling)
        curve = line_by_gid(ax, f"proposal-{i}").get_xydata()
        np.testing.assert_allclose(quadratic_form(curve, state, cov), q95, rtol=1e-9)
    with pytest.raises(AssertionError):
        line_by_gid(ax, "proposal-4")
    history = [c for c in ax.collections if c.get_gid() == "history"]
    assert len(history) == 1
    np.testing.assert_array_equal(history[0].get_offsets(), step.z)
    assert any(c.get_gid() == "target-density" for c in ax.collections)
    assert ax.get_xlabel() == "x[0]" and ax.get_ylabel() == "x[1]"
    assert ax.get_legend() is not None


def test_drawn_ellipses_cover_95_percent_of_the_step_proposals(banana2):
    step, _ = banana2
    ax = plot_proposals(step, rng=0, grid_size=GRID)
    for i in range(4):
        state = line_by_gid(ax, f"state-{i}").get_xydata()[0]
        curve = line_by_gid(ax, f"proposal-{i}").get_xydata()
        draws = step_proposals(step, state, N_COVERAGE, seed=i)
        assert abs(coverage(curve, draws) - LEVEL) < COVERAGE_BAND
        # negative control: the ellipse of a 1.5x inflated covariance is visibly too large
        inflated = proposal_ellipse(state, 1.5 * proposal_covariance(step, state))
        assert abs(coverage(inflated, draws) - LEVEL) > COVERAGE_BAND


def test_marginal_ellipses_in_eight_dimensions(banana8):
    step = banana8
    states = step.z[[0, 100]]
    for coords in [(0, 1), (1, 4)]:
        ax = plot_proposals(step, states, coords=coords, grid_size=GRID, show_history=False)
        block = np.ix_(coords, coords)
        for i, x in enumerate(states):
            cov = kameleon_covariance(x, step.z, step.kernel, step.gamma**2, step.scaling)
            curve = line_by_gid(ax, f"proposal-{i}").get_xydata()
            form = quadratic_form(curve, x[list(coords)], cov[block])
            np.testing.assert_allclose(form, chi2.ppf(LEVEL, 2), rtol=1e-9)
        draws = step_proposals(step, states[0], N_COVERAGE, seed=7)[:, list(coords)]
        assert abs(coverage(line_by_gid(ax, "proposal-0").get_xydata(), draws) - LEVEL) < (
            COVERAGE_BAND
        )
        assert not any(c.get_gid() == "history" for c in ax.collections)
        assert ax.get_xlabel() == f"x[{coords[0]}]"


def test_adaptive_metropolis_ellipses_share_one_shape(am_step):
    step = am_step
    ax = plot_proposals(step, n_states=3, rng=3, grid_size=GRID)
    expected = step.gamma**2 * np.eye(2) + step.scaling * step.moments.covariance()
    offsets = []
    for i in range(3):
        state = line_by_gid(ax, f"state-{i}").get_xydata()[0]
        np.testing.assert_allclose(proposal_covariance(step, state), expected, rtol=1e-12)
        curve = line_by_gid(ax, f"proposal-{i}").get_xydata()
        offsets.append(curve - state)
        draws = step_proposals(step, state, N_COVERAGE, seed=i)
        assert abs(coverage(curve, draws) - LEVEL) < COVERAGE_BAND
    np.testing.assert_allclose(offsets[1], offsets[0], atol=1e-10)
    np.testing.assert_allclose(offsets[2], offsets[0], atol=1e-10)


def test_states_and_existing_axes(banana2):
    step, _ = banana2
    fig, ax = plt.subplots()
    out = plot_proposals(step, step.z[5], ax=ax, grid_size=GRID, logp=banana_logp)
    assert out is ax and fig.axes == [ax]
    state = line_by_gid(ax, "state-0").get_xydata()[0]
    np.testing.assert_array_equal(state, step.z[5])


def test_bad_arguments(banana2):
    step, _ = banana2
    with pytest.raises(ValueError, match="coords"):
        plot_proposals(step, coords=(0, 0))
    with pytest.raises(ValueError, match="coords"):
        plot_proposals(step, coords=(0, 2))
    with pytest.raises(ValueError, match="states"):
        plot_proposals(step, np.zeros((2, 3)))
    with pytest.raises(ValueError, match="n_states"):
        plot_proposals(step, n_states=0)
    with pytest.raises(TypeError, match="InferenceData"):
        plot_proposals(42)


# -----------------------------------------------------------------------------------------------
# plot_proposals from an InferenceData
def test_idata_rebuilds_the_frozen_kernel(banana2):
    step, idata = banana2
    stats = idata["sample_stats"]
    # the last stats of the (only) chain are the frozen kernel the step holds
    assert float(stats["bandwidth"].values[-1, -1]) == step.kernel.bandwidth
    assert float(stats["scaling"].values[-1, -1]) == pytest.approx(step.scaling)
    ax = plot_proposals(idata, n_states=3, rng=0, gamma=step.gamma)
    draws = idata["posterior"]["x"].values[-1]
    history = next(c for c in ax.collections if c.get_gid() == "history").get_offsets()
    np.testing.assert_array_equal(history, draws)  # 50 draws < 1000: all of them, in order
    kernel = GaussianKernel(step.kernel.bandwidth)
    for i in range(3):
        state = line_by_gid(ax, f"state-{i}").get_xydata()[0]
        cov = kameleon_covariance(state, draws, kernel, step.gamma**2, step.scaling)
        curve = line_by_gid(ax, f"proposal-{i}").get_xydata()
        np.testing.assert_allclose(quadratic_form(curve, state, cov), chi2.ppf(LEVEL, 2), rtol=1e-8)
    with pytest.raises(AssertionError):
        line_by_gid(ax, "proposal-3")
    # without a log-density the background is a histogram of the draws
    assert any(
        getattr(c, "get_gid", lambda: None)() == "target-histogram" for c in ax.get_children()
    )


def test_idata_without_stats_matches_the_trace_rule(banana2):
    _, idata = banana2
    rng = np.random.default_rng(0)
    view = _idata_view({"posterior": idata["posterior"]}, 0.2, -1, None, rng)
    draws = idata["posterior"]["x"].values[-1]
    kernel_term = view.covariance(draws[-1]) - 0.04 * np.eye(2)
    target = 2.38**2 / 2 * np.trace(np.cov(draws.T))
    assert np.trace(kernel_term) == pytest.approx(target, rel=1e-10)
    ax = plot_proposals({"posterior": idata["posterior"]}, n_states=2, var_names=["x"], rng=0)
    line_by_gid(ax, "proposal-1")


def test_idata_chain_and_variable_order(banana2):
    _, idata = banana2
    draws = idata["posterior"]["x"].values[-1]
    shifted = np.stack([draws, draws + 5.0])  # chain 1 = chain 0 moved by 5
    posterior = xr.Dataset(
        {
            "a": (("chain", "draw"), shifted[..., 0]),
            "b": (("chain", "draw"), shifted[..., 1]),
        }
    )
    data = {"posterior": posterior}
    ax = plot_proposals(data, var_names=["b", "a"], chain=0, n_states=1, grid_size=GRID)
    history = next(c for c in ax.collections if c.get_gid() == "history").get_offsets()
    np.testing.assert_array_equal(history, draws[:, ::-1])
    ax = plot_proposals(data, n_states=1, grid_size=GRID)  # default: the last chain
    history = next(c for c in ax.collections if c.get_gid() == "history").get_offsets()
    np.testing.assert_array_equal(history, draws + 5.0)
    with pytest.raises(ValueError, match="chain"):
        plot_proposals(data, chain=2)
    with pytest.raises(ValueError, match="gamma"):
        plot_proposals(data, gamma=-1.0)


# -----------------------------------------------------------------------------------------------
# steps that were not run here, pseudo-marginal models, missing matplotlib
def test_step_never_run_explains_cores():
    with banana_model(d=2):
        kameleon, am = KameleonStep(), AdaptiveMetropolis()
    for step in (kameleon, am):
        with pytest.raises(ValueError, match=r"cores>1.*cores=1.*InferenceData"):
            plot_proposals(step)
        with pytest.raises(ValueError, match="cores=1"):
            proposal_covariance(step, np.zeros(2))
    with gaussian_model(GAUSS_COV):
        kmc = KMCStep()
    with pytest.raises(ValueError, match=r"cores>1.*cores=1"):
        kmc_trajectories(kmc, np.zeros(2))
    with pytest.raises(ValueError, match="surrogate"):
        plot_trajectories(kmc)
    with pytest.raises(TypeError, match="plot_trajectories"):
        plot_proposals(kmc)


def test_pseudo_marginal_background_is_a_histogram():
    with pm.Model():
        x = pm.Flat("x", shape=2)
        noisy_potential("lik", -0.5 * pt.sum(x**2) + 0.01 * pm.Normal.dist())
        step = KameleonStep(n_history=50, adapt_start=50)
        pm.sample(tune=120, draws=5, step=step, **SAMPLE_KW)
    assert step.is_pseudo_marginal
    ax = plot_proposals(step, n_states=2, rng=0)
    gids = {getattr(a, "get_gid", lambda: None)() for a in ax.get_children()}
    assert "target-histogram" in gids and "target-density" not in gids
    assert _true_gradient(SimpleNamespace(_logp=None), "auto") is None


@pytest.mark.parametrize("function", ["plot_proposals", "plot_trajectories"])
def test_missing_matplotlib_names_the_fix(monkeypatch, banana2, function):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    fn = {"plot_proposals": plot_proposals, "plot_trajectories": plot_trajectories}[function]
    with pytest.raises(ImportError, match=r'pip install "pymc-kameleon\[plot\]"'):
        fn(banana2[0])


# -----------------------------------------------------------------------------------------------
# KMC trajectories
def test_trajectories_are_leapfrog_paths(kmc_step):
    step = kmc_step
    start, p = np.array([0.5, -1.0]), np.array([1.0, 0.3])
    paths = kmc_trajectories(
        step, start, momentum=p, step_size=0.1, n_steps=12, true_gradient=gauss_grad
    )
    assert isinstance(paths, KMCTrajectories)
    assert (paths.step_size, paths.n_steps) == (0.1, 12)
    inv_mass = step.inv_mass_diag
    surrogate = leapfrog_path(start, p, step.surrogate_gradient, 0.1, 12, inv_mass)
    np.testing.assert_array_equal(paths.surrogate, surrogate)
    np.testing.assert_array_equal(
        paths.true, leapfrog_path(start, p, gauss_grad, 0.1, 12, inv_mass)
    )
    # the surrogate path ends where the step's own (compiled) trajectory ends
    np.testing.assert_allclose(
        paths.surrogate[-1], step.learner.trajectory(start, p, 0.1, 12).q, atol=1e-10
    )
    assert not np.allclose(paths.surrogate, paths.true)  # the surrogate is not the target


def test_auto_true_gradient_is_the_model_gradient(kmc_step):
    start, p = np.array([-0.3, 0.8]), np.array([0.2, -1.1])
    auto = kmc_trajectories(kmc_step, start, momentum=p, step_size=0.1, n_steps=20)
    exact = leapfrog_path(start, p, gauss_grad, 0.1, 20, kmc_step.inv_mass_diag)
    np.testing.assert_allclose(auto.true, exact, rtol=0, atol=1e-6)
    none = kmc_trajectories(kmc_step, start, momentum=p, true_gradient=None)
    assert none.true is None
    with pytest.raises(ValueError, match="true_gradient"):
        kmc_trajectories(kmc_step, start, true_gradient="exact")


def test_trajectory_defaults(kmc_step):
    step = kmc_step
    paths = kmc_trajectories(step, np.zeros(2), rng=5, true_gradient=None)
    expected = sample_momentum(np.random.default_rng(5), 2, step.inv_mass_diag)
    np.testing.assert_array_equal(paths.momentum, expected)
    assert paths.step_size == pytest.approx(np.mean(step.current_step_size_range))
    assert paths.n_steps == sum(step.n_steps_range) // 2
    assert paths.surrogate.shape == (paths.n_steps + 1, 2)


def test_true_path_conserves_the_hamiltonian(kmc_step):
    start, p = np.array([1.0, 1.0]), np.array([0.5, -0.5])
    paths = kmc_trajectories(kmc_step, start, momentum=p, step_size=0.02, n_steps=100)
    end = leapfrog(start, p, gauss_grad, 0.02, 100, kmc_step.inv_mass_diag)
    np.testing.assert_allclose(paths.true[-1], end.q, atol=1e-6)
    inv_mass = kmc_step.inv_mass_diag
    h0 = -gauss_logp(start) + kinetic_energy(p, inv_mass)
    h1 = -gauss_logp(paths.true[-1]) + kinetic_energy(end.p, inv_mass)
    assert abs(h1 - h0) < 1e-3
    assert np.linalg.norm(paths.true[-1] - start) > 0.5  # it did travel


def test_finite_differences_match_the_gradient():
    gradient = _finite_difference_gradient(gauss_logp)
    for q in np.random.default_rng(1).standard_normal((5, 2)) * 3.0:
        np.testing.assert_allclose(gradient(q), gauss_grad(q), rtol=1e-6, atol=1e-7)


def test_auto_gradient_falls_back_to_finite_differences_for_a_black_box():
    @as_op(itypes=[pt.dvector], otypes=[pt.dscalar])
    def black_box_logp(x):
        return np.array(gauss_logp(x))

    with pm.Model():
        x = pm.Flat("x", shape=2)
        pm.Potential("lik", black_box_logp(x))
        step = KMCStep()
    gradient = _true_gradient(step, "auto")
    for q in ([0.3, -0.2], [2.0, 1.5]):
        np.testing.assert_allclose(gradient(np.array(q)), gauss_grad(np.array(q)), rtol=1e-6)


def test_plotted_trajectories_carry_the_positions(kmc_step):
    step = kmc_step
    start, p = np.array([0.5, -1.0]), np.array([1.0, 0.3])
    kwargs = {"momentum": p, "step_size": 0.1, "n_steps": 12, "true_gradient": gauss_grad}
    ax = plot_trajectories(step, start, grid_size=GRID, **kwargs)
    paths = kmc_trajectories(step, start, **kwargs)
    np.testing.assert_array_equal(
        line_by_gid(ax, "surrogate-trajectory").get_xydata(), paths.surrogate
    )
    np.testing.assert_array_equal(line_by_gid(ax, "true-trajectory").get_xydata(), paths.true)
    np.testing.assert_array_equal(line_by_gid(ax, "start").get_xydata()[0], start)
    history = next(c for c in ax.collections if c.get_gid() == "history")
    np.testing.assert_array_equal(history.get_offsets(), step.surrogate.basis)
    gids = {getattr(a, "get_gid", lambda: None)() for a in ax.get_children()}
    assert {"surrogate-contours", "target-density"} <= gids
    assert line_by_gid(ax, "true-trajectory").get_linestyle() == "--"
    assert ax.get_legend() is not None


def test_plot_trajectories_defaults_and_existing_axes(kmc_step):
    fig, ax = plt.subplots()
    out = plot_trajectories(
        kmc_step,
        ax=ax,
        rng=0,
        true_gradient=None,
        show_surrogate=False,
        show_history=False,
        grid_size=GRID,
        coords=(1, 0),
    )
    assert out is ax
    np.testing.assert_array_equal(
        line_by_gid(ax, "start").get_xydata()[0], kmc_step.x_current[[1, 0]]
    )
    assert not [line for line in ax.lines if line.get_gid() == "true-trajectory"]
    gids = {getattr(a, "get_gid", lambda: None)() for a in ax.get_children()}
    assert "surrogate-contours" not in gids and "history" not in gids
    assert plot_trajectories(kmc_step, rng=0, grid_size=GRID).figure is not fig


def test_whitened_trajectories_are_leapfrog_paths_in_the_kernel_coordinates():
    with gaussian_model(GAUSS_COV):
        step = KMCStep(warmup="whitened", n_history=100, n_steps_range=(5, 15))
        pm.sample(tune=400, draws=20, step=step, **SAMPLE_KW)
    affine = step.kernel_map
    assert affine is not None and step.surrogate is not None
    start, p = np.array([0.5, -1.0]), np.array([1.0, 0.3])
    paths = kmc_trajectories(
        step, start, momentum=p, step_size=0.1, n_steps=12, true_gradient=gauss_grad
    )
    z_start = affine.to_kernel(start)
    expected = leapfrog_path(z_start, p, step.learner.gradient, 0.1, 12, step.inv_mass_diag)
    np.testing.assert_allclose(paths.surrogate[1:], (affine.shift + expected @ affine.matrix.T)[1:])
    np.testing.assert_array_equal(paths.surrogate[0], start)

    def true_in_z(z):
        return affine.matrix.T @ gauss_grad(affine.shift + affine.matrix @ z)

    expected = leapfrog_path(z_start, p, true_in_z, 0.1, 12, step.inv_mass_diag)
    np.testing.assert_allclose(paths.true[1:], (affine.shift + expected @ affine.matrix.T)[1:])
