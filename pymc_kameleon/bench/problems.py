"""Benchmark targets: a PyMC model plus what an exact answer needs to score a run.

Every :class:`Problem` builds its model on demand and knows its exact answer: the true mean
(zero for all synthetic targets), reference marginal quantiles, and a scalar statistic whose
exact quantiles give the KAMH paper's quantile error (the squared norm of the Gaussianised
point; chi-squared for the banana and Gaussians, from exact draws for the flower). GP-Glass has
no exact answer and is scored against a long reference run instead (``reference_draws``).

A problem with a ``coordinate_map`` M (the ``-mapped`` bananas) samples ``y = M x`` while its
exact answer stays in the target's own coordinates ``x``: the runner maps starting points and
oracle draws forward (:meth:`Problem.to_model_coordinates`) and the draws back before scoring
(:meth:`Problem.from_model_coordinates`), so a mapped run is scored exactly as the plain one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import ClassVar

import numpy as np
import pymc as pm
import pytensor.tensor as pt
from pytensor.graph.basic import Apply
from pytensor.graph.op import Op
from pytensor.graph.replace import graph_replace
from scipy import stats

from pymc_kameleon.diagnostics import DEFAULT_QUANTILES
from pymc_kameleon.targets import (
    banana_logp,
    banana_model,
    banana_to_gaussian,
    flower_model,
    flower_radial_residual,
    gaussian_model,
    glass_gpc_model,
    sample_banana,
    sample_flower,
)

__all__ = [
    "PROBLEMS",
    "CostlyLogpOp",
    "Problem",
    "banana_problem",
    "correlated_covariance",
    "gaussian_problem",
    "random_affine_map",
]

_REFERENCE_DRAWS = 400_000
_REFERENCE_SEED = 20141121
_START_SALT = 7  # the seeded starts: the same points for every sampler of a seed
GLASS_REFERENCE = Path(__file__).resolve().parent / "data" / "glass_reference.npz"


@dataclass(frozen=True)
class Problem:
    """A benchmark target.

    Parameters
    ----------
    name : str
        Key used on the command line and in result files.
    title : str
        Human-readable description for tables.
    dim : int
        Dimension of the single vector variable ``var_name``.
    build_model : callable
        ``() -> pymc.Model``.
    exact_draws : callable, optional
        ``(n, rng) -> array (n, dim)`` of exact i.i.d. draws (``None`` if unavailable).
    statistic : callable, optional
        ``(draws (..., dim)) -> (...)`` scalar statistic (squared norm of the Gaussianised
        point) whose exact quantiles score the run.
    statistic_is_chi2 : bool
        The statistic is exactly chi-squared with ``dim`` degrees of freedom.
    has_gradient : bool
        PyMC can differentiate the log-density (NUTS is run).
    noisy : bool
        Pseudo-marginal target (only this package's steps are run).
    eval_seconds : float
        Artificial cost per log-density evaluation (0 for none).
    var_name : str
        Name of the vector variable.
    notes : str
        Free text for the report (how the reference was obtained, caveats).
    coordinate_map : numpy.ndarray, optional
        Invertible ``(dim, dim)`` matrix M: the model's variable is ``y = M x`` of the target's
        own coordinates ``x``, in which the exact answer (draws, statistic, quantiles) is given.
        None for the identity.
    exact_mean : numpy.ndarray, optional
        The exact posterior mean where it is not zero (None: zero, for a target with exact
        draws).
    """

    name: str
    title: str
    dim: int
    build_model: Callable[[], pm.Model]
    exact_draws: Callable[[int, np.random.Generator], np.ndarray] | None = None
    statistic: Callable[[np.ndarray], np.ndarray] | None = None
    statistic_is_chi2: bool = False
    has_gradient: bool = True
    noisy: bool = False
    eval_seconds: float = 0.0
    var_name: str = "x"
    notes: str = field(default="", compare=False)
    coordinate_map: np.ndarray | None = field(default=None, compare=False)
    exact_mean: np.ndarray | None = field(default=None, compare=False)

    def to_model_coordinates(self, x: np.ndarray) -> np.ndarray:
        """Points in the target's own coordinates ``x`` as the model's variable ``y = M x``.

        Parameters
        ----------
        x : numpy.ndarray
            Shape ``(..., dim)``.

        Returns
        -------
        numpy.ndarray
            Same shape; ``x`` itself when the problem has no ``coordinate_map``.
        """
        if self.coordinate_map is None:
            return x
        return np.asarray(x, dtype=float) @ self.coordinate_map.T

    def from_model_coordinates(self, y: np.ndarray) -> np.ndarray:
        """Draws of the model's variable ``y`` in the target's own coordinates ``x = M^-1 y``.

        Parameters
        ----------
        y : numpy.ndarray
            Shape ``(..., dim)``.

        Returns
        -------
        numpy.ndarray
            Same shape; ``y`` itself when the problem has no ``coordinate_map``.
        """
        if self.coordinate_map is None:
            return y
        y = np.asarray(y, dtype=float)
        flat = y.reshape(-1, self.dim)
        return np.linalg.solve(self.coordinate_map, flat.T).T.reshape(y.shape)

    def starting_points(self, seed: int, n: int) -> np.ndarray:
        """Seeded N(0, I) starts in the target's own coordinates, given in the model's.

        Every sampler of a seed gets the same points (PyMC's chains the first ``n``, an
        ensemble's walkers more of the same stream), and a mapped problem the mapped ones.

        Parameters
        ----------
        seed : int
            Seed of the task.
        n : int
            Number of points.

        Returns
        -------
        numpy.ndarray
            Shape ``(n, dim)``.
        """
        rng = np.random.default_rng([seed, _START_SALT])
        return self.to_model_coordinates(rng.standard_normal((n, self.dim)))

    @property
    def true_mean(self) -> np.ndarray | None:
        """The exact posterior mean (``exact_mean``, else zero for a target with exact draws)."""
        if self.exact_mean is not None:
            return self.exact_mean
        return None if self.exact_draws is None else np.zeros(self.dim)

    def statistic_quantiles(self) -> np.ndarray | None:
        """Exact quantiles of :attr:`statistic` at the levels 0.1, ..., 0.9.

        Returns
        -------
        numpy.ndarray of shape (9,), or None
            None when the problem has no statistic.
        """
        if self.statistic is None:
            return None
        if self.statistic_is_chi2:
            return stats.chi2.ppf(DEFAULT_QUANTILES, self.dim)
        return _reference(self)[0]

    def marginal_quantiles(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Exact per-coordinate quantiles ``(9, dim)`` and standard deviations ``(dim,)``.

        Returns
        -------
        tuple of numpy.ndarray, or None
            None when the problem has no exact draws.
        """
        if self.exact_draws is None:
            return None
        _, quantiles, sds = _reference(self)
        return quantiles, sds

    def oracle_draws(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """Draws for an oracle history, in the target's own coordinates.

        Exact i.i.d. draws where the problem has them; otherwise (GP-Glass) ``n`` distinct draws
        of the long reference run, chosen at random.

        Parameters
        ----------
        n : int
            Number of draws.
        rng : numpy.random.Generator

        Returns
        -------
        numpy.ndarray
            Shape ``(n, dim)``.

        Raises
        ------
        ValueError
            If the problem has neither exact nor reference draws, or fewer reference draws
            than ``n``.
        """
        if self.exact_draws is not None:
            return self.exact_draws(n, rng)
        reference = self.reference_draws()
        if reference is None:
            raise ValueError(f"problem {self.name!r} has no exact or reference draws for an oracle")
        if n > len(reference):
            raise ValueError(
                f"an oracle of {n} draws asks for more than the {len(reference)} reference draws "
                f"of {self.name!r}; ask for at most {len(reference)}"
            )
        return reference[rng.choice(len(reference), size=n, replace=False)]

    def reference_draws(self) -> np.ndarray | None:
        """Benchmark draws of a long reference run (GP-Glass only).

        Returns
        -------
        numpy.ndarray of shape (n, dim), or None
            None for every problem but GP-Glass.
        """
        if self.name != "glass":
            return None
        return np.load(GLASS_REFERENCE)["draws"]


_REFERENCES: dict[str, tuple[np.ndarray | None, np.ndarray, np.ndarray]] = {}


def _reference(problem: Problem) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    """Quantiles of the statistic and of each coordinate from seeded exact draws.

    Cached by the problem's name, which names one target (the dimension families build theirs
    once per name too); the problem itself is passed in, so no name lookup is needed here.
    """
    if problem.name not in _REFERENCES:
        draws = problem.exact_draws(_REFERENCE_DRAWS, np.random.default_rng(_REFERENCE_SEED))
        statistic = None
        if problem.statistic is not None:
            statistic = np.quantile(problem.statistic(draws), DEFAULT_QUANTILES)
        quantiles = np.quantile(draws, DEFAULT_QUANTILES, axis=0)
        _REFERENCES[problem.name] = (statistic, quantiles, draws.std(axis=0))
    return _REFERENCES[problem.name]


def correlated_covariance(d: int = 8, condition: float = 1e4, seed: int = 8) -> np.ndarray:
    """A strongly correlated covariance: log-spaced eigenvalues under a random rotation.

    Parameters
    ----------
    d : int, default 8
        Dimension.
    condition : float, default 1e4
        Ratio of the largest to the smallest eigenvalue (eigenvalues from
        ``1/sqrt(condition)`` to ``sqrt(condition)``).
    seed : int, default 8
        Seed of the Haar-random rotation.

    Returns
    -------
    numpy.ndarray
        Symmetric positive definite ``(d, d)`` matrix.
    """
    rotation = stats.ortho_group.rvs(d, random_state=seed)
    eigenvalues = np.logspace(-0.5, 0.5, d) ** np.log10(condition)
    cov = rotation @ np.diag(eigenvalues) @ rotation.T
    return 0.5 * (cov + cov.T)


class CostlyLogpOp(Op):
    """A log-density Op that takes a fixed wall time per call and counts its calls.

    It stands for an expensive likelihood (an ODE solve, a simulator, a remote call): the value
    is an ordinary NumPy function, after which the Op sleeps until ``seconds`` have passed
    since the call started. No gradient.

    Parameters
    ----------
    logp : callable
        ``logp(x) -> float`` for a float64 vector ``x``.
    seconds : float
        Wall time per call.
    key : str
        Name of the target, part of the Op's identity (two Ops with equal ``seconds`` and
        ``key`` are the same Op to PyTensor).
    """

    __props__ = ("seconds", "key")
    itypes: ClassVar[list] = [pt.dvector]
    otypes: ClassVar[list] = [pt.dscalar]

    def __init__(self, logp: Callable[[np.ndarray], float], seconds: float, key: str) -> None:
        self.logp = logp
        self.seconds = float(seconds)
        self.key = key
        self.calls = 0
        self.seconds_inside = 0.0

    def make_node(self, x) -> Apply:
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [pt.dscalar()])

    def perform(self, node, inputs, output_storage) -> None:
        start = time.perf_counter()
        value = float(self.logp(inputs[0]))
        remaining = self.seconds - (time.perf_counter() - start)
        if remaining > 0:
            time.sleep(remaining)
        output_storage[0][0] = np.asarray(value)
        self.calls += 1
        self.seconds_inside += time.perf_counter() - start

    def reset_counters(self) -> None:
        """Set the call count and the time spent inside to zero."""
        self.calls, self.seconds_inside = 0, 0.0


def _costly_banana_model(b: float, v: float, seconds: float) -> pm.Model:
    op = CostlyLogpOp(lambda x: banana_logp(x, b=b, v=v), seconds, key=f"banana-{b}-{v}")
    with pm.Model() as model:
        x = pm.Flat("x", shape=8)
        pm.Potential("x_costly_banana_logp", op(x))
    model.costly_op = op  # read by the runner for call counts and time inside
    return model


def banana_problem(b: float, name: str, d: int = 8) -> Problem:
    """Haario's banana B(b, 100) in ``d`` dimensions as a problem called ``name``.

    Parameters
    ----------
    b : float
        Twist.
    name : str
    d : int, default 8

    Returns
    -------
    Problem
    """
    return Problem(
        name=name,
        title=f"banana B({b}, 100), d={d}",
        dim=d,
        build_model=lambda: banana_model(d=d, b=b, v=100.0),
        exact_draws=lambda n, rng: sample_banana(n, d=d, b=b, v=100.0, rng=rng),
        statistic=lambda x: np.sum(banana_to_gaussian(x, b=b, v=100.0) ** 2, axis=-1),
        statistic_is_chi2=True,
    )


def random_affine_map(d: int = 8, seed: int = 7) -> np.ndarray:
    """A fixed random affine map: a random rotation times scales log-uniform in 1e-2..1e2.

    ``M = Q diag(s)`` with ``Q`` the orthogonal factor of the QR decomposition of a standard
    normal matrix and ``log s`` uniform on ``[log 1e-2, log 1e2]``, both from
    ``numpy.random.default_rng(seed)`` (also the map of ``benchmarks/local_width_check.py``).

    Parameters
    ----------
    d : int, default 8
        Dimension.
    seed : int, default 7
        Seed of the rotation and the scales.

    Returns
    -------
    numpy.ndarray
        Invertible ``(d, d)`` matrix.
    """
    rng = np.random.default_rng(seed)
    rotation, _ = np.linalg.qr(rng.standard_normal((d, d)))
    return rotation * np.exp(rng.uniform(np.log(1e-2), np.log(1e2), d))


def _affine_mapped_model(plain: pm.Model, var_name: str, matrix: np.ndarray) -> pm.Model:
    """The plain model's density of ``x`` as a density of ``y = M x``: one flat vector ``y``.

    The plain log-density's graph is reused with ``x = M^-1 y`` substituted, so the two cannot
    drift apart; ``- log|det M|`` keeps the mapped density normalised.
    """
    x_value = plain.rvs_to_values[plain[var_name]]
    log_det = float(np.linalg.slogdet(matrix)[1])
    with pm.Model() as model:
        y = pm.Flat("y", shape=matrix.shape[0])
        x = pt.specify_shape(pt.dot(np.linalg.inv(matrix), y), x_value.type.shape)
        logp = graph_replace(plain.logp(), {x_value: x})
        pm.Potential("y_mapped_logp", logp - log_det)
    return model


def _mapped(plain: Problem, matrix: np.ndarray) -> Problem:
    """``plain`` sampled as ``y = M x``; its exact answer, in ``x``, is unchanged."""
    return replace(
        plain,
        name=f"{plain.name}-mapped",
        title=f"{plain.title}, sampled as y = M x (random rotation, scales 1e-2..1e2)",
        build_model=lambda: _affine_mapped_model(plain.build_model(), plain.var_name, matrix),
        var_name="y",
        coordinate_map=matrix,
        notes="scored in the banana's own coordinates x = M^-1 y",
    )


def _flower_statistic(x: np.ndarray) -> np.ndarray:
    return flower_radial_residual(x) ** 2 + np.sum(np.asarray(x)[..., 2:] ** 2, axis=-1)


def gaussian_problem(name: str, title: str, cov: np.ndarray) -> Problem:
    """The zero-mean Gaussian N(0, cov) as a problem called ``name``.

    Parameters
    ----------
    name, title : str
    cov : numpy.ndarray, shape (d, d)
        Symmetric positive definite.

    Returns
    -------
    Problem
    """
    chol = np.linalg.cholesky(cov)

    def gaussianise(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        flat = x.reshape(-1, cov.shape[0])
        z = np.linalg.solve(chol, flat.T).T
        return np.sum(z**2, axis=-1).reshape(x.shape[:-1])

    return Problem(
        name=name,
        title=title,
        dim=cov.shape[0],
        build_model=lambda: gaussian_model(cov),
        exact_draws=lambda n, rng: rng.standard_normal((n, cov.shape[0])) @ chol.T,
        statistic=gaussianise,
        statistic_is_chi2=True,
    )


PROBLEMS: dict[str, Problem] = {
    p.name: p
    for p in (
        banana_problem(0.03, "banana-0.03"),
        banana_problem(0.1, "banana-0.1"),
        _mapped(banana_problem(0.03, "banana-0.03"), random_affine_map()),
        _mapped(banana_problem(0.1, "banana-0.1"), random_affine_map()),
        Problem(
            name="flower",
            title="flower F(10, 6, 6, 1), d=8 (radius of (x1, x2), squared numerator)",
            dim=8,
            build_model=lambda: flower_model(d=8),
            exact_draws=lambda n, rng: sample_flower(n, d=8, rng=rng),
            statistic=_flower_statistic,
        ),
        gaussian_problem("gauss-iso", "N(0, I), d=8", np.eye(8)),
        gaussian_problem(
            "gauss-corr",
            "correlated Gaussian, d=8, condition number 1e4, random rotation",
            correlated_covariance(),
        ),
        Problem(
            name="banana-0.1-costly",
            title="banana B(0.1, 100), d=8, log-density costing 1 ms per call",
            dim=8,
            build_model=lambda: _costly_banana_model(0.1, 100.0, 1e-3),
            exact_draws=lambda n, rng: sample_banana(n, d=8, b=0.1, v=100.0, rng=rng),
            statistic=lambda x: np.sum(banana_to_gaussian(x, b=0.1, v=100.0) ** 2, axis=-1),
            statistic_is_chi2=True,
            has_gradient=False,
            eval_seconds=1e-3,
        ),
        Problem(
            name="glass",
            title="GP classification on UCI Glass, d=9, pseudo-marginal (100 importance samples)",
            dim=9,
            build_model=lambda: glass_gpc_model(name="x"),
            has_gradient=False,
            noisy=True,
        ),
    )
}
