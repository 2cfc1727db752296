"""The shipped CSV tables of the real-model suite, read into float columns.

The files live in ``pymc_kameleon/bench/real/data`` (sources and licences in
``data/SOURCES.md``). :mod:`.models`, :mod:`.blackbox` and :mod:`.pk_ode` all read them through
:func:`load_table`, which imports nothing else of the package.
"""

from __future__ import annotations

import csv
from importlib import resources

import numpy as np

__all__ = ["load_table"]


def load_table(name: str) -> dict[str, np.ndarray]:
    """Read one of the shipped CSV files into float columns.

    Parameters
    ----------
    name : str
        File name in ``pymc_kameleon/bench/real/data`` (e.g. ``"longley.csv"``).

    Returns
    -------
    dict of str to numpy.ndarray
        One float64 array per column, keyed by the header.
    """
    path = resources.files("pymc_kameleon.bench.real") / "data" / name
    with path.open() as handle:
        rows = list(csv.reader(handle))
    header, values = rows[0], np.array(rows[1:], dtype=float)
    return {col: values[:, k] for k, col in enumerate(header)}
