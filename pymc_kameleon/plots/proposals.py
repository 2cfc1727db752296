"""Proposal ellipses of a Kameleon or adaptive-Metropolis step over the target (KAMH Figure 2).

The proposal is read from a step run in this process, or rebuilt from the result of ``pm.sample``
(InferenceData or DataTree: the frozen Kameleon kernel of one chain's draws).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
from scipy.stats import chi2

from pymc_kameleon._compat import is_sampling_result, posterior_dataset
from pymc_kameleon.core.bandwidth import median_heuristic
from pymc_kameleon.core.kernels import GaussianKernel
from pymc_kameleon.core.proposals import kameleon_covariance, random_walk_trace, scale_for_trace
from pymc_kameleon.plots import _step_access as access
from pymc_kameleon.plots._draw import (
    NOT_RUN,
    POINTS_STYLE,
    LogDensity,
    as_state,
    batched_log_density,
    check_coords,
    draw_background,
    finish_axes,
    limits_around,
    new_axes,
    pyplot,
)
from pymc_kameleon.step_methods.adaptive_mh import AdaptiveMHStep
from pymc_kameleon.step_methods.kameleon import KameleonStep
from pymc_kameleon.step_methods.kmc import KMCStep

__all__ = ["plot_proposals", "proposal_covariance", "proposal_ellipse"]

_MAX_IDATA_HISTORY = 1000
_AM_CLOUD_SIZE = 500


def proposal_ellipse(
    mean: np.ndarray, cov: np.ndarray, level: float = 0.95, n_points: int = 200
) -> np.ndarray:
    """Closed curve bounding the central ``level`` mass of a 2-D Gaussian.

    The curve is ``{mean + L u : |u| = sqrt(chi2.ppf(level, 2))}`` with ``L`` the lower Cholesky
    factor of ``cov``, i.e. the points of Mahalanobis radius ``sqrt(chi2.ppf(level, 2))``.

    Parameters
    ----------
    mean : numpy.ndarray, shape (2,)
        Centre of the Gaussian.
    cov : numpy.ndarray, shape (2, 2)
        Symmetric positive definite covariance (for a marginal of a d-dimensional proposal, the
        sub-block ``cov[np.ix_(coords, coords)]``).
    level : float, default 0.95
        Probability mass inside the curve, in (0, 1).
    n_points : int, default 200
        Number of points (>= 3); the first and last coincide, so the curve is closed.

    Returns
    -------
    numpy.ndarray, shape (n_points, 2)
        Points of the curve, in order around it.
    """
    mean, cov = np.asarray(mean, dtype=float), np.asarray(cov, dtype=float)
    if mean.shape != (2,) or cov.shape != (2, 2):
        raise ValueError(
            f"proposal_ellipse needs a mean of shape (2,) and a cov of shape (2, 2), got "
            f"{mean.shape} and {cov.shape}; take the plotted coordinates, cov[np.ix_(i, j)]."
        )
    if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(cov))):
        raise ValueError("proposal_ellipse: mean and cov must be finite.")
    if not np.allclose(cov, cov.T, rtol=1e-8, atol=1e-12 * np.abs(cov).max()):
        raise ValueError(f"proposal_ellipse: cov must be symmetric, got {cov.tolist()}.")
    if not (isinstance(level, int | float | np.floating) and 0.0 < level < 1.0):
        raise ValueError(f"`level` must be a probability strictly between 0 and 1, got {level!r}.")
    if isinstance(n_points, bool) or not isinstance(n_points, int | np.integer) or n_points < 3:
        raise ValueError(f"`n_points` must be an integer >= 3, got {n_points!r}.")
    try:
        chol = np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        raise ValueError(
            f"proposal_ellipse: cov is not positive definite: {cov.tolist()}."
        ) from None
    angles = np.linspace(0.0, 2.0 * np.pi, int(n_points))
    circle = math.sqrt(chi2.ppf(level, 2)) * np.column_stack([np.cos(angles), np.sin(angles)])
    return mean + circle @ chol.T


def proposal_covariance(step: AdaptiveMHStep, x: np.ndarray) -> np.ndarray:
    """Covariance ``gamma^2 I + scaling * S(x)`` of the proposal a run step would use at ``x``.

    The step's own :meth:`~pymc_kameleon.KameleonStep.proposal_covariance`, after checking that
    the step holds a learned proposal in this process.

    Parameters
    ----------
    step : KameleonStep or AdaptiveMetropolis
        A step that has been run in this process (see :func:`plot_proposals`).
    x : numpy.ndarray, shape (d,)
        State of the sampled (raveled, transformed) space.

    Returns
    -------
    numpy.ndarray, shape (d, d)
        The proposal covariance at ``x``.
    """
    _check_proposal_step(step)
    return step.proposal_covariance(as_state(x, step.dim, "x"))


@dataclass
class _ProposalView:
    """What :func:`plot_proposals` needs, from a run step or from a sampling result."""

    covariance: Callable[[np.ndarray], np.ndarray]
    dim: int
    history: np.ndarray | None  # points that shaped the proposal (scattered)
    cloud: np.ndarray  # points standing for the target: default states, limits, histogram
    center: np.ndarray  # where the 2-D slice of the density fixes the other coordinates
    log_density: LogDensity | None


def _check_proposal_step(step: Any) -> None:
    if not isinstance(step, AdaptiveMHStep) or isinstance(step, KMCStep):
        raise TypeError(
            "expected a KameleonStep or AdaptiveMetropolis (for a KMCStep use "
            f"plot_trajectories), got {type(step).__name__}."
        )
    no_subsample = isinstance(step, KameleonStep) and access.history_subsample(step) is None
    if access.current_state(step) is None or no_subsample:
        raise ValueError(
            f"{type(step).__name__} holds no learned proposal in this process (it has not been "
            "run here, or a KameleonStep ran fewer than adapt_start iterations). "
            + NOT_RUN.format(
                alternative=", or pass the InferenceData (or DataTree) returned by pm.sample"
            )
        )


def _step_view(step: AdaptiveMHStep, rng: np.random.Generator) -> _ProposalView:
    _check_proposal_step(step)
    covariance = partial(proposal_covariance, step)
    log_density = batched_log_density(access.compiled_log_density(step))
    z = access.history_subsample(step)
    if z is not None:
        z = np.array(z, dtype=float)
        return _ProposalView(covariance, step.dim, z, z, z.mean(axis=0), log_density)
    # state-independent (adaptive Metropolis): stand-in points from its estimate of the target
    mean, covariance_now = access.target_stand_in(step)
    cloud = rng.multivariate_normal(mean, covariance_now, size=_AM_CLOUD_SIZE)
    return _ProposalView(covariance, step.dim, None, cloud, mean, log_density)


def _idata_view(
    idata: Any, gamma: float, chain: int, var_names: Sequence[str] | None, rng: np.random.Generator
) -> _ProposalView:
    gamma = float(gamma)
    if not (math.isfinite(gamma) and gamma >= 0.0):
        raise ValueError(f"`gamma` must be a finite number >= 0, got {gamma!r}.")
    posterior = posterior_dataset(idata, "posterior", reader="plot_proposals")
    names = list(posterior.data_vars) if var_names is None else list(var_names)
    blocks = [posterior[name].transpose("chain", "draw", ...).values for name in names]
    if not -len(blocks[0]) <= chain < len(blocks[0]):
        raise ValueError(f"`chain` {chain} is out of range: the posterior has {len(blocks[0])}.")
    draws = np.column_stack([np.reshape(b[chain], (b.shape[1], -1)) for b in blocks])
    draws = draws[np.all(np.isfinite(draws), axis=1)].astype(float)
    if draws.shape[0] < 2:
        raise ValueError(f"chain {chain} of the posterior has fewer than 2 finite draws.")
    rows = rng.choice(draws.shape[0], size=min(draws.shape[0], _MAX_IDATA_HISTORY), replace=False)
    z = draws[np.sort(rows)]
    bandwidth = _last_stat(idata, "bandwidth", chain) or median_heuristic(z, rng=rng)
    kernel = GaussianKernel(bandwidth)
    nu2 = _last_stat(idata, "scaling", chain)
    if nu2 is None:  # as KameleonStep when it first uses its history: match the trace
        nu2 = scale_for_trace(draws[-1], z, kernel, random_walk_trace(z)) or 1.0
    covariance = partial(kameleon_covariance, history=z, kernel=kernel, gamma2=gamma**2, nu2=nu2)
    return _ProposalView(covariance, z.shape[1], z, draws, z.mean(axis=0), None)


def _last_stat(idata: Any, name: str, chain: int) -> float | None:
    """Last value of a positive sampler stat of one chain, or None if absent or invalid."""
    try:
        stats = posterior_dataset(idata, "sample_stats")
        values = np.asarray(stats[name].values, dtype=float)[chain]
    except (KeyError, TypeError, AttributeError):
        return None
    value = float(values.reshape(-1)[-1])
    return value if math.isfinite(value) and value > 0.0 else None


def _spread_states(points: np.ndarray, coord: int, n_states: int) -> np.ndarray:
    """``n_states`` rows of ``points`` at evenly spaced quantiles of coordinate ``coord``."""
    if isinstance(n_states, bool) or not isinstance(n_states, int | np.integer) or n_states < 1:
        raise ValueError(f"`n_states` must be a positive integer, got {n_states!r}.")
    order = np.argsort(points[:, coord], kind="stable")
    ranks = ((np.arange(n_states) + 0.5) / n_states * len(order)).astype(int)
    return points[order[ranks]]


def plot_proposals(
    step_or_idata: Any,
    states: np.ndarray | None = None,
    *,
    coords: Sequence[int] = (0, 1),
    level: float = 0.95,
    n_states: int = 4,
    logp: LogDensity | None = None,
    show_history: bool = True,
    ax: Any = None,
    gamma: float = 0.2,
    chain: int = -1,
    var_names: Sequence[str] | None = None,
    rng: int | np.random.Generator | None = None,
    grid_size: int = 100,
) -> Any:
    """Proposal ellipses at a few states over the target (Figure 2 of the KAMH paper).

    Each ellipse holds ``level`` of the mass of the proposal's marginal in the two plotted
    coordinates (the 2 x 2 sub-block of its covariance). The history subsample ``z`` that bends a
    Kameleon proposal is scattered on top. Lines carry gids ``"proposal-0"``, ``"proposal-1"``,
    ... (states ``"state-i"``), the history ``"history"``. The axes span the history (or the
    draws), the states and their ellipses.

    Parameters
    ----------
    step_or_idata : KameleonStep, AdaptiveMetropolis, InferenceData or DataTree
        A step run in this process with ``pm.sample(..., cores=1)``: it holds the frozen proposal of
        the last chain (with ``cores > 1`` the chains ran in worker processes and a ValueError says
        so). Or the result of ``pm.sample`` (ArviZ 0.x ``InferenceData``, ``xarray.DataTree`` from
        PyMC 6, or a dict of group name to ``xarray.Dataset``, with a ``posterior`` and optionally a
        ``sample_stats`` group): the frozen Kameleon proposal is then rebuilt from one chain's draws
        as history subsample (at most 1000 rows, chosen with ``rng``), a Gaussian kernel of that
        chain's last ``bandwidth`` stat (the median heuristic if absent) and its last ``scaling``
        stat as ``nu^2`` (if absent, set as KameleonStep does: the kernel term at the last draw has
        trace ``2.38^2/d`` times that of the subsample's covariance), and ``gamma``. This is the
        frozen kernel rebuilt from the kept draws, not the exact subsample the chain used, and it
        lives in the coordinates stored in the posterior (constrained space), which are the sampled
        ones only for unconstrained variables.
    states : numpy.ndarray of shape (k, d), optional
        Full states at which to draw the proposal. Default: ``n_states`` rows of the history
        subsample (for adaptive Metropolis, of points drawn with ``rng`` from the Gaussian of
        its running mean and covariance) at evenly spaced quantiles of coordinate ``coords[0]``.
    coords : pair of int, default (0, 1)
        Indices of the plotted coordinates in the raveled state.
    level : float, default 0.95
        Probability mass inside each ellipse.
    n_states : int, default 4
        Number of states when ``states`` is None.
    logp : callable, optional
        ``logp(states) -> log-densities``, mapping an ``(m, d)`` array of full states to ``(m,)``
        values, for the background. Default: the step's compiled log-density. The background is
        a 2-D slice through the mean of the history subsample (the other coordinates fixed
        there); without a log-density (sampling result, pseudo-marginal model) it is a histogram
        of the draws or the history.
    show_history : bool, default True
        Scatter the history subsample.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure by default.
    gamma : float, default 0.2
        Sampling result only: standard deviation of the isotropic term (KameleonStep's default).
    chain : int, default -1
        Sampling result only: position of the chain along the ``chain`` dimension. The default,
        the last chain, is the one a step sampled with ``cores=1`` holds.
    var_names : sequence of str, optional
        Sampling result only: posterior variables forming the state, each raveled, concatenated in
        this order; default all of them.
    rng : int or numpy.random.Generator, optional
        Seed or generator (:func:`numpy.random.default_rng`) for the random choices.
    grid_size : int, default 100
        Grid points per axis for the background density.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    plt = pyplot()
    rng = np.random.default_rng(rng)
    if isinstance(step_or_idata, AdaptiveMHStep):
        view = _step_view(step_or_idata, rng)
    elif is_sampling_result(step_or_idata):
        view = _idata_view(step_or_idata, gamma, chain, var_names, rng)
    else:
        raise TypeError(
            "plot_proposals expects a run KameleonStep or AdaptiveMetropolis, or the result of "
            "pm.sample (an arviz.InferenceData, an xarray.DataTree or a dict of xarray.Dataset "
            f"groups); got {type(step_or_idata).__name__} (for a KMCStep, use plot_trajectories)."
        )
    coords = check_coords(coords, view.dim)
    if states is None:
        points = view.history if view.history is not None else view.cloud
        states = _spread_states(points, coords[0], n_states)
    states = np.array([as_state(s, view.dim, "states") for s in np.atleast_2d(states)])
    block = np.ix_(coords, coords)
    curves = [proposal_ellipse(s[list(coords)], view.covariance(s)[block], level) for s in states]
    limits = limits_around([view.cloud[:, coords], states[:, coords], *curves])
    ax = new_axes(plt, ax)
    log_density = logp if logp is not None else view.log_density
    draw_background(ax, log_density, view.center, view.cloud, coords, limits, grid_size)
    if show_history and view.history is not None:
        ax.scatter(*view.history[:, coords].T, label="history z", **POINTS_STYLE)
    for i, (state, curve) in enumerate(zip(states[:, coords], curves, strict=True)):
        labels = (f"{100 * level:g}% proposal", "state") if i == 0 else ("_nolegend_",) * 2
        (line,) = ax.plot(*curve.T, lw=1.6, gid=f"proposal-{i}", label=labels[0])
        ax.plot(*state, "o", color=line.get_color(), gid=f"state-{i}", label=labels[1])
    finish_axes(ax, coords, limits)
    return ax
