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
- PyMC 6 returns an ``xarray.DataTree`` instead of ``arviz.InferenceData``; the package reads
  results only as ``idata["posterior"]`` / ``idata["sample_stats"]``, which work on both.
"""

from __future__ import annotations

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
