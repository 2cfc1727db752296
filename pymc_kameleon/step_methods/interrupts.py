"""Ctrl-C during ``pm.sample(cores=1)``: stop every remaining chain, keep what was drawn.

PyMC's sequential loop runs one chain after the other and ends a chain on ``KeyboardInterrupt``,
then starts the next one: Ctrl-C in the first of four long chains stopped only that chain (to
the user, the interrupt was ignored). With ``cores > 1`` PyMC stops every chain and keeps the
draws made so far. :func:`stop_if_interrupted`, called by every step at the start of a chain,
gives ``cores=1`` the same behaviour: a chain of the same ``pm.sample`` call that ended before
its last iteration was interrupted (any other error leaves ``pm.sample`` altogether), so the
new chain raises ``KeyboardInterrupt`` at once, and PyMC keeps the draws of the earlier chains.

The record lives on PyMC's object for the call (its progress-bar manager, one per
``pm.sample`` call, found by :func:`pymc_kameleon._compat.sequential_chain`), so it ends with
the call and never stops a later one.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from pymc_kameleon._compat import sequential_chain

__all__ = ["compiled_code_interrupts", "stop_if_interrupted"]

#: attributes set on PyMC's object for the call: whether a chain was interrupted, and each
#: step's number of iterations in its current chain
_INTERRUPTED = "_pymc_kameleon_interrupted"
_CHAIN_ITERATIONS = "_pymc_kameleon_chain_iterations"


def stop_if_interrupted(step_id: int, previous_iterations: int) -> None:
    """At the start of a chain: raise ``KeyboardInterrupt`` if the user interrupted this call.

    Parameters
    ----------
    step_id : int
        ``id()`` of the step (stable for the duration of the call).
    previous_iterations : int
        The iterations the step completed in its previous chain.

    Raises
    ------
    KeyboardInterrupt
        When an earlier chain of the same sequential ``pm.sample`` call was interrupted.
    """
    started = sequential_chain()
    if started is None:  # not PyMC's sequential loop (parallel workers, populations, tests)
        return
    call, iterations = started
    if not hasattr(call, "__dict__"):  # (PyMC changed: nothing to keep the record on)
        return
    expected = call.__dict__.setdefault(_CHAIN_ITERATIONS, {})
    if getattr(call, _INTERRUPTED, False) or previous_iterations < expected.get(step_id, 0):
        setattr(call, _INTERRUPTED, True)
        raise KeyboardInterrupt
    expected[step_id] = iterations


@contextlib.contextmanager
def compiled_code_interrupts() -> Iterator[None]:
    """Raise, as the ``KeyboardInterrupt`` it is, Ctrl-C that hit a compiled (Numba) call.

    CPython reports a C function that returned while the interrupt was pending as a
    ``SystemError`` ("returned a result with an exception set") caused by the
    ``KeyboardInterrupt``; any other ``SystemError`` passes unchanged.
    """
    try:
        yield
    except SystemError as error:
        if not isinstance(error.__cause__, KeyboardInterrupt):
            raise
        raise error.__cause__ from None
