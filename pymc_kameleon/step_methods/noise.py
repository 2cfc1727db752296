"""Compiled log-density of a model whose log-density draws its own noise (pseudo-marginal).

A model with a stochastic likelihood estimate (see :mod:`pymc_kameleon.pseudo_marginal`) has
random variables inside ``model.logp()``. Compiled as it is, every call would draw new noise.
:func:`compile_noisy_log_density` lifts those random variables out of the graph: the log-density
becomes a deterministic function ``f(x, u)`` of the step's raveled variables ``x`` and the noise
values ``u``, and a second function draws ``u`` from its distribution (which may depend on
``x``), with generators seeded from the step's own ``numpy.random.Generator``. The steps store
``(x, u, f(x, u))`` for the current state and draw new ``u`` only at proposals.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
from pytensor.graph.basic import Variable
from pytensor.graph.replace import clone_replace

from pymc_kameleon._compat import (
    ancestors,
    compile_pytensor,
    find_rng_nodes,
    join_nonshared_inputs,
)
from pymc_kameleon.pseudo_marginal import noise_variables, strip_noisy_guards

__all__ = [
    "NoisyLogDensity",
    "check_noise_ownership",
    "compile_noisy_log_density",
    "warn_noisy_estimate",
]

_SEED_BOUND = 2**63


class NoisyLogDensity:
    """Deterministic ``f(x, u)`` plus a sampler of the noise ``u`` given ``x``.

    Parameters
    ----------
    log_density : callable
        Compiled ``f(x, *u) -> float``.
    draw : callable
        Compiled ``draw(x, *generators) -> list of arrays``.
    n_generators : int
        Number of independent generators ``draw`` consumes.
    """

    def __init__(self, log_density, draw, n_generators: int) -> None:
        self._log_density = log_density
        self._draw = draw
        self.n_generators = int(n_generators)

    def draw(self, x: np.ndarray, rng: np.random.Generator) -> list[np.ndarray]:
        """Draw fresh noise at ``x`` with generators seeded from ``rng``."""
        seeds = rng.integers(_SEED_BOUND, size=self.n_generators)
        generators = [np.random.default_rng(int(seed)) for seed in seeds]
        return [np.array(value, copy=True) for value in self._draw(x, *generators)]

    def __call__(self, x: np.ndarray, noise: Sequence[np.ndarray]) -> float:
        """The log-density estimate at ``x`` with the given noise."""
        return float(self._log_density(x, *noise))


def compile_noisy_log_density(
    logp: Variable,
    noise: list[Variable],
    point: dict,
    vars: list,
    shared: dict,
    compile_kwargs: dict | None = None,
) -> NoisyLogDensity:
    """Compile ``f(x, u)`` and the noise sampler for a log-density graph with noise.

    Parameters
    ----------
    logp : pytensor Variable
        The model's log-density (``model.logp()``). Its guards are removed with
        :func:`~pymc_kameleon.pseudo_marginal.strip_noisy_guards`, which keeps the identity of
        the noise variables.
    noise : list of pytensor Variables
        Its random variables, as returned by :func:`pymc_kameleon.pseudo_marginal.noise_variables`.
    point : dict
        Initial point (fixes shapes of the raveled input).
    vars : list
        Value variables of the step, in raveling order.
    shared : dict
        Shared replacements for the other value variables.
    compile_kwargs : dict, optional
        Passed to the compiler.

    Returns
    -------
    NoisyLogDensity
    """
    compile_kwargs = dict(compile_kwargs or {})
    compile_kwargs.setdefault("on_unused_input", "ignore")
    logp = strip_noisy_guards(logp)
    placeholders = [var.type() for var in noise]
    logp_given_noise = clone_replace(logp, dict(zip(noise, placeholders, strict=True)))
    [logp_joined], x = join_nonshared_inputs(
        point=point, outputs=[logp_given_noise], inputs=vars, shared_inputs=shared
    )
    log_density = compile_pytensor([x, *placeholders], logp_joined, **compile_kwargs)
    log_density.trust_input = True

    noise_joined, x_draw = join_nonshared_inputs(
        point=point, outputs=noise, inputs=vars, shared_inputs=shared
    )
    rng_variables = find_rng_nodes(noise_joined)
    rng_inputs = [rng.type() for rng in rng_variables]
    noise_graph = clone_replace(noise_joined, dict(zip(rng_variables, rng_inputs, strict=True)))
    draw = compile_pytensor([x_draw, *rng_inputs], noise_graph, **compile_kwargs)
    return NoisyLogDensity(log_density, draw, len(rng_inputs))


def check_noise_ownership(model, vars: list, step_name: str, allow_other_steps: bool) -> None:
    """Refuse compound sampling that would re-draw the noise at the current state.

    Parameters
    ----------
    model : pymc.Model
    vars : list
        Value variables sampled by the step.
    step_name : str
        For the messages.
    allow_other_steps : bool
        Whether the user vouched that other steps never evaluate the noisy terms.

    Raises
    ------
    ValueError
        If a noisy term depends on a variable the step does not sample, or (unless
        ``allow_other_steps``) if another step would sample some of the model's variables.
    """
    owned = {v.name for v in vars}
    noisy_terms = _noisy_terms(model)
    for name, depends_on in noisy_terms:
        foreign = sorted(depends_on - owned)
        if foreign:
            raise ValueError(
                f"{step_name}: the stochastic log-likelihood term {name!r} depends on "
                f"{foreign}, which this step does not sample. A pseudo-marginal step must "
                "sample every variable a noisy term depends on: any other sampler would "
                "re-draw the noise at the current state, and that biases the posterior. Give "
                f"all of them to one step, e.g. pm.sample(step={step_name}()) or "
                f"{step_name}([...all of {sorted(owned | set(foreign))}])."
            )
    others = sorted(v.name for v in model.value_vars if v.name not in owned)
    if others and not allow_other_steps:
        raise ValueError(
            f"{step_name}: the model's log-density contains a stochastic likelihood estimate "
            f"({', '.join(repr(n) for n, _ in noisy_terms)}), and the variables {others} would "
            "be sampled by another step. PyMC's samplers (NUTS, Metropolis, Slice, ...) "
            "evaluate the whole model log-density, so they would re-draw the noise at every "
            f"evaluation and bias the posterior. Sample all variables with one {step_name} "
            f"(pm.sample(step={step_name}())), marginalise discrete variables, or pass "
            "noise_free_other_steps=True if every other step updates its variables without "
            "evaluating the noisy terms (e.g. a hand-written conjugate Gibbs step)."
        )


def _noisy_terms(model) -> list[tuple[str, set[str]]]:
    """(name, names of value variables it depends on) for each potential that draws noise."""
    values = {v: v.name for v in model.value_vars}
    terms = []
    for potential, graph in zip(
        model.potentials, model.replace_rvs_by_values(model.potentials), strict=True
    ):
        if noise_variables(graph):
            depends_on = {values[v] for v in ancestors([graph]) if v in values}
            terms.append((potential.name or "<unnamed potential>", depends_on))
    if not terms:  # noise elsewhere (PyMC normally refuses it in distribution terms)
        terms.append(("model log-density", set(values.values())))
    return terms


def warn_noisy_estimate(step_name: str, noise_sd: float) -> None:
    """Warn (end of warm-up) that the log-likelihood estimate is too noisy for the chain to mix.

    Parameters
    ----------
    step_name : str
    noise_sd : float
        The standard deviation of the log-likelihood estimate at the current state.
    """
    warnings.warn(
        f"{step_name}: the standard deviation of the log-likelihood estimate at the current "
        f"state is about {noise_sd:.2g}. Pseudo-marginal chains stick when it is well above "
        "1-2; reduce the estimator's variance (more importance samples, particles or "
        "simulations).",
        UserWarning,
        stacklevel=3,  # the caller of the step's stop_tuning
    )
