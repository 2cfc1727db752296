"""A reference posterior by importance sampling: independent of any MCMC run, with its own error.

For a low-dimensional model, draws from a heavy-tailed proposal ``q`` (a multivariate t fitted to
a pilot's draws in the model's unconstrained space, its covariance inflated) weighted by
``p(x) / q(x)`` (the model's joint log-density with the transforms' Jacobians) give every
posterior summary with a Monte Carlo error from the weights alone: no chains, no mixing, no
warm-up. The Pareto k-hat of the weights (PSIS, ArviZ) says whether the proposal's tails cover the
target's: below 0.5 the estimates are reliable; above 0.7 they are not.

Why: a NUTS reference can be off by several of its own MCSEs where the posterior is a skewed
ridge (nile-arma11: 8 divergences at ``target_accept=0.99``), and a sampler scored against it is
then judged against the wrong answer. :func:`importance_reference` builds the alternative;
``python -m pymc_kameleon.bench real-references-is`` compares it with the shipped reference and
can replace it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import pymc as pm
import pytensor
from pytensor.graph.replace import clone_replace
from scipy import stats

from pymc_kameleon._compat import pareto_khat_of_log_weights
from pymc_kameleon.bench.real.models import get_real_model
from pymc_kameleon.bench.real.reference import N_STORED_DRAWS, Reference
from pymc_kameleon.bench.real.scoring import reference_var_names
from pymc_kameleon.bench.real.summaries import SUMMARY_FIELDS

__all__ = ["ImportanceSettings", "importance_reference", "importance_sample", "weighted_summary"]

_DENSITY_STEP = 0.01
"""Half-width in probability of the quantile difference that estimates the density at a
quantile (its MCSE in value units is the indicator's MCSE over that density)."""


@dataclass(frozen=True)
class ImportanceSettings:
    """The proposal and its size.

    Parameters
    ----------
    n_draws : int
        Proposal draws (each one log-density evaluation).
    df : float
        Degrees of freedom of the multivariate t (heavier tails than the target's: a low value).
    scale : float
        Factor on the pilot draws' covariance (above 1: the proposal is wider than the target).
    seed : int
    """

    n_draws: int = 3_000_000
    df: float = 3.0
    scale: float = 3.0
    seed: int = 20261206


def _quantile(sorted_x: np.ndarray, cdf: np.ndarray, p: float) -> float:
    return float(sorted_x[min(np.searchsorted(cdf, p), len(sorted_x) - 1)])


def weighted_summary(values: np.ndarray, weights: np.ndarray) -> dict[str, np.ndarray]:
    """The reference fields of :data:`SUMMARY_FIELDS` from self-normalised importance weights.

    Parameters
    ----------
    values : numpy.ndarray, shape (n, k)
        Proposal draws, constrained scale.
    weights : numpy.ndarray, shape (n,)
        Non-negative importance weights (normalised here).

    Returns
    -------
    dict of str to numpy.ndarray
        Weighted mean, sd and quantiles. Each MCSE is the delta-method standard error of a
        self-normalised estimate, ``sqrt(sum w_i**2 (f_i - E f)**2)`` for ``E f``: ``f`` the
        value (mean), the squared deviation (variance, then ``/(2 sd)``), or the indicator below
        the quantile (probability, then over the density estimated from the quantiles
        ``+-0.01`` away). ESS fields are ``variance / MCSE**2`` of the same estimates (the bulk
        ESS the mean's, the tail ESS the smaller of the 5 % and 95 % quantiles'); R-hat is NaN:
        there are no chains.
    """
    values = np.asarray(values, dtype=float)
    w = np.asarray(weights, dtype=float)
    w = w / w.sum()
    w2 = w**2
    k = values.shape[1]
    out = {f: np.full(k, np.nan) for f in SUMMARY_FIELDS}
    for j in range(k):
        x = values[:, j]
        mean = w @ x
        dev2 = (x - mean) ** 2
        var = w @ dev2
        sd = np.sqrt(var)
        out["mean"][j], out["sd"][j] = mean, sd
        out["mcse_mean"][j] = np.sqrt(w2 @ dev2)
        out["mcse_sd"][j] = np.sqrt(w2 @ (dev2 - var) ** 2) / (2.0 * sd)
        out["ess_bulk"][j] = var / out["mcse_mean"][j] ** 2
        order = np.argsort(x)
        sorted_x, cdf = x[order], np.cumsum(w[order])
        for p, tag in ((0.05, "05"), (0.5, "50"), (0.95, "95")):
            q = _quantile(sorted_x, cdf, p)
            mcse_prob = np.sqrt(w2 @ ((x <= q) - p) ** 2)
            width = _quantile(sorted_x, cdf, p + _DENSITY_STEP) - _quantile(
                sorted_x, cdf, p - _DENSITY_STEP
            )
            out[f"q{tag}"][j] = q
            out[f"mcse_q{tag}"][j] = mcse_prob * width / (2 * _DENSITY_STEP)
            if tag != "50":
                out[f"ess_q{tag}"][j] = p * (1 - p) / mcse_prob**2
        out["ess_tail"][j] = min(out["ess_q05"][j], out["ess_q95"][j])
    return out


class _UnconstrainedModel:
    """The model's free variables as one flat unconstrained vector, in reference-label order."""

    def __init__(self, model: pm.Model, var_names: list[str]):
        names = [rv.name for rv in model.free_RVs]
        if names != var_names:
            raise ValueError(
                f"importance sampling needs the reference to hold every free variable in the "
                f"model's order: the model has {names}, the reference {var_names}"
            )
        self.model = model
        self.value_vars = list(model.value_vars)
        point = model.initial_point()
        self.shapes = [np.shape(point[v.name]) for v in self.value_vars]
        self._logp = model.compile_logp(jacobian=True)
        self._constrain = pytensor.function(
            self.value_vars, model.replace_rvs_by_values(model.free_RVs), on_unused_input="ignore"
        )
        # a simplex's value has one coordinate fewer than the variable: two layouts
        constrained = self._constrain(*[point[v.name] for v in self.value_vars])
        self.constrained_shapes = [np.shape(x) for x in constrained]
        self._unconstrain = self._unconstraining_function()

    def _unconstraining_function(self) -> Any:
        """Constrained values (one input per free variable) to the value variables' values."""
        rvs = self.model.free_RVs
        inputs = [rv.type() for rv in rvs]
        outputs = []
        for rv, x in zip(rvs, inputs):
            transform = self.model.rvs_to_transforms.get(rv)
            outputs.append(x if transform is None else transform.forward(x, *rv.owner.inputs))
        # a bound that depends on another variable reads that variable's given value
        outputs = clone_replace(outputs, replace=dict(zip(rvs, inputs)))
        return pytensor.function(inputs, outputs, on_unused_input="ignore")

    @staticmethod
    def _split(row: np.ndarray, shapes: list[tuple[int, ...]]) -> list[np.ndarray]:
        parts = np.split(row, np.cumsum([int(np.prod(s)) for s in shapes])[:-1])
        return [p.reshape(s) for p, s in zip(parts, shapes)]

    def to_unconstrained(self, constrained: np.ndarray) -> np.ndarray:
        rows = [self._unconstrain(*self._split(r, self.constrained_shapes)) for r in constrained]
        return np.array([np.concatenate([np.ravel(v) for v in row]) for row in rows])

    def logp_and_constrained(self, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        logp = np.empty(len(u))
        constrained = np.empty((len(u), sum(int(np.prod(s)) for s in self.constrained_shapes)))
        names = [v.name for v in self.value_vars]
        for i, row in enumerate(u):
            parts = self._split(row, self.shapes)
            logp[i] = self._logp(dict(zip(names, parts)))
            constrained[i] = np.concatenate([np.ravel(v) for v in self._constrain(*parts)])
        return logp, constrained


def importance_sample(
    model: pm.Model,
    pilot_draws: np.ndarray,
    var_names: list[str],
    settings: ImportanceSettings = ImportanceSettings(),
) -> tuple[np.ndarray, np.ndarray, dict[str, float]]:
    """Weighted draws from a model's posterior.

    Parameters
    ----------
    model : pymc.Model
    pilot_draws : numpy.ndarray, shape (m, k)
        Constrained draws of every free variable (flattened in C order, the model's order) that
        place the proposal; any rough sample will do: the weights correct it.
    var_names : list of str
        The free variables' names, in order (checked against the model).
    settings : ImportanceSettings

    Returns
    -------
    draws : numpy.ndarray, shape (n_draws, k)
        Proposal draws, constrained.
    weights : numpy.ndarray, shape (n_draws,)
        Normalised importance weights.
    diagnostics : dict
        ``"ess"`` (Kish's effective sample size of the weights), ``"pareto_k"``, ``"seconds"``.

    Raises
    ------
    ValueError
        If ``var_names`` are not the model's free variables in order.
    """
    target = _UnconstrainedModel(model, var_names)
    start = time.perf_counter()
    u_pilot = target.to_unconstrained(np.asarray(pilot_draws, dtype=float))
    # the t lives on the standardised coordinates: a covariance whose scales differ by 1e8
    # (odd-scale models) is singular to SciPy's check, its correlation matrix is not
    centre, spread = u_pilot.mean(axis=0), u_pilot.std(axis=0)
    proposal = stats.multivariate_t(
        shape=np.atleast_2d(np.corrcoef(u_pilot.T)) * settings.scale,
        df=settings.df,
        seed=settings.seed,
    )
    z = proposal.rvs(settings.n_draws).reshape(settings.n_draws, -1)
    u = centre + spread * z
    logp, constrained = target.logp_and_constrained(u)
    log_w = logp - (proposal.logpdf(z) - np.sum(np.log(spread)))
    finite = np.isfinite(log_w)
    w = np.where(finite, np.exp(log_w - log_w[finite].max()), 0.0)
    w /= w.sum()
    diagnostics = {
        "ess": float(1.0 / np.sum(w**2)),
        "pareto_k": pareto_khat_of_log_weights(log_w[finite]),
        "seconds": round(time.perf_counter() - start, 1),
    }
    return constrained, w, diagnostics


def importance_reference(
    name: str, pilot: Reference, settings: ImportanceSettings = ImportanceSettings()
) -> tuple[Reference, dict[str, float]]:
    """A real model's reference by :func:`importance_sample`.

    Parameters
    ----------
    name : str
        A model of :data:`~pymc_kameleon.bench.real.models.REAL_MODELS` whose reference holds
        every free variable (no deterministics).
    pilot : Reference
        Its draws place the proposal.
    settings : ImportanceSettings

    Returns
    -------
    reference : Reference
        Summaries of :func:`weighted_summary`, and :data:`N_STORED_DRAWS` draws resampled by
        weight.
    diagnostics : dict
        As :func:`importance_sample`.
    """
    model = get_real_model(name).build()
    draws, w, diagnostics = importance_sample(
        model, pilot.draws, reference_var_names(pilot.labels), settings
    )
    summary = weighted_summary(draws, w)
    keep = np.random.default_rng(settings.seed + 1).choice(len(w), size=N_STORED_DRAWS, p=w)
    meta = {
        "command": f"python -m pymc_kameleon.bench real-references-is --models {name} --save",
        "method": "importance sampling",
        "sampled_model": name,
        "settings": settings.__dict__,
        "proposal": "multivariate t in the unconstrained space, centred on the pilot's draws, "
        "their covariance times `scale`",
        **{f"importance_{k}": v for k, v in diagnostics.items()},
        "seconds": diagnostics["seconds"],
        "min_ess_bulk": float(np.nanmin(summary["ess_bulk"])),
        "min_ess_tail": float(np.nanmin(summary["ess_tail"])),
        "pymc": pm.__version__,
        "date": time.strftime("%Y-%m-%d"),
    }
    return Reference(name, list(pilot.labels), summary, draws[keep], meta), diagnostics
