"""The few places where PyMC 5 and PyMC 6 differ, kept in one module.

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
- PyMC 6 returns an ``xarray.DataTree`` instead of ``arviz.InferenceData``; the package reads
  results only as ``idata["posterior"]`` / ``idata["sample_stats"]``, which work on both.
"""

from __future__ import annotations

import inspect

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

__all__ = [
    "EMIT_TUNE_STAT",
    "PYMC_MAJOR",
    "ArrayStepShared",
    "Competence",
    "RaveledVars",
    "SamplerWarning",
    "StepMethodState",
    "WarningType",
    "ancestors",
    "compile_pytensor",
    "continuous_types",
    "dataclass_state",
    "find_rng_nodes",
    "get_value_vars_from_user_vars",
    "join_nonshared_inputs",
    "make_shared_replacements",
    "modelcontext",
    "register_step_method",
    "rvs_in_graph",
    "warmup_length_from_sampler",
]

PYMC_MAJOR = int(pymc.__version__.split(".")[0])

#: Older PyMC releases (at least 5.18-5.21) count warm-up draws from a ``tune`` stat of the first
#: step whenever any step emits one (NUTS does), and fail with KeyError if the first step lacks
#: it. Emit it exactly when PyMC's own Metropolis does in the installed release.
EMIT_TUNE_STAT = "tune" in pymc.step_methods.metropolis.Metropolis.stats_dtypes_shapes


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
