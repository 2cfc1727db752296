"""Suite-wide test settings.

**Seed offset.** ``python -m pytest --seed-offset N`` (or the environment variable
``KAMELEON_TEST_SEED_OFFSET=N``) adds ``N`` to every integer ``random_seed`` passed to
``pm.sample`` anywhere in the suite (tests, README and docs code blocks, examples, the bench
suite), so the whole suite runs at other seeds than the ones written in it. No test may pass
only at a lucky seed; the statistical tests are budgeted from a seed sweep
(``tests/statistical/seed_sweep.py``).

**Tiers.** ``python -m pytest`` runs the fast tier: every unit, contract and bad-input test and a
short statistical smoke of each sampler (``tests/test_smoke.py``). ``python -m pytest --tier
statistical`` runs the rest: the full statistical validation (every exactness test with its
negative control, the frozen-kernel invariance cases, the SMC tests: everything under
``tests/statistical/`` and every test marked ``statistical``) and the long end-to-end runs marked
``slow``. ``--tier all`` runs both. CI runs the two tiers one after the other.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import pymc as pm
import pytest

SEED_OFFSET_ENV = "KAMELEON_TEST_SEED_OFFSET"


DURATIONS_FILE = Path(__file__).with_name("durations.json")
TIERS = ("fast", "statistical", "all")
#: Markers whose tests make up the statistical tier; every other test is in the fast tier.
STATISTICAL_MARKERS = ("statistical", "slow")


def pytest_addoption(parser):
    parser.addoption(
        "--tier",
        choices=TIERS,
        default="fast",
        help="fast (default): units, contracts, bad input, a statistical smoke of each sampler; "
        "statistical: the full statistical validation and the long runs; all: both",
    )
    parser.addoption(
        "--seed-offset",
        type=int,
        default=None,
        help=f"add this to every integer random_seed given to pm.sample (env: {SEED_OFFSET_ENV})",
    )


_BLAS_LIMIT = []


def pytest_configure(config):
    # One BLAS thread per pytest-xdist worker: the workers already take one core each, and
    # OpenBLAS's default threads fighting them for the cores made one-process KameleonStep
    # sampling at d = 50 take 40-56 s instead of 1 s on a loaded machine (issue 29's audit).
    if os.environ.get("PYTEST_XDIST_WORKER"):
        from threadpoolctl import threadpool_limits

        _BLAS_LIMIT.append(threadpool_limits(limits=1, user_api="blas"))


def _seed_offset(config) -> int:
    option = config.getoption("--seed-offset")
    if option is not None:
        return int(option)
    return int(os.environ.get(SEED_OFFSET_ENV, "0"))


def pytest_report_header(config):
    tier = config.getoption("--tier")
    return f"pymc-kameleon test tier: {tier}; seed offset: {_seed_offset(config)}"


@pytest.fixture(scope="session")
def seed_offset(request) -> int:
    """The suite-wide seed offset (0 unless ``--seed-offset`` or the environment sets it)."""
    return _seed_offset(request.config)


def shift_seed(seed, offset: int):
    """``seed`` moved by ``offset``: ints and sequences of ints; anything else unchanged."""
    if isinstance(seed, bool):
        return seed
    if isinstance(seed, int):
        return seed + offset
    if isinstance(seed, Sequence) and seed and all(isinstance(s, int) for s in seed):
        return type(seed)(s + offset for s in seed)
    return seed


@pytest.fixture(scope="session", autouse=True)
def _offset_sample_seeds(seed_offset):
    """Shift every ``pm.sample``/``pm.sample_smc`` seed, for the whole session.

    Session-wide so that module-scoped fixtures sample with the offset too (a function-scoped
    patch came after them, and a test comparing a fixture's run with its own saw two seeds).
    """
    if seed_offset == 0:
        yield
        return
    original = pm.sample
    original_smc = pm.sample_smc

    def sample(*args, random_seed=None, **kwargs):
        return original(*args, random_seed=shift_seed(random_seed, seed_offset), **kwargs)

    def sample_smc(*args, random_seed=None, **kwargs):
        return original_smc(*args, random_seed=shift_seed(random_seed, seed_offset), **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pm, "sample", sample)
        patch.setattr(pm, "sample_smc", sample_smc)
        yield


def _in_statistical_tier(item) -> bool:
    return any(item.get_closest_marker(name) for name in STATISTICAL_MARKERS)


def _recorded_durations() -> dict[str, float]:
    """Seconds per test of an earlier run (``tools/record_test_durations.py``), if recorded."""
    try:
        return json.loads(DURATIONS_FILE.read_text())
    except (OSError, ValueError):
        return {}


def pytest_collection_modifyitems(config, items):
    """Keep the chosen tier's tests, longest first.

    Everything under ``tests/statistical/`` is marked ``statistical`` here. pytest-xdist hands
    tests out in list order; longest first (by ``durations.json``, the statistical tier before
    the fast one where nothing is recorded) keeps one worker from idling at the end while the
    other runs a minute-long test.
    """
    for item in items:
        if "statistical" in item.path.parts:
            item.add_marker(pytest.mark.statistical)
    tier = config.getoption("--tier")
    if tier != "all":
        want_statistical = tier == "statistical"
        kept = [item for item in items if _in_statistical_tier(item) == want_statistical]
        deselected = [item for item in items if _in_statistical_tier(item) != want_statistical]
        if deselected:
            config.hook.pytest_deselected(items=deselected)
        items[:] = kept
    seconds = _recorded_durations()
    items.sort(key=lambda item: (-seconds.get(item.nodeid, 0.0), not _in_statistical_tier(item)))


def pytest_terminal_summary(terminalreporter):
    """Print the figures tests recorded as ``measured`` (README and docs figures to re-read)."""
    lines = [
        f"{report.nodeid}: {value}"
        for reports in terminalreporter.stats.values()
        for report in reports
        if getattr(report, "when", None) == "call"
        for name, value in getattr(report, "user_properties", ())
        if name == "measured"
    ]
    if lines:
        terminalreporter.section("figures quoted in README.md and docs/, measured in this run")
        for line in sorted(lines):
            terminalreporter.write_line(line)
