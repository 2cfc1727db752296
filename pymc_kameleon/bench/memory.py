"""Peak resident memory of one benchmark task.

On Linux, writing ``5`` to ``/proc/self/clear_refs`` resets the process's peak resident set
size (``VmHWM`` in ``/proc/self/status``) to its current one, so the peak after a task is that
task's own, even in a worker process that ran other tasks before. Elsewhere the peak falls back
to ``resource.getrusage``'s lifetime maximum, which only bounds the task's from above.
"""

from __future__ import annotations

import contextlib
import math
import resource
import sys
from pathlib import Path

__all__ = ["PeakMemory"]

_STATUS = Path("/proc/self/status")
_CLEAR_REFS = Path("/proc/self/clear_refs")


def _status_mb(field: str) -> float:
    """A ``kB`` field of ``/proc/self/status`` in MiB (NaN when it cannot be read)."""
    try:
        for line in _STATUS.read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return math.nan


def _lifetime_peak_mb() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024.0 / (1024.0 if sys.platform == "darwin" else 1.0)  # bytes on macOS


class PeakMemory:
    """Measure the peak resident memory between :meth:`start` and :meth:`scores`.

    Examples
    --------
    >>> meter = PeakMemory()
    >>> meter.start()
    >>> scores = meter.scores()
    >>> sorted(scores)
    ['peak_rss_mb', 'peak_rss_increase_mb', 'peak_rss_scope']
    """

    def __init__(self) -> None:
        self.start_mb = math.nan
        self.scope = "lifetime"

    def start(self) -> None:
        """Reset the peak (where the system allows it) and note the current resident size."""
        self.scope = "lifetime"
        with contextlib.suppress(OSError):
            _CLEAR_REFS.write_text("5")
            self.scope = "task"
        self.start_mb = _status_mb("VmRSS")

    def scores(self) -> dict[str, float | str]:
        """The peak since :meth:`start`, in MiB, and its increase over the resident size then.

        Returns
        -------
        dict
            ``peak_rss_mb``, ``peak_rss_increase_mb`` (NaN when the start size is unknown)
            and ``peak_rss_scope``: ``"task"`` when the peak was reset at the start,
            ``"lifetime"`` when it is the process's maximum so far.
        """
        peak = _status_mb("VmHWM") if self.scope == "task" else _lifetime_peak_mb()
        return {
            "peak_rss_mb": peak,
            "peak_rss_increase_mb": peak - self.start_mb,
            "peak_rss_scope": self.scope,
        }
