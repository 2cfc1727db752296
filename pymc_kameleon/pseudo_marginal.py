"""Stochastic log-likelihood estimates as model terms, for pseudo-marginal MCMC.

When a likelihood can only be estimated, Metropolis–Hastings still targets the exact posterior if
the estimate ``p_hat(y | theta)`` is unbiased *and* the estimate of the current state is kept,
never re-drawn (Andrieu & Roberts, 2009). This module puts such estimates into a PyMC model as a
``pm.Potential``, in the two forms users have:

- :func:`noisy_potential`: a PyTensor graph that draws its own noise with unregistered random
  variables (``pm.Normal.dist(...)``, ``pt.random.*``), e.g. importance samples;
- :func:`estimator_potential`: a NumPy black-box ``estimate(theta, rng) -> log p_hat``, wrapped
  in a gradient-free PyTensor Op whose randomness comes from a 62-bit seed drawn in the graph.

The steps of this package (:class:`~pymc_kameleon.KameleonStep`,
:class:`~pymc_kameleon.AdaptiveMetropolis`, :class:`~pymc_kameleon.KMCStep`) find the random
variables in the model's log-density, treat their values as auxiliary state, draw fresh values
only for proposals, and keep the current state's estimate. PyMC's own samplers re-evaluate the
current state with new noise, which is biased (Monte Carlo within Metropolis).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pymc as pm
import pytensor.tensor as pt
from pytensor.graph.basic import Apply, Variable
from pytensor.graph.op import Op
from pytensor.tensor.random.basic import integers

from pymc_kameleon._compat import ancestors, modelcontext, rvs_in_graph

__all__ = [
    "SEED_UPPER_BOUND",
    "EstimatorOp",
    "estimator_potential",
    "noise_variables",
    "noisy_potential",
]

#: black-box estimators get seeds drawn uniformly from ``[0, SEED_UPPER_BOUND)``
SEED_UPPER_BOUND = 2**62


def noise_variables(graph: Variable | Sequence[Variable]) -> list[Variable]:
    """Random variables that a graph draws itself, in a deterministic order.

    Parameters
    ----------
    graph : pytensor Variable or sequence of Variables
        A graph such as ``model.logp()``, after model variables were replaced by their values.

    Returns
    -------
    list of pytensor Variables
        The outputs of random-variable nodes that the graph depends on, in the order of a
        depth-first walk from the outputs (stable across processes, unlike a set).
    """
    graphs = [graph] if isinstance(graph, Variable) else list(graph)
    found = rvs_in_graph(graphs)
    if not found:
        return []
    return [var for var in ancestors(graphs) if var in found]


def noisy_potential(name: str, log_estimate: Any, model=None) -> Variable:
    """Add a PyTensor-native stochastic log-likelihood estimate to the model.

    ``log_estimate`` must be a graph that draws its own noise with unregistered random variables
    (``pm.Normal.dist(...)``, ``pm.math``-style functions of them, ``pt.random.*``) and whose
    *exponential* is an unbiased estimate of the likelihood it stands for. This is a checked
    ``pm.Potential``: it refuses graphs with no noise (use ``pm.Potential`` for those) and
    non-scalar estimates are summed as ``pm.Potential`` would.

    Parameters
    ----------
    name : str
        Name of the potential.
    log_estimate : pytensor TensorVariable
        ``log p_hat``; it may depend on model variables and on ``.dist()`` random variables.
    model : pymc.Model, optional
        Defaults to the model on the context stack.

    Returns
    -------
    pytensor TensorVariable
        The registered potential.

    Raises
    ------
    ValueError
        If the graph contains no random variables.

    Examples
    --------
    Importance sampling over a latent ``z ~ N(0, 1)`` with ``y | z, mu ~ N(mu + z, 1)``:

    >>> import pymc as pm, pytensor.tensor as pt
    >>> from pymc_kameleon import noisy_potential
    >>> with pm.Model():
    ...     mu = pm.Normal("mu", 0, 3)
    ...     z = pm.Normal.dist(0, 1, shape=64)          # importance samples from the prior
    ...     log_w = pm.logp(pm.Normal.dist(mu + z, 1), 0.7)
    ...     _ = noisy_potential("loglike", pm.math.logsumexp(log_w) - pt.log(64))
    """
    model = modelcontext(model)
    log_estimate = pt.as_tensor_variable(log_estimate)
    [graph] = model.replace_rvs_by_values([log_estimate])  # model variables are not noise
    if not noise_variables(graph):
        raise ValueError(
            f"noisy_potential({name!r}): the estimate contains no random variables, so it is "
            "deterministic. Use pm.Potential for deterministic terms; a stochastic estimate "
            "draws its noise inside the graph, e.g. with pm.Normal.dist(...)."
        )
    return pm.Potential(name, log_estimate, model=model)


class EstimatorOp(Op):
    """Gradient-free PyTensor Op around a NumPy ``estimate(theta, rng) -> log p_hat``.

    Inputs are a 64-bit integer seed followed by the parameter tensors; the output is a float64
    scalar. Each evaluation calls ``estimate`` with ``numpy.random.default_rng(seed)``, so the
    estimate is a deterministic function of (parameters, seed) and a stored seed reproduces it
    exactly. With one parameter tensor ``estimate`` receives its value as an ``ndarray``; with
    several it receives a tuple of them.

    Parameters
    ----------
    estimate : callable
        ``estimate(theta, rng) -> float``. Return ``-inf`` (not an exception) where the
        likelihood is zero or cannot be estimated; NaN and ``+inf`` are passed through and the
        samplers reject them. It must take all its randomness from ``rng``, and be picklable for
        multi-process sampling.
    n_params : int
        Number of parameter tensors.
    """

    # equality by the identity of the estimator: estimators may hold unhashable arrays
    __props__ = ()

    def __init__(self, estimate: Callable[..., float], n_params: int) -> None:
        if not callable(estimate):
            raise TypeError(
                f"`estimate` must be a callable estimate(theta, rng) -> float, got "
                f"{type(estimate).__name__}."
            )
        self.estimate = estimate
        self.n_params = int(n_params)

    def __eq__(self, other) -> bool:
        return (
            type(self) is type(other)
            and self.estimate is other.estimate
            and self.n_params == other.n_params
        )

    def __hash__(self) -> int:
        return hash((type(self), id(self.estimate), self.n_params))

    def make_node(self, seed, *params) -> Apply:
        """Build the node: ``(seed, *params) -> log p_hat``."""
        seed = pt.as_tensor_variable(seed)
        if seed.ndim != 0 or not seed.dtype.startswith("int"):
            raise TypeError(f"The seed must be an integer scalar, got {seed.type}.")
        params = [pt.as_tensor_variable(p) for p in params]
        if len(params) != self.n_params:
            raise TypeError(f"Expected {self.n_params} parameter tensor(s), got {len(params)}.")
        return Apply(self, [seed, *params], [pt.dscalar()])

    def perform(self, node, inputs, output_storage) -> None:
        """Call the estimator with a generator seeded from the seed input."""
        seed, *params = inputs
        theta = params[0] if self.n_params == 1 else tuple(params)
        value = self.estimate(theta, np.random.default_rng(int(seed)))
        output_storage[0][0] = np.asarray(_as_log_estimate(value, self.estimate), dtype="float64")

    def grad(self, inputs, output_gradients):
        """Refuse: an estimated likelihood has no usable gradient."""
        raise NotImplementedError(
            "An estimated log-likelihood (estimator_potential) has no gradient. Sample the model "
            "with a gradient-free step: pm.sample(step=KameleonStep()), KMCStep() or "
            "AdaptiveMetropolis()."
        )

    def __str__(self) -> str:
        name = getattr(self.estimate, "__name__", type(self.estimate).__name__)
        return f"EstimatorOp{{{name}}}"


def _as_log_estimate(value: Any, estimate: Callable) -> float:
    """Check that an estimator returned one real number."""
    array = np.asarray(value)
    if array.size != 1 or not np.issubdtype(array.dtype, np.number) or np.iscomplexobj(array):
        raise TypeError(
            f"The estimator {estimate!r} must return one real number (log p_hat), got "
            f"{value!r}. Return -inf where the likelihood is zero."
        )
    return float(array.reshape(()))


def estimator_potential(
    name: str,
    estimate: Callable[..., float],
    theta: Any,
    model=None,
) -> Variable:
    """Add a NumPy black-box log-likelihood estimator to the model as a ``pm.Potential``.

    ``estimate(theta, rng)`` returns ``log p_hat(y | theta)``, where ``p_hat`` is an unbiased
    estimate of the likelihood (importance sampling, a particle filter, an ABC kernel average).
    The randomness is a seed drawn in the graph; the samplers of this package store it with the
    current state, so the current estimate is never re-drawn and runs are reproducible under
    ``pm.sample(random_seed=...)``.

    Parameters
    ----------
    name : str
        Name of the potential.
    estimate : callable
        ``estimate(theta, rng: numpy.random.Generator) -> float``. Take all randomness from
        ``rng``; return ``-inf`` where the likelihood is zero. Must be picklable to sample with
        ``cores > 1`` (a module-level function or a class instance, not a lambda).
    theta : pytensor TensorVariable or sequence of them
        Model variables (or expressions of them) passed to ``estimate`` as NumPy arrays; a
        sequence is passed as a tuple of arrays.
    model : pymc.Model, optional
        Defaults to the model on the context stack.

    Returns
    -------
    pytensor TensorVariable
        The registered potential.

    Examples
    --------
    >>> import numpy as np, pymc as pm
    >>> from pymc_kameleon import estimator_potential
    >>> def estimate(theta, rng):   # unbiased: E[exp(noise)] = 1
    ...     return -0.5 * float(theta @ theta) + 0.5 * rng.standard_normal() - 0.125
    >>> with pm.Model():
    ...     theta = pm.Normal("theta", 0, 1, shape=2)
    ...     _ = estimator_potential("loglike", estimate, theta)
    """
    model = modelcontext(model)
    params = list(theta) if isinstance(theta, list | tuple) else [theta]
    if not params:
        raise ValueError("`theta` must contain at least one tensor.")
    op = EstimatorOp(estimate, len(params))
    seed = integers(0, SEED_UPPER_BOUND, dtype="int64")
    seed.name = f"{name}_seed"
    return pm.Potential(name, op(seed, *params), model=model)
