"""Real-model validation suite: ordinary PyMC posteriors on real data, scored against NUTS.

* :mod:`.models`: twelve PyMC models and three black-box ones (:mod:`.blackbox`: SciPy ODE
  solves and a NumPy Kalman filter in Ops without a gradient); data in ``data/``, sources and
  licences in ``data/SOURCES.md``;
* :mod:`.reference`: long NUTS runs, summarised in ``references/`` (shipped);
* :mod:`.scoring`: the pass rule, every tolerance in Monte Carlo standard errors;
* :mod:`.suite`: every model x sampler, JSON-lines results with resume, markdown table.

Command line::

    python -m pymc_kameleon.bench real [--size full|ci] [--models ...] [--samplers ...]
                                       [--jobs N] [--out DIR]
    python -m pymc_kameleon.bench real-references [--models ...]
    python -m pymc_kameleon.bench real-report DIR

The suite depends only on PyMC's public sampling API and on the step classes' constructors,
never on the samplers' internals.
"""

from pymc_kameleon.bench.real.models import CI_MODELS, REAL_MODELS, RealModel, get_real_model
from pymc_kameleon.bench.real.reference import Reference, load_reference
from pymc_kameleon.bench.real.scoring import Score, Tolerances, score_draws, score_run

__all__ = [
    "CI_MODELS",
    "REAL_MODELS",
    "RealModel",
    "Reference",
    "Score",
    "Tolerances",
    "get_real_model",
    "load_reference",
    "score_draws",
    "score_run",
]
