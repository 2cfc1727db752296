"""Pictures of what the adaptive steps learned: Kameleon proposals and KMC trajectories.

:func:`plot_proposals` draws the proposal ellipses of a :class:`~pymc_kameleon.KameleonStep` (or
:class:`~pymc_kameleon.AdaptiveMetropolis`) at a few states over the target, with the history
subsample that bends them (Figure 2 of Sejdinovic et al., 2014). :func:`plot_trajectories` draws
a leapfrog trajectory of a :class:`~pymc_kameleon.KMCStep` on its surrogate gradient next to the
one on the true gradient (the idea of Figure 1 of Strathmann et al., 2015).

Every state here is a point of the sampled space: the step's variables raveled and concatenated in
the order of ``step.vars``, on the transformed scale. Plots show two coordinates ``x[i]``,
``x[j]`` of it. Matplotlib is optional: ``pip install "pymc-kameleon[plot]"``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, NamedTuple

import numpy as np
from scipy.stats import chi2

from pymc_kameleon._compat import compile_pytensor
from pymc_kameleon.core.bandwidth import median_heuristic
from pymc_kameleon.core.kernels import GaussianKernel
from pymc_kameleon.core.leapfrog import leapfrog_path, sample_momentum
from pymc_kameleon.core.proposals import kameleon_covariance, random_walk_trace, scale_for_trace
from pymc_kameleon.step_methods.adaptive_mh import AdaptiveMHStep
from pymc_kameleon.step_methods.kameleon import KameleonStep

__all__ = [
    "KMCTrajectories",
    "kmc_trajectories",
    "plot_proposals",
    "plot_trajectories",
    "proposal_covariance",
    "proposal_ellipse",
]

_INSTALL_HINT = 'pip install "pymc-kameleon[plot]"'
_NOT_RUN = (
    "pm.sample(..., cores>1) runs the chains in worker processes, so the step object passed to "
    "it is never run in this process. Sample with cores=1 (the step then holds the final state "
    "of the last chain){alternative}."
)
_MAX_IDATA_HISTORY = 1000
_AM_CLOUD_SIZE = 500
_FD_STEP = np.finfo(float).eps ** (1.0 / 3.0)  # relative step of central differences
_POINTS_STYLE = {"s": 6, "c": "0.25", "alpha": 0.6, "gid": "history"}
LogDensity = Callable[[np.ndarray], np.ndarray]


def _pyplot() -> Any:
    """Import ``matplotlib.pyplot``, or say how to install it."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as err:
        raise ImportError(f"pymc_kameleon.plots needs matplotlib: {_INSTALL_HINT}") from err
    return plt


# ------------------------------------------------------------------------------------------------
# proposal geometry
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
    return step.proposal_covariance(_as_state(x, step.dim, "x"))


@dataclass
class _ProposalView:
    """What :func:`plot_proposals` needs, from a run step or from an InferenceData."""

    covariance: Callable[[np.ndarray], np.ndarray]
    dim: int
    history: np.ndarray | None  # points that shaped the proposal (scattered)
    cloud: np.ndarray  # points standing for the target: default states, limits, histogram
    center: np.ndarray  # where the 2-D slice of the density fixes the other coordinates
    log_density: LogDensity | None


def _check_proposal_step(step: Any) -> None:
    if not isinstance(step, AdaptiveMHStep):
        raise TypeError(
            "expected a KameleonStep or AdaptiveMetropolis (for a KMCStep use "
            f"plot_trajectories), got {type(step).__name__}."
        )
    if step.x_current is None or (isinstance(step, KameleonStep) and step.z is None):
        raise ValueError(
            f"{type(step).__name__} holds no learned proposal in this process (it has not been "
            "run here, or a KameleonStep ran fewer than adapt_start iterations). "
            + _NOT_RUN.format(alternative=", or pass the InferenceData returned by pm.sample")
        )


def _step_view(step: AdaptiveMHStep, rng: np.random.Generator) -> _ProposalView:
    _check_proposal_step(step)
    covariance = partial(proposal_covariance, step)
    z = getattr(step, "z", None)
    if z is not None:
        z = np.array(z, dtype=float)
        return _ProposalView(covariance, step.dim, z, z, z.mean(axis=0), _step_log_density(step))
    # state-independent (adaptive Metropolis): stand-in points from the running moments
    moments = getattr(step, "moments", None)
    mean = moments.mean if moments is not None and moments.count > 0 else step.x_current
    cloud = rng.multivariate_normal(mean, step._scatter(step.x_current), size=_AM_CLOUD_SIZE)
    return _ProposalView(covariance, step.dim, None, cloud, mean, _step_log_density(step))


def _idata_view(
    idata: Any, gamma: float, chain: int, var_names: Sequence[str] | None, rng: np.random.Generator
) -> _ProposalView:
    gamma = float(gamma)
    if not (math.isfinite(gamma) and gamma >= 0.0):
        raise ValueError(f"`gamma` must be a finite number >= 0, got {gamma!r}.")
    posterior = idata["posterior"]
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
        values = np.asarray(idata["sample_stats"][name].values, dtype=float)[chain]
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


# ------------------------------------------------------------------------------------------------
# shared drawing helpers
def _as_state(x: Any, dim: int, name: str) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    if x.shape != (dim,) or not np.all(np.isfinite(x)):
        raise ValueError(f"`{name}` must be a finite state of shape ({dim},), got {x.shape}.")
    return x


def _check_coords(coords: Sequence[int], dim: int) -> tuple[int, int]:
    try:
        i, j = (int(c) for c in coords)
    except (TypeError, ValueError):
        raise ValueError(f"`coords` must be two coordinate indices, got {coords!r}.") from None
    if i == j or not (0 <= i < dim and 0 <= j < dim):
        raise ValueError(f"`coords` must be two distinct indices in [0, {dim}), got {coords!r}.")
    return i, j


def _step_log_density(step: Any) -> LogDensity | None:
    """The step's compiled log-density as an ``(m, d) -> (m,)`` map; None if pseudo-marginal."""
    fn = getattr(step, "_logp", None)
    if fn is None:
        return None
    dtype = fn.maker.inputs[0].variable.dtype
    return lambda states: np.array([float(fn(np.asarray(s, dtype=dtype))) for s in states])


def _limits(points: Sequence[np.ndarray], margin: float = 0.08) -> np.ndarray:
    """Axis limits ``[[x0, x1], [y0, y1]]`` around 2-D point sets, widened by ``margin``."""
    stacked = np.vstack([p for p in points if p is not None and len(p)])
    low, high = stacked.min(axis=0), stacked.max(axis=0)
    span = np.where(high > low, high - low, 1.0)
    return np.column_stack([low - margin * span, high + margin * span])


def _on_slice(
    fn: LogDensity, center: np.ndarray, coords: tuple[int, int], limits: np.ndarray, size: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Evaluate ``fn`` on a grid over the plotted coordinates, the others fixed at ``center``."""
    gx, gy = np.meshgrid(np.linspace(*limits[0], size), np.linspace(*limits[1], size))
    states = np.tile(np.asarray(center, dtype=float), (gx.size, 1))
    states[:, coords[0]], states[:, coords[1]] = gx.ravel(), gy.ravel()
    values = np.asarray(fn(states), dtype=float)
    if values.size != gx.size:
        raise ValueError("`logp` must map an (m, d) array of states to m log-densities.")
    return gx, gy, values.reshape(gx.shape)


def _draw_background(ax, log_density, center, cloud, coords, limits, grid_size) -> None:
    """Filled contours of the target density on a 2-D slice, else a histogram of ``cloud``."""
    if log_density is not None:
        gx, gy, values = _on_slice(log_density, center, coords, limits, grid_size)
        finite = np.isfinite(values)
        if finite.any():
            density = np.where(finite, np.exp(values - values[finite].max()), 0.0)
            ax.contourf(gx, gy, density, levels=12, cmap="Blues").set_gid("target-density")
            return
    if cloud is not None and len(cloud) > 1:
        cloud = cloud[:, coords]
        image = ax.hist2d(cloud[:, 0], cloud[:, 1], bins=40, range=limits, cmap="Blues")[3]
        image.set_gid("target-histogram")


def _finish(ax, coords: tuple[int, int], limits: np.ndarray) -> None:
    ax.set_xlim(*limits[0])
    ax.set_ylim(*limits[1])
    ax.set_xlabel(f"x[{coords[0]}]")
    ax.set_ylabel(f"x[{coords[1]}]")
    ax.legend(loc="best", fontsize="small")


def _new_axes(plt: Any, ax: Any) -> Any:
    return plt.subplots(figsize=(6.0, 5.0))[1] if ax is None else ax


# ------------------------------------------------------------------------------------------------
# Kameleon proposals
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
    step_or_idata : KameleonStep, AdaptiveMetropolis or InferenceData
        A step run in this process with ``pm.sample(..., cores=1)``: it holds the frozen proposal
        of the last chain (with ``cores > 1`` the chains ran in worker processes and a
        ValueError says so). Or the result of ``pm.sample`` (anything with ``["posterior"]`` and
        ``["sample_stats"]``): the frozen Kameleon proposal is then rebuilt from one chain's
        draws as history subsample (at most 1000 rows, chosen with ``rng``), a Gaussian kernel of
        that chain's last ``bandwidth`` stat (the median heuristic if absent) and its last
        ``scaling`` stat as ``nu^2`` (if absent, set as KameleonStep does: the kernel term at
        the last draw has trace ``2.38^2/d`` times that of the subsample's covariance), and
        ``gamma``. This is the frozen kernel rebuilt from the kept draws, not the exact subsample
        the chain used, and it lives in the coordinates stored in the posterior (constrained
        space), which are the sampled ones only for unconstrained variables.
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
        there); without a log-density (InferenceData, pseudo-marginal model) it is a histogram
        of the draws or the history.
    show_history : bool, default True
        Scatter the history subsample.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure by default.
    gamma : float, default 0.2
        InferenceData only: standard deviation of the isotropic term (KameleonStep's default).
    chain : int, default -1
        InferenceData only: position of the chain along the ``chain`` dimension. The default,
        the last chain, is the one a step sampled with ``cores=1`` holds.
    var_names : sequence of str, optional
        InferenceData only: posterior variables forming the state, each raveled, concatenated in
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
    plt = _pyplot()
    rng = np.random.default_rng(rng)
    if isinstance(step_or_idata, AdaptiveMHStep):
        view = _step_view(step_or_idata, rng)
    else:
        try:
            step_or_idata["posterior"]
        except (KeyError, TypeError, AttributeError):
            raise TypeError(
                "plot_proposals expects a run KameleonStep or AdaptiveMetropolis, or the "
                f"InferenceData from pm.sample; got {type(step_or_idata).__name__} (for a "
                "KMCStep, use plot_trajectories)."
            ) from None
        view = _idata_view(step_or_idata, gamma, chain, var_names, rng)
    coords = _check_coords(coords, view.dim)
    if states is None:
        points = view.history if view.history is not None else view.cloud
        states = _spread_states(points, coords[0], n_states)
    states = np.array([_as_state(s, view.dim, "states") for s in np.atleast_2d(states)])
    block = np.ix_(coords, coords)
    curves = [proposal_ellipse(s[list(coords)], view.covariance(s)[block], level) for s in states]
    limits = _limits([view.cloud[:, coords], states[:, coords], *curves])
    ax = _new_axes(plt, ax)
    log_density = logp if logp is not None else view.log_density
    _draw_background(ax, log_density, view.center, view.cloud, coords, limits, grid_size)
    if show_history and view.history is not None:
        ax.scatter(*view.history[:, coords].T, label="history z", **_POINTS_STYLE)
    for i, (state, curve) in enumerate(zip(states[:, coords], curves, strict=True)):
        labels = (f"{100 * level:g}% proposal", "state") if i == 0 else ("_nolegend_",) * 2
        (line,) = ax.plot(*curve.T, lw=1.6, gid=f"proposal-{i}", label=labels[0])
        ax.plot(*state, "o", color=line.get_color(), gid=f"state-{i}", label=labels[1])
    _finish(ax, coords, limits)
    return ax


# ------------------------------------------------------------------------------------------------
# KMC trajectories
class KMCTrajectories(NamedTuple):
    """Two leapfrog paths from the same start and momentum (see :func:`kmc_trajectories`).

    The paths have ``n_steps + 1`` rows, the start included, unless a path left the finite
    numbers (it then stops at its last finite position).

    Parameters
    ----------
    surrogate : numpy.ndarray, shape (n_steps + 1, d)
        Positions along the step's surrogate gradient.
    true : numpy.ndarray of shape (n_steps + 1, d), or None
        Positions along the true gradient; None if none was available or asked for.
    momentum : numpy.ndarray, shape (d,)
        Initial momentum.
    step_size : float
        Leapfrog step size.
    n_steps : int
        Number of leapfrog steps.
    """

    surrogate: np.ndarray
    true: np.ndarray | None
    momentum: np.ndarray
    step_size: float
    n_steps: int


def _check_kmc_step(step: Any) -> None:
    if not hasattr(step, "surrogate_gradient"):
        raise TypeError(f"expected a KMCStep, got {type(step).__name__}.")
    if step.surrogate is None:
        raise ValueError(
            "KMCStep has no fitted surrogate in this process (it has not been run here, or it "
            "learned fewer than adapt_start states). "
            + _NOT_RUN.format(alternative=" and tune longer than adapt_start")
        )


def _compiled_gradient(logp_fn: Any) -> Callable[[np.ndarray], np.ndarray] | None:
    """Gradient of the step's log-density graph w.r.t. its raveled input; None if impossible."""
    import pytensor

    variable = logp_fn.maker.inputs[0].variable
    try:
        grad = pytensor.grad(logp_fn.maker.outputs[0].variable, variable)
    except (NotImplementedError, TypeError, ValueError):  # an Op without grad, a null gradient
        return None
    fn = compile_pytensor([variable], grad)
    return lambda q: np.asarray(fn(np.asarray(q, dtype=variable.dtype)), dtype=float)


def _finite_difference_gradient(
    log_density: Callable[[np.ndarray], float],
) -> Callable[[np.ndarray], np.ndarray]:
    """Central-difference gradient, step ``eps^(1/3) * max(1, |q_i|)`` per coordinate."""

    def gradient(q: np.ndarray) -> np.ndarray:
        q = np.asarray(q, dtype=float)
        steps = _FD_STEP * np.maximum(1.0, np.abs(q))
        grad = np.empty_like(q)
        for i, h in enumerate(steps):
            shift = np.zeros_like(q)
            shift[i] = h
            grad[i] = (log_density(q + shift) - log_density(q - shift)) / (2.0 * h)
        return grad

    return gradient


def _true_gradient(step: Any, true_gradient: Any) -> Callable[[np.ndarray], np.ndarray] | None:
    if true_gradient is None or callable(true_gradient):
        return true_gradient
    if not (isinstance(true_gradient, str) and true_gradient == "auto"):
        raise ValueError(
            f"`true_gradient` must be 'auto', a callable or None, got {true_gradient!r}."
        )
    fn = getattr(step, "_logp", None)
    if fn is None:  # pseudo-marginal: no deterministic log-density to differentiate
        return None
    compiled = _compiled_gradient(fn)
    if compiled is not None:
        return compiled
    dtype = fn.maker.inputs[0].variable.dtype
    return _finite_difference_gradient(lambda q: float(fn(np.asarray(q, dtype=dtype))))


def kmc_trajectories(
    step: Any,
    start: np.ndarray,
    *,
    momentum: np.ndarray | None = None,
    step_size: float | None = None,
    n_steps: int | None = None,
    true_gradient: Any = "auto",
    rng: int | np.random.Generator | None = None,
) -> KMCTrajectories:
    """Leapfrog paths of a run KMCStep on its surrogate gradient and on the true gradient.

    Both paths start from the same position and momentum and use the step's inverse mass
    (:func:`~pymc_kameleon.core.leapfrog.leapfrog_path`). The surrogate path follows
    ``step.surrogate_gradient`` (scaled by the calibrated ``surrogate_scale``), as the step's
    own trajectories do.

    Parameters
    ----------
    step : KMCStep
        A step run in this process (``pm.sample(..., cores=1)``; it holds the last chain's
        surrogate). With ``cores > 1`` it has no surrogate and a ValueError says so.
    start : numpy.ndarray, shape (d,)
        Start position in the sampled (raveled, transformed) space.
    momentum : numpy.ndarray of shape (d,), optional
        Initial momentum; default a draw from ``N(0, M)`` with the step's mass.
    step_size : float, optional
        Default: the midpoint of ``step.current_step_size_range``.
    n_steps : int, optional
        Default: the midpoint of ``step.n_steps_range`` (rounded down).
    true_gradient : "auto", callable or None, default "auto"
        ``fn(q) -> gradient`` of the target log-density, ``(d,) -> (d,)``. ``"auto"``
        differentiates the step's log-density graph with PyTensor (same variables, same order),
        or, if an Op of the model has no gradient, uses central finite differences of the
        compiled log-density (``2 d`` evaluations per gradient). For a pseudo-marginal model
        (a stochastic likelihood estimate) there is no true path: ``true`` is None. None: no
        true path.
    rng : int or numpy.random.Generator, optional
        Seed or generator (:func:`numpy.random.default_rng`) for the momentum.

    Returns
    -------
    KMCTrajectories
        ``(surrogate, true, momentum, step_size, n_steps)``.
    """
    _check_kmc_step(step)
    start = _as_state(start, step.dim, "start")
    inv_mass = step.inv_mass_diag
    if momentum is None:
        momentum = sample_momentum(np.random.default_rng(rng), step.dim, inv_mass)
    momentum = _as_state(momentum, step.dim, "momentum")
    step_size = 0.5 * sum(step.current_step_size_range) if step_size is None else step_size
    n_steps = sum(step.n_steps_range) // 2 if n_steps is None else n_steps
    path = partial(
        leapfrog_path, start, momentum, step_size=step_size, n_steps=n_steps, inv_mass_diag=inv_mass
    )
    gradient = _true_gradient(step, true_gradient)
    true = None if gradient is None else path(gradient)
    return KMCTrajectories(
        path(step.surrogate_gradient), true, momentum, float(step_size), int(n_steps)
    )


def _fitted_points(step: Any) -> np.ndarray | None:
    """The lite surrogate's basis, else the stored history (the finite fit's data), else None."""
    basis = getattr(step.surrogate, "basis", None)
    if basis is not None:
        return np.asarray(basis, dtype=float)
    history = getattr(step, "history", None)
    if history is not None and history.size > 0:
        return np.array(history.values[: history.size], dtype=float)
    return None


def plot_trajectories(
    step: Any,
    start: np.ndarray | None = None,
    *,
    coords: Sequence[int] = (0, 1),
    momentum: np.ndarray | None = None,
    step_size: float | None = None,
    n_steps: int | None = None,
    true_gradient: Any = "auto",
    logp: LogDensity | None = None,
    show_history: bool = True,
    show_surrogate: bool = True,
    ax: Any = None,
    rng: int | np.random.Generator | None = None,
    grid_size: int = 100,
) -> Any:
    """A KMC trajectory on the surrogate gradient next to one on the true gradient.

    Over the target density (filled contours on a 2-D slice, as in :func:`plot_proposals`),
    with dashed contours of the surrogate log-density ``surrogate_scale * f`` on the same slice,
    draws the surrogate path (solid, gid ``"surrogate-trajectory"``), the true-gradient path
    (dashed, gid ``"true-trajectory"``), the start (gid ``"start"``) and the points the surrogate
    was fitted on (gid ``"history"``: the lite basis, or the stored history for the finite
    estimator). The slice fixes the other coordinates at the mean of those points.

    Parameters
    ----------
    step : KMCStep
        A step run in this process (see :func:`kmc_trajectories`).
    start : numpy.ndarray of shape (d,), optional
        Start position; default the step's current state.
    coords : pair of int, default (0, 1)
        Indices of the plotted coordinates in the raveled state.
    momentum : numpy.ndarray of shape (d,), optional
        Initial momentum (see :func:`kmc_trajectories`).
    step_size : float, optional
        Leapfrog step size (see :func:`kmc_trajectories`).
    n_steps : int, optional
        Number of leapfrog steps (see :func:`kmc_trajectories`).
    true_gradient : "auto", callable or None, default "auto"
        Gradient for the true path (see :func:`kmc_trajectories`).
    logp : callable, optional
        ``logp(states)``, ``(m, d) -> (m,)`` log-densities, for the background; default the
        step's compiled log-density (a histogram of the fitted points for pseudo-marginal models).
    show_history : bool, default True
        Scatter the points the surrogate was fitted on.
    show_surrogate : bool, default True
        Draw dashed contours of the surrogate log-density (gid ``"surrogate-contours"``).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure by default.
    rng : int or numpy.random.Generator, optional
        Seed or generator for the default momentum.
    grid_size : int, default 100
        Grid points per axis for the background and surrogate contours.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    plt = _pyplot()
    _check_kmc_step(step)
    start = step.x_current if start is None else start
    path_kwargs = {"step_size": step_size, "n_steps": n_steps, "true_gradient": true_gradient}
    paths = kmc_trajectories(step, start, momentum=momentum, rng=rng, **path_kwargs)
    coords = _check_coords(coords, step.dim)
    fitted = _fitted_points(step)
    center = paths.surrogate[0] if fitted is None else fitted.mean(axis=0)
    shown = [paths.surrogate, paths.true, fitted]
    limits = _limits([p[:, coords] for p in shown if p is not None])
    ax = _new_axes(plt, ax)
    log_density = logp if logp is not None else _step_log_density(step)
    _draw_background(ax, log_density, center, fitted, coords, limits, grid_size)
    if show_surrogate:
        _draw_surrogate_contours(ax, step, center, coords, limits, grid_size)
    if show_history and fitted is not None:
        ax.scatter(*fitted[:, coords].T, label="surrogate fitted on", **_POINTS_STYLE)
    surrogate_xy = paths.surrogate[:, coords]
    ax.plot(*surrogate_xy.T, "-o", ms=3, c="C1", gid="surrogate-trajectory", label="surrogate")
    if paths.true is not None:
        ax.plot(*paths.true[:, coords].T, "--", c="C3", gid="true-trajectory", label="true")
    ax.plot(*surrogate_xy[0], "*", ms=12, c="k", gid="start", label="start")
    _finish(ax, coords, limits)
    return ax


def _draw_surrogate_contours(ax, step, center, coords, limits, grid_size) -> None:
    surrogate, scale = step.surrogate, step.surrogate_scale

    def values(states: np.ndarray) -> np.ndarray:
        return scale * np.array([float(surrogate.value(s)) for s in states])

    gx, gy, f = _on_slice(values, center, coords, limits, grid_size)
    if np.all(np.isfinite(f)) and np.ptp(f) > 0.0:
        contours = ax.contour(gx, gy, f, levels=10, colors="0.15", linestyles="dashed")
        contours.set_gid("surrogate-contours")
