"""One message per ``pm.sample`` call: a chain's notice said once, however many chains give it.

A chain hands its notices to PyMC in its ``warning`` stat
(:class:`~pymc_kameleon.step_methods.chain_health.ChainHealth`), and PyMC logs each one in the
main process on the ``pymc.stats.convergence`` logger as the chain passes that iteration, with
``cores=1`` and with worker processes alike. Every chain of a call would give the same notice (a
too short warm-up, the same divergence advice), so :class:`OncePerCall`, a filter on that
logger, lets through the first of each kind per step and per call and drops the others. The
dropped ones stay in the ``warning`` stat (``pm.sample(keep_warning_stat=True)``), each with its
details in ``SamplerWarning.extra``.

A notice is a :class:`Notice`: its text, and the kind and step the filter tells them apart by.
It is a ``str``, so PyMC logs it and stores it as any message; it survives the pickling between
processes with its kind.
"""

from __future__ import annotations

import logging

from pymc_kameleon._compat import sampling_call

__all__ = ["MESSAGES_PAGE", "Notice", "OncePerCall", "install_once_per_call", "see_page"]

#: the docs page that explains each notice (its sections are the notices' kinds)
MESSAGES_PAGE = "docs/howto/messages.md"
#: the logger PyMC logs the chains' ``warning`` stats on
PYMC_WARNING_LOGGER = "pymc.stats.convergence"


def see_page(kind: str) -> str:
    """The pointer a short message ends with: the docs page and the section of ``kind``."""
    return f"Details: {MESSAGES_PAGE}#{kind.replace('_', '-')}."


class Notice(str):
    """A message of one of our steps, with the kind and step it is deduplicated by.

    Parameters
    ----------
    text : str
        The message logged (at most two sentences and a pointer to the docs page).
    kind : str
        What it is about (``"short_warmup"``, ``"several_modes"``, ...), a section of the docs
        page.
    step : str
        The step's class name.
    details : str, optional
        The full explanation, kept in ``SamplerWarning.extra``.
    """

    kind: str
    step: str
    details: str

    def __new__(cls, text: str, kind: str, step: str, details: str = "") -> Notice:
        notice = super().__new__(cls, text)
        notice.kind, notice.step, notice.details = kind, step, details
        return notice

    def __reduce__(self) -> tuple:
        # (str's own pickling would drop the attributes on the way from a worker process)
        return type(self), (str(self), self.kind, self.step, self.details)


class OncePerCall(logging.Filter):
    """Let through the first :class:`Notice` of each step and kind in a ``pm.sample`` call.

    Records that are not our notices pass unchanged, and so do notices logged outside
    ``pm.sample`` (a step driven by hand: there is no call to count in).
    """

    def __init__(self) -> None:
        super().__init__()
        self._call: tuple[int, float] | None = None
        self._given: set[tuple[str, str]] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        """Whether ``record`` is logged (False: a repeat within the same call)."""
        notice = record.msg
        if not isinstance(notice, Notice):
            return True
        call = sampling_call()
        if call is None:
            return True
        if call != self._call:
            self._call, self._given = call, set()
        key = (notice.step, notice.kind)
        if key in self._given:
            return False
        self._given.add(key)
        return True


def install_once_per_call() -> OncePerCall:
    """Put the filter on PyMC's warning logger (once; importing the package calls this).

    Returns
    -------
    OncePerCall
        The installed filter.
    """
    logger = logging.getLogger(PYMC_WARNING_LOGGER)
    for existing in logger.filters:
        if isinstance(existing, OncePerCall):
            return existing
    installed = OncePerCall()
    logger.addFilter(installed)
    return installed
