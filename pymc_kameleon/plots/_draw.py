"""Drawing pieces shared by the proposal and trajectory plots (no step internals here)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = [
    "INSTALL_HINT",
    "NOT_RUN",
    "POINTS_STYLE",
    "LogDensity",
    "as_state",
    "batched_log_density",
    "check_coords",
    "draw_background",
    "finish_axes",
    "limits_around",
    "new_axes",
    "on_slice",
    "pyplot",
]

INSTALL_HINT = 'pip install "pymc-kameleon[plot]"'
NOT_RUN = (
    "pm.sample(..., cores>1) runs the chains in worker processes, so the step object passed to "
    "it is never run in this process. Sample with cores=1 (the step then holds the final state "
    "of the last chain){alternative}."
)
POINTS_STYLE = {"s": 6, "c": "0.25", "alpha": 0.6, "gid": "history"}
LogDensity = Callable[[np.ndarray], np.ndarray]


def pyplot() -> Any:
    """Import ``matplotlib.pyplot``, or say how to install it."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as err:
        raise ImportError(f"pymc_kameleon.plots needs matplotlib: {INSTALL_HINT}") from err
    return plt


def batched_log_density(fn: Any) -> LogDensity | None:
    """A compiled log-density ``fn`` as an ``(m, d) -> (m,)`` map; None if ``fn`` is None."""
    if fn is None:
        return None
    dtype = fn.maker.inputs[0].variable.dtype
    return lambda states: np.array([float(fn(np.asarray(s, dtype=dtype))) for s in states])


def as_state(x: Any, dim: int, name: str) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    if x.shape != (dim,) or not np.all(np.isfinite(x)):
        raise ValueError(f"`{name}` must be a finite state of shape ({dim},), got {x.shape}.")
    return x


def check_coords(coords: Sequence[int], dim: int) -> tuple[int, int]:
    try:
        i, j = (int(c) for c in coords)
    except (TypeError, ValueError):
        raise ValueError(f"`coords` must be two coordinate indices, got {coords!r}.") from None
    if i == j or not (0 <= i < dim and 0 <= j < dim):
        raise ValueError(f"`coords` must be two distinct indices in [0, {dim}), got {coords!r}.")
    return i, j


def limits_around(points: Sequence[np.ndarray], margin: float = 0.08) -> np.ndarray:
    """Axis limits ``[[x0, x1], [y0, y1]]`` around 2-D point sets, widened by ``margin``."""
    stacked = np.vstack([p for p in points if p is not None and len(p)])
    low, high = stacked.min(axis=0), stacked.max(axis=0)
    span = np.where(high > low, high - low, 1.0)
    return np.column_stack([low - margin * span, high + margin * span])


def on_slice(
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


def draw_background(ax, log_density, center, cloud, coords, limits, grid_size) -> None:
    """Filled contours of the target density on a 2-D slice, else a histogram of ``cloud``."""
    if log_density is not None:
        gx, gy, values = on_slice(log_density, center, coords, limits, grid_size)
        finite = np.isfinite(values)
        if finite.any():
            density = np.where(finite, np.exp(values - values[finite].max()), 0.0)
            ax.contourf(gx, gy, density, levels=12, cmap="Blues").set_gid("target-density")
            return
    if cloud is not None and len(cloud) > 1:
        cloud = cloud[:, coords]
        image = ax.hist2d(cloud[:, 0], cloud[:, 1], bins=40, range=limits, cmap="Blues")[3]
        image.set_gid("target-histogram")


def finish_axes(ax, coords: tuple[int, int], limits: np.ndarray) -> None:
    ax.set_xlim(*limits[0])
    ax.set_ylim(*limits[1])
    ax.set_xlabel(f"x[{coords[0]}]")
    ax.set_ylabel(f"x[{coords[1]}]")
    ax.legend(loc="best", fontsize="small")


def new_axes(plt: Any, ax: Any) -> Any:
    return plt.subplots(figsize=(6.0, 5.0))[1] if ax is None else ax
