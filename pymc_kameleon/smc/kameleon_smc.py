"""KameleonSMC: a ``pm.sample_smc`` kernel that moves particles with Kameleon proposals."""

from __future__ import annotations

import inspect
import math
from typing import Any, ClassVar, NoReturn

import numpy as np
from pymc.smc.kernels import SMC_KERNEL

from pymc_kameleon._compat import (
    compile_pytensor,
    join_nonshared_inputs,
    make_shared_replacements,
    modelcontext,
)
from pymc_kameleon.core.checks import check_int, check_number, show
from pymc_kameleon.core.evaluation_pool import PointEvaluator
from pymc_kameleon.core.population import (
    DecorrelationRule,
    default_max_sweeps,
    population_map,
    population_proposal,
    rescale_components,
    split_by_value,
    updated_log_factor,
)
from pymc_kameleon.core.population_checks import check_population
from pymc_kameleon.core.population_sweep import decide_sweep, evaluate_points, propose_sweep
from pymc_kameleon.pseudo_marginal import (
    allow_noisy_evaluation,
    has_noisy_terms,
    strip_noisy_guards,
)
from pymc_kameleon.smc._input_checks import check_draws, check_proper_priors

__all__ = ["KameleonSMC"]


class KameleonSMC(SMC_KERNEL):
    r"""Kernel SMC for ``pm.sample_smc``: particles moved by Kameleon proposals from the population.

    Pass the class to ``pm.sample_smc(kernel=KameleonSMC, ...)``; its own arguments go as
    keywords of ``pm.sample_smc``. At every tempering stage, after resampling, the population
    covers the current tempered target :math:`p(\theta) L(\theta)^\beta`, and the kernel builds
    Kameleon proposals (Sejdinovic et al., 2014) from it, as kernel SMC does (Schuster,
    Strathmann, Paige and Sejdinovic, 2017). The population is split at random into two halves
    (every copy of a particle on the same side), and each half is moved with a proposal built
    on the other: a proposal built on the particles it moves is shaped by each particle's own
    start, and on the 8-D banana test that biased the variance of x2 low by 2.9–4.7 Monte Carlo
    standard errors, even at 200–300 sweeps per stage. Each proposal has

    * coordinates ``u`` that whiten the population (its mean and covariance), so every setting
      below is in posterior standard deviations and the kernel is invariant to affine
      reparameterisation;
    * a Gaussian kernel on ``n_basis`` particles drawn from the other half, bandwidth by the
      median heuristic;
    * :math:`q(\cdot \mid u) = \mathcal N(u, \gamma^2 I + \nu^2 M_u H M_u^\top)`, where
      :math:`\nu^2` gives the kernel term the trace of the optimally scaled random walk on
      average over the population, times a factor adapted toward ``target_accept``: after
      every sweep its log moves by ``2 (acceptance - target_accept)``, the acceptance being the
      population's mean, and the factor carries over to the next stage.

    With probability ``global_weight`` a move is instead a random walk with the population's
    covariance (the mixture density enters the Hastings term), which keeps particles moving
    where the population is sparse and the kernel term vanishes. Apart from the scale factors
    the proposal is fixed for the stage, and every particle makes Metropolis–Hastings moves with
    the exact Hastings term (the proposal's covariance depends on the state it is built at), as
    many sweeps as the decorrelation rule asks: another sweep while some coordinate's
    correlation (across particles) with its value at the stage's start is above
    ``max_correlation`` and still fell by at least 0.01 in the last sweep, at most ``max_steps``
    (:class:`~pymc_kameleon.core.population.DecorrelationRule`). PyMC's MH kernel stops as soon
    as one coordinate in ten stops decorrelating, which on a curved target lets the fast
    coordinates end the stage before the slow ones have moved; here the slowest coordinate
    decides, and a coordinate that cannot decorrelate further (particles in separated modes
    stay in their mode) does not hold the stage up.

    Each particle's stored likelihood is compared against, never recomputed, so a model whose
    likelihood is a stochastic estimate (:func:`~pymc_kameleon.noisy_potential`,
    :func:`~pymc_kameleon.estimator_potential`) stays exact: it is sampled on the space extended
    by the estimate's noise, and the marginal likelihood estimate stays unbiased. The
    kernel pickles (``cores > 1``) and draws all its randomness from the generator PyMC gives
    each chain, so a ``random_seed`` reproduces a run.

    Parameters
    ----------
    gamma : float, default 0.2
        Standard deviation of the exploration term :math:`\gamma^2 I`, in the whitened
        coordinates (posterior standard deviations of the stage's target).
    n_basis : int, default 500
        Particles the kernel term is built on (all of the other half if fewer); the cost of a
        move is :math:`O(n\,d^2)` per particle.
    global_weight : float, default 0.2
        Probability that a move is instead a random walk with the population covariance (scale
        adapted like :math:`\nu^2`), the mixture density entering the Hastings term. The kernel
        term vanishes where particles are sparse (the ends of a banana's arms), and there the
        Kameleon move is only its small :math:`\gamma` term; the random walk keeps those
        particles moving. 0 gives pure Kameleon moves.
    target_accept : float, default 0.234
        Acceptance rate the scale :math:`\nu^2` is adapted toward, after every sweep.
    max_correlation : float, default 0.1
        Sweeps go on while some coordinate's correlation (across particles) with its value at
        the start of the stage is above this (or above ``3 / sqrt(draws)``, the noise level) and
        still falling: every coordinate, the slowest included, forgets the start unless it
        stalls first. More sweeps give more diverse particles, not a different target: each
        sweep is exact for the stage's target.
    max_steps : int, optional
        Most Metropolis–Hastings sweeps per stage; by default ``max(30, 5 d)`` in ``d``
        dimensions (a random walk needs about ``3.5 d`` sweeps to bring a correlation down to
        0.1; see :func:`~pymc_kameleon.core.population.default_max_sweeps`).
    pool : object, optional
        Where each sweep's candidates are evaluated: None (the default) one after another in
        the chain's process; otherwise any object with ``map(function, iterable)`` — a
        ``multiprocessing.Pool``, a ``concurrent.futures`` executor such as
        ``ProcessPoolExecutor`` or ``mpi4py.futures.MPIPoolExecutor`` — or a
        ``dask.distributed.Client``, which runs on one machine (``LocalCluster``) or a cluster.
        The candidates go in one chunk per worker, and the model's compiled log-prior and
        log-likelihood travel once (serialised with cloudpickle, so a black-box ``Op`` defined
        in a script or notebook reaches the workers). The particles and the marginal
        likelihood are the same as with None, bit for bit. The pool is the parallelism: run
        the chains one after another, ``pm.sample_smc(..., cores=1)``; the pool is used, never
        closed. Not for a likelihood that is a stochastic estimate (its random numbers would be
        drawn in the workers).
    *args, **kwargs
        Passed to :class:`pymc.smc.kernels.SMC_KERNEL` by ``pm.sample_smc`` (``draws``,
        ``threshold``, ``model``, ...).

    Raises
    ------
    ValueError
        Before anything is compiled or drawn: if a free variable's prior is improper
        (``pm.Flat``, ``pm.HalfFlat``, ``pm.ICAR``, also under a transform or inside another
        distribution), which SMC cannot start from; if ``draws`` is below ``2 (d + 1)`` for the
        ``d`` sampled (raveled) coordinates (the population's covariance needs ``d + 1``
        distinct particles, and a resampling keeps about half of them distinct; use 10 d or
        more); or if an option is out of range.
    TypeError
        If there is no model (a ``KameleonSMC(...)`` built by hand outside ``with model:``), or
        an unknown option; calling an instance (``pm.sample_smc(kernel=KameleonSMC())``) also
        raises, saying to pass the class.

    Notes
    -----
    Stats per stage (``sample_stats``, one value per stage and chain): ``log_marginal_likelihood``
    (NaN before the last stage, as PyMC's kernels), ``beta``, ``accept_rate`` (mean acceptance
    probability of the stage's moves), ``scaling`` (:math:`\nu^2` at the stage's start),
    ``bandwidth`` (of the
    kernel, in whitened coordinates), ``n_steps`` (sweeps made) and ``logp_evals`` (log-density
    evaluations of the stage, counting prior and likelihood at a point as one).

    Examples
    --------
    >>> import pymc as pm
    >>> from pymc_kameleon import KameleonSMC
    >>> with pm.Model():
    ...     x = pm.Normal("x", 0.0, 10.0, shape=2)
    ...     _ = pm.Normal("y", x, 1.0, observed=[1.0, -1.0])
    ...     idata = pm.sample_smc(draws=200, kernel=KameleonSMC, chains=1, progressbar=False,
    ...                           random_seed=1)
    >>> idata["posterior"]["x"].shape
    (1, 200, 2)
    """

    stats_dtypes_shapes: ClassVar[dict[str, tuple[type, list]]] = {
        "log_marginal_likelihood": (float, []),
        "beta": (float, []),
        "accept_rate": (float, []),
        "scaling": (float, []),
        "bandwidth": (float, []),
        "n_steps": (int, []),
        "logp_evals": (int, []),
    }
    #: include the Hastings term (False only in the test suite's negative control)
    hastings: ClassVar[bool] = True

    def __init__(
        self,
        *args: Any,
        gamma: float = 0.2,
        n_basis: int = 500,
        global_weight: float = 0.2,
        target_accept: float = 0.234,
        max_correlation: float = 0.1,
        max_steps: int | None = None,
        pool: Any = None,
        **kwargs: Any,
    ) -> None:
        base = _base_arguments(args, kwargs)
        options = {
            "gamma": gamma, "n_basis": n_basis, "global_weight": global_weight,
            "target_accept": target_accept, "max_correlation": max_correlation,
            "max_steps": max_steps,
        }  # fmt: skip
        given = dict(options, pool=pool)
        self._set_checked_options(**options)
        #: the arguments given other than the defaults, for the message of :meth:`__call__`
        self._given = _non_default_arguments(base, given)
        model = _model_of(base.get("model"))
        # before compiling or drawing anything: the model's priors, then the particle count
        check_proper_priors(model)
        coordinate_names = _coordinate_names(model, model.value_vars)
        check_draws(base.get("draws", _BASE_DEFAULTS["draws"]), len(coordinate_names))
        noisy = has_noisy_terms(model)
        if noisy and pool is not None:
            raise ValueError(
                "KameleonSMC(pool=...) evaluates a deterministic log-density in the pool's "
                "workers, and this model's likelihood is a stochastic estimate (a "
                "noisy_potential or estimator_potential), whose random numbers must be drawn "
                "in the chain's own process to keep the run exact and reproducible: leave "
                "pool out (pool=None) for this model."
            )
        self.pool = pool
        self._evaluator: PointEvaluator | None = None
        if noisy:
            with allow_noisy_evaluation():  # PyMC's base compiles the guarded graph once
                super().__init__(*args, **kwargs)
            self.likelihood_logp_func = _compile_likelihood(model, kwargs.get("compile_kwargs"))
        else:
            super().__init__(*args, **kwargs)
        self.noisy_likelihood = noisy
        #: a label per coordinate of the raveled particles, for error messages
        self.coordinate_names = coordinate_names
        dim = len(self.coordinate_names)
        self.max_steps = default_max_sweeps(dim) if max_steps is None else int(max_steps)
        self._reset_stage_state()

    def _set_checked_options(
        self, gamma, n_basis, global_weight, target_accept, max_correlation, max_steps
    ) -> None:
        """Check the kernel's own options and keep them (``max_steps`` is set once d is known)."""
        self.gamma = float(check_number("gamma", gamma, minimum=0.0, open_minimum=True))
        self.n_basis = check_int("n_basis", n_basis, minimum=2, hint="500 is the default.")
        self.global_weight = float(
            check_number("global_weight", global_weight, minimum=0.0, maximum=1.0,
                         open_maximum=True)
        )  # fmt: skip
        self.target_accept = float(
            check_number("target_accept", target_accept, minimum=0.0, maximum=1.0,
                         open_minimum=True, open_maximum=True)
        )  # fmt: skip
        self.max_correlation = float(
            check_number("max_correlation", max_correlation, minimum=0.0, maximum=1.0,
                         open_minimum=True)
        )  # fmt: skip
        if max_steps is not None:
            check_int("max_steps", max_steps, minimum=1, hint="leave it out for max(30, 5 d).")

    def __call__(self, *args: Any, **kwargs: Any) -> NoReturn:
        """Refuse to be called: ``pm.sample_smc`` takes the class, not an instance.

        ``pm.sample_smc(kernel=KameleonSMC())`` would otherwise fail with "'KameleonSMC' object
        is not callable": PyMC calls ``kernel(draws=..., start=..., model=..., random_seed=...,
        **kernel_kwargs)`` to build the kernel itself.

        Raises
        ------
        TypeError
            Always, with the call to make instead (the instance's options as keywords).
        """
        given = getattr(self, "_given", {}) or {"max_steps": 50}
        options = ", ".join(f"{name}={show(value)}" for name, value in given.items())
        name = type(self).__name__
        raise TypeError(
            f"pm.sample_smc(kernel=...) takes the kernel class and builds the kernel itself "
            f"(with the run's draws, model and random seed), so pass {name}, not an instance "
            f"{name}(...): give the kernel's options as keywords of pm.sample_smc, e.g. "
            f"pm.sample_smc(kernel={name}, {options}). Its options: "
            f"{', '.join(_OPTION_DEFAULTS)}."
        )

    def __getstate__(self) -> dict[str, Any]:
        """The kernel's state for another process (``cores > 1``); refused with a pool.

        Raises
        ------
        TypeError
            If the kernel has a pool: a pool belongs to the process that made it.
        """
        if self.pool is not None:
            raise TypeError(
                "pm.sample_smc(kernel=KameleonSMC, pool=...) runs each chain in this process, "
                "with the pool as the parallelism, and was asked to copy the kernel to worker "
                "processes for parallel chains: pass cores=1 "
                "(pm.sample_smc(kernel=KameleonSMC, pool=pool, chains=4, cores=1))."
            )
        return dict(vars(self))

    def _reset_stage_state(self) -> None:
        self.log_factors = [0.0, 0.0]  # Kameleon move, population random walk
        self.accept_rate = math.nan
        self.scaling = math.nan
        self.bandwidth = math.nan
        self.n_steps = 0
        self.logp_evals = 0
        self.proposals = []  # (rows, proposal) per half of the population

    # ----------------------------------------------------------------------------------------
    # PyMC's hooks
    def setup_kernel(self) -> None:
        """Start a chain: check the initial particles; forget what the previous chain adapted.

        Raises
        ------
        ValueError
            If PyMC's prior draws left a coordinate constant or not finite (see
            :func:`~pymc_kameleon.core.population_checks.check_population`).
        """
        check_population(self.tempered_posterior, initial=True, names=self.coordinate_names)
        self._reset_stage_state()

    def tune(self) -> None:
        """Build the stage's proposals from the resampled population, one per half."""
        particles = np.asarray(self.tempered_posterior, dtype=float)
        affine = population_map(particles, self.coordinate_names)
        side = split_by_value(particles, self.rng)
        if side is None:  # too few distinct particles to split: one proposal built on them all
            halves = [(np.arange(particles.shape[0]), None)]
        else:
            halves = [(np.flatnonzero(side), particles[~side]),
                      (np.flatnonzero(~side), particles[side])]  # fmt: skip
        self.proposals = [
            (rows, population_proposal(
                particles, self.rng, gamma=self.gamma, n_basis=self.n_basis,
                global_weight=self.global_weight, log_factors=tuple(self.log_factors),
                basis=basis, affine=affine,
            ))
            for rows, basis in halves
        ]  # fmt: skip
        stats = [proposal.stats() for _, proposal in self.proposals]
        self.scaling = float(np.mean([s["scaling"] for s in stats]))
        self.bandwidth = float(np.mean([s["bandwidth"] for s in stats]))

    def mutate(self) -> None:
        """Metropolis–Hastings sweeps of every particle with its half's fixed proposal."""
        dtype = self.tempered_posterior.dtype
        particles = np.asarray(self.tempered_posterior, dtype=float).copy()
        log_parts = np.column_stack([self.prior_logp, self.likelihood_logp]).astype(float)

        def evaluate(x: np.ndarray) -> tuple[float, float]:
            x = x.astype(dtype, copy=False)  # the compiled functions trust their input's dtype
            return float(self.prior_logp_func(x)), float(self.likelihood_logp_func(x))

        evaluate_many = self._pool_evaluator(dtype)
        rule = DecorrelationRule(particles, self.max_correlation, self.max_steps)
        accept = []
        while True:
            sweep, chosen = self._sweep(particles, log_parts, evaluate, evaluate_many)
            accept.append(sweep)
            self._adapt_scales(sweep, chosen)
            if not rule.another_sweep(particles):
                break
        self.n_steps = rule.sweeps
        self.logp_evals = rule.sweeps * particles.shape[0]
        self.accept_rate = float(np.mean(accept))
        self.tempered_posterior = particles.astype(dtype, copy=False)
        self.prior_logp = log_parts[:, 0].copy()
        self.likelihood_logp = log_parts[:, 1].copy()
        self.tempered_posterior_logp = self.prior_logp + self.beta * self.likelihood_logp

    def _pool_evaluator(self, dtype: np.dtype) -> PointEvaluator | None:
        """The pool's evaluator of log-prior and log-likelihood (built once per chain)."""
        if self.pool is None:
            return None
        if self._evaluator is None or self._evaluator.function.dtype != dtype:
            function = PriorAndLikelihood(self.prior_logp_func, self.likelihood_logp_func, dtype)
            self._evaluator = PointEvaluator(function, self.pool)
        return self._evaluator

    def _sweep(
        self, particles, log_parts, evaluate, evaluate_many=None
    ) -> tuple[np.ndarray, np.ndarray]:
        """One move of every particle (each half with its proposal), in place.

        Both halves' candidates are drawn before any is evaluated: their proposals are fixed
        for the stage, so nothing a half's decisions change enters the other's candidates, and
        a pool gets the whole sweep in one call (one round trip instead of one per half). With
        or without a pool the random numbers are drawn in the same order, so the particles are
        the same.
        """
        accept = np.empty(particles.shape[0])
        chosen = np.empty(particles.shape[0], dtype=np.int64)
        candidates = [
            propose_sweep(proposal, particles[rows], self.rng) for rows, proposal in self.proposals
        ]
        states = np.concatenate([c.states for c in candidates], axis=0)
        parts_of_all = evaluate_points(states, evaluate, evaluate_many)
        start = 0
        for (rows, proposal), mine_candidates in zip(self.proposals, candidates, strict=True):
            stop = start + mine_candidates.states.shape[0]
            mine, parts = particles[rows], log_parts[rows]
            accept[rows] = decide_sweep(
                proposal, mine, parts, self.beta, mine_candidates, parts_of_all[start:stop],
                self.rng, hastings=self.hastings,
            )  # fmt: skip
            chosen[rows] = mine_candidates.chosen
            particles[rows], log_parts[rows] = mine, parts
            start = stop
        return accept, chosen

    def _adapt_scales(self, accept: np.ndarray, chosen: np.ndarray) -> None:
        """Move each move's scale toward ``target_accept`` after a sweep (used by the next one).

        Each sweep is an exact move with the proposal it was made with; the acceptance that
        steers the next one is an average over the population, so one particle's influence on
        it is of order 1 / draws.
        """
        deltas = []
        for k, old in enumerate(self.log_factors):
            mine = accept[chosen == k]
            new = (
                old
                if mine.size == 0
                else updated_log_factor(old, float(mine.mean()), self.target_accept)
            )
            deltas.append(new - old)
            self.log_factors[k] = new
        for _, proposal in self.proposals:
            rescale_components(proposal, deltas)

    def sample_stats(self) -> dict[str, Any]:
        """The stage's stats (see Notes).

        Returns
        -------
        dict of str to float or int
            One value per stat of :attr:`stats_dtypes_shapes`, of its declared type.
        """
        # the declared dtypes, whatever PyMC left in its attributes (beta is the int 1 at the end)
        return {
            "log_marginal_likelihood": float(
                self.log_marginal_likelihood if self.beta == 1 else np.nan
            ),
            "beta": float(self.beta),
            "accept_rate": float(self.accept_rate),
            "scaling": float(self.scaling),
            "bandwidth": float(self.bandwidth),
            "n_steps": int(self.n_steps),
            "logp_evals": int(self.logp_evals),
        }

    def sample_settings(self) -> dict[str, Any]:
        """The kernel's settings, saved once with the results.

        Returns
        -------
        dict of str to float or int
            ``_n_draws``, ``threshold`` and the kernel's own arguments; PyMC puts them in
            ``idata["sample_stats"].attrs``.
        """
        return {
            "_n_draws": self.draws,
            "threshold": self.threshold,
            "gamma": self.gamma,
            "n_basis": self.n_basis,
            "global_weight": self.global_weight,
            "target_accept": self.target_accept,
            "max_correlation": self.max_correlation,
            "max_steps": self.max_steps,
            "pool": "none" if self.pool is None else type(self.pool).__name__,
        }


class PriorAndLikelihood:
    """``x -> (log prior, log likelihood)`` from the compiled functions: what a pool's workers run.

    Parameters
    ----------
    prior, likelihood : callable
        The compiled functions of the raveled point.
    dtype : numpy.dtype
        The particles' dtype (the compiled functions trust their input's dtype).
    """

    def __init__(self, prior: Any, likelihood: Any, dtype: np.dtype) -> None:
        self.prior, self.likelihood, self.dtype = prior, likelihood, np.dtype(dtype)

    def __call__(self, x: np.ndarray) -> tuple[float, float]:
        """Both log-densities at ``x``.

        Parameters
        ----------
        x : numpy.ndarray, shape (d,)

        Returns
        -------
        tuple of float
        """
        x = np.asarray(x).astype(self.dtype, copy=False)
        return _single(self.prior(x)), _single(self.likelihood(x))


def _single(output: Any) -> float:
    # a compiled function copied with swapped generators (PyMC's set_rng) returns a list of its
    # one output once it has been pickled
    return float(output[0] if isinstance(output, list) else output)


#: the kernel's own options and their defaults
_OPTION_DEFAULTS = {
    name: p.default
    for name, p in inspect.signature(KameleonSMC.__init__).parameters.items()
    if p.kind is inspect.Parameter.KEYWORD_ONLY
}
_BASE_SIGNATURE = inspect.signature(SMC_KERNEL.__init__)
#: PyMC's kernel arguments (``draws``, ``start``, ``model``, ...) and their defaults
_BASE_DEFAULTS = {
    name: p.default for name, p in _BASE_SIGNATURE.parameters.items() if name != "self"
}


def _non_default_arguments(base: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """``draws``/``threshold`` if given, and the kernel's options that differ from the default."""
    given = {name: base[name] for name in ("draws", "threshold") if name in base}
    given.update((k, v) for k, v in options.items() if v != _OPTION_DEFAULTS[k])
    return given


def _base_arguments(args: tuple, kwargs: dict) -> dict[str, Any]:
    """The arguments for PyMC's base kernel given (by position or keyword), by name.

    Raises
    ------
    TypeError
        For an argument neither the kernel nor PyMC's base kernel takes (a misspelt option),
        naming both lists.
    """
    try:
        return dict(_BASE_SIGNATURE.bind_partial(None, *args, **kwargs).arguments)
    except TypeError as exc:
        raise TypeError(
            f"KameleonSMC: {exc}. Its options are {', '.join(_OPTION_DEFAULTS)}; pm.sample_smc "
            f"passes it {', '.join(_BASE_DEFAULTS)}."
        ) from None


def _model_of(model: Any) -> Any:
    """``model``, or the one of the ``with`` block; a TypeError that says what to do if none."""
    try:
        return modelcontext(model)
    except TypeError:
        if model is not None:
            raise
        raise TypeError(
            "KameleonSMC needs a model: none was given and there is no `with model:` block. "
            "pm.sample_smc builds the kernel for the model, so pass the class, not an instance: "
            "`with model: pm.sample_smc(kernel=KameleonSMC, max_steps=50)` (the kernel's "
            "options as keywords of pm.sample_smc), not `kernel=KameleonSMC(...)`."
        ) from None


def _coordinate_names(model: Any, variables: list) -> list[str]:
    """A label per coordinate of the raveled particles: ``name`` or ``name[i]``."""
    point = model.initial_point()
    names = []
    for variable in variables:
        shape = np.shape(point[variable.name])
        flat = range(int(np.prod(shape)))
        names += [variable.name] if shape == () else [f"{variable.name}[{i}]" for i in flat]
    return names


def _compile_likelihood(model: Any, compile_kwargs: dict | None) -> Any:
    """The log-likelihood (observed terms and Potentials) with the noisy terms' guards removed.

    Compiled like PyMC's own SMC functions (the raveled point as the only input), so a pickled
    kernel re-links in a worker process without the guards' permission, and its random
    generators are the ones ``set_rng`` swaps per chain.
    """
    initial_point = model.initial_point()
    variables = model.value_vars
    shared = make_shared_replacements(initial_point, variables, model)
    graph = strip_noisy_guards(model.datalogp)
    [logp], raveled = join_nonshared_inputs(
        point=initial_point, outputs=[graph], inputs=variables, shared_inputs=shared
    )
    kwargs = {**(compile_kwargs or {}), "on_unused_input": "ignore"}
    function = compile_pytensor([raveled], logp, **kwargs)
    function.trust_input = True
    return function
