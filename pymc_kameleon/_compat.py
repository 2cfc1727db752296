"""The few places where PyMC 5 and PyMC 6 (with their ArviZ and PyTensor) differ, in one module.

- PyMC 5.18 is the oldest release supported: it introduced per-step random generators
  (``set_rng``) and ``sampling_state``, which per-chain seeding and exact state round trips need.
  Releases before 5.20 call the compile helper ``compile_pymc``.
- PyMC releases that read a ``tune`` sampler stat get one (:data:`EMIT_TUNE_STAT`).
- PyMC 5 starts a chain with ``BlockedStep.set_rng(rng)``; PyMC 6 replaced it with
  ``BlockedStep.setup_chain(rng, tune, draws)``. Our steps implement both and route them to one
  ``_start_chain`` method.
- PyMC 6 deprecates root-namespace access such as ``pm.STEP_METHODS`` or
  ``pm.join_nonshared_inputs``; everything here is imported from its submodule.
- PyMC 6 imports ``STEP_METHODS`` by name into ``pymc.sampling.mcmc``: a plugin registers its
  step by appending to that list in place (:func:`register_step_method`).
- PyMC 6 passes the number of warm-up iterations to ``setup_chain``; PyMC 5 only sets the
  boolean ``step.tune``. :func:`warmup_length_from_sampler` reads it, in PyMC 5, from the
  sampling loop that is starting the chain (the three loops PyMC 5 has: sequential, parallel
  worker, population); None when it cannot be found, and the steps then plan without it.
- PyMC 6 (ArviZ 1) returns an ``xarray.DataTree`` instead of ArviZ 0.x's ``InferenceData``.
  Indexing a group works on both, but gives an ``xarray.Dataset`` on one and a ``DataTree`` node
  on the other (no ``node[["x"]]`` selection, no ``.groups()`` method: ``DataTree.groups`` is a
  property of paths such as ``"/posterior"``). The package reads every result through
  :func:`posterior_dataset` (one group as a Dataset) and :func:`result_groups` (the group
  names); :func:`is_sampling_result` says what they accept, and anything else is a TypeError.
  :func:`result_from_groups` builds the installed ArviZ's own result type from arrays: ArviZ 0.x's
  ``az.from_dict`` takes the groups as keyword arguments, ArviZ 1's one dict of groups.
- ArviZ 1 (``arviz_stats``) reads a NumPy array as ``(chain, draw, ...)`` (a 1-D array is an
  error) and needs ``prob`` for the ``"tail"`` ESS; ArviZ 0.x reads a 1-D array as one chain,
  refuses more than 2-D, returns the mean's MCSE with shape ``(1,)``, and defaults the tail to
  the 5 % and 95 % quantiles (ArviZ 1's Dataset and DataTree functions, ``az.summary``
  included, use its ``stats.ci_prob`` of 0.89: the 5.5 % and 94.5 % quantiles).
- PyMC 5 and 6 log every chain's ``warning`` stat in the main process, from inside
  ``pm.sample`` (``pymc.sampling.mcmc.sample``), as the chain passes that iteration (sequential,
  parallel and population sampling alike). :func:`sampling_call` names the call a record is
  logged in, so a notice every chain gives can be said once per call.
  :func:`ess_array`, :func:`mcse_array` and :func:`rhat_array` compute the diagnostics of an
  array the same way on both (the tail at 5 % and 95 %), so a result gives the same answer as
  its raw draws.
- ArviZ 0.x has ``az.psislw(log_weights)``; ArviZ 1 has ``arviz_stats.base.array_stats.psislw``,
  which negates its input first (it takes minus the log ratios, as PSIS-LOO's log-likelihoods):
  both return smoothed log weights and the Pareto k-hat (:func:`pareto_khat_of_log_weights`).
- PyMC 6's ``Slice`` gives its stepping out a budget of ``max_steps`` (default 100) steps per
  coordinate, split at random between the two ends; an end that uses its budget up skips its
  last log-density evaluation, which the ``nstep_out`` stat does not record. PyMC 5 has no
  budget. :data:`SLICE_MAX_STEPS` is the default budget (None in PyMC 5), and
  :func:`pymc_kameleon.diagnostics.count_logp_evals_in` subtracts the expected number of
  skipped evaluations.
- PyTensor 3 calls ``Op.infer_shape(node, input_shapes)`` and warns about an ``fgraph`` first
  parameter; PyTensor 2 calls ``infer_shape(fgraph, node, input_shapes)``. Our Ops take
  ``*args`` and read the shapes from the last one (:func:`infer_shape_input_shapes`).
- PyTensor 3 differentiates an Op through ``Op.pullback(inputs, outputs, cotangents)``, and an
  Op that still overrides ``L_op`` or ``grad`` gets a FutureWarning saying they will stop being
  called; PyTensor 2 has no ``pullback`` and calls ``L_op``. Our Ops subclass
  :class:`PullbackOp` and implement ``pullback`` only: on PyTensor 2 its ``L_op`` forwards to it.
- PyTensor 3 warns (DeprecationWarning) when a ``RandomVariable`` is called without an explicit
  generator, or returns its draw without the next generator (``return_next_rng=True``);
  PyTensor 2 has neither argument. :func:`random_draw` calls one the quiet way on both.
- PyTensor 3 rewrites some graphs into a different order of floating-point operations (for
  example ``x / ell`` into ``x * (1 / ell)``, and a scale lifted out of an outer product):
  results agree to rounding, which an ill-conditioned computation may amplify (the latent GP of
  ``coal-gp``, see ``tests/bench/real/test_real_models.py``).
"""

from __future__ import annotations

import importlib.metadata
import inspect
from collections.abc import Mapping
from typing import Any

import numpy as np
import pymc
from pymc.blocking import RaveledVars
from pymc.model import modelcontext

try:
    from pymc.pytensorf import compile as compile_pytensor
except ImportError:  # pymc < 5.20 called it compile_pymc
    from pymc.pytensorf import compile_pymc as compile_pytensor
from pymc.pytensorf import find_rng_nodes, join_nonshared_inputs, make_shared_replacements

try:
    from pymc.pytensorf import rvs_in_graph
except ImportError:  # older pymc 5 releases keep it with the logprob utilities
    from pymc.logprob.utils import rvs_in_graph

try:
    from pytensor.graph.traversal import ancestors
except ImportError:  # pytensor < 2.32 keeps it in graph.basic
    from pytensor.graph.basic import ancestors
from pymc.stats.convergence import SamplerWarning, WarningType
from pymc.step_methods.arraystep import ArrayStepShared
from pymc.step_methods.compound import Competence, StepMethodState
from pymc.step_methods.state import dataclass_state
from pymc.util import get_value_vars_from_user_vars
from pymc.vartypes import continuous_types
from pytensor.graph.op import Op
from pytensor.tensor.random.op import RandomVariable

__all__ = [
    "ARVIZ_MAJOR",
    "EMIT_TUNE_STAT",
    "OP_HAS_PULLBACK",
    "PYMC_MAJOR",
    "RESULT_TYPES",
    "RV_RETURNS_NEXT_RNG",
    "SLICE_MAX_STEPS",
    "TAIL_PROBS",
    "ArrayStepShared",
    "Competence",
    "PullbackOp",
    "RaveledVars",
    "SamplerWarning",
    "StepMethodState",
    "WarningType",
    "ancestors",
    "compile_pytensor",
    "continuous_types",
    "dataclass_state",
    "ess_array",
    "find_rng_nodes",
    "get_value_vars_from_user_vars",
    "infer_shape_input_shapes",
    "is_sampling_result",
    "join_nonshared_inputs",
    "make_shared_replacements",
    "mcse_array",
    "modelcontext",
    "pareto_khat_of_log_weights",
    "posterior_dataset",
    "random_draw",
    "register_step_method",
    "result_from_groups",
    "result_groups",
    "rhat_array",
    "rvs_in_graph",
    "sampling_call",
    "sequential_chain",
    "warmup_length_from_sampler",
]

PYMC_MAJOR = int(pymc.__version__.split(".")[0])
#: Major version of the installed ArviZ (read from its metadata: importing ArviZ 1 takes a second)
ARVIZ_MAJOR = int(importlib.metadata.version("arviz").split(".")[0])

#: Older PyMC releases (at least 5.18-5.21) count warm-up draws from a ``tune`` stat of the first
#: step whenever any step emits one (NUTS does), and fail with KeyError if the first step lacks
#: it. Emit it exactly when PyMC's own Metropolis does in the installed release.
EMIT_TUNE_STAT = "tune" in pymc.step_methods.metropolis.Metropolis.stats_dtypes_shapes

#: Default stepping-out budget of PyMC's ``Slice`` per coordinate (PyMC 6), None without one (5)
_SLICE_MAX_STEPS = inspect.signature(pymc.step_methods.Slice.__init__).parameters.get("max_steps")
SLICE_MAX_STEPS: int | None = None if _SLICE_MAX_STEPS is None else int(_SLICE_MAX_STEPS.default)


def register_step_method(step_class: type) -> None:
    """Let ``pm.sample`` consider a step class when it assigns steps automatically.

    Appends to ``pymc.step_methods.STEP_METHODS`` in place (once): PyMC 5 reads that list through
    ``pm.STEP_METHODS``, the same object, and PyMC 6 imports it by name, so rebinding
    ``pm.STEP_METHODS`` to a new list would not work there. Being last, the class loses every tie
    to PyMC's own steps.

    Parameters
    ----------
    step_class : type
        A ``BlockedStep`` subclass with a ``competence`` static method.
    """
    methods = pymc.step_methods.STEP_METHODS
    if step_class not in methods:
        methods.append(step_class)


#: PyMC 5 functions that call ``set_rng`` at the start of a chain with ``tune`` a local int
_LOOPS_WITH_TUNE = ("_iter_sample", "_prepare_iter_population")
#: and the parallel worker's method, where it is ``self._tune``
_LOOPS_WITH_SELF_TUNE = ("_start_loop",)
_MAX_FRAMES = 12


def warmup_length_from_sampler() -> int | None:
    """The ``tune`` of the PyMC 5 sampling loop that is starting a chain, if one is.

    Call it from ``set_rng``. It looks a few frames up the stack (through ``CompoundStep``) for
    PyMC 5's sequential loop ``_iter_sample``, its population loop ``_prepare_iter_population``
    or its parallel worker ``_start_loop``, and reads their number of warm-up iterations.

    Returns
    -------
    int or None
        None when no such loop is found (the step was called by other code, or PyMC changed).
    """
    frame = inspect.currentframe()
    try:
        for _ in range(_MAX_FRAMES):
            frame = frame.f_back if frame is not None else None
            if frame is None:
                return None
            name, local = frame.f_code.co_name, frame.f_locals
            if name in _LOOPS_WITH_TUNE:
                tune = local.get("tune")
            elif name in _LOOPS_WITH_SELF_TUNE:
                tune = getattr(local.get("self"), "_tune", None)
            else:
                continue
            return int(tune) if isinstance(tune, int) and tune >= 0 else None
        return None
    finally:
        del frame  # break the reference cycle through the frame objects


def sequential_chain() -> tuple[Any, int] | None:
    """The ``pm.sample(cores=1)`` call starting this chain, and the chain's iterations.

    PyMC 5 and 6 run sequential chains in ``_sample_many``, one ``_sample`` call per chain, and
    ``_sample`` ends a chain on ``KeyboardInterrupt`` and goes on with the next one. Call this
    at the start of a chain (``set_rng`` / ``setup_chain``): the first item (that loop's
    progress-bar manager, one per ``pm.sample`` call) lets a step recognise the same call at the
    start of its next chain, and the second (``_iter_sample``'s ``draws``, warm-up included)
    tells it whether the previous chain ran to its end.

    Returns
    -------
    tuple of (object, int), or None
        None when the chain is not started by PyMC's sequential loop (parallel workers,
        population sampling, other code).
    """
    frame = inspect.currentframe()
    iterations = None
    try:
        for _ in range(_MAX_FRAMES):
            frame = frame.f_back if frame is not None else None
            if frame is None:
                return None
            name = frame.f_code.co_name
            if name == "_iter_sample":
                iterations = frame.f_locals.get("draws")
            elif name == "_sample_many":
                call = frame.f_locals.get("progress_manager")
                if call is None or not isinstance(iterations, int):
                    return None
                return call, iterations
        return None
    finally:
        del frame


#: the module of ``pm.sample`` in PyMC 5 and 6, and the local it sets just before sampling
_SAMPLE_MODULE, _SAMPLE_FUNCTION, _SAMPLE_START = "pymc.sampling.mcmc", "sample", "t_start"
#: frames between a log record's filter and ``pm.sample`` (logging, log_warning_stats, the loops)
_MAX_CALL_FRAMES = 30


def sampling_call() -> tuple[int, float] | None:
    """The ``pm.sample`` call running now, as a key that differs between calls, or None.

    Call it from code that ``pm.sample`` runs in the main process (a logging filter on the
    records PyMC logs from the chains' ``warning`` stats). The key is the call's frame and the
    wall-clock time it started sampling at (``t_start``), so two calls never share one even when
    Python reuses a frame's address.

    Returns
    -------
    tuple of (int, float), or None
        None outside ``pm.sample`` (a step driven by hand, other code, or PyMC changed).
    """
    frame = inspect.currentframe()
    try:
        for _ in range(_MAX_CALL_FRAMES):
            frame = frame.f_back if frame is not None else None
            if frame is None:
                return None
            if (
                frame.f_code.co_name == _SAMPLE_FUNCTION
                and frame.f_globals.get("__name__") == _SAMPLE_MODULE
            ):
                started = frame.f_locals.get(_SAMPLE_START)
                return id(frame), float(started) if isinstance(started, float) else 0.0
        return None
    finally:
        del frame


#: PyTensor 3 differentiates Ops through ``Op.pullback``; PyTensor 2 through ``Op.L_op``
OP_HAS_PULLBACK = hasattr(Op, "pullback")
#: PyTensor 3's RandomVariables take ``return_next_rng`` (and warn without it)
RV_RETURNS_NEXT_RNG = "return_next_rng" in inspect.signature(RandomVariable.__call__).parameters


class PullbackOp(Op):
    """An Op whose reverse-mode derivative is its ``pullback`` method, on PyTensor 2 and 3.

    Subclasses implement ``pullback(inputs, outputs, cotangents)`` (PyTensor 3's name and
    signature) and neither ``L_op`` nor ``grad``: PyTensor 3 warns about those and will stop
    calling them. PyTensor 2 only knows ``L_op``, which forwards to ``pullback`` here.
    """

    if not OP_HAS_PULLBACK:

        def L_op(self, inputs, outputs, output_grads):
            """PyTensor 2's name for the pullback."""
            return self.pullback(inputs, outputs, output_grads)


def random_draw(rv_op: RandomVariable, *args: Any, **kwargs: Any) -> Any:
    """A draw of a PyTensor ``RandomVariable`` with a fresh shared generator of its own.

    PyTensor 3 is given the generator explicitly and asked for ``(next_rng, draw)`` (what PyMC
    6 does for ``.dist()``), which silences its two DeprecationWarnings; PyTensor 2 creates the
    same kind of generator itself when none is given.

    Parameters
    ----------
    rv_op : RandomVariable
        Such as ``pytensor.tensor.random.basic.integers``.
    *args, **kwargs
        Its parameters (``size``, ``dtype``, ``name``, ...).

    Returns
    -------
    pytensor TensorVariable
        The draw.
    """
    if not RV_RETURNS_NEXT_RNG:
        return rv_op(*args, **kwargs)
    from pytensor.tensor.random.variable import shared_rng

    _next_rng, draw = rv_op(*args, rng=shared_rng(seed=None), return_next_rng=True, **kwargs)
    return draw


def infer_shape_input_shapes(args: tuple) -> Any:
    """The ``input_shapes`` argument of ``Op.infer_shape``, from PyTensor 2's or 3's arguments.

    Declare ``def infer_shape(self, *args)`` and call this: PyTensor 2 passes
    ``(fgraph, node, input_shapes)``, PyTensor 3 ``(node, input_shapes)`` (and warns when the
    method's signature names an ``fgraph``).
    """
    return args[-1]


# ---------------------------------------------------------------------------------------------
# Sampling results: ArviZ 0.x InferenceData (PyMC 5), xarray DataTree (ArviZ 1, PyMC 6)
# ---------------------------------------------------------------------------------------------

RESULT_TYPES = (
    "the result of pm.sample or pm.sample_smc: an arviz.InferenceData (ArviZ 0.x, PyMC 5), an "
    "xarray.DataTree (ArviZ 1, PyMC 6), or a dict of group name to xarray.Dataset"
)
"""What the functions reading sampling output accept, for their error messages."""


def _inference_data_type() -> type | None:
    if ARVIZ_MAJOR >= 1:  # arviz.InferenceData is gone (ArviZ 1 returns DataTree, with a warning)
        return None
    import arviz

    return arviz.InferenceData


def _datatree_type() -> type | None:
    import xarray

    return getattr(xarray, "DataTree", None)  # xarray >= 2024.10


def _is_dataset(obj: Any) -> bool:
    import xarray

    return isinstance(obj, xarray.Dataset)


def _is_inference_data(obj: Any) -> bool:
    cls = _inference_data_type()
    return cls is not None and isinstance(obj, cls)


def _is_datatree(obj: Any) -> bool:
    cls = _datatree_type()
    return cls is not None and isinstance(obj, cls)


def is_sampling_result(obj: Any) -> bool:
    """Whether ``obj`` is a whole sampling result that :func:`posterior_dataset` reads.

    True for an ArviZ 0.x ``InferenceData``, an ``xarray.DataTree`` (what PyMC 6 returns, or
    ``InferenceData.to_datatree()``) and a mapping of group names to datasets (such as
    ``{"posterior": idata["posterior"]}``). False for anything else, a single
    ``xarray.Dataset`` (one group, not a result) included.
    """
    if _is_inference_data(obj) or _is_datatree(obj):
        return True
    return isinstance(obj, Mapping) and not _is_dataset(obj)


def _not_a_result(obj: Any, reader: str | None) -> TypeError:
    what = f"{reader} expects" if reader else "expected"
    hint = (
        " (this is one group: pass the whole result, or wrap it as {'posterior': dataset})"
        if _is_dataset(obj)
        else ""
    )
    return TypeError(
        f"{what} {RESULT_TYPES}; got {type(obj).__module__}.{type(obj).__name__}{hint}."
    )


def result_groups(result: Any, *, reader: str | None = None) -> tuple[str, ...]:
    """The names of the groups of a sampling result, such as ``("posterior", "sample_stats")``.

    Parameters
    ----------
    result : InferenceData, DataTree or mapping of str to xarray.Dataset
        See :func:`is_sampling_result`.
    reader : str, optional
        Name of the calling function, for the error message.

    Returns
    -------
    tuple of str

    Raises
    ------
    TypeError
        If ``result`` is not a sampling result.
    """
    if _is_inference_data(result):
        return tuple(result.groups())
    if _is_datatree(result):
        return tuple(result.children)
    if is_sampling_result(result):
        return tuple(result)
    raise _not_a_result(result, reader)


def posterior_dataset(result: Any, group: str = "posterior", *, reader: str | None = None) -> Any:
    """One group of a sampling result, as an ``xarray.Dataset``.

    ``result[group]`` is already a Dataset for an ``InferenceData``; a ``DataTree`` node is
    converted with ``to_dataset()``. A mapping's value is returned as it is (a Dataset or any
    object with the same ``[name].values`` / ``in`` / ``sizes`` interface), except a DataTree
    node, which is converted.

    Parameters
    ----------
    result : InferenceData, DataTree or mapping of str to xarray.Dataset
        See :func:`is_sampling_result`.
    group : str, default "posterior"
        Group name, such as ``"sample_stats"`` or ``"warmup_sample_stats"``.
    reader : str, optional
        Name of the calling function, for the error messages.

    Returns
    -------
    xarray.Dataset

    Raises
    ------
    TypeError
        If ``result`` is not a sampling result.
    KeyError
        If it has no such group.
    """
    if not is_sampling_result(result):
        raise _not_a_result(result, reader)
    if group not in result_groups(result):
        where = f" ({reader})" if reader else ""
        raise KeyError(
            f"the sampling result has no {group!r} group{where}; its groups are "
            f"{list(result_groups(result))}"
        )
    value = result[group]
    return value.to_dataset() if _is_datatree(value) else value


def result_from_groups(groups: Mapping[str, Mapping[str, Any]], **kwargs: Any) -> Any:
    """The installed ArviZ's sampling result (InferenceData or DataTree) from arrays by group.

    Parameters
    ----------
    groups : mapping of str to mapping of str to array_like
        For example ``{"posterior": {"x": draws}, "sample_stats": {"accepted": flags}}``, each
        array of shape ``(chain, draw, ...)``.
    **kwargs
        Passed to ``arviz.from_dict`` (``coords``, ``dims``, ...).

    Returns
    -------
    arviz.InferenceData (ArviZ 0.x) or xarray.DataTree (ArviZ 1)
    """
    import arviz

    groups = {name: dict(variables) for name, variables in groups.items()}
    if ARVIZ_MAJOR >= 1:
        return arviz.from_dict(groups, **kwargs)
    return arviz.from_dict(**groups, **kwargs)


# ---------------------------------------------------------------------------------------------
# ArviZ's ESS, MCSE and R-hat of NumPy arrays, the same on ArviZ 0.x and 1
# ---------------------------------------------------------------------------------------------

#: the tail ESS of ArviZ 0.x: the smaller quantile ESS at these probabilities
TAIL_PROBS = (0.05, 0.95)


def _diagnostic_module() -> Any:
    if ARVIZ_MAJOR >= 1:
        import arviz_stats  # what arviz 1 re-exports, without importing arviz_plots

        return arviz_stats
    import arviz

    return arviz


def _per_scalar(fn: Any, x: Any) -> float | np.ndarray:
    """``fn`` on each ``(chain, draw)`` slice of ``x``; a 1-D ``x`` is one chain."""
    x = np.asarray(x, dtype=float)
    if x.ndim == 0:
        raise ValueError("need draws of shape (draw,) or (chain, draw, ...), got a scalar")
    if x.ndim == 1:
        x = x[None, :]
    if x.ndim == 2:
        return float(np.asarray(fn(x)).squeeze())  # ArviZ 0.x's mean MCSE has shape (1,)
    flat = x.reshape(*x.shape[:2], -1)
    out = [float(np.asarray(fn(flat[:, :, k])).squeeze()) for k in range(flat.shape[-1])]
    return np.array(out).reshape(x.shape[2:])


def ess_array(x: Any, method: str = "bulk", prob: Any = None) -> float | np.ndarray:
    """ArviZ's effective sample size of draws in a NumPy array.

    Parameters
    ----------
    x : array_like, shape (draw,) or (chain, draw, ...)
        Draws; a 1-D array is one chain.
    method : str, default "bulk"
        ``"bulk"``, ``"tail"``, ``"mean"``, ``"sd"``, ``"median"``, ``"quantile"``, ...
    prob : float or pair of float, optional
        For ``"quantile"`` (required) and ``"tail"`` (default ``(0.05, 0.95)``, ArviZ 0.x's).

    Returns
    -------
    float or numpy.ndarray
        A float for draws of shape (draw,) or (chain, draw), else an array of shape
        ``x.shape[2:]``.
    """
    module = _diagnostic_module()
    if method == "tail" and prob is None:
        prob = TAIL_PROBS
    kwargs = {"method": method} if prob is None else {"method": method, "prob": prob}
    return _per_scalar(lambda a: module.ess(a, **kwargs), x)


def mcse_array(x: Any, method: str = "mean", prob: Any = None) -> float | np.ndarray:
    """ArviZ's Monte Carlo standard error of draws in a NumPy array.

    Parameters
    ----------
    x : array_like, shape (draw,) or (chain, draw, ...)
        Draws; a 1-D array is one chain.
    method : str, default "mean"
        ``"mean"``, ``"sd"``, ``"median"`` or ``"quantile"``.
    prob : float, optional
        The probability of ``"quantile"``.

    Returns
    -------
    float or numpy.ndarray
        As :func:`ess_array`.
    """
    module = _diagnostic_module()
    kwargs = {"method": method} if prob is None else {"method": method, "prob": prob}
    return _per_scalar(lambda a: module.mcse(a, **kwargs), x)


def rhat_array(x: Any, method: str = "rank") -> float | np.ndarray:
    """ArviZ's R-hat (rank-normalised split R-hat by default) of draws in a NumPy array.

    Parameters
    ----------
    x : array_like, shape (chain, draw, ...)
        Draws.
    method : str, default "rank"

    Returns
    -------
    float or numpy.ndarray
        As :func:`ess_array`.
    """
    module = _diagnostic_module()
    return _per_scalar(lambda a: module.rhat(a, method=method), x)


def pareto_khat_of_log_weights(log_weights: Any) -> float:
    """ArviZ's PSIS Pareto k-hat of importance log weights (below 0.5: reliable estimates).

    Parameters
    ----------
    log_weights : array_like, shape (n,)
        Finite log weights, any additive constant.

    Returns
    -------
    float
    """
    log_weights = np.array(log_weights, dtype=float)  # a copy: ArviZ 0.x smooths in place
    if ARVIZ_MAJOR >= 1:
        from arviz_stats.base import array_stats

        return float(array_stats.psislw(-log_weights)[1])  # it negates its input
    import arviz

    return float(np.asarray(arviz.psislw(log_weights)[1]))
