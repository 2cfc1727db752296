"""The samplers the benchmark compares: this package's steps and PyMC's own.

Each :class:`SamplerSpec` builds a fresh step inside the model context and says how to count
the log-density evaluations of a run from its sampler statistics, never from a nominal rate (the
rules are in :func:`pymc_kameleon.diagnostics.count_logp_evals_in`).

PyMC's Metropolis and DEMetropolisZ compute ``logp(new) - logp(current)`` with both terms
evaluated, so on a costly model they call the log-density twice per new point; the costly
banana's call counter shows it, and its wall-clock time includes it.

The ensemble samplers outside PyMC ("emcee", "zeus") are no steps: they are named in
:data:`pymc_kameleon.bench.ensemble_peers.ENSEMBLE_PEERS` and run by that module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pymc as pm

from pymc_kameleon import (
    AdaptiveMetropolis,
    KameleonStep,
    KMCStep,
    PooledAdaptiveMetropolis,
    PooledKameleonStep,
    PooledKMCStep,
)
from pymc_kameleon.bench.ensemble_peers import ENSEMBLE_PEERS
from pymc_kameleon.diagnostics import count_logp_evals_in

__all__ = ["SAMPLERS", "SamplerSpec", "count_evaluations", "get_sampler", "package_step"]

_DIAGNOSTICS_KIND = {"demz": "demetropolisz"}  # our rule names -> diagnostics.count_logp_evals_in


@dataclass(frozen=True)
class SamplerSpec:
    """A sampler under test.

    Parameters
    ----------
    name : str
        Label in tables and result files.
    make_step : callable
        ``(problem, options) -> step``, called inside the model context; ``options`` is a dict
        of extra keyword arguments (for example ``initial_history``).
    kind : str
        Evaluation-count rule: ``"stat"``, ``"metropolis"``, ``"demz"``, ``"slice"``, ``"nuts"``.
    ours : bool
        A step of this package.
    needs_gradient : bool
        Only run on targets PyMC can differentiate.
    nominal_evals_per_iter : float
        Rough evaluations per iteration, used only to size equal-evaluation budgets.
    """

    name: str
    make_step: Callable[[Any, dict], Any]
    kind: str
    ours: bool = False
    needs_gradient: bool = False
    nominal_evals_per_iter: float = 1.0


#: the papers' algorithms as published: each chain alone, in the model's units (the package's
#: defaults are measured in the real-model suite)
PUBLISHED = {"warmup": "classic"}
#: each step's class with the warm-up pooled across chains
POOLED = {
    AdaptiveMetropolis: PooledAdaptiveMetropolis,
    KameleonStep: PooledKameleonStep,
    KMCStep: PooledKMCStep,
}
#: the published KMC: one chain learning alone, in the whitened warm-up's global coordinates
PUBLISHED_KMC = {"coordinates": "global"}


def package_step(step_class: type, **options: Any) -> Any:
    """A step of this package; the benchmark option ``pool_warmup=True`` picks its pooled class.

    Parameters
    ----------
    step_class : type
        ``AdaptiveMetropolis``, ``KameleonStep`` or ``KMCStep``.
    **options
        The step's arguments, and ``pool_warmup`` (default False).

    Returns
    -------
    GradientFreeStep
    """
    pooled = options.pop("pool_warmup", False)
    return (POOLED[step_class] if pooled else step_class)(**options)


def _haario(**options):
    return package_step(AdaptiveMetropolis, **{**PUBLISHED, **options})


def _kmc(estimator, options):
    published = {"estimator": estimator, **PUBLISHED, **PUBLISHED_KMC}
    return package_step(KMCStep, **{**published, **options})


def _sm(problem, options):
    """Standard Metropolis: a joint isotropic Gaussian random walk of scale 2.38/sqrt(d)."""
    return package_step(
        AdaptiveMetropolis, scale="fixed", adapt_start=10**9, **{**PUBLISHED, **options}
    )


SAMPLERS: dict[str, SamplerSpec] = {
    s.name: s
    for s in (
        SamplerSpec(
            "KAMH-LS", lambda p, o: package_step(KameleonStep, **{**PUBLISHED, **o}), "stat", True
        ),
        SamplerSpec(
            "KAMH-PCA",
            lambda p, o: package_step(KameleonStep, **{**PUBLISHED, "proposal": "pca", **o}),
            "stat",
            True,
        ),
        # the papers' baseline is Haario's algorithm as published: pin its warm-up
        SamplerSpec("AM-FS", lambda p, o: _haario(scale="fixed", **o), "stat", True),
        SamplerSpec("AM-LS", lambda p, o: _haario(scale="learn", **o), "stat", True),
        SamplerSpec("KMC-lite", lambda p, o: _kmc("lite", o), "stat", ours=True),
        SamplerSpec("KMC-finite", lambda p, o: _kmc("finite", o), "stat", ours=True),
        SamplerSpec("SM", _sm, "stat", ours=True),
        SamplerSpec(
            "pm.Metropolis", lambda p, o: pm.Metropolis(), "metropolis", nominal_evals_per_iter=8
        ),
        SamplerSpec("pm.DEMetropolisZ", lambda p, o: pm.DEMetropolisZ(), "demz"),
        SamplerSpec("pm.Slice", lambda p, o: pm.Slice(), "slice", nominal_evals_per_iter=50),
        SamplerSpec(
            "NUTS(0.95)",
            lambda p, o: pm.NUTS(target_accept=0.95),
            "nuts",
            needs_gradient=True,
            nominal_evals_per_iter=100,
        ),
    )
}


def get_sampler(name: str) -> SamplerSpec:
    """Look up a sampler by name, with an error that lists the valid names.

    Parameters
    ----------
    name : str

    Returns
    -------
    SamplerSpec

    Raises
    ------
    KeyError
        For an unknown name, or the name of an ensemble peer (which has no step).
    """
    if name in SAMPLERS:
        return SAMPLERS[name]
    if name in ENSEMBLE_PEERS:
        raise KeyError(
            f"{name!r} is an ensemble peer, not a PyMC step: "
            "pymc_kameleon.bench.ensemble_peers runs it"
        )
    raise KeyError(
        f"unknown sampler {name!r}; choose one of {', '.join(SAMPLERS)}, or an ensemble peer "
        f"run outside PyMC: {', '.join(ENSEMBLE_PEERS)}"
    )


def count_evaluations(stats: Any, kind: str, dim: int) -> int:
    """Log-density evaluations at new points in one statistics group, from its statistics.

    Parameters
    ----------
    stats : xarray.Dataset
        ``sample_stats`` or ``warmup_sample_stats`` of a run.
    kind : str
        Counting rule of the sampler (see :class:`SamplerSpec`).
    dim : int
        Dimension of the sampled vector.

    Returns
    -------
    int
    """
    if kind == "stat" and "logp_evals" not in stats:
        raise ValueError("a step of this package must emit the `logp_evals` statistic")
    return count_logp_evals_in(stats, _DIAGNOSTICS_KIND.get(kind, kind), dim)
