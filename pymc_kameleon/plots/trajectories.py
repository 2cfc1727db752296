"""KMC trajectories: a leapfrog path on the surrogate gradient next to one on the true gradient.

The idea of Figure 1 of Strathmann et al. (2015), drawn for a :class:`~pymc_kameleon.KMCStep`
run in this process.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, NamedTuple

import numpy as np

from pymc_kameleon._compat import compile_pytensor
from pymc_kameleon.core.hamiltonian import leapfrog_path, sample_momentum
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
    on_slice,
    pyplot,
)

__all__ = ["KMCTrajectories", "kmc_trajectories", "plot_trajectories"]

_FD_STEP = np.finfo(float).eps ** (1.0 / 3.0)  # relative step of central differences


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
    if access.surrogate(step) is None:
        raise ValueError(
            "KMCStep has no fitted surrogate in this process (it has not been run here, or it "
            "learned fewer than adapt_start states). "
            + NOT_RUN.format(alternative=" and tune longer than adapt_start")
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
    fn = access.compiled_log_density(step)
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
    (:func:`~pymc_kameleon.core.hamiltonian.leapfrog_path`). The surrogate path follows
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
        Initial momentum; default a draw from ``N(0, M)`` with the step's mass. For a step
        with ``warmup="whitened"`` the momentum, mass and step size are in its kernel
        coordinates (``step.kernel_map``), where the paths are integrated before being mapped
        back.
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
    start = as_state(start, step.dim, "start")
    inv_mass = access.inverse_mass(step)
    if momentum is None:
        momentum = sample_momentum(np.random.default_rng(rng), step.dim, inv_mass)
    momentum = as_state(momentum, step.dim, "momentum")
    step_size = 0.5 * sum(step.current_step_size_range) if step_size is None else step_size
    lengths = access.trajectory_length_range(step)
    n_steps = sum(lengths) // 2 if n_steps is None else n_steps
    # a whitened step integrates in its kernel coordinates z (x = c + A z): so does the plot
    affine = access.kernel_map(step)
    to_x = (lambda z: z) if affine is None else affine.to_states
    in_z = (lambda grad: grad) if affine is None else (
        lambda grad: lambda z: affine.matrix.T @ grad(to_x(z))
    )  # fmt: skip
    start_z = start if affine is None else affine.to_kernel(start)
    path = partial(
        leapfrog_path, start_z, momentum, step_size=step_size, n_steps=n_steps,
        inv_mass_diag=inv_mass,
    )  # fmt: skip
    gradient = _true_gradient(step, true_gradient)

    def states_path(grad):
        positions = to_x(path(in_z(grad)))
        positions[0] = start  # exactly, not through the map and back
        return positions

    true = None if gradient is None else states_path(gradient)
    return KMCTrajectories(
        states_path(step.surrogate_gradient), true, momentum, float(step_size), int(n_steps)
    )


def _fitted_points(step: Any) -> np.ndarray | None:
    """The lite surrogate's basis, else the stored history (the finite fit's data), else None."""
    basis = getattr(access.surrogate(step), "basis", None)
    if basis is not None:
        affine = access.kernel_map(step)
        basis = np.asarray(basis, dtype=float)
        return basis if affine is None else affine.to_states(basis)
    return access.stored_history(step)


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
    plt = pyplot()
    _check_kmc_step(step)
    start = access.current_state(step) if start is None else start
    path_kwargs = {"step_size": step_size, "n_steps": n_steps, "true_gradient": true_gradient}
    paths = kmc_trajectories(step, start, momentum=momentum, rng=rng, **path_kwargs)
    coords = check_coords(coords, step.dim)
    fitted = _fitted_points(step)
    center = paths.surrogate[0] if fitted is None else fitted.mean(axis=0)
    shown = [paths.surrogate, paths.true, fitted]
    limits = limits_around([p[:, coords] for p in shown if p is not None])
    ax = new_axes(plt, ax)
    log_density = (
        logp if logp is not None else batched_log_density(access.compiled_log_density(step))
    )
    draw_background(ax, log_density, center, fitted, coords, limits, grid_size)
    if show_surrogate:
        _draw_surrogate_contours(ax, step, center, coords, limits, grid_size)
    if show_history and fitted is not None:
        ax.scatter(*fitted[:, coords].T, label="surrogate fitted on", **POINTS_STYLE)
    surrogate_xy = paths.surrogate[:, coords]
    ax.plot(*surrogate_xy.T, "-o", ms=3, c="C1", gid="surrogate-trajectory", label="surrogate")
    if paths.true is not None:
        ax.plot(*paths.true[:, coords].T, "--", c="C3", gid="true-trajectory", label="true")
    ax.plot(*surrogate_xy[0], "*", ms=12, c="k", gid="start", label="start")
    finish_axes(ax, coords, limits)
    return ax


def _draw_surrogate_contours(ax, step, center, coords, limits, grid_size) -> None:
    surrogate, scale = access.surrogate(step), access.surrogate_scale(step)

    def values(states: np.ndarray) -> np.ndarray:
        return scale * np.array([float(surrogate.value(s)) for s in states])

    gx, gy, f = on_slice(values, center, coords, limits, grid_size)
    if np.all(np.isfinite(f)) and np.ptp(f) > 0.0:
        contours = ax.contour(gx, gy, f, levels=10, colors="0.15", linestyles="dashed")
        contours.set_gid("surrogate-contours")
