"""Look up a benchmark problem by name: the fixed problems and the dimension families.

:data:`~pymc_kameleon.bench.problems.PROBLEMS` holds the fixed problems;
:func:`~pymc_kameleon.bench.dimension.dimension_problem` builds a target of any dimension from its
name. :func:`get_problem` asks one and then the other, so this module sits above both (neither of
them imports it).
"""

from __future__ import annotations

from pymc_kameleon.bench.dimension import dimension_problem
from pymc_kameleon.bench.problems import PROBLEMS, Problem

__all__ = ["get_problem"]


def get_problem(name: str) -> Problem:
    """Look up a problem by name, with an error that lists the valid names.

    Parameters
    ----------
    name : str
        A name in :data:`~pymc_kameleon.bench.problems.PROBLEMS`, or a target of any dimension
        (see :func:`~pymc_kameleon.bench.dimension.dimension_problem`).

    Returns
    -------
    Problem
    """
    if name in PROBLEMS:
        return PROBLEMS[name]
    problem = dimension_problem(name)
    if problem is None:
        raise KeyError(
            f"unknown benchmark problem {name!r}; choose one of {', '.join(PROBLEMS)}, or a "
            "target of any dimension d: 'gamma-gauss-{d}' or 'banana-{b}-d{d}' (0 < b < 1)"
        )
    return problem
