"""Draws from the model's prior, raveled like a step's variables: further starts for the climbs.

The start-up's second climb (:func:`~pymc_kameleon.core.multi_start.climb_from_starts`) starts
from a prior draw of the chain's own, in the sampler's (transformed) coordinates. PyMC's own
initial-point machinery draws it (the ``"prior"`` initial-value strategy), compiled once when
the step is built. Variables with an improper prior (``Flat``, ``HalfFlat``) keep their default
initial value; a model whose prior cannot be drawn at all gets no further starts.
"""

from __future__ import annotations

import copy

import numpy as np
from pymc.blocking import DictToArrayBijection
from pymc.initial_point import make_initial_point_expression
from pymc.pytensorf import compile as compile_pytensor
from pymc.pytensorf import find_rng_nodes, reseed_rngs

__all__ = ["PriorDraws", "chain_starts", "prior_draws", "side_entropy"]

_IMPROPER = ("FlatRV", "HalfFlatRV")


class PriorDraws:
    """A compiled prior draw of a step's variables, raveled (picklable, reseeded per call).

    Parameters
    ----------
    model : pymc.Model
    vars : list of TensorVariable
        The step's value variables.
    """

    def __init__(self, model, vars) -> None:
        strategies = {
            rv: "support_point" if type(rv.owner.op).__name__ in _IMPROPER else "prior"
            for rv in model.free_RVs
        }
        expressions = make_initial_point_expression(
            free_rvs=model.free_RVs,
            rvs_to_transforms=model.rvs_to_transforms,
            initval_strategies=strategies,
            return_transformed=True,
        )
        self.names = [model.rvs_to_values[rv].name for rv in model.free_RVs]
        self.step_names = [v.name for v in vars]
        self.function = compile_pytensor(inputs=[], outputs=expressions)

    def __call__(self, seed) -> np.ndarray:
        """The raveled draw for ``seed`` (anything :class:`numpy.random.SeedSequence` takes)."""
        reseed_rngs(find_rng_nodes(self.function.maker.fgraph.outputs), seed)
        point = dict(zip(self.names, self.function(), strict=True))
        return DictToArrayBijection.map({name: point[name] for name in self.step_names}).data


def prior_draws(model, vars) -> PriorDraws | None:
    """The prior draws of ``vars``, or None when none of them has a proper prior to draw from.

    Parameters
    ----------
    model : pymc.Model
    vars : list of TensorVariable
        The step's value variables.

    Returns
    -------
    PriorDraws or None
    """
    rvs = [model.values_to_rvs[v] for v in vars]
    if all(type(rv.owner.op).__name__ in _IMPROPER for rv in rvs):
        return None
    try:
        draws = PriorDraws(model, vars)
        draws(0)
    except Exception:  # (a prior PyMC cannot draw from, e.g. a CustomDist without `random`)
        return None
    return draws


def side_entropy(rng: np.random.Generator) -> int:
    """Entropy for a stream of the start-up's own, drawn from a copy of ``rng``.

    The chain's generator is not advanced, so a chain with a start-up draws what it would draw
    without one.

    Parameters
    ----------
    rng : numpy.random.Generator
        The chain's generator.

    Returns
    -------
    int
    """
    return int(copy.deepcopy(rng).integers(2**63))


def chain_starts(draws: PriorDraws | None, rng: np.random.Generator, dtype):
    """``k -> x``: the chain's k-th prior draw, seeded from ``rng`` without advancing it.

    Parameters
    ----------
    draws : PriorDraws or None
    rng : numpy.random.Generator
        The chain's generator (copied, so the chain's own draws are unchanged).
    dtype : numpy dtype
        The step's.

    Returns
    -------
    callable or None
    """
    if draws is None:
        return None
    entropy = side_entropy(rng)
    return lambda k: np.asarray(draws([entropy, 0xC1B, k]), dtype=dtype)
