"""The steps' columns in PyMC's progress bar, declared as data."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rich.progress import TextColumn
from rich.table import Column

__all__ = ["ProgressField", "progressbar_config", "progressbar_updater"]


@dataclass(frozen=True)
class ProgressField:
    """One progress-bar column, showing one sampler stat of the latest iteration.

    Parameters
    ----------
    field : str
        Name of the column's field in PyMC's progress bar.
    header : str
        Column title.
    stat : str
        The sampler stat shown (NaN when an iteration does not report it).
    spec : str, default ""
        Format spec of the value (e.g. ``"0.2f"``).
    convert : callable, default float
        Applied to the stat (e.g. ``int`` for a count).
    """

    field: str
    header: str
    stat: str
    spec: str = ""
    convert: Callable[[Any], Any] = float


def progressbar_config(fields: Sequence[ProgressField], n_chains: int = 1):
    """PyMC's ``_progressbar_config``: the columns and their initial values per chain.

    Parameters
    ----------
    fields : sequence of ProgressField
    n_chains : int, default 1

    Returns
    -------
    tuple of (list of rich.progress.TextColumn, dict of str to list)
    """
    columns = [
        TextColumn(
            "{task.fields[%s]%s}" % (f.field, f":{f.spec}" if f.spec else ""),  # noqa: UP031
            table_column=Column(f.header),
        )
        for f in fields
    ]
    return columns, {f.field: [f.convert(0)] * n_chains for f in fields}


def progressbar_updater(fields: Sequence[ProgressField]):
    """PyMC's ``_make_progressbar_update_functions``: stats of an iteration to column values.

    Parameters
    ----------
    fields : sequence of ProgressField

    Returns
    -------
    tuple of one callable
    """

    def update_stats(step_stats):
        return {f.field: f.convert(step_stats.get(f.stat, math.nan)) for f in fields}

    return (update_stats,)
