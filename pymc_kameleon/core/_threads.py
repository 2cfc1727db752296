"""One BLAS thread for the small dense solves of KMC's surrogate refits.

The matrices involved (a few hundred rows) gain nothing from several BLAS threads, and on a
machine whose cores are busy (other chains, other processes) OpenBLAS threads that spin-wait for
each other made a KMC refit 5-10 times slower in our measurements. ``threadpoolctl`` limits the
threads for the duration of a ``with`` block (about 8 µs per block); without it the block is a
no-op.
"""

from __future__ import annotations

import contextlib
from typing import Any

__all__ = ["single_blas_thread"]

_CONTROLLER: Any = None


def single_blas_thread() -> contextlib.AbstractContextManager:
    """Context manager that limits BLAS to one thread inside its block.

    Returns
    -------
    contextlib.AbstractContextManager
        A ``threadpoolctl`` limiter, or ``contextlib.nullcontext()`` if threadpoolctl is not
        installed.
    """
    global _CONTROLLER
    if _CONTROLLER is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # pragma: no cover - threadpoolctl is a dependency
            _CONTROLLER = False
        else:
            _CONTROLLER = ThreadpoolController()
    if _CONTROLLER is False:  # pragma: no cover
        return contextlib.nullcontext()
    return _CONTROLLER.limit(limits=1, user_api="blas")
