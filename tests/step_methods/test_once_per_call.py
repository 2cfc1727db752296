"""A notice every chain gives is logged once per ``pm.sample`` call, with one or more processes.

PyMC logs each chain's ``warning`` stat in the main process; the package's filter on that logger
(:mod:`pymc_kameleon.step_methods.once_per_call`) lets the first of each step's kinds through
per call. These tests count the log records: four chains that all give the same notice make one
record per call, with ``cores=1`` and ``cores=2``, and a second call gives its own; every chain's
notice stays in the ``warning`` stat. The control: without the filter, four records.
"""

from __future__ import annotations

import logging
import pickle
import re
from pathlib import Path

import cloudpickle
import numpy as np
import pymc as pm
import pytest
from helpers.sampling import SAMPLE_KW

from pymc_kameleon import AdaptiveMetropolis, KameleonStep, KMCStep
from pymc_kameleon._compat import posterior_dataset, sampling_call
from pymc_kameleon.step_methods.once_per_call import (
    MESSAGES_PAGE,
    PYMC_WARNING_LOGGER,
    Notice,
    OncePerCall,
    install_once_per_call,
)

NO_WARMUP = "pm.sample(tune=0) runs no warm-up"


def gaussian_model() -> pm.Model:
    with pm.Model() as model:
        pm.Normal("x", 0.0, 1.0, shape=2)
    return model


def logged(caplog, text: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if text in r.getMessage()]


def sample_untuned(step_cls, caplog, cores: int, chains: int = 4, **kwargs):
    """``tune=0``: every chain gives the no-warm-up notice at its first iteration."""
    options = {"tune": 0, "draws": 20, "chains": chains, "cores": cores, "random_seed": 3}
    with gaussian_model(), caplog.at_level(logging.WARNING, logger="pymc"):
        return pm.sample(step=step_cls(), **{**SAMPLE_KW, **options, **kwargs})


@pytest.mark.parametrize("cores", [1, 2])
@pytest.mark.parametrize("step_cls", [KameleonStep, AdaptiveMetropolis, KMCStep])
def test_four_chains_one_record_per_call(step_cls, cores, caplog):
    caplog.clear()
    sample_untuned(step_cls, caplog, cores)
    assert len(logged(caplog, NO_WARMUP)) == 1, caplog.text
    sample_untuned(step_cls, caplog, cores)  # the next call says it again, once
    assert len(logged(caplog, NO_WARMUP)) == 2, caplog.text


def test_every_chain_keeps_its_notice_in_the_stat(caplog):
    caplog.clear()
    idata = sample_untuned(AdaptiveMetropolis, caplog, 2, keep_warning_stat=True)
    first = posterior_dataset(idata, "sample_stats")["warning"].values.reshape(4, -1)[:, 0]
    assert all(NO_WARMUP in w.message for w in first)  # all four chains, one record
    assert all(isinstance(w.message, Notice) and w.message.kind == "short_warmup" for w in first)
    assert all("the proposal is never learned" in w.extra for w in first)
    assert len(logged(caplog, NO_WARMUP)) == 1


def test_without_the_filter_every_chain_is_logged(caplog):
    """The negative control: the same call without the filter logs four records."""
    logger = logging.getLogger(PYMC_WARNING_LOGGER)
    installed = install_once_per_call()
    logger.removeFilter(installed)
    try:
        caplog.clear()
        sample_untuned(AdaptiveMetropolis, caplog, 1)
        assert len(logged(caplog, NO_WARMUP)) == 4
    finally:
        logger.addFilter(installed)


def test_installing_twice_keeps_one_filter():
    logger = logging.getLogger(PYMC_WARNING_LOGGER)
    assert install_once_per_call() is install_once_per_call()
    assert sum(isinstance(f, OncePerCall) for f in logger.filters) == 1


def test_other_records_and_notices_outside_pm_sample_pass(caplog):
    logger = logging.getLogger(PYMC_WARNING_LOGGER)
    notice = Notice("S: a notice.", "kind", "S")
    assert sampling_call() is None
    with caplog.at_level(logging.WARNING, logger="pymc"):
        caplog.clear()
        for _ in range(2):
            logger.warning(notice)  # (a step driven by hand: no call to count in)
            logger.warning("The rhat statistic is larger than 1.01 for some parameters.")
    assert len(logged(caplog, "a notice")) == 2
    assert len(logged(caplog, "rhat")) == 2


def test_kinds_and_steps_are_counted_apart():
    gate = OncePerCall()
    calls = iter([(1, 1.0)] * 4 + [(2, 2.0)])
    gate_call = lambda: next(calls)  # noqa: E731

    def passes(notice):
        record = logging.LogRecord("x", logging.WARNING, "", 0, notice, None, None)
        return gate.filter(record)

    import pymc_kameleon.step_methods.once_per_call as module

    original, module.sampling_call = module.sampling_call, gate_call
    try:
        assert passes(Notice("a", "short_warmup", "KMCStep"))
        assert passes(Notice("b", "divergences", "KMCStep"))  # another kind
        assert passes(Notice("c", "short_warmup", "AdaptiveMetropolis"))  # another step
        assert not passes(Notice("d", "short_warmup", "KMCStep"))  # a repeat
        assert passes(Notice("e", "short_warmup", "KMCStep"))  # the next call
    finally:
        module.sampling_call = original


@pytest.mark.parametrize("dumps", [pickle.dumps, cloudpickle.dumps])
def test_a_notice_crosses_processes_with_its_kind(dumps):
    notice = Notice("KMCStep: short.", "short_warmup", "KMCStep", details="long")
    back = pickle.loads(dumps(notice))
    assert back == notice and isinstance(back, Notice)
    assert (back.kind, back.step, back.details) == ("short_warmup", "KMCStep", "long")
    assert np.array([back], dtype=object)[0].kind == "short_warmup"


def test_every_section_a_message_names_is_on_the_docs_page():
    root = Path(__file__).resolve().parents[2]
    named = set()
    for path in (root / "pymc_kameleon").rglob("*.py"):
        named |= set(re.findall(r'see_page\("([a-z_]+)"\)', path.read_text()))
    assert {"short_warmup", "several_modes", "divergences", "stuck_chain"} <= named
    page = (root / MESSAGES_PAGE).read_text()
    targets = set(re.findall(r"^\(([a-z-]+)\)=$", page, flags=re.MULTILINE))
    assert {kind.replace("_", "-") for kind in named} <= targets
    assert {"start-up-fallback", "minor-modes"} <= targets  # the facts the stats keep
