"""The model's log-density as a step sees it, and the chain's current point with its value.

:class:`ModelLogDensity` is compiled once per step: the log-density of the step's variables
(no gradients), or for a stochastic likelihood estimate ``f(x, u)`` and a sampler of its noise
``u``. :class:`CurrentPoint` is per-chain state: the current point, its (estimated)
log-density and the noise that estimate was computed with, so that an iteration costs one new
evaluation and a pseudo-marginal chain never re-estimates its current state.
"""

from __future__ import annotations

import math

import numpy as np

from pymc_kameleon._compat import compile_pytensor, join_nonshared_inputs
from pymc_kameleon.core.proposals.protocol import ComparedByState
from pymc_kameleon.pseudo_marginal import noise_variables, strip_noisy_guards
from pymc_kameleon.step_methods.noise import check_noise_ownership, compile_noisy_log_density

__all__ = ["CurrentPoint", "ModelLogDensity"]


class ModelLogDensity:
    """The compiled log-density of a step's variables (raveled), deterministic or noisy.

    Parameters
    ----------
    model : pymc.Model
    vars : list
        The step's value variables, in raveling order.
    initial_point : dict
    shared : dict
        Shared replacements for the other value variables.
    compile_kwargs : dict
    step_name : str
        For the noise-ownership error.
    noise_free_other_steps : bool
        See the steps' ``noise_free_other_steps``.

    Attributes
    ----------
    compiled : callable or None
        ``x -> log-density`` (a PyTensor function that trusts its input); None for a noisy model.
    noisy : NoisyLogDensity or None
        ``f(x, u)`` and ``draw(x, rng)``; None for a deterministic model.
    """

    def __init__(
        self,
        model,
        vars: list,
        initial_point: dict,
        shared: dict,
        compile_kwargs: dict,
        step_name: str,
        noise_free_other_steps: bool,
    ) -> None:
        # our steps keep the current state's estimate, so they may evaluate the noisy terms
        logp_graph = strip_noisy_guards(model.logp())
        noise = noise_variables(logp_graph)
        self.compiled = None
        self.noisy = None
        self.n_counted = 0
        if noise:
            check_noise_ownership(model, vars, step_name, noise_free_other_steps)
            self.noisy = compile_noisy_log_density(
                logp_graph, noise, initial_point, vars, shared, compile_kwargs
            )
            return
        [logp], raveled_input = join_nonshared_inputs(
            point=initial_point, outputs=[logp_graph], inputs=vars, shared_inputs=shared
        )
        self.compiled = compile_pytensor([raveled_input], logp, **compile_kwargs)
        self.compiled.trust_input = True
        self.dtype = self.compiled.maker.inputs[0].variable.dtype

    @property
    def is_pseudo_marginal(self) -> bool:
        """Whether the log-density is a stochastic estimate (noise is part of the state)."""
        return self.noisy is not None

    def fresh(self, x: np.ndarray) -> float:
        """The log-density at ``x``; a stochastic estimate with noise of its own generator."""
        if self.noisy is None:
            return float(self.compiled(np.asarray(x, dtype=self.dtype)))
        return float(self.noisy(x, self.noisy.draw(x, np.random.default_rng())))

    def estimate(self, x: np.ndarray, rng: np.random.Generator) -> tuple[float, list | None]:
        """The log-density at ``x`` (of the step's dtype), with noise drawn from ``rng``.

        Returns
        -------
        value : float
        noise : list or None
            The noise of the estimate (None for a deterministic model).
        """
        if self.noisy is None:
            return float(self.compiled(x)), None
        noise = self.noisy.draw(x, rng)
        return self.noisy(x, noise), noise

    def counted(self, x: np.ndarray) -> float:
        """The deterministic log-density at ``x``, counted in :attr:`n_counted` (for the
        evaluations a proposal spends on finite differences)."""
        self.n_counted += 1
        return float(self.compiled(np.asarray(x, dtype=self.dtype)))

    def take_count(self) -> int:
        """The evaluations :meth:`counted` made since the last call."""
        count, self.n_counted = self.n_counted, 0
        return count

    def with_frozen_noise(self, x: np.ndarray, rng: np.random.Generator):
        """``x -> log-density``, with a stochastic estimate's noise drawn once and then kept.

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)
            Where the noise is drawn, of the step's dtype.
        rng : numpy.random.Generator
            Draws the noise (unused for a deterministic model).
        """
        if self.noisy is None:
            dtype, compiled = np.asarray(x).dtype, self.compiled  # x has the step's dtype
            return lambda x: float(compiled(np.asarray(x, dtype=dtype)))
        noisy, frozen = self.noisy, self.noisy.draw(np.asarray(x, dtype=float), rng)
        return lambda x: float(noisy(np.asarray(x, dtype=float), frozen))


class CurrentPoint(ComparedByState):
    """A chain's current point, its (estimated) log-density, and that estimate's noise.

    Attributes
    ----------
    x : numpy.ndarray or None
        None before the chain's first iteration.
    logp : float
    noise : list or None
        The noise the estimate was computed with (pseudo-marginal: kept, never re-drawn).
    shared_snapshot : list or None
        Other steps' variables when ``logp`` was computed.
    """

    def __init__(self) -> None:
        self.x: np.ndarray | None = None
        self.logp = math.nan
        self.noise: list | None = None
        self.shared_snapshot: list | None = None

    def refresh(
        self, x0: np.ndarray, density: ModelLogDensity, shared: dict, rng: np.random.Generator
    ) -> int:
        """Sync with the point PyMC hands over; return the evaluations made (0 or 1).

        A new point gets a fresh estimate. If only other steps' variables changed, a
        pseudo-marginal estimate is recomputed with the *stored* noise.
        """
        same_point = self.x is not None and np.array_equal(x0, self.x)
        if same_point and not self._shared_changed(shared):
            return 0
        if same_point and self.noise is not None:
            self.logp = density.noisy(self.x, self.noise)
        else:
            self.x = np.array(x0, copy=True)
            self.logp, self.noise = density.estimate(self.x, rng)
        if shared:
            self.shared_snapshot = [
                np.array(v.get_value(borrow=True), copy=True) for v in shared.values()
            ]
        return 1

    def _shared_changed(self, shared: dict) -> bool:
        if not shared:
            return False
        if self.shared_snapshot is None:
            return True
        return any(
            not np.array_equal(var.get_value(borrow=True), old)
            for var, old in zip(shared.values(), self.shared_snapshot, strict=True)
        )
