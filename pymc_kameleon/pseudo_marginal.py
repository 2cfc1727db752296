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

So that no other route evaluates such a term by accident, both functions wrap it in a
:class:`NoisyTermGuard`: an identity Op that refuses to be compiled (:class:`NoisyTermError`) or
differentiated, so PyMC's samplers fail when they are built, before any draw. Our steps remove the
guards (:func:`strip_noisy_guards`) before they compile the log-density, plain ``pm.sample()``
assigns :class:`~pymc_kameleon.KameleonStep` to the continuous variables of a model with a noisy
term, and :func:`allow_noisy_evaluation` lets the guards compile for a deliberate evaluation.
"""

from __future__ import annotations

import contextlib
import contextvars
import inspect
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt
from pytensor.graph.basic import Apply, Variable
from pytensor.graph.replace import graph_replace
from pytensor.tensor.random.basic import integers

from pymc_kameleon._compat import (
    PullbackOp,
    ancestors,
    infer_shape_input_shapes,
    modelcontext,
    random_draw,
    rvs_in_graph,
)

__all__ = [
    "SEED_UPPER_BOUND",
    "TRIAL_SEED",
    "EstimatorOp",
    "NoisyTermError",
    "NoisyTermGuard",
    "allow_noisy_evaluation",
    "estimator_potential",
    "has_noisy_terms",
    "in_noisy_model",
    "noise_variables",
    "noisy_evaluation_allowed",
    "noisy_potential",
    "strip_noisy_guards",
]

#: black-box estimators get seeds drawn uniformly from ``[0, SEED_UPPER_BOUND)``
SEED_UPPER_BOUND = 2**62
#: seed of the generator of the trial call :func:`estimator_potential` makes at construction
TRIAL_SEED = 20140621

_STEPS = "KameleonStep, AdaptiveMetropolis or KMCStep"
# PyTensor re-raises compile-time errors with this debugging report appended (raise_with_op);
# it names PyTensor internals and says nothing useful about a refused noisy term.
_PYTENSOR_REPORT = "\nApply node that caused the error"
_evaluation_allowed: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "pymc_kameleon_noisy_evaluation_allowed", default=False
)
# models that received a noisy term (and their root models), for KameleonStep.competence; the
# lock keeps a snapshot from racing an insertion made by another thread
_NOISY_MODELS: weakref.WeakSet = weakref.WeakSet()
_NOISY_MODELS_LOCK = threading.Lock()
# model -> (number of potentials, whether one holds a guard): has_noisy_terms without a graph walk
_GUARDED_MODELS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


# -----------------------------------------------------------------------------------------------
# the guard around every noisy term
class NoisyTermError(ValueError):
    """Something other than this package's steps tried to evaluate a stochastic estimate.

    Raised when a PyTensor function containing a term made by :func:`noisy_potential` or
    :func:`estimator_potential` is compiled outside :func:`allow_noisy_evaluation`, e.g. when
    ``pm.Metropolis()``, ``pm.Slice()`` or ``model.compile_logp()`` is built on such a model.

    Parameters
    ----------
    message : str
        The explanation (PyTensor's debugging report, if it appended one, is dropped).
    """

    def __init__(self, message: str = "") -> None:
        super().__init__(str(message).split(_PYTENSOR_REPORT, 1)[0])


def noisy_evaluation_allowed() -> bool:
    """Whether the code runs inside :func:`allow_noisy_evaluation`.

    Returns
    -------
    bool
    """
    return _evaluation_allowed.get()


@contextlib.contextmanager
def allow_noisy_evaluation() -> Iterator[None]:
    """Let the noisy terms of a model compile, be evaluated and differentiated, as identities.

    Outside this context, compiling a PyTensor function that contains a term made by
    :func:`noisy_potential` or :func:`estimator_potential` raises :class:`NoisyTermError`, and
    differentiating one raises ``NotImplementedError``: PyMC's samplers would draw fresh noise at
    the current state at every iteration, which biases the posterior. Inside it, the guards are
    identities, for a deliberate evaluation: debugging (``model.compile_logp()``,
    ``model.point_logps()``), or a sampler you know keeps the current state's estimate. The
    permission is checked when a function is *compiled* (a function compiled inside keeps
    working outside) and is local to the current thread and context (a ``contextvars``
    variable), so other threads are not affected.

    Yields
    ------
    None

    Examples
    --------
    >>> import pymc as pm
    >>> import pymc_kameleon as pk
    >>> with pm.Model() as model:
    ...     mu = pm.Normal("mu")
    ...     _ = pk.noisy_potential("loglike", -0.5 * (mu - pm.Normal.dist()) ** 2)
    >>> with pk.allow_noisy_evaluation():
    ...     logp = model.compile_logp()     # a fresh estimate at every call
    >>> bool(logp({"mu": 0.0}) != logp({"mu": 0.0}))
    True
    """
    token = _evaluation_allowed.set(True)
    try:
        yield
    finally:
        _evaluation_allowed.reset(token)


class NoisyTermGuard(PullbackOp):
    """Identity Op that marks a stochastic likelihood estimate and refuses evaluation.

    :func:`noisy_potential` and :func:`estimator_potential` wrap their term in it. Compiling a
    function that contains it raises :class:`NoisyTermError` (``make_thunk``; with the Numba
    backend, when the graph is translated), and so does ``perform``; its gradient raises
    ``NotImplementedError``, so PyMC sees no gradient and never assigns NUTS. Both name the term
    and the fix. The steps of this package remove the guards with :func:`strip_noisy_guards`
    before compiling; :func:`allow_noisy_evaluation` turns them into plain identities.

    Parameters
    ----------
    term : str
        Name of the potential, for the messages.
    kind : str
        The function that made it (``"noisy_potential"`` or ``"estimator_potential"``).
    """

    __props__ = ("term", "kind")
    view_map = {0: [0]}  # noqa: RUF012 (PyTensor's Op API)

    def __init__(self, term: str, kind: str) -> None:
        self.term = str(term)
        self.kind = str(kind)

    def make_node(self, x) -> Apply:
        """Build the node: the output has the input's type."""
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def evaluation_message(self) -> str:
        """Why the term may not be evaluated here, and what to do instead.

        Returns
        -------
        str
        """
        return (
            f"The model term {self.term!r} is a stochastic likelihood estimate "
            f"(pymc_kameleon.{self.kind}), and a sampler or function other than this package's "
            f"pseudo-marginal steps is being compiled to evaluate it. PyMC's samplers (NUTS, "
            "Metropolis, Slice, DEMetropolisZ, ...) draw fresh noise at every evaluation, "
            "also at the current state, and that biases the posterior. Sample all the model's "
            f"variables with one of {_STEPS}: plain pm.sample() assigns KameleonStep "
            "automatically, or pass pm.sample(step=pymc_kameleon.KameleonStep()); these steps "
            "sample continuous variables only, so marginalise any discrete variable. For "
            "sequential Monte Carlo use pm.sample_smc(kernel=pymc_kameleon.KameleonSMC), which "
            "keeps each particle's estimate. To evaluate the term anyway (debugging, or a "
            "sampler you know keeps the current state's estimate), compile inside "
            "`with pymc_kameleon.allow_noisy_evaluation():`."
        )

    def gradient_message(self) -> str:
        """Why the term has no gradient, and what to do instead.

        Returns
        -------
        str
        """
        return (
            f"The model term {self.term!r} is a stochastic likelihood estimate "
            f"(pymc_kameleon.{self.kind}) and has no gradient: NUTS, HamiltonianMC, ADVI and "
            "find_MAP would follow the gradient of one noise draw. Sample the model with a "
            f"gradient-free pseudo-marginal step, {_STEPS}: plain pm.sample() assigns "
            "KameleonStep automatically, or pass pm.sample(step=pymc_kameleon.KameleonStep())."
        )

    def make_thunk(self, node, storage_map, compute_map, no_recycling, impl=None):
        """Refuse to compile, unless inside :func:`allow_noisy_evaluation` (then an identity)."""
        if not noisy_evaluation_allowed():
            raise NoisyTermError(self.evaluation_message())
        input_storage = storage_map[node.inputs[0]]
        output_storage = storage_map[node.outputs[0]]
        computed = None if compute_map is None else compute_map[node.outputs[0]]

        def thunk() -> None:
            output_storage[0] = input_storage[0]
            if computed is not None:
                computed[0] = True

        thunk.inputs = [input_storage]
        thunk.outputs = [output_storage]
        thunk.lazy = False
        return thunk

    def perform(self, node, inputs, output_storage) -> None:
        """Identity inside :func:`allow_noisy_evaluation`; refuse otherwise."""
        if not noisy_evaluation_allowed():
            raise NoisyTermError(self.evaluation_message())
        output_storage[0][0] = inputs[0]

    def infer_shape(self, *args):
        """The input's shape (so shape queries never evaluate the term).

        PyTensor 2 passes ``(fgraph, node, input_shapes)``, PyTensor 3 ``(node, input_shapes)``.
        """
        return infer_shape_input_shapes(args)

    def pullback(self, inputs, outputs, cotangents):
        """Refuse, unless inside :func:`allow_noisy_evaluation` (then the identity's gradient).

        PyMC decides whether NUTS may sample a variable by differentiating the model's
        log-density: this refusal is what keeps it away (PyTensor 2 reaches it through
        ``L_op``, see :class:`~pymc_kameleon._compat.PullbackOp`).
        """
        if noisy_evaluation_allowed():
            return [cotangents[0]]
        raise NotImplementedError(self.gradient_message())

    def __str__(self) -> str:
        return f"NoisyTermGuard{{{self.term}}}"


def _is_guard(var: Variable) -> bool:
    return var.owner is not None and isinstance(var.owner.op, NoisyTermGuard)


def strip_noisy_guards(graph: Variable | Sequence[Variable]) -> Variable | list[Variable]:
    """Replace every :class:`NoisyTermGuard` in a graph by its input.

    The steps of this package call it on the model's log-density before compiling it; they keep
    the current state's estimate, so they may evaluate the terms. Variables upstream of the
    guards (the noise random variables among them) keep their identity.

    Parameters
    ----------
    graph : pytensor Variable or sequence of Variables

    Returns
    -------
    pytensor Variable or list of Variables
        The same structure as ``graph``; ``graph`` itself when it contains no guard.
    """
    single = isinstance(graph, Variable)
    outputs = [graph] if single else list(graph)
    # one guard at a time: a guard may hide inside another guard's input, and graph_replace
    # refuses replacements of which one is an ancestor of another
    while (guard := next((v for v in ancestors(outputs) if _is_guard(v)), None)) is not None:
        outputs = graph_replace(outputs, {guard: guard.owner.inputs[0]})
    return outputs[0] if single else outputs


def has_noisy_terms(model=None) -> bool:
    """Whether a model holds a term made by :func:`noisy_potential` or :func:`estimator_potential`.

    Parameters
    ----------
    model : pymc.Model, optional
        Defaults to the model on the context stack.

    Returns
    -------
    bool
    """
    model = modelcontext(model)
    n_potentials = len(model.potentials)  # potentials are only ever added
    cached = _GUARDED_MODELS.get(model)
    if cached is None or cached[0] != n_potentials:
        found = bool(n_potentials) and any(_is_guard(v) for v in ancestors(model.potentials))
        cached = _GUARDED_MODELS[model] = (n_potentials, found)
    return cached[1]


def _guard(term: Variable, name: str, kind: str, model) -> Variable:
    """Wrap a noisy term in its guard, and remember that the model has one."""
    _register_backends()
    with _NOISY_MODELS_LOCK:
        for owner in (model, getattr(model, "root", model)):
            _NOISY_MODELS.add(owner)
    return NoisyTermGuard(name, kind)(term)


def in_noisy_model(rv: Variable) -> bool:
    """Whether a model random variable belongs to a model with a noisy term.

    The models are those that received a term from :func:`noisy_potential` or
    :func:`estimator_potential` (held by weak references), and the model on the context stack
    if it contains a guarded term (e.g. a clone made by ``pm.do`` or ``pm.observe``).

    Parameters
    ----------
    rv : pytensor Variable
        A random variable of a model (what ``competence`` receives).

    Returns
    -------
    bool
    """
    with _NOISY_MODELS_LOCK:
        models = list(_NOISY_MODELS)
    if any(rv in model.rvs_to_values for model in models):
        return True
    try:
        context = pm.Model.get_context(error_if_none=False)
    except Exception:  # e.g. a model-access block on the stack
        return False
    return context is not None and rv in context.rvs_to_values and has_noisy_terms(context)


_backends_registered = False


def _register_backends() -> None:
    """Teach PyTensor's Numba backend the guard: refused when translated, unless allowed."""
    global _backends_registered
    if _backends_registered:
        return
    _backends_registered = True
    try:
        from pytensor.link.numba.dispatch import basic as numba_basic
    except ImportError:  # pragma: no cover - numba is optional for PyTensor < 2.x
        return

    @numba_basic.register_funcify_and_cache_key(NoisyTermGuard)
    def _numba_funcify_guard(op, node=None, **kwargs):
        if not noisy_evaluation_allowed():
            raise NoisyTermError(op.evaluation_message())

        @numba_basic.numba_njit
        def identity(x):
            return x

        return identity, None  # never cached: the permission is checked at every translation


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
    non-scalar estimates are summed as ``pm.Potential`` would. The term is wrapped in a
    :class:`NoisyTermGuard`, so only this package's steps can evaluate it: plain ``pm.sample()``
    assigns :class:`~pymc_kameleon.KameleonStep`, and PyMC's samplers raise
    :class:`NoisyTermError` (or ``NotImplementedError`` for a gradient) when they are built.

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
    return pm.Potential(name, _guard(log_estimate, name, "noisy_potential", model), model=model)


class EstimatorOp(PullbackOp):
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

    def pullback(self, inputs, outputs, cotangents):
        """Refuse: an estimated likelihood has no usable gradient."""
        raise NotImplementedError(
            "An estimated log-likelihood (estimator_potential) has no gradient. Sample the model "
            "with a gradient-free step: pm.sample(step=KameleonStep()), KMCStep() or "
            "AdaptiveMetropolis()."
        )

    def __str__(self) -> str:
        name = getattr(self.estimate, "__name__", type(self.estimate).__name__)
        return f"EstimatorOp{{{name}}}"


def _real_number(value: Any) -> float | None:
    """``value`` as a float if it is one real number (a size-1 real array counts), else None."""
    try:
        array = np.asarray(value)
    except Exception:
        return None
    if array.size != 1 or not np.issubdtype(array.dtype, np.number) or np.iscomplexobj(array):
        return None
    return float(array.reshape(()))


def _as_log_estimate(value: Any, estimate: Callable) -> float:
    """Check that an estimator returned one real number."""
    number = _real_number(value)
    if number is None:
        raise TypeError(
            f"The estimator {estimate!r} must return one real number (log p_hat), got "
            f"{value!r}. Return -inf where the likelihood is zero."
        )
    return number


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
    ``pm.sample(random_seed=...)``. As with :func:`noisy_potential`, the term is guarded so that
    only this package's steps can evaluate it (plain ``pm.sample()`` assigns
    :class:`~pymc_kameleon.KameleonStep`).

    The estimator is checked here, not at sampling: its signature must accept
    ``(theta, rng)``, and one trial call at the model's initial point, with a generator of its own
    (seed :data:`TRIAL_SEED`, so no random state of the model or of NumPy is used), must return
    one real number that is finite or ``-inf``.

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

    Raises
    ------
    TypeError
        If ``estimate`` is not callable, cannot be called as ``estimate(theta, rng)``, or its
        trial call returns something other than one real number.
    ValueError
        If the trial call raises, or returns NaN or ``+inf``.

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
    params = [pt.as_tensor_variable(p) for p in params]
    _check_estimator(name, estimate, params, model)
    seed = random_draw(integers, 0, SEED_UPPER_BOUND, dtype="int64")
    seed.name = f"{name}_seed"
    term = _guard(op(seed, *params), name, "estimator_potential", model)
    return pm.Potential(name, term, model=model)


_EXPECTED_SIGNATURE = "estimate(theta, rng) -> float"


def _estimator_name(estimate: Callable) -> str:
    return getattr(estimate, "__qualname__", None) or type(estimate).__name__


def _check_estimator(name: str, estimate: Callable, params: list[Variable], model) -> None:
    """Check the signature, then call the estimator once at the model's initial point.

    The trial call uses its own generator (seed :data:`TRIAL_SEED`), so it neither consumes nor
    depends on any random state of the model or of NumPy.
    """
    label = f"estimator_potential({name!r}): the estimator {_estimator_name(estimate)!r}"
    try:
        signature = inspect.signature(estimate)
    except (TypeError, ValueError):  # builtins and some C callables have none: the call decides
        signature = None
    if signature is not None:
        try:
            signature.bind(None, None)
        except TypeError as err:
            raise TypeError(
                f"{label} has the signature {signature}, which cannot be called as "
                f"{_EXPECTED_SIGNATURE} ({err}). It must take the parameter value(s) first and "
                "a numpy.random.Generator second, and return log p_hat."
            ) from None
    theta = _initial_values(params, model)
    if theta is None:  # the parameters are themselves random: no meaningful trial point
        return
    try:
        value = estimate(theta, np.random.default_rng(TRIAL_SEED))
    except Exception as err:
        raise ValueError(
            f"{label} raised {type(err).__name__}: {err} when called once as "
            f"{_EXPECTED_SIGNATURE} at the model's initial point, theta = {theta!r}. It must "
            "accept the parameter value(s) (an ndarray, or a tuple of them for several "
            "tensors) and a numpy.random.Generator, and return log p_hat."
        ) from err
    number = _real_number(value)
    if number is None:
        raise TypeError(
            f"{label} returned {value!r} (of type {type(value).__name__}) when called once as "
            f"{_EXPECTED_SIGNATURE} at the model's initial point, theta = {theta!r}; it must "
            "return one real number, log p_hat (-inf where the likelihood is zero)."
        )
    if np.isnan(number) or number == np.inf:
        raise ValueError(
            f"{label} returned {number} when called once as {_EXPECTED_SIGNATURE} at the "
            f"model's initial point, theta = {theta!r}; log p_hat must be a finite number, or "
            "-inf where the likelihood is zero. Fix the estimator, or give the model an "
            "initial point where it is defined (initval=...)."
        )


def _initial_values(params: list[Variable], model) -> Any:
    """The parameter tensors evaluated at the model's initial point (what ``estimate`` gets)."""
    graphs = model.replace_rvs_by_values(params)
    if rvs_in_graph(graphs):
        return None
    point = model.initial_point(random_seed=TRIAL_SEED)
    used = set(ancestors(graphs))
    inputs = [v for v in model.value_vars if v in used]
    fn = pytensor.function(inputs, graphs, mode="FAST_COMPILE", on_unused_input="ignore")
    values = [np.asarray(v) for v in fn(*[point[v.name] for v in inputs])]
    return values[0] if len(values) == 1 else tuple(values)
